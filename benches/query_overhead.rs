//! Query overhead: cassmodel's generated API against the same statements hand-written on the
//! raw scylla driver, on the same node, in one process, in interleaved rounds.
//!
//! ```text
//! cargo bench --bench query_overhead
//! ```
//!
//! Workloads, each run sequentially (1 request in flight), concurrently (64 in flight, a
//! closed loop: each side as fast as it goes) and concurrently paced (up to 64 in flight,
//! both sides starting the same number of operations per second). The closed loop at 64 in
//! flight lets a side that uses more client CPU slow the node (client and node share the
//! cores), which changes how many requests the driver batches per syscall and so the CPU per
//! operation of both; the paced runs hold the throughput equal, so their CPU ratio is the
//! client's own cost:
//! - insert: `db.insert(&post)` vs the same `INSERT` prepared by hand, run with
//!   `execute_unpaged` with the row's three fields bound (1,000 rows, overwritten in turn);
//! - point read: `Post::get(&db, &user_id, &post_id)` vs a hand-prepared statement of the
//!   same CQL text run with `execute_unpaged` and read with `maybe_first_row::<RawPost>()`;
//! - latest 20: `Post::select().user_id(&u).limit(20).fetch_all(&db)` vs the same CQL
//!   (`LIMIT ?` bound) with `execute_unpaged` and `rows::<RawPost>()` collected: the limit
//!   fits one page, so cassmodel sends one unpaged request too;
//! - partition read (100 rows): `Post::select().user_id(&u).fetch_all(&db)` vs the same CQL
//!   with `execute_iter` + `rows_stream::<RawPost>()` collected. Both sides page with the
//!   driver's default page size (5,000 rows), so each read is one page.
//!
//! Both sides share one session (`db.session()`), so the connection pool, load balancing and
//! runtime are the same. Before measuring, the bench reads back from the node's
//! `system.prepared_statements` the statements cassmodel prepared and checks that the raw
//! side's hand-written CQL is exactly one of them.
//!
//! Per (workload, concurrency, side), each round runs operations for a fixed wall time and
//! records the client's CPU time (user+sys of the whole process, all threads:
//! `CLOCK_PROCESS_CPUTIME_ID`) per operation and the throughput (ops/s of wall time). The
//! sides alternate within a round and swap order every round (A B, B A, A B, ...), so machine
//! noise and drift (the node's JIT, compaction, other load) fall on both. Reported: medians
//! over rounds, and the median over rounds of the paired ratio cassmodel/raw, with its
//! interquartile range.
//!
//! The node runs on the same machine, so throughput is shared with it; the process CPU time is
//! the client's alone.
//!
//! Environment: `QUERY_OVERHEAD_ROUNDS` (default 12), `QUERY_OVERHEAD_SLICE_MS` (wall time of
//! one measured run, default 700), `QUERY_OVERHEAD_CONCURRENCY` (default 64),
//! `QUERY_OVERHEAD_ONLY` (run only the workloads whose name contains this text, or one of
//! several separated by `|`, e.g. `point read, 32` or `insert|point|latest`),
//! `QUERY_OVERHEAD_CALIBRATE=1` (an A/A run: both sides run the raw driver code, so the ratios
//! show the method's own noise and bias), `QUERY_OVERHEAD_PACE` (default 0.6: the paced
//! variant of each many-in-flight workload starts that share of the raw side's closed-loop
//! warm-up throughput per second; 0 turns the paced variants off),
//! `QUERY_OVERHEAD_SIDE=raw|cassmodel` (both sides run that side's code: an A/A run of it, for
//! a profiler to record one side alone), `QUERY_OVERHEAD_SLICES=<file>` (writes one line
//! per run, warm-up included: side, workload, concurrency, start and end in `CLOCK_MONOTONIC`
//! nanoseconds, operations; `perf record -k CLOCK_MONOTONIC` stamps samples with the same
//! clock, so `benches/perf_split.py` can split one process's profile into the two sides' costs
//! per operation).

