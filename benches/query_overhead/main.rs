//! Query overhead on a workload shaped like a user's: cassmodel's generated API against the
//! same statements written on the raw scylla driver as its documentation shows, on the same
//! node, in one process, in paired interleaved rounds.
//!
//! ```text
//! cargo bench --bench query_overhead
//! ```
//!
//! The data (loaded once, in a new keyspace): `events`, 1,000 users x 100 events = 100,000
//! rows (a uuid partition key, a timeuuid clustering key in descending order, a text of about
//! 100 bytes, an int with an SAI index, a `list<text>`); `events_by_day`, the same kind of rows
//! in day buckets (200 users x 30 days x 4 rows); `docs`, 5,000 rows with a 16-float
//! embedding and a vector index; `likes_by_user` and `likes_by_item`, the two tables of an
//! entity. Every operation draws a fresh random key (SplitMix64 of the round's seed and the
//! operation's number: both sides of a round read the same keys; a write's key is new).
//!
//! Phases (cassmodel / raw):
//! - insert: `db.insert(&event)` / the `INSERT` prepared once, `execute_unpaged` with the
//!   five fields bound; each operation builds its row (a new key) on both sides;
//! - point read: `Event::get(&db, &user, &event_id)` / `execute_unpaged` +
//!   `maybe_first_row::<RawEvent>()`;
//! - latest 20: `Event::select().user_id(&u).limit(20).fetch_all(&db)` / `LIMIT ?` bound,
//!   `execute_unpaged` + `rows::<RawEvent>()` collected;
//! - partition of 100 rows: `Event::select().user_id(&u).fetch_all(&db)` / `execute_iter` +
//!   `rows_stream::<RawEvent>()` collected;
//! - bucketed range over 3 days: `DayEvent::select().user_id(&u).at_range(from..to)` / the
//!   three bucket queries by hand (`execute_iter` each, newest day first), merged;
//! - indexed read: `Event::select().score(&s).fetch_all(&db)` / `WHERE score = ?` with
//!   `execute_iter` (about 10 rows across partitions);
//! - ANN top 10: `Doc::select().ann_embedding(&q).limit(10)` / `ORDER BY embedding ANN OF ?
//!   LIMIT ?` with `execute_unpaged`, the embedding read as `Vec<f32>`;
//! - conditional insert: `Insert::new(&event).if_not_exists()` / the `INSERT .. IF NOT EXISTS`
//!   with `execute_unpaged`, `[applied]` read as `(bool,)`; every key new, so each applies;
//! - entity, two tables: `like.save(&db)` / a logged `Batch` of the two prepared inserts.
//!
//! The raw side's code is `raw.rs` (shared with the charybdis peer); its rows are
//! `#[derive(DeserializeRow)]` structs with the driver's default attributes (columns matched
//! by name). Its statements are not marked idempotent (that only
//! changes retries). Each side has its own session to the same node: cassmodel's from
//! `ConnectOptions::connect` (with its policies that record attempts, issue 36), the raw
//! side's from the driver's `SessionBuilder` with its default policies; both on the same
//! runtime. Before measuring, the bench checks that both sides read the
//! same rows (non-empty) in every read phase.
//!
//! The peer: the phases charybdis has (insert, point read, latest 20, partition, indexed read,
//! conditional insert), written as its README shows, in a process of its own
//! (`benches/peers/charybdis`, a separate workspace built here with `cargo build --release`),
//! on the same node and keyspace, with the same keys, in the same rounds; its process measures
//! itself the same way, and runs the raw side's code (`raw.rs`) too, in every round, its reads
//! of `events` into charybdis's model (a `#[derive(DeserializeRow)]` struct of the same
//! columns, as `RawEvent`): two copies of the same derive differ by up to 15% in CPU at 64 in
//! flight by where the linker places them (BENCHMARKS.md), so the peer's two sides share one
//! copy and the ratio measures charybdis's own calls. The ratio
//! to charybdis compares each mapper's ratio to the raw code in its own process,
//! (cassmodel/raw here) / (charybdis/raw in the peer), per round: the same raw code costs
//! less CPU per operation in the peer's process than in this one (the column "raw there /
//! raw here"), so a ratio of CPU across the two processes would compare the processes as
//! much as the mappers. `QUERY_OVERHEAD_PEER=0` runs without it.
//!
//! Each phase runs with 1 request in flight, with 64 in a closed loop, and with 64 paced
//! (both sides starting the same number of operations per second, a share of the raw side's
//! closed-loop throughput, so that the node's batching is the same for both: the paced CPU
//! ratio is the client's own cost). Per (variant, side), each round runs operations for a
//! fixed wall time and records the process's CPU time (user+sys, all threads) per operation,
//! the heap allocations per operation (a counting global allocator: every allocation of the
//! process, the driver's included) and the throughput. The sides alternate within a round, in
//! an order balanced for the effect of one run on the next (`WILLIAMS`). Reported: medians
//! over rounds, the median of the paired per-round ratios cassmodel/raw with its
//! interquartile range and a distribution-free 95% confidence interval.
//!
//! Many short rounds rather than a few long ones: on a shared 2-core machine the load moves
//! within seconds, and a 95% interval of the median needs many paired ratios. At 8 rounds of
//! 700 ms the interval was the spread of all the rounds (0.79-1.41 for the indexed read at 1 in flight); at 36 rounds
//! of 300 ms (about 14 minutes with the peer) it was 0.03-0.15 wide in 19 of the 27
//! variants and up to 0.38 (latest 20 at 1 in flight): narrower, still not narrow enough to
//! tell 1.00 from 1.03 in every variant (BENCHMARKS.md).
//!
//! Environment: `QUERY_OVERHEAD_ROUNDS` (default 36), `QUERY_OVERHEAD_SLICE_MS` (default 300),
//! `QUERY_OVERHEAD_POLICIES=1` (both sides run the raw code, one on cassmodel's session and
//! one on the driver's default session: the cost of the attempt-recording policies alone),
//! `QUERY_OVERHEAD_CONCURRENCY` (default 64), `QUERY_OVERHEAD_RAW_CACHED_METADATA=1` (the raw
//! side's reads use the driver's `set_use_cached_result_metadata`, as cassmodel's do: off by
//! default, as the driver's docs leave it), `QUERY_OVERHEAD_ONLY` (the variants whose name
//! contains this text, or one of several separated by `|`; `^text`: whose name starts with
//! it), `QUERY_OVERHEAD_CALIBRATE=1` (an A/A run: both sides run the raw code), `QUERY_OVERHEAD_PACE` (default 0.6; 0: no paced
//! variants), `QUERY_OVERHEAD_SIDE=raw|cassmodel` (both sides run that side's code, for a
//! profiler), `QUERY_OVERHEAD_SPIN_NS` (the cassmodel side busy-waits this long per
//! operation: with `QUERY_OVERHEAD_CALIBRATE=1`, how much a run's CPU ratio moves for client
//! time added to one side), `QUERY_OVERHEAD_SLICES=<file>` (one line per run: side, variant,
//! concurrency, start and end in `CLOCK_MONOTONIC` nanoseconds, operations, for
//! `benches/perf_split.py`), `QUERY_OVERHEAD_CSV` (the file the run's rows are appended to,
//! one per variant with the date, commit, machine and load: `benches/results/query_overhead.csv`
//! by default, none when empty; `record.rs`).

