//! Paging: a 50,000-row partition read through `fetch_stream` with page size 500 yields every
//! row exactly once, in clustering order, and the client's memory while streaming does not
//! grow with the partition.
//!
//! Memory is measured, not assumed: this test binary's global allocator counts live heap
//! bytes (every thread: the test, the runtime, the driver's connection and pager tasks) and
//! keeps their peak. The peak above the baseline while streaming a 5,000-row partition, while
//! streaming a 50,000-row one, and while collecting the 50,000 rows with `fetch_all` are
//! compared side by side. `cargo test --test paging -- --nocapture` prints them.
//!
//! This binary holds a single test so that nothing else allocates while it measures.
//! `CASSMODEL_TEST_PAGING_ROWS=1000000` streams that many rows instead of 50,000 (the figure
//! in BENCHMARKS.md).

mod support;

use std::time::Instant;

use cassmodel::{CassTable, Db};
use futures::StreamExt;
use peak_alloc::PeakAlloc;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

/// One partition `part`, rows ordered by `seq` ascending.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "paged_rows")]
struct PagedRow {
    #[partition_key]
    part: i32,
    #[clustering(asc)]
    seq: i32,
    payload: String,
}

/// Rows of the large partition: 50,000, or `CASSMODEL_TEST_PAGING_ROWS`.
fn big_rows() -> usize {
    std::env::var("CASSMODEL_TEST_PAGING_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000)
}
const SMALL: usize = 5_000;
const PAGE: i32 = 500;
/// Bytes of `payload` per row.
const PAYLOAD: usize = 100;

/// The clustering key of the `i`-th row: spaced out, so that "the keys read are the keys
/// written" is more than "there are `n` of them".
fn seq_of(i: usize) -> i32 {
    i32::try_from(i * 3 + 7).expect("small")
}

/// The inverse of [`seq_of`], if `seq` is one of its values below `n`.
fn index_of(seq: i32, n: usize) -> Option<usize> {
    let s = usize::try_from(seq).ok()?.checked_sub(7)?;
    (s % 3 == 0 && s / 3 < n).then_some(s / 3)
}

fn payload(part: i32, seq: i32) -> String {
    let mut s = format!("partition {part} row {seq} ");
    while s.len() < PAYLOAD {
        s.push('x');
    }
    s
}

async fn load(db: &Db, part: i32, n: usize) {
    let rows = (0..n).map(|i| {
        let seq = seq_of(i);
        PagedRow {
            part,
            seq,
            payload: payload(part, seq),
        }
    });
    support::insert_all(db, rows).await;
}

/// What one streamed read saw and cost.
struct Streamed {
    rows: usize,
    /// Peak live heap bytes above the baseline taken just before the query.
    peak: usize,
}

/// Streams partition `part` (of `n` rows) with `page_size(PAGE)`, checking every row as it
/// arrives: keys strictly increasing, each a written key, none twice, payload intact; then
/// that no written key is missing. The only per-row state is `seen`, allocated before the
/// baseline, so it is not counted as streaming memory.
async fn stream_and_check(db: &Db, part: i32, n: usize) -> Streamed {
    let mut seen = vec![false; n];
    let base = start_measuring();
    let mut stream = PagedRow::select()
        .part(&part)
        .page_size(PAGE)
        .fetch_stream(db)
        .await
        .expect("stream");
    let (mut rows, mut last) = (0usize, None::<i32>);
    while let Some(row) = stream.next().await {
        let row = row.expect("row");
        assert_eq!(row.part, part, "row of another partition");
        if let Some(prev) = last {
            assert!(
                row.seq > prev,
                "out of order: {} after {prev} (row {rows})",
                row.seq
            );
        }
        let i = index_of(row.seq, n).unwrap_or_else(|| panic!("key {} never written", row.seq));
        assert!(!seen[i], "key {} read twice", row.seq);
        seen[i] = true;
        assert_eq!(
            row.payload,
            payload(part, row.seq),
            "payload of {}",
            row.seq
        );
        last = Some(row.seq);
        rows += 1;
    }
    drop(stream);
    let peak = peak_since(base);
    assert_eq!(rows, n, "row count of partition {part}");
    let missing: Vec<i32> = (0..n).filter(|&i| !seen[i]).map(seq_of).take(5).collect();
    assert!(missing.is_empty(), "keys never read, e.g. {missing:?}");
    Streamed { rows, peak }
}

/// Resets the peak to the current live bytes and returns them (the baseline).
fn start_measuring() -> usize {
    ALLOC.reset_peak_usage();
    ALLOC.current_usage()
}

fn peak_since(base: usize) -> usize {
    ALLOC.peak_usage().saturating_sub(base)
}

fn kib(bytes: usize) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_of_50k_rows_is_complete_ordered_and_constant_memory() {
    let t = support::test_db("paging").await;
    t.db.create_table::<PagedRow>().await.expect("create");
    let (big, small) = (1, 2);
    let big_n = big_rows();

    let started = Instant::now();
    load(&t.db, big, big_n).await;
    load(&t.db, small, SMALL).await;
    eprintln!(
        "paging: inserted {} rows in {:.1?}",
        big_n + SMALL,
        started.elapsed()
    );

    // Warm-up (unmeasured): prepares the statement and lets the driver's buffers reach
    // their working size, so neither measured read pays for a first use.
    stream_and_check(&t.db, small, SMALL).await;

    let started = Instant::now();
    let s = stream_and_check(&t.db, small, SMALL).await;
    let b = stream_and_check(&t.db, big, big_n).await;
    eprintln!(
        "paging: streamed {} + {} rows with page size {PAGE} in {:.1?}",
        s.rows,
        b.rows,
        started.elapsed()
    );

    // The same 50,000 rows collected into a Vec, for scale.
    let base = start_measuring();
    let all = PagedRow::select()
        .part(&big)
        .page_size(PAGE)
        .fetch_all(&t.db)
        .await
        .expect("fetch_all");
    let collected = peak_since(base);
    assert_eq!(all.len(), big_n);
    assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
    drop(all);

    eprintln!(
        "paging: peak live heap above baseline: stream {SMALL} rows {}, stream {big_n} rows {}, \
         fetch_all {big_n} rows {} (rows of {PAYLOAD}-byte payload, page size {PAGE})",
        kib(s.peak),
        kib(b.peak),
        kib(collected)
    );

    // Ten times the rows must not mean (much) more memory: at most twice the small
    // partition's peak plus 256 KiB of slack for allocator and driver noise (a page of these
    // rows is ~70 KiB on the wire).
    let slack = 256 * 1024;
    assert!(
        b.peak < 2 * s.peak + slack,
        "streaming memory grows with the partition: {} for {big_n} rows vs {} for {SMALL}",
        kib(b.peak),
        kib(s.peak)
    );
    // And it is a small fraction of holding the rows.
    assert!(
        b.peak * 10 < collected,
        "streaming {big_n} rows peaked at {}, not far below collecting them ({})",
        kib(b.peak),
        kib(collected)
    );

    t.drop_all().await;
}