use std::hint::black_box;
use std::time::{Duration, Instant};

use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db, Replication};
use cpu_time::ProcessTime;
use futures::{StreamExt, TryStreamExt};
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;
use uuid::Uuid;

/// The model, as in the seed models (A. social posts).
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "posts_facebook")]
struct Post {
    #[partition_key]
    user_id: Uuid,
    #[clustering(desc)]
    post_id: Timeuuid,
    content: String,
}

/// The hand-written row type of the raw side. `enforce_order` reads the columns by position
/// (checking their names once per result), as cassmodel does; the default `match_by_name`
/// flavour would match names per row and be the slower baseline.
#[derive(DeserializeRow, Debug, Clone, PartialEq)]
#[scylla(flavor = "enforce_order")]
struct RawPost {
    user_id: Uuid,
    post_id: Timeuuid,
    content: String,
}

const POINT_PARTITIONS: usize = 1_000;
const PARTITION_ROWS: usize = 100;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock `perf record -k CLOCK_MONOTONIC` stamps its
/// samples with, so that a profile can be split by run ([`Bench::slices`]).
fn monotonic_ns() -> u128 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u128::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u128::try_from(t.tv_nsec).unwrap_or(0)
}

fn timeuuid(secs: u64, seq: u16) -> Timeuuid {
    let ts = uuid::Timestamp::from_unix(uuid::NoContext, 1_700_000_000 + secs, 0);
    let node = [0x02, 0x42, 0xac, 0x11, (seq >> 8) as u8, seq as u8];
    Timeuuid::from(Uuid::new_v1(ts, &node))
}