mod drive;
mod keys;
mod model;
mod ops;
mod peer;
mod raw;
mod record;
// The run's date, commit and machine, and the CSV appending, shared with xtask.
#[path = "../../xtask/src/results.rs"]
mod results;
mod stats;

use std::alloc::System;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cassmodel::value::Vector;
use cassmodel::{Db, Replication};
use futures::{StreamExt, TryStreamExt};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

use model::*;
use ops::{Ops, Side};
use peer::Peer;
use raw::{Raw, RawDoc, RawEvent};
use stats::{median, median_ci95, median_iqr};

/// Counts every heap allocation of the process (allocations per operation).
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock `perf record -k CLOCK_MONOTONIC` stamps its
/// samples with, so that a profile can be split by run.
fn monotonic_ns() -> u128 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u128::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u128::try_from(t.tv_nsec).unwrap_or(0)
}

/// Called once per operation and never inlined: `benches/callgrind_ops.sh` divides the
/// instructions it counts by this function's calls (the operations it counted), not by the
/// operations the run made (some of which run before the count starts).
#[inline(never)]
fn one_operation() {
    std::hint::black_box(());
}

/// Polls an operation's future (either side's): never inlined, so that
/// `benches/callgrind_ops.sh` finds the instructions of an operation under this one name,
/// whatever the compiler inlines into it.
#[inline(never)]
fn poll_operation<F: Future>(
    op: std::pin::Pin<&mut F>,
    cx: &mut std::task::Context<'_>,
) -> std::task::Poll<F::Output> {
    op.poll(cx)
}

