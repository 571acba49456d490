//! Streaming over buckets: a read of a range that spans 40 buckets of 1,000 rows through
//! `<source>_range(..).fetch_stream` (page size 250, two buckets in flight) yields every row
//! once, in clustering order, and the client's memory while streaming does not grow with the
//! number of buckets.
//!
//! Measured as in `tests/paging.rs`: this binary's global allocator counts live heap bytes and
//! keeps their peak; the peak above the baseline while streaming 4 buckets, while streaming 40,
//! and while collecting the 40 buckets with `fetch_all` are compared.
//! `cargo test --test bucket_paging -- --nocapture` prints them. One test per binary, so that
//! nothing else allocates while it measures.

mod support;

use cassmodel::{CassTable, Db};
use futures::StreamExt;
use peak_alloc::PeakAlloc;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

/// Readings of a sensor, in buckets of 1,000 sequence numbers.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "bucketed_rows")]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering]
    #[cass(bucket(width = 1000))]
    seq: i32,
    payload: String,
}

const WIDTH: i32 = 1000;
const BIG: i32 = 40 * WIDTH;
const SMALL: i32 = 4 * WIDTH;
const PAGE: i32 = 250;

fn payload(sensor: i32, seq: i32) -> String {
    let mut s = format!("sensor {sensor} reading {seq} ");
    while s.len() < 100 {
        s.push('x');
    }
    s
}

async fn load(db: &Db, sensor: i32, n: i32) {
    let rows = (0..n).map(|seq| Reading {
        sensor,
        seq,
        payload: payload(sensor, seq),
    });
    support::insert_all(db, rows).await;
}

/// Streams `0..n` of `sensor` over its buckets, checking each row as it arrives (the next
/// sequence number, payload intact); returns the peak live heap above the baseline.
async fn stream_and_check(db: &Db, sensor: i32, n: i32) -> usize {
    ALLOC.reset_peak_usage();
    let base = ALLOC.current_usage();
    let mut stream = Reading::select()
        .sensor(&sensor)
        .seq_range(0..n)
        .page_size(PAGE)
        .concurrency(2)
        .fetch_stream(db)
        .await
        .expect("stream");
    let mut next = 0;
    while let Some(row) = stream.next().await {
        let row = row.expect("row");
        assert_eq!(
            row.seq, next,
            "rows in clustering order, none missing or twice"
        );
        assert_eq!(row.payload, payload(sensor, row.seq));
        next += 1;
    }
    drop(stream);
    assert_eq!(next, n, "every row of the range");
    ALLOC.peak_usage().saturating_sub(base)
}

fn kib(bytes: usize) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_40_buckets_is_complete_ordered_and_constant_memory() {
    let t = support::test_db("bucket_paging").await;
    t.db.create_table::<Reading>().await.expect("create");
    load(&t.db, 1, BIG).await;
    load(&t.db, 2, SMALL).await;

    // Warm-up (unmeasured): prepares the statement, sizes the driver's buffers.
    stream_and_check(&t.db, 2, SMALL).await;
    let small = stream_and_check(&t.db, 2, SMALL).await;
    let big = stream_and_check(&t.db, 1, BIG).await;

    ALLOC.reset_peak_usage();
    let base = ALLOC.current_usage();
    let all = Reading::select()
        .sensor(&1)
        .seq_range(0..BIG)
        .page_size(PAGE)
        .fetch_all(&t.db)
        .await
        .expect("fetch_all");
    let collected = ALLOC.peak_usage().saturating_sub(base);
    assert_eq!(all.len(), usize::try_from(BIG).expect("small"));
    drop(all);

    eprintln!(
        "bucket paging: peak live heap above baseline: stream 4 buckets {}, stream 40 buckets \
         {}, fetch_all 40 buckets {} (1,000 rows of ~100 bytes per bucket, page size {PAGE}, \
         2 buckets in flight)",
        kib(small),
        kib(big),
        kib(collected)
    );
    let slack = 256 * 1024;
    assert!(
        big < 2 * small + slack,
        "streaming memory grows with the buckets: {} for 40 vs {} for 4",
        kib(big),
        kib(small)
    );
    assert!(
        big * 10 < collected,
        "streaming 40 buckets peaked at {}, not far below collecting them ({})",
        kib(big),
        kib(collected)
    );
    t.drop_all().await;
}