fn content(i: usize) -> String {
    format!("post number {i}: query-first data modelling keeps reads to one partition")
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Cassmodel,
    Raw,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Workload {
    Insert,
    Point,
    Latest,
    Partition,
}

/// The rows of the latest-N workload.
const LATEST: usize = 20;

struct Bench {
    db: Db,
    raw_insert: PreparedStatement,
    raw_point: PreparedStatement,
    raw_latest: PreparedStatement,
    raw_partition: PreparedStatement,
    /// The rows the insert workload writes, in turn (their own partitions).
    inserts: Vec<Post>,
    point_keys: Vec<(Uuid, Timeuuid)>,
    partition_user: Uuid,
    /// A/A run: both sides run this side's code. `Raw` is the calibration (the reported
    /// ratios show the method's own noise and bias on this machine); either side alone is
    /// what a profiler should look at.
    only_side: Option<Side>,
    /// `QUERY_OVERHEAD_SLICES`: the file, and one line per run (side, workload, concurrency,
    /// start and end in `CLOCK_MONOTONIC` nanoseconds, operations) written to it at the end.
    slices: Option<(std::ffi::OsString, std::sync::Mutex<Vec<String>>)>,
    /// Every operation run, warm-up included (to divide a profiler's counts by).
    total_ops: std::sync::atomic::AtomicUsize,
}

impl Bench {
    /// One operation; returns the number of rows read (checked by the caller).
    async fn op(&self, side: Side, workload: Workload, i: usize) -> usize {
        let side = self.only_side.unwrap_or(side);
        match (side, workload) {
            (Side::Cassmodel, Workload::Insert) => {
                let row = &self.inserts[i % self.inserts.len()];
                self.db.insert(row).await.expect("insert");
                1
            }
            (Side::Raw, Workload::Insert) => {
                let row = &self.inserts[i % self.inserts.len()];
                self.db
                    .session()
                    .execute_unpaged(&self.raw_insert, (&row.user_id, &row.post_id, &row.content))
                    .await
                    .expect("insert");
                1
            }
            (Side::Cassmodel, Workload::Latest) => {
                let rows = Post::select()
                    .user_id(&self.partition_user)
                    .limit(LATEST as i32)
                    .fetch_all(&self.db)
                    .await
                    .expect("latest");
                black_box(rows).len()
            }
            (Side::Raw, Workload::Latest) => {
                let rows: Vec<RawPost> = self
                    .db
                    .session()
                    .execute_unpaged(&self.raw_latest, (self.partition_user, LATEST as i32))
                    .await
                    .expect("execute")
                    .into_rows_result()
                    .expect("rows")
                    .rows::<RawPost>()
                    .expect("rows")
                    .collect::<Result<_, _>>()
                    .expect("rows");
                black_box(rows).len()
            }
            (Side::Cassmodel, Workload::Point) => {
                let (u, p) = &self.point_keys[i % self.point_keys.len()];
                let row = Post::get(&self.db, u, p).await.expect("get");
                usize::from(black_box(row).is_some())
            }
            (Side::Raw, Workload::Point) => {
                let (u, p) = self.point_keys[i % self.point_keys.len()];
                let row = self
                    .db
                    .session()
                    .execute_unpaged(&self.raw_point, (u, p))
                    .await
                    .expect("execute")
                    .into_rows_result()
                    .expect("rows")
                    .maybe_first_row::<RawPost>()
                    .expect("row");
                usize::from(black_box(row).is_some())
            }
            (Side::Cassmodel, Workload::Partition) => {
                let rows = Post::select()
                    .user_id(&self.partition_user)
                    .fetch_all(&self.db)
                    .await
                    .expect("fetch_all");
                black_box(rows).len()
            }
            (Side::Raw, Workload::Partition) => {
                let rows: Vec<RawPost> = self
                    .db
                    .session()
                    .execute_iter(self.raw_partition.clone(), (self.partition_user,))
                    .await
                    .expect("execute_iter")
                    .rows_stream::<RawPost>()
                    .expect("rows_stream")
                    .try_collect()
                    .await
                    .expect("rows");
                black_box(rows).len()
            }
        }
    }

    /// Starts operations with `concurrency` in flight for `slice` of wall time, then lets the
    /// ones in flight finish. Time-bound rather than count-bound runs keep every run about
    /// `slice` long whatever else loads the machine.
    async fn run(
        &self,
        side: Side,
        workload: Workload,
        concurrency: usize,
        rate: Option<f64>,
        slice: Duration,
    ) -> Sample {
        let expected = match workload {
            Workload::Insert | Workload::Point => 1,
            Workload::Latest => LATEST,
            Workload::Partition => PARTITION_ROWS,
        };
        let started_ns = monotonic_ns();
        let cpu = ProcessTime::now();
        let wall = Instant::now();
        let deadline = wall + slice;
        let mut ops = 0usize;
        if concurrency <= 1 {
            while Instant::now() < deadline {
                assert_eq!(self.op(side, workload, ops).await, expected);
                ops += 1;
            }
        } else {
            // Paced: operation i starts no earlier than i / rate seconds in (in bursts of
            // about a millisecond), so both sides run at the same throughput and the node's
            // batching is the same for them. Unpaced: a closed loop, as fast as it goes.
            let pace = move |i: usize| {
                let due = rate.map(|r| wall + Duration::from_secs_f64(i as f64 / r));
                async move {
                    if let Some(due) = due
                        && due > Instant::now() + Duration::from_millis(1)
                    {
                        tokio::time::sleep_until(due.into()).await;
                    }
                    i
                }
            };
            futures::stream::iter((0..).take_while(|_| Instant::now() < deadline))
                .then(pace)
                .map(|i| self.op(side, workload, i))
                .buffer_unordered(concurrency)
                .for_each(|rows| {
                    assert_eq!(rows, expected);
                    ops += 1;
                    async {}
                })
                .await;
        }
        self.total_ops
            .fetch_add(ops, std::sync::atomic::Ordering::Relaxed);
        let sample = Sample::new(ops, wall.elapsed(), cpu.elapsed());
        if let Some((_, log)) = &self.slices {
            let line = format!(
                "{side:?}\t{workload:?}\t{concurrency}\t{started_ns}\t{}\t{ops}",
                monotonic_ns()
            );
            log.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(line);
        }
        sample
    }
}

/// One measured run.
#[derive(Clone, Copy)]
struct Sample {
    ops: usize,
    cpu_us_per_op: f64,
    ops_per_s: f64,
}

impl Sample {
    fn new(ops: usize, wall: Duration, cpu: Duration) -> Self {
        let n = ops.max(1) as f64;
        Sample {
            ops,
            cpu_us_per_op: cpu.as_secs_f64() * 1e6 / n,
            ops_per_s: n / wall.as_secs_f64(),
        }
    }
}

fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

struct Variant {
    name: String,
    workload: Workload,
    concurrency: usize,
    /// Operations started per second (paced runs), or `None` for a closed loop.
    rate: Option<f64>,
    cassmodel: Vec<Sample>,
    raw: Vec<Sample>,
}

/// The paired per-round ratios `f(cassmodel) / f(raw)`.
fn paired(v: &Variant, f: impl Fn(&Sample) -> f64) -> Vec<f64> {
    v.cassmodel
        .iter()
        .zip(&v.raw)
        .map(|(a, b)| f(a) / f(b))
        .collect()
}

/// Median, and interquartile range, of `r`.
fn median_iqr(r: &[f64]) -> (f64, f64, f64) {
    (median(r), quantile(r, 0.25), quantile(r, 0.75))
}

/// A distribution-free confidence interval, of at least 95%, for the median of what `r`
/// samples: the order statistics `r(j)` and `r(n+1-j)` with the largest `j` such that
/// `P(Binomial(n, 1/2) < j) <= 2.5%` (each round's ratio is equally likely to fall below or
/// above the true median). It assumes independent rounds; the A/A runs
/// (`QUERY_OVERHEAD_CALIBRATE=1`) check that: their intervals should hold 1.000. `None` with
/// fewer than 6 rounds, where no such `j` exists.
fn median_ci95(r: &[f64]) -> Option<(f64, f64)> {
    let n = r.len();
    // P(Binomial(n, 1/2) <= k), accumulated term by term.
    let mut term = 0.5f64.powi(n as i32);
    let mut below = 0.0;
    let mut j = 0;
    for k in 0..n {
        // `below` = P(X < k + 1) after this step.
        below += term;
        if below > 0.025 {
            break;
        }
        j = k + 1;
        term *= (n - k) as f64 / (k + 1) as f64;
    }
    if j == 0 {
        return None;
    }
    let mut v = r.to_vec();
    v.sort_by(f64::total_cmp);
    Some((v[j - 1], v[n - j]))
}

async fn setup(db: &Db, ks: &str) -> (Vec<(Uuid, Timeuuid)>, Uuid) {
    db.create_keyspace(ks, &Replication::Simple(1))
        .await
        .expect("create keyspace");
    db.create_table::<Post>().await.expect("create table");
    let point_keys: Vec<(Uuid, Timeuuid)> = (0..POINT_PARTITIONS)
        .map(|i| {
            (
                Uuid::from_u128(0xbe7c_0000 + i as u128),
                timeuuid(i as u64, 0),
            )
        })
        .collect();
    let partition_user = Uuid::from_u128(0xbe7c_ffff_ffff);
    let rows = point_keys
        .iter()
        .enumerate()
        .map(|(i, &(user_id, post_id))| Post {
            user_id,
            post_id,
            content: content(i),
        })
        .chain((0..PARTITION_ROWS).map(|i| Post {
            user_id: partition_user,
            post_id: timeuuid(i as u64, 1),
            content: content(i),
        }));
    futures::stream::iter(rows)
        .map(|row| async move { db.insert(&row).await })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .expect("insert");
    (point_keys, partition_user)
}

/// Drops keyspaces left by interrupted runs of this bench (named `bench_qo_*`).
async fn drop_leftovers(db: &Db) {
    let names: Vec<(String,)> = db
        .session()
        .query_unpaged("SELECT keyspace_name FROM system_schema.keyspaces", &[])
        .await
        .expect("list keyspaces")
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    for (ks,) in names.iter().filter(|(k,)| k.starts_with("bench_qo_")) {
        db.execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
            .await
            .expect("drop leftover keyspace");
    }
}

/// The statements the node holds prepared on table `ks.posts_facebook`: after the cassmodel
/// side has run once (and before the raw side prepares anything), exactly the CQL cassmodel
/// generated.
async fn prepared_statements(db: &Db, ks: &str) -> Vec<String> {
    let table = format!("{ks}.posts_facebook");
    let mut texts: Vec<String> = db
        .session()
        .query_unpaged("SELECT query_string FROM system.prepared_statements", &[])
        .await
        .expect("read system.prepared_statements")
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("rows")
        .filter_map(|r| r.ok().map(|(s,)| s))
        .filter(|s| s.contains(&table))
        .collect();
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

#[tokio::main]
async fn main() {
    let started = Instant::now();
    let rounds: usize = env_or("QUERY_OVERHEAD_ROUNDS", 12).max(2);
    let slice = Duration::from_millis(env_or("QUERY_OVERHEAD_SLICE_MS", 700));
    let concurrency: usize = env_or("QUERY_OVERHEAD_CONCURRENCY", 64).max(2);
    let pace: f64 = env_or("QUERY_OVERHEAD_PACE", 0.6);
    let only: String = env_or("QUERY_OVERHEAD_ONLY", String::new());
    let calibrate = env_or("QUERY_OVERHEAD_CALIBRATE", 0u8) != 0;
    let only_side = match env_or("QUERY_OVERHEAD_SIDE", String::new()).as_str() {
        _ if calibrate => Some(Side::Raw),
        "raw" => Some(Side::Raw),
        "cassmodel" => Some(Side::Cassmodel),
        "" => None,
        other => panic!("QUERY_OVERHEAD_SIDE is `raw` or `cassmodel`, not `{other}`"),
    };

    let options = cassmodel_node::cluster_or_local_node()
        .await
        .unwrap_or_else(|e| panic!("no Cassandra node: {e}"));
    let root = options.connect().await.expect("connect");
    let release: Vec<(String,)> = root
        .session()
        .query_unpaged("SELECT release_version FROM system.local", &[])
        .await
        .expect("release_version")
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    drop_leftovers(&root).await;
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 1_000_000_000)
        .unwrap_or_default();
    let ks = format!("bench_qo_{millis}");
    let db = root.with_keyspace(&ks).expect("keyspace name");
    let (point_keys, partition_user) = setup(&db, &ks).await;
    println!(
        "query_overhead: node {:?} (Cassandra {}), keyspace {ks}, {} tokio worker threads, \
         {}, loaded {POINT_PARTITIONS} one-row partitions + one {PARTITION_ROWS}-row partition \
         in {:.1?}; load average {}",
        options.get_contact_points(),
        release.first().map_or("?", |r| r.0.as_str()),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        versions(),
        started.elapsed(),
        cassmodel_node::load_average()
    );

    // The cassmodel side runs first, alone, so the node's prepared statements on this table
    // are exactly the ones it generated.
    let (u, p) = point_keys[0];
    assert!(Post::get(&db, &u, &p).await.expect("get").is_some());
    let rows = Post::select()
        .user_id(&partition_user)
        .fetch_all(&db)
        .await
        .expect("fetch_all");
    assert_eq!(rows.len(), PARTITION_ROWS);
    let latest = Post::select()
        .user_id(&partition_user)
        .limit(LATEST as i32)
        .fetch_all(&db)
        .await
        .expect("latest");
    assert_eq!(latest[..], rows[..LATEST]);
    let inserts: Vec<Post> = (0..POINT_PARTITIONS)
        .map(|i| Post {
            user_id: Uuid::from_u128(0xbe7c_1000_0000 + i as u128),
            post_id: timeuuid(i as u64, 2),
            content: content(i),
        })
        .collect();
    db.insert(&inserts[0]).await.expect("insert");
    let generated = prepared_statements(&db, &ks).await;

    let raw_point_cql = format!(
        "SELECT user_id, post_id, content FROM {ks}.posts_facebook \
         WHERE user_id = ? AND post_id = ?"
    );
    let raw_partition_cql =
        format!("SELECT user_id, post_id, content FROM {ks}.posts_facebook WHERE user_id = ?");
    let raw_latest_cql = format!(
        "SELECT user_id, post_id, content FROM {ks}.posts_facebook WHERE user_id = ? LIMIT ?"
    );
    let raw_insert_cql =
        format!("INSERT INTO {ks}.posts_facebook (user_id, post_id, content) VALUES (?, ?, ?)");
    println!("cassmodel prepared (read back from system.prepared_statements on the node):");
    for s in &generated {
        println!("  {s}");
    }
    println!("raw driver, hand-written:");
    println!("  insert:         {raw_insert_cql}   values (user_id, post_id, content)");
    println!("  point read:     {raw_point_cql}   values (user_id, post_id)");
    println!("  latest 20:      {raw_latest_cql}   values (user_id, 20)");
    println!("  partition read: {raw_partition_cql}   values (user_id,)");
    for cql in [
        &raw_insert_cql,
        &raw_point_cql,
        &raw_latest_cql,
        &raw_partition_cql,
    ] {
        assert!(
            generated.contains(cql),
            "the raw side's CQL is not a statement cassmodel prepared: {cql}"
        );
    }
    let session = db.session();
    let mut raw_point = session
        .prepare(raw_point_cql.as_str())
        .await
        .expect("prepare");
    let mut raw_partition = session
        .prepare(raw_partition_cql.as_str())
        .await
        .expect("prepare");
    let mut raw_latest = session
        .prepare(raw_latest_cql.as_str())
        .await
        .expect("prepare");
    let mut raw_insert = session
        .prepare(raw_insert_cql.as_str())
        .await
        .expect("prepare");
    // cassmodel marks its statements idempotent; so does the raw side (it only changes retries).
    for st in [
        &mut raw_point,
        &mut raw_partition,
        &mut raw_latest,
        &mut raw_insert,
    ] {
        st.set_is_idempotent(true);
    }
    // Rows of the raw side equal cassmodel's.
    let raw_rows: Vec<RawPost> = session
        .execute_iter(raw_partition.clone(), (partition_user,))
        .await
        .expect("execute_iter")
        .rows_stream::<RawPost>()
        .expect("rows_stream")
        .try_collect()
        .await
        .expect("rows");
    assert!(
        rows.iter()
            .zip(&raw_rows)
            .all(|(a, b)| (a.user_id, a.post_id, &a.content) == (b.user_id, b.post_id, &b.content))
            && rows.len() == raw_rows.len(),
        "both sides read the same rows"
    );

    let bench = Bench {
        db: db.clone(),
        raw_insert,
        raw_point,
        raw_latest,
        raw_partition,
        inserts,
        point_keys,
        partition_user,
        only_side,
        slices: std::env::var_os("QUERY_OVERHEAD_SLICES").map(|path| (path, Default::default())),
        total_ops: Default::default(),
    };
    if let Some(side) = only_side {
        println!("A/A run: both sides run the {side:?} code (QUERY_OVERHEAD_CALIBRATE / _SIDE)");
    }

    // Warm-up: each side runs each variant for `slice`, warming the node's JIT and caches
    // on both statements.
    let mut variants: Vec<Variant> = Vec::new();
    for (workload, label) in [
        (Workload::Insert, "insert"),
        (Workload::Point, "point read"),
        (Workload::Latest, "latest 20"),
        (Workload::Partition, "partition read, 100 rows"),
    ] {
        for conc in [1, concurrency] {
            let name = format!("{label}, {conc} in flight");
            if !only.is_empty() && !only.split('|').any(|o| name.contains(o)) {
                continue;
            }
            let mut raw_rate = 0.0;
            for side in [Side::Cassmodel, Side::Raw] {
                raw_rate = bench.run(side, workload, conc, None, slice).await.ops_per_s;
            }
            variants.push(Variant {
                name: name.clone(),
                workload,
                concurrency: conc,
                rate: None,
                cassmodel: Vec::new(),
                raw: Vec::new(),
            });
            if conc > 1 && pace > 0.0 {
                // The same concurrency, paced at a share of the raw side's closed-loop
                // throughput in the warm-up: both sides then do the same work per second.
                let rate = (raw_rate * pace).max(100.0);
                variants.push(Variant {
                    name: format!("{name}, paced at {rate:.0}/s"),
                    workload,
                    concurrency: conc,
                    rate: Some(rate),
                    cassmodel: Vec::new(),
                    raw: Vec::new(),
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
        let order = if round % 2 == 0 {
            [Side::Cassmodel, Side::Raw]
        } else {
            [Side::Raw, Side::Cassmodel]
        };
        for v in &mut variants {
            for side in order {
                let s = bench
                    .run(side, v.workload, v.concurrency, v.rate, slice)
                    .await;
                match side {
                    Side::Cassmodel => v.cassmodel.push(s),
                    Side::Raw => v.raw.push(s),
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
        "| workload | ops/run | CPU µs/op cassmodel | CPU µs/op raw | CPU ratio (IQR) | CPU ratio, 95% CI of its median | ops/s cassmodel | ops/s raw | throughput ratio (IQR) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for v in &variants {
        let cpu = |s: &[Sample]| median(&s.iter().map(|x| x.cpu_us_per_op).collect::<Vec<_>>());
        let ops = |s: &[Sample]| median(&s.iter().map(|x| x.ops_per_s).collect::<Vec<_>>());
        let all = v.cassmodel.iter().chain(&v.raw);
        let ops_per_run = median(&all.map(|x| x.ops as f64).collect::<Vec<_>>());
        let cpu_ratios = paired(v, |s| s.cpu_us_per_op);
        let (rc, rc_lo, rc_hi) = median_iqr(&cpu_ratios);
        let ci = median_ci95(&cpu_ratios)
            .map_or_else(|| "–".to_owned(), |(lo, hi)| format!("{lo:.3}–{hi:.3}"));
        let (rt, rt_lo, rt_hi) = median_iqr(&paired(v, |s| s.ops_per_s));
        println!(
            "| {} | {:.0} | {:.1} | {:.1} | {:.3} ({:.3}–{:.3}) | {ci} | {:.0} | {:.0} | {:.3} ({:.3}–{:.3}) |",
            v.name,
            ops_per_run,
            cpu(&v.cassmodel),
            cpu(&v.raw),
            rc,
            rc_lo,
            rc_hi,
            ops(&v.cassmodel),
            ops(&v.raw),
            rt,
            rt_lo,
            rt_hi
        );
    }
    println!();
    println!(
        "CPU ratio = cassmodel/raw client CPU per operation (below 1.05 is within 5%); \
         throughput ratio = cassmodel/raw ops/s (above 0.95 is within 5%). Medians over \
         {rounds} rounds; ratios are medians of the per-round paired ratios; the 95% CI is \
         distribution-free (order statistics of the rounds' ratios)."
    );

    db.execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
        .await
        .expect("drop keyspace");
    println!(
        "total {:.1?}, {} measured and warm-up operations; load average at the end {}",
        started.elapsed(),
        bench.total_ops.load(std::sync::atomic::Ordering::Relaxed),
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