/// Busy-waits `ns` nanoseconds on the calling thread: `QUERY_OVERHEAD_SPIN_NS`, the
/// sensitivity of a run to client time added per operation on one side.
fn spin(ns: u64) {
    let start = std::time::Instant::now();
    while start.elapsed().as_nanos() < u128::from(ns) {
        std::hint::spin_loop();
    }
}

/// The order of the four sides (0 cassmodel, 1 raw, 2 charybdis, 3 the raw code in the peer's
/// process) per round, round `r` taking row `r % 4`: a Williams square, in which every ordered
/// pair of sides is adjacent in exactly one row (balanced for the effect of one run on the
/// next).
const WILLIAMS: [[usize; 4]; 4] = [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]];

// Checked when the bench compiles: each row holds every side, each side opens one row, and
// each of the 12 ordered pairs of sides is adjacent in exactly one row.
const _: () = {
    let mut adjacent = [[0u8; 4]; 4];
    let mut first = [0u8; 4];
    let mut r = 0;
    while r < 4 {
        let row = WILLIAMS[r];
        first[row[0]] += 1;
        let mut seen = [false; 4];
        let mut k = 0;
        while k < 4 {
            assert!(!seen[row[k]], "a side twice in a row of WILLIAMS");
            seen[row[k]] = true;
            if k > 0 {
                adjacent[row[k - 1]][row[k]] += 1;
            }
            k += 1;
        }
        r += 1;
    }
    let mut a = 0;
    while a < 4 {
        assert!(first[a] == 1, "a side opens no row, or two, of WILLIAMS");
        let mut b = 0;
        while b < 4 {
            assert!(a == b || adjacent[a][b] == 1, "WILLIAMS is not balanced");
            b += 1;
        }
        a += 1;
    }
};

struct Bench {
    ops: Ops,
    /// `QUERY_OVERHEAD_SPIN_NS`: nanoseconds of busy-waiting added to each operation of the
    /// cassmodel side (with `QUERY_OVERHEAD_CALIBRATE=1`: raw code on both sides, one of them
    /// slower by exactly this much client time).
    spin_ns: u64,
    /// A/A run: both sides run this side's code.
    only_side: Option<Side>,
    /// `QUERY_OVERHEAD_POLICIES=1`: both sides run the raw code, the cassmodel side's on
    /// cassmodel's session (the policies that record attempts) and the raw side's on the
    /// driver's default one: the ratio is the cost of the policies alone. These `Ops` are the
    /// raw code on cassmodel's session.
    policies: Option<Ops>,
    slices: Option<(std::ffi::OsString, std::sync::Mutex<Vec<String>>)>,
    total_ops: AtomicUsize,
    /// Writes made so far per (side, phase): the next write's fresh key.
    written: HashMap<(u8, u8), AtomicUsize>,
}

/// One measured run, per operation.
#[derive(Clone, Copy)]
struct Sample {
    ops: usize,
    cpu_us_per_op: f64,
    ops_per_s: f64,
    allocs_per_op: f64,
}

impl From<drive::Measured> for Sample {
    fn from(m: drive::Measured) -> Self {
        let n = m.ops.max(1) as f64;
        Sample {
            ops: m.ops,
            cpu_us_per_op: m.cpu.as_secs_f64() * 1e6 / n,
            ops_per_s: n / m.wall.as_secs_f64(),
            allocs_per_op: m.allocs as f64 / n,
        }
    }
}

impl Bench {
    async fn op(&self, side: Side, phase: Phase, seed: u64, i: usize) -> usize {
        let ops = match &self.policies {
            Some(recorded) if side == Side::Cassmodel => recorded,
            _ => &self.ops,
        };
        one_operation();
        if side == Side::Cassmodel && self.spin_ns > 0 {
            spin(self.spin_ns);
        }
        let side = self.only_side.unwrap_or(side);
        let n = self.written[&(side as u8, phase as u8)].fetch_add(1, Ordering::Relaxed);
        let mut op = std::pin::pin!(ops.op(side, phase, seed, i, n));
        std::future::poll_fn(|cx| poll_operation(op.as_mut(), cx)).await
    }

    /// Starts operations with `concurrency` in flight for `slice` of wall time (paced at
    /// `rate` per second if set), then lets the ones in flight finish.
    async fn run(
        &self,
        side: Side,
        phase: Phase,
        concurrency: usize,
        rate: Option<f64>,
        slice: Duration,
        seed: u64,
    ) -> Sample {
        // Read only when the runs are logged: rustix's vDSO lookup does not run under
        // valgrind (`benches/callgrind_ops.sh`).
        let started_ns = self.slices.as_ref().map(|_| monotonic_ns());
        let m = drive::measure(GLOBAL, concurrency, rate, slice, phase.expected(), |i| {
            self.op(side, phase, seed, i)
        })
        .await;
        self.total_ops.fetch_add(m.ops, Ordering::Relaxed);
        if let (Some((_, log)), Some(started_ns)) = (&self.slices, started_ns) {
            let line = format!(
                "{side:?}\t{phase:?}\t{concurrency}\t{started_ns}\t{}\t{}",
                monotonic_ns(),
                m.ops
            );
            log.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(line);
        }
        Sample::from(m)
    }
}

struct Variant {
    name: String,
    phase: Phase,
    concurrency: usize,
    rate: Option<f64>,
    cassmodel: Vec<Sample>,
    raw: Vec<Sample>,
    /// The charybdis peer's, if it has the phase.
    peer: Vec<Sample>,
    /// The raw code's in the peer's process, if charybdis has the phase.
    peer_raw: Vec<Sample>,
}

/// The paired per-round ratios `f(cassmodel) / f(other)`.
fn paired(mine: &[Sample], other: &[Sample], f: impl Fn(&Sample) -> f64) -> Vec<f64> {
    mine.iter().zip(other).map(|(a, b)| f(a) / f(b)).collect()
}

/// Creates the keyspace and tables and loads the data, 64 writes in flight.
async fn setup(db: &Db, ks: &str) {
    db.create_keyspace(ks, &Replication::Simple(1))
        .await
        .expect("create keyspace");
    db.create_table::<Event>().await.expect("events");
    db.create_table::<DayEvent>().await.expect("events_by_day");
    db.create_table::<Doc>().await.expect("docs");
    db.create_table::<LikeByUser>()
        .await
        .expect("likes_by_user");
    db.create_table::<LikeByItem>()
        .await
        .expect("likes_by_item");
    let events = (0..USERS).flat_map(|u| (0..EVENTS_PER_USER).map(move |j| (u, j)));
    futures::stream::iter(events)
        .map(|(u, j)| async move { db.insert(&event(u, j)).await })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .expect("load events");
    let days = (0..DAY_USERS)
        .flat_map(|u| (0..DAYS).flat_map(move |d| (0..PER_DAY).map(move |k| (u, d, k))));
    futures::stream::iter(days)
        .map(|(u, d, k)| async move { db.insert(&day_event(u, d, k)).await })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .expect("load events_by_day");
    futures::stream::iter(0..DOCS)
        .map(|i| async move { db.insert(&doc(i)).await })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .expect("load docs");
}

/// The text values of the one column `cql` reads (its null values left out).
async fn texts(db: &Db, cql: &str) -> Vec<String> {
    db.session()
        .query_unpaged(cql, &[])
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .into_rows_result()
        .expect("rows")
        .rows::<(Option<String>,)>()
        .expect("rows")
        .filter_map(|r| r.expect("a row").0)
        .collect()
}

/// Drops keyspaces left by interrupted runs of this bench (named `bench_qo_*`).
async fn drop_leftovers(db: &Db) {
    let names = texts(db, "SELECT keyspace_name FROM system_schema.keyspaces").await;
    for ks in names.iter().filter(|k| k.starts_with("bench_qo_")) {
        db.execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
            .await
            .expect("drop leftover keyspace");
    }
}

/// The statements the node holds prepared on keyspace `ks`.
async fn prepared_statements(db: &Db, ks: &str) -> Vec<String> {
    let prefix = format!("{ks}.");
    let mut texts = texts(db, "SELECT query_string FROM system.prepared_statements").await;
    texts.retain(|s| s.contains(&prefix));
    texts.sort();
    texts
}

fn versions() -> String {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"))
        .unwrap_or_default();
    let version = |name: &str| {
        let mut lines = lock.lines();
        while let Some(l) = lines.next() {
            if l == format!("name = \"{name}\"") {
                return lines.next().unwrap_or("").replace("version = ", "");
            }
        }
        "?".to_owned()
    };
    format!(
        "scylla {}, tokio {}",
        version("scylla").trim_matches('"'),
        version("tokio").trim_matches('"')
    )
}

/// Both sides read the same rows, and some, in every read phase: run once each, with the
/// keys of operation 0..8 of seed 7, compared field by field.
async fn same_rows(ops: &Ops) {
    let db = &ops.db;
    for i in 0..8 {
        let u = user(pick(7, i, USERS));
        let mine = Event::select()
            .user_id(&u)
            .fetch_all(db)
            .await
            .expect("read");
        let rs = ops.raw_db.session();
        let raw: Vec<RawEvent> = raw::all(rs, &ops.raw.partition, (u,)).await;
        assert_eq!(mine.len(), EVENTS_PER_USER);
        assert!(
            mine.iter().zip(&raw).all(|(a, b)| {
                (&a.user_id, &a.event_id, &a.body, a.score, &a.tags)
                    == (&b.user_id, &b.event_id, &b.body, b.score, &b.tags)
            }) && mine.len() == raw.len(),
            "the partition read differs"
        );
        let latest = Event::select()
            .user_id(&u)
            .limit(LATEST as i32)
            .fetch_all(db)
            .await
            .expect("latest");
        assert_eq!(latest[..], mine[..LATEST], "latest 20 = the first 20 rows");
        let first = &mine[0];
        let got = Event::get(db, &first.user_id, &first.event_id)
            .await
            .expect("get");
        assert_eq!(got.as_ref(), Some(first), "the point read");

        let (du, from) = range(7, i);
        let to = from + chrono::Duration::days(RANGE_DAYS);
        let mine = DayEvent::select()
            .user_id(&du)
            .at_range(from..to)
            .fetch_all(db)
            .await
            .expect("bucketed");
        let raw = ops.raw.bucketed(rs, du, from).await;
        assert_eq!(mine.len(), RANGE_DAYS as usize * PER_DAY);
        assert!(
            mine.iter().zip(&raw).all(|(a, b)| {
                (&a.user_id, &a.at, &a.body, a.score) == (&b.user_id, &b.at, &b.body, b.score)
            }) && mine.len() == raw.len(),
            "the bucketed range differs"
        );

        let sc = score_of(7, i);
        let mut mine = Event::select().score(&sc).fetch_all(db).await.expect("sai");
        let mut raw: Vec<RawEvent> = raw::all(rs, &ops.raw.indexed, (sc,)).await;
        mine.sort_by_key(|e| (e.user_id, e.event_id));
        raw.sort_by_key(|e| (e.user_id, e.event_id));
        assert!(!mine.is_empty() && mine.len() == ops.per_score[&sc]);
        assert!(
            mine.iter()
                .zip(&raw)
                .all(|(a, b)| (&a.user_id, &a.event_id) == (&b.user_id, &b.event_id))
                && mine.len() == raw.len(),
            "the indexed read differs"
        );

        let q = pick(7, i, ops.queries.len());
        let mine = Doc::select()
            .ann_embedding(&ops.queries[q])
            .limit(TOP as i32)
            .fetch_all(db)
            .await
            .expect("ann");
        let raw: Vec<RawDoc> =
            raw::unpaged(rs, &ops.raw.ann, (&ops.raw_queries[q], TOP as i32)).await;
        assert_eq!(mine.len(), TOP);
        assert!(
            mine.iter().zip(&raw).all(|(a, b)| {
                (a.id, &a.title, &a.embedding[..]) == (b.id, &b.title, &b.embedding[..])
            }) && mine.len() == raw.len(),
            "the ANN read differs"
        );
    }
}

#[tokio::main]
async fn main() {
    let started = Instant::now();
    let info = results::RunInfo::start(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    let rounds: usize = env_or("QUERY_OVERHEAD_ROUNDS", 36).max(2);
    let slice = Duration::from_millis(env_or("QUERY_OVERHEAD_SLICE_MS", 300));
    let concurrency: usize = env_or("QUERY_OVERHEAD_CONCURRENCY", 64).max(2);
    let pace: f64 = env_or("QUERY_OVERHEAD_PACE", 0.6);
    let only: String = env_or("QUERY_OVERHEAD_ONLY", String::new());
    let calibrate = env_or("QUERY_OVERHEAD_CALIBRATE", 0u8) != 0;
    let policies = env_or("QUERY_OVERHEAD_POLICIES", 0u8) != 0;
    let spin_ns: u64 = env_or("QUERY_OVERHEAD_SPIN_NS", 0);
    let only_side = match env_or("QUERY_OVERHEAD_SIDE", String::new()).as_str() {
        _ if calibrate || policies => Some(Side::Raw),
        "raw" => Some(Side::Raw),
        "cassmodel" => Some(Side::Cassmodel),
        "" => None,
        other => panic!("QUERY_OVERHEAD_SIDE is `raw` or `cassmodel`, not `{other}`"),
    };

    let options = cassmodel_node::cluster_or_local_node()
        .await
        .unwrap_or_else(|e| panic!("no Cassandra node: {e}"));
    let root = options.connect().await.expect("connect");
    let release = texts(&root, "SELECT release_version FROM system.local").await;
    drop_leftovers(&root).await;
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 1_000_000_000)
        .unwrap_or_default();
    let ks = format!("bench_qo_{millis}");
    let db = root.with_keyspace(&ks).expect("keyspace name");
    setup(&db, &ks).await;
    println!(
        "query_overhead: node {:?} (Cassandra {}), keyspace {ks}, {} tokio worker threads, {}; \
         loaded {} events ({USERS} partitions), {} bucketed events, {DOCS} documents in {:.1?}; \
         load average {}",
        options.get_contact_points(),
        release.first().map_or("?", String::as_str),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        versions(),
        USERS * EVENTS_PER_USER,
        DAY_USERS * DAYS as usize * PER_DAY,
        started.elapsed(),
        cassmodel_node::load_average()
    );

    // The raw side's own session, as the driver's docs build one: `SessionBuilder` with the
    // driver's default policies (LOCAL_QUORUM and a 30 s request timeout, as cassmodel's).
    let plain = scylla::client::session_builder::SessionBuilder::new()
        .known_nodes(options.get_contact_points())
        .build()
        .await
        .expect("the raw side's session");
    let raw_db = Db::new(plain);
    let raw = Raw::prepare(raw_db.session(), &ks).await;
    let queries: Vec<[f32; DIM]> = (0..1_000).map(|i| embedding(0x9e7, i)).collect();
    let mut per_score = HashMap::new();
    for i in 0..USERS * EVENTS_PER_USER {
        *per_score.entry(score(i)).or_insert(0) += 1;
    }
    let ops = Ops {
        db: db.clone(),
        raw_db,
        raw,
        queries: queries.iter().map(|q| Vector::new(*q)).collect(),
        raw_queries: queries.iter().map(|q| q.to_vec()).collect(),
        per_score,
    };
    same_rows(&ops).await;
    let mut written = HashMap::new();
    for side in [Side::Cassmodel, Side::Raw] {
        for phase in Phase::ALL {
            written.insert((side as u8, phase as u8), AtomicUsize::new(0));
        }
    }
    let bench = Bench {
        policies: policies.then(|| Ops {
            raw_db: db.clone(),
            ..ops.clone()
        }),
        ops,
        spin_ns,
        only_side,
        slices: std::env::var_os("QUERY_OVERHEAD_SLICES").map(|path| (path, Default::default())),
        total_ops: AtomicUsize::new(0),
        written,
    };
    // Every statement either side runs, once, before the list of the node's.
    for phase in Phase::ALL {
        for side in [Side::Cassmodel, Side::Raw] {
            assert_eq!(bench.op(side, phase, 1, 0).await, phase.expected());
        }
    }
    println!("statements prepared on the node (system.prepared_statements):");
    for s in prepared_statements(&db, &ks).await {
        println!("  {s}");
    }
    println!("raw driver, hand-written:");
    for s in Raw::cql(&ks) {
        println!("  {s}");
    }
    if policies {
        println!(
            "policies run: both sides run the raw code, the cassmodel column's on cassmodel's \
             session (attempt-recording policies), the raw column's on the driver's default one \
             (QUERY_OVERHEAD_POLICIES)"
        );
    } else if let Some(side) = only_side {
        println!("A/A run: both sides run the {side:?} code (QUERY_OVERHEAD_CALIBRATE / _SIDE)");
    }
    if spin_ns > 0 {
        println!(
            "the cassmodel column's side busy-waits {spin_ns} ns per operation \
             (QUERY_OVERHEAD_SPIN_NS)"
        );
    }
    let mut peer = if env_or("QUERY_OVERHEAD_PEER", 1u8) == 0 {
        None
    } else {
        let point = options
            .get_contact_points()
            .first()
            .cloned()
            .expect("a contact point");
        match Peer::start(&point, &ks).await {
            Ok(p) => Some(p),
            Err(e) => panic!("the charybdis peer: {e} (QUERY_OVERHEAD_PEER=0 runs without it)"),
        }
    };

    // Warm-up: each side runs each variant for `slice`.
    let mut variants: Vec<Variant> = Vec::new();
    for phase in Phase::ALL {
        for conc in [1, concurrency] {
            let name = format!("{}, {conc} in flight", phase.label());
            let chosen = |o: &str| match o.strip_prefix('^') {
                Some(start) => name.starts_with(start),
                None => name.contains(o),
            };
            if !only.is_empty() && !only.split('|').any(chosen) {
                continue;
            }
            let mut raw_rate = 0.0;
            for side in [Side::Cassmodel, Side::Raw] {
                raw_rate = bench.run(side, phase, conc, None, slice, 2).await.ops_per_s;
            }
            if let Some(p) = &mut peer {
                for raw in [false, true] {
                    p.run(raw, phase, conc, None, slice, 2).await;
                }
            }
            variants.push(Variant {
                name: name.clone(),
                phase,
                concurrency: conc,
                rate: None,
                cassmodel: Vec::new(),
                raw: Vec::new(),
                peer: Vec::new(),
                peer_raw: Vec::new(),
            });
            if conc > 1 && pace > 0.0 {
                let rate = (raw_rate * pace).max(100.0);
                variants.push(Variant {
                    name: format!("{name}, paced at {rate:.0}/s"),
                    phase,
                    concurrency: conc,
                    rate: Some(rate),
                    cassmodel: Vec::new(),
                    raw: Vec::new(),
                    peer: Vec::new(),
                    peer_raw: Vec::new(),
                });
            }
        }
    }
    println!(
        "warm-up done at {:.1?}; {rounds} rounds of {} runs of {slice:?}",
        started.elapsed(),
        variants.len() * 2
    );

    for round in 0..rounds {
        // The peer's two sides are skipped when it is absent: then cassmodel and raw
        // alternate first.
        let order = WILLIAMS[round % 4];
        for (k, v) in variants.iter_mut().enumerate() {
            // Every side of a round reads the same random keys.
            let seed = mix((round * 1_000 + k) as u64 + 1_000);
            for side in order {
                match side {
                    0 => v.cassmodel.push(
                        bench
                            .run(Side::Cassmodel, v.phase, v.concurrency, v.rate, slice, seed)
                            .await,
                    ),
                    1 => v.raw.push(
                        bench
                            .run(Side::Raw, v.phase, v.concurrency, v.rate, slice, seed)
                            .await,
                    ),
                    _ => {
                        let raw = side == 3;
                        if let Some(p) = &mut peer
                            && let Some(s) = p
                                .run(raw, v.phase, v.concurrency, v.rate, slice, seed)
                                .await
                        {
                            if raw { &mut v.peer_raw } else { &mut v.peer }.push(s);
                        }
                    }
                }
            }
        }
        eprint!(
            "round {}/{rounds} done at {:.0?}\r",
            round + 1,
            started.elapsed()
        );
    }
    eprintln!();

    println!();
    println!(
        "| phase | ops/run | CPU µs/op cassmodel | CPU µs/op raw | CPU ratio (IQR) | CPU ratio, 95% CI of its median | allocs/op cassmodel | allocs/op raw | ops/s ratio (IQR) | CPU µs/op charybdis | CPU µs/op raw in the peer | raw there / raw here (IQR) | CPU ratio to charybdis (IQR) | its 95% CI | allocs/op charybdis | allocs/op raw in the peer |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let run = record::Run {
        info,
        rounds,
        slice_ms: slice.as_millis(),
        mode: match (calibrate, policies, only_side) {
            (true, _, _) => "calibrate".to_owned(),
            (_, true, _) => "policies".to_owned(),
            (_, _, Some(side)) => format!("side:{}", format!("{side:?}").to_lowercase()),
            _ => "real".to_owned(),
        } + &if spin_ns > 0 {
            format!("+spin:{spin_ns}")
        } else {
            String::new()
        },
        only: only.clone(),
        peer: peer.is_some(),
    };
    let mut csv_rows = Vec::new();
    for v in &variants {
        let med =
            |s: &[Sample], f: fn(&Sample) -> f64| median(&s.iter().map(f).collect::<Vec<_>>());
        let all: Vec<Sample> = v.cassmodel.iter().chain(&v.raw).copied().collect();
        let ops_per_run = med(&all, |x| x.ops as f64);
        let cpu_ratios = paired(&v.cassmodel, &v.raw, |s| s.cpu_us_per_op);
        let (rc, rc_lo, rc_hi) = median_iqr(&cpu_ratios);
        let ci95 = median_ci95(&cpu_ratios);
        let ci = ci95.map_or_else(|| "–".to_owned(), |(lo, hi)| format!("{lo:.3}–{hi:.3}"));
        let (rt, rt_lo, rt_hi) = median_iqr(&paired(&v.cassmodel, &v.raw, |s| s.ops_per_s));
        let mut to_charybdis = None;
        let peer = if v.peer.is_empty() || v.peer_raw.len() != v.peer.len() {
            "– | – | – | – | – | – | –".to_owned()
        } else {
            // Per round: (cassmodel / raw here) / (charybdis / raw in the peer's process).
            let peer_ratios = paired(&v.peer, &v.peer_raw, |s| s.cpu_us_per_op);
            let to_peer: Vec<f64> = cpu_ratios
                .iter()
                .zip(&peer_ratios)
                .map(|(m, p)| m / p)
                .collect();
            let (p, p_lo, p_hi) = median_iqr(&to_peer);
            let p_ci95 = median_ci95(&to_peer);
            to_charybdis = Some(record::Charybdis {
                ratio: p,
                ci: p_ci95,
                cpu_us: med(&v.peer, |x| x.cpu_us_per_op),
            });
            let p_ci = p_ci95.map_or_else(|| "–".to_owned(), |(lo, hi)| format!("{lo:.3}–{hi:.3}"));
            let (b, b_lo, b_hi) = median_iqr(&paired(&v.peer_raw, &v.raw, |s| s.cpu_us_per_op));
            format!(
                "{:.1} | {:.1} | {b:.3} ({b_lo:.3}–{b_hi:.3}) | {p:.3} ({p_lo:.3}–{p_hi:.3}) | {p_ci} | {:.1} | {:.1}",
                med(&v.peer, |x| x.cpu_us_per_op),
                med(&v.peer_raw, |x| x.cpu_us_per_op),
                med(&v.peer, |x| x.allocs_per_op),
                med(&v.peer_raw, |x| x.allocs_per_op)
            )
        };
        println!(
            "| {} | {:.0} | {:.1} | {:.1} | {:.3} ({:.3}–{:.3}) | {ci} | {:.1} | {:.1} | {:.3} ({:.3}–{:.3}) | {peer} |",
            v.name,
            ops_per_run,
            med(&v.cassmodel, |x| x.cpu_us_per_op),
            med(&v.raw, |x| x.cpu_us_per_op),
            rc,
            rc_lo,
            rc_hi,
            med(&v.cassmodel, |x| x.allocs_per_op),
            med(&v.raw, |x| x.allocs_per_op),
            rt,
            rt_lo,
            rt_hi
        );
        csv_rows.push(record::Variant {
            phase: v.phase.label(),
            in_flight: v.concurrency,
            rate: v.rate,
            ratio: (rc, rc_lo, rc_hi),
            ci: ci95,
            charybdis: to_charybdis,
            allocs: (
                med(&v.cassmodel, |x| x.allocs_per_op),
                med(&v.raw, |x| x.allocs_per_op),
            ),
            cpu_us: (
                med(&v.cassmodel, |x| x.cpu_us_per_op),
                med(&v.raw, |x| x.cpu_us_per_op),
            ),
        });
    }
    println!();
    println!(
        "CPU ratio = cassmodel/raw client CPU per operation; allocs/op = heap allocations and \
         reallocations of the whole process per operation; ops/s ratio = cassmodel/raw \
         throughput. Medians over {rounds} rounds; ratios are medians of the per-round paired \
         ratios; the 95% CI is distribution-free (order statistics of the rounds' ratios). \
         Raw there / raw here: the raw code's CPU per operation in the charybdis peer's \
         process over this one's. CPU ratio to charybdis: per round, (cassmodel/raw here) / \
         (charybdis/raw in the peer's process)."
    );

    let load_end = results::load_1min();
    record::append(
        &csv_rows
            .iter()
            .map(|v| run.row(v, &load_end))
            .collect::<Vec<_>>(),
    );

    db.execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
        .await
        .expect("drop keyspace");
    println!(
        "total {:.1?}, {} measured and warm-up operations; load average at the end {}",
        started.elapsed(),
        bench.total_ops.load(Ordering::Relaxed),
        cassmodel_node::load_average()
    );
    if let Some((path, log)) = &bench.slices {
        let lines = log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .join("\n");
        std::fs::write(path, lines + "\n")
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
}
