//! Backfill throughput and memory: `migrate backfill` (cassmodel's copy of a key change)
//! against the same copy written by hand on the raw scylla driver and against cqlsh
//! `COPY TO` + `COPY FROM`, on the same node, in interleaved rounds.
//!
//! ```text
//! benches/backfill.sh [--rows N] [--rounds K]      # installs cqlsh 6.2.2, then runs `all`
//! cargo bench --bench backfill -- all --rows N --rounds K [--cqlsh PATH]
//! cargo bench --bench backfill -- all --counters --rows N --rounds K   # counter tables
//! target/release/deps/backfill-* reset; target/release/deps/backfill-* run cassmodel
//! ```
//!
//! `reset` and `run VARIANT` alone pair two builds of cassmodel on one loaded table (see
//! BENCHMARKS.md).
//!
//! The copy: `events` (one partition per sensor, rows in time order, ~150 bytes each:
//! `sensor int, ts timestamp, day date, value double, payload text` of 100 characters) into
//! `events_by_day`, whose partition is `(sensor, day)`: a column moved into the partition key,
//! the change `analyze` advises for a growing partition. The source has N rows over N/500
//! sensors with random ids, 500 rows each at random times over 10 days (about 50 rows per
//! target partition), written once (kept between runs of the same N).
//!
//! Variants, each run as a child process of this binary (its peak resident memory is its
//! own, read from `/proc/self/status` `VmHWM` at the end):
//! - `cassmodel`: `cassmodel::migrate::copy::backfill` with its defaults (token ranges sized
//!   from the source's size estimates, 8 ranges in flight and 16 writes in flight per range,
//!   rows of one target partition in one unlogged batch), including its record in
//!   `cassmodel_migrations` (`BACKFILL_RANGES` sets the number of ranges);
//! - `cassmodel-first`: the same, the record's keyspace dropped before: the first copy on a
//!   cluster where `migrate apply` did not create the record, which the copy then creates;
//! - `raw-rows:C`: by hand, as the driver's documentation shows: the ring in 256 token
//!   ranges, 4 at a time, each read with `execute_iter` + `rows_stream`, every row written
//!   with the prepared INSERT, C writes in flight in all;
//! - `raw-batched:C`: the same, consecutive rows of one target partition in one unlogged
//!   batch (up to 100), C batches in flight in all;
//! - `cqlsh-default`, `cqlsh-tuned`: `COPY events TO` a CSV file, then `COPY events_by_day
//!   FROM` it, with cqlsh's defaults, or with `NUMPROCESSES`, `PAGESIZE`, `CHUNKSIZE`,
//!   `MAXBATCHSIZE` raised (its peak memory: the largest of its processes, by `/usr/bin/time`).
//!
//! Both raw variants and cassmodel read each cell's write time and TTL and write them back
//! (`USING TTL ? AND TIMESTAMP ?`), which the copy of a live table needs; cqlsh COPY does not
//! (it writes the rows at the time of the copy).
//!
//! Before timing, two untimed copies (raw-batched, then cassmodel, whose first copy on a
//! cluster creates its record's keyspace) warm the node. Every round runs every
//! variant once, in a rotated order; before each run the target is truncated (and the
//! cassmodel record deleted), after it the target's rows are counted by token range: a run
//! that copied another number of rows fails the bench. Reported per variant: the median
//! rows/s over rounds and the run-to-run spread, and the peak memory; printed, and appended to
//! `benches/results/backfill.csv` with the run's date, commit, machine and load
//! (`BACKFILL_CSV=<file>` appends elsewhere, `BACKFILL_CSV=` nowhere).
//!
//! With `--counters`, the offline copy of a counter table instead (`backfill/counters.rs`).

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

use cassmodel::migrate::copy::{self, CopyOptions};
use cassmodel::{CassTable, Db};
use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use futures::{StreamExt, TryStreamExt};
use scylla::client::session::Session;
use scylla::statement::batch::{Batch, BatchStatement, BatchType};
use scylla::statement::prepared::PreparedStatement;

#[path = "backfill/counters.rs"]
mod counters;
// The run's date, commit and machine, and the CSV appending, shared with xtask.
#[path = "../xtask/src/results.rs"]
mod results;

const KEYSPACE: &str = "cassmodel_bench_copy";

/// The source table, as the application had it.
#[derive(CassTable, Debug, Clone)]
#[cass(keyspace = "cassmodel_bench_copy", table = "events")]
struct Event {
    #[partition_key]
    sensor: i32,
    #[clustering]
    ts: DateTime<Utc>,
    day: NaiveDate,
    value: f64,
    payload: String,
}

/// The new table: `day` moved into the partition key.
#[derive(CassTable, Debug, Clone)]
#[cass(
    keyspace = "cassmodel_bench_copy",
    table = "events_by_day",
    from = "events"
)]
struct EventByDay {
    #[partition_key]
    sensor: i32,
    #[partition_key]
    day: NaiveDate,
    #[clustering]
    ts: DateTime<Utc>,
    value: f64,
    payload: String,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let result = match args.first().map(String::as_str) {
        Some("all") => runtime.block_on(all(&args[1..])),
        Some("load") => runtime.block_on(async {
            let db = connect().await?;
            let rows = flag(&args, "--rows").unwrap_or(1_000_000);
            if args.iter().any(|a| a == "--counters") {
                counters::load(&db, rows).await
            } else {
                load(&db, rows).await
            }
        }),
        Some("run") => runtime.block_on(child(&args[1..])),
        // For paired runs of two builds (BENCHMARKS.md): the target emptied, the record gone.
        Some("reset") => runtime.block_on(async {
            let db = connect().await?;
            if args.iter().any(|a| a == "--counters") {
                counters::reset(&db).await
            } else {
                reset(&db).await
            }
        }),
        _ => Err(
            "usage: backfill all [--counters] [--rows N] [--rounds K] [--cqlsh PATH] | \
                  load [--counters] --rows N | run VARIANT | reset [--counters]"
                .into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("backfill bench: {e}");
        std::process::exit(1);
    }
}

type Res<T> = Result<T, String>;

fn flag(args: &[String], name: &str) -> Option<u64> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}

fn text_flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).map(String::as_str)
}

async fn connect() -> Res<Db> {
    let options = cassmodel_node::cluster_or_local_node()
        .await
        .map_err(|e| format!("no node: {e}"))?;
    options.connect().await.map_err(|e| e.to_string())
}

async fn cql(session: &Session, text: &str) -> Res<()> {
    session
        .query_unpaged(text, &[])
        .await
        .map(drop)
        .map_err(|e| format!("{text}: {e}"))
}

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }
}

/// The bench's keyspace, created if missing, with its table of what is loaded.
async fn create_keyspace(s: &Session) -> Res<()> {
    cql(
        s,
        &format!(
            "CREATE KEYSPACE IF NOT EXISTS {KEYSPACE} WITH replication = \
             {{'class': 'SimpleStrategy', 'replication_factor': 1}}"
        ),
    )
    .await?;
    cql(
        s,
        &format!("CREATE TABLE IF NOT EXISTS {KEYSPACE}.loaded (id int PRIMARY KEY, rows bigint)"),
    )
    .await
}

/// How many source rows are loaded (`id` 0: `events`, 1: `views`), if any.
async fn loaded(s: &Session, id: i32) -> Res<Option<i64>> {
    let row: Option<(Option<i64>,)> = s
        .query_unpaged(
            format!("SELECT rows FROM {KEYSPACE}.loaded WHERE id = ?"),
            (id,),
        )
        .await
        .map_err(|e| e.to_string())?
        .into_rows_result()
        .map_err(|e| e.to_string())?
        .maybe_first_row()
        .map_err(|e| e.to_string())?;
    Ok(row.and_then(|(n,)| n))
}

/// Records that `rows` source rows are loaded (`id` as in [`loaded`]).
async fn mark_loaded(s: &Session, id: i32, rows: u64) -> Res<()> {
    s.query_unpaged(
        format!("INSERT INTO {KEYSPACE}.loaded (id, rows) VALUES (?, ?)"),
        (id, rows as i64),
    )
    .await
    .map(drop)
    .map_err(|e| e.to_string())
}

/// Creates the keyspace and tables, and writes `rows` source rows unless they are there.
async fn load(db: &Db, rows: u64) -> Res<()> {
    let s = db.session();
    create_keyspace(s).await?;
    let loaded = loaded(s, 0).await?;
    db.create_table::<EventByDay>()
        .await
        .map_err(|e| e.to_string())?;
    if loaded == Some(rows as i64) {
        eprintln!("{rows} source rows already loaded");
        return Ok(());
    }
    cql(s, &format!("DROP TABLE IF EXISTS {KEYSPACE}.events")).await?;
    db.create_table::<Event>()
        .await
        .map_err(|e| e.to_string())?;
    let insert = s
        .prepare(format!(
            "INSERT INTO {KEYSPACE}.events (sensor, ts, day, value, payload) VALUES (?, ?, ?, ?, ?)"
        ))
        .await
        .map_err(|e| e.to_string())?;
    let start = Utc
        .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .ok_or("time")?;
    let mut rng = Lcg(42);
    let sensors = rows.div_ceil(500);
    let alphabet: Vec<char> = ('a'..='z').chain('0'..='9').collect();
    let mut made = Vec::with_capacity(rows as usize);
    for _ in 0..sensors {
        let sensor = (rng.next() % i32::MAX as u64) as i32;
        for _ in 0..500 {
            if made.len() as u64 == rows {
                break;
            }
            let ms = (rng.next() % (10 * 86_400_000)) as i64;
            let ts = start + chrono::Duration::milliseconds(ms);
            let payload: String = (0..100)
                .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
                .collect();
            let value = (rng.next() % 1_000_000) as f64 / 7.0;
            made.push((sensor, ts, ts.date_naive(), value, payload));
        }
    }
    let t = Instant::now();
    futures::stream::iter(made)
        .map(|row| {
            let insert = &insert;
            async move { s.execute_unpaged(insert, row).await.map(drop) }
        })
        .buffer_unordered(256)
        .try_collect::<()>()
        .await
        .map_err(|e| e.to_string())?;
    mark_loaded(s, 0, rows).await?;
    eprintln!("loaded {rows} rows in {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// Empties the target and forgets cassmodel's record of the copy.
async fn reset(db: &Db) -> Res<()> {
    empty(db.session(), "events_by_day").await
}

/// Drops cassmodel's record keyspace, as on a cluster where no copy ran and `migrate apply`
/// did not create it: the next copy creates it (`cassmodel-first`).
async fn forget_record(db: &Db) -> Res<()> {
    let drop = format!("DROP KEYSPACE IF EXISTS {}", copy::RECORD_KEYSPACE);
    cql(db.session(), &drop).await
}

/// Empties `table` (a target) and forgets cassmodel's record of every copy.
async fn empty(s: &Session, table: &str) -> Res<()> {
    cql(s, &format!("TRUNCATE {KEYSPACE}.{table}")).await?;
    for table in ["copies", "copy_ranges", "copy_leases"] {
        // Absent before cassmodel's first run.
        let _ = s
            .query_unpaged(format!("TRUNCATE {}.{table}", copy::RECORD_KEYSPACE), &[])
            .await;
    }
    Ok(())
}

/// The rows of the target, counted token range by token range.
async fn count_target(db: &Db) -> Res<u64> {
    let s = db.session();
    let ps = s
        .prepare(format!(
            "SELECT COUNT(*) FROM {KEYSPACE}.events_by_day WHERE token(sensor, day) >= ? AND \
             token(sensor, day) <= ?"
        ))
        .await
        .map_err(|e| e.to_string())?;
    let counts: Vec<i64> = futures::stream::iter(ranges(64))
        .map(|range| {
            let ps = &ps;
            async move {
                let (n,): (i64,) = s
                    .execute_unpaged(ps, range)
                    .await
                    .map_err(|e| e.to_string())?
                    .into_rows_result()
                    .map_err(|e| e.to_string())?
                    .first_row()
                    .map_err(|e| e.to_string())?;
                Ok::<i64, String>(n)
            }
        })
        .buffer_unordered(8)
        .try_collect()
        .await?;
    Ok(counts.iter().sum::<i64>() as u64)
}

/// The token ring in `n` contiguous ranges, `lo..=hi`.
fn ranges(n: u32) -> Vec<(i64, i64)> {
    let width = (u64::MAX / u64::from(n)) as i128;
    (0..n)
        .map(|i| {
            let lo = i64::MIN as i128 + width * i128::from(i);
            let hi = if i + 1 == n {
                i64::MAX as i128
            } else {
                lo + width - 1
            };
            (lo as i64, hi as i64)
        })
        .collect()
}

/// One timed copy, in this (child) process: prints `rows seconds peak_kib ranges` (ranges:
/// cassmodel's number of token ranges, as it sized or was told them; 0 for the others).
async fn child(args: &[String]) -> Res<()> {
    let variant = args.first().ok_or("run VARIANT")?.as_str();
    let db = connect().await?;
    let t = Instant::now();
    let mut ranges = 0;
    let rows = match variant.split_once(':') {
        _ if variant.starts_with("counters-") => counters::run(&db, variant).await?,
        None if variant == "cassmodel" || variant == "cassmodel-first" => {
            let report = copy::backfill::<EventByDay>(&db, &options_from_env()?)
                .await
                .map_err(|e| e.to_string())?;
            ranges = report.ranges;
            report.rows
        }
        Some(("raw-rows", c)) => raw(&db, c.parse().map_err(|_| "C")?, false).await?,
        Some(("raw-batched", c)) => raw(&db, c.parse().map_err(|_| "C")?, true).await?,
        _ => return Err(format!("unknown variant {variant}")),
    };
    let secs = t.elapsed().as_secs_f64();
    println!("{rows} {secs:.3} {} {ranges}", peak_kib());
    Ok(())
}

/// cassmodel's backfill options: the defaults, or `BACKFILL_RANGES`,
/// `BACKFILL_RANGES_IN_FLIGHT` and `BACKFILL_WRITES_IN_FLIGHT` when set.
fn options_from_env() -> Res<CopyOptions> {
    let mut options = CopyOptions::new();
    if let Ok(v) = std::env::var("BACKFILL_RANGES") {
        options = options.ranges(v.parse().map_err(|_| "ranges")?);
    }
    if let Ok(v) = std::env::var("BACKFILL_RANGES_IN_FLIGHT") {
        options = options.ranges_in_flight(v.parse().map_err(|_| "ranges in flight")?);
    }
    if let Ok(v) = std::env::var("BACKFILL_WRITES_IN_FLIGHT") {
        options = options.writes_in_flight(v.parse().map_err(|_| "writes in flight")?);
    }
    Ok(options)
}

/// Peak resident memory of this process, KiB.
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

type RawRow = (
    i32,
    DateTime<Utc>,
    NaiveDate,
    f64,
    String,
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<i32>,
);

/// The copy by hand: 256 token ranges, 4 at a time, `in_flight` writes (or batches) in all.
/// Each row is written with the newest write time of its cells and, if all of them expire,
/// their soonest TTL.
async fn raw(db: &Db, in_flight: usize, batched: bool) -> Res<u64> {
    let s = db.session();
    let mut scan = s
        .prepare(format!(
            "SELECT sensor, ts, day, value, payload, WRITETIME(day), TTL(day), \
             WRITETIME(value), TTL(value), WRITETIME(payload), TTL(payload) FROM \
             {KEYSPACE}.events WHERE token(sensor) >= ? AND token(sensor) <= ?"
        ))
        .await
        .map_err(|e| e.to_string())?;
    scan.set_page_size(1000);
    let mut insert = s
        .prepare(format!(
            "INSERT INTO {KEYSPACE}.events_by_day (sensor, day, ts, value, payload) VALUES \
             (?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?"
        ))
        .await
        .map_err(|e| e.to_string())?;
    insert.set_is_idempotent(true);
    let per_range = in_flight.div_ceil(4).max(1);
    let counts: Vec<u64> = futures::stream::iter(ranges(256))
        .map(|range| copy_range(s, &scan, &insert, range, per_range, batched))
        .buffer_unordered(4)
        .try_collect()
        .await?;
    Ok(counts.iter().sum())
}

type Values = (i32, NaiveDate, DateTime<Utc>, f64, String, i32, i64);

fn values(r: RawRow) -> Values {
    let times = [(r.5, r.6), (r.7, r.8), (r.9, r.10)];
    let written = times.iter().filter_map(|t| t.0).max().unwrap_or(0);
    let ttl = if times.iter().all(|t| t.1.is_some_and(|x| x > 0)) {
        times.iter().filter_map(|t| t.1).min().unwrap_or(0)
    } else {
        0
    };
    (r.0, r.2, r.1, r.3, r.4, ttl, written)
}

async fn copy_range(
    s: &Session,
    scan: &PreparedStatement,
    insert: &PreparedStatement,
    range: (i64, i64),
    in_flight: usize,
    batched: bool,
) -> Res<u64> {
    let rows = s
        .execute_iter(scan.clone(), range)
        .await
        .map_err(|e| e.to_string())?
        .rows_stream::<RawRow>()
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
        .map_ok(values);
    if !batched {
        return rows
            .map_ok(|v| async move {
                s.execute_unpaged(insert, v)
                    .await
                    .map(|_| 1u64)
                    .map_err(|e| e.to_string())
            })
            .try_buffer_unordered(in_flight)
            .try_fold(0, |n, k| async move { Ok(n + k) })
            .await;
    }
    // Consecutive rows of one (sensor, day), up to 100, in one unlogged batch.
    grouped(
        s,
        insert,
        rows,
        |a, b| a.0 == b.0 && a.1 == b.1,
        BatchType::Unlogged,
        in_flight,
    )
    .await
}

/// Writes `rows` with `write`: consecutive rows of one target partition (`same`), up to 100,
/// in one batch of `kind` (an unlogged batch marked idempotent), `in_flight` batches at a time.
/// Returns how many rows.
async fn grouped<V, S>(
    s: &Session,
    write: &PreparedStatement,
    rows: S,
    same: fn(&V, &V) -> bool,
    kind: BatchType,
    in_flight: usize,
) -> Res<u64>
where
    V: scylla::serialize::row::SerializeRow,
    S: futures::Stream<Item = Res<V>>,
{
    let chunks = rows.try_chunks(100).map_err(|e| e.1).map_ok(|chunk| {
        let mut groups: Vec<Vec<V>> = Vec::new();
        for v in chunk {
            match groups.last_mut() {
                Some(g) if same(&g[0], &v) => g.push(v),
                _ => groups.push(vec![v]),
            }
        }
        futures::stream::iter(groups.into_iter().map(Ok::<_, String>))
    });
    chunks
        .try_flatten()
        .map_ok(|group| async move {
            let n = group.len() as u64;
            if n == 1 {
                s.execute_unpaged(write, &group[0])
                    .await
                    .map_err(|e| e.to_string())?;
            } else {
                let mut batch = Batch::new(kind);
                for _ in &group {
                    batch.append_statement(BatchStatement::PreparedStatement(write.clone()));
                }
                batch.set_is_idempotent(kind == BatchType::Unlogged);
                s.batch(&batch, &group).await.map_err(|e| e.to_string())?;
            }
            Ok::<u64, String>(n)
        })
        .try_buffer_unordered(in_flight)
        .try_fold(0, |n, k| async move { Ok(n + k) })
        .await
}

/// One measured run of a variant: rows/s and peak memory (KiB).
struct Run {
    rate: f64,
    peak_kib: u64,
    /// cassmodel's number of token ranges (0 for the others).
    ranges: u32,
}

fn run_child(variant: &str) -> Res<(u64, f64, u64, u32)> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args(["run", variant])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "{variant}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace();
    let mut next = || {
        parts
            .next()
            .ok_or_else(|| format!("{variant}: output `{text}`"))
    };
    let rows = next()?.parse().map_err(|_| "rows")?;
    let secs = next()?.parse().map_err(|_| "secs")?;
    let peak = next()?.parse().map_err(|_| "peak")?;
    let ranges = next()?.parse().map_err(|_| "ranges")?;
    Ok((rows, secs, peak, ranges))
}

/// cqlsh COPY TO + COPY FROM, timed; peak memory by /usr/bin/time when it is there.
fn run_cqlsh(cqlsh: &str, tuned: bool, point: &str) -> Res<(f64, u64)> {
    let file = std::env::temp_dir().join("cassmodel_bench_copy.csv");
    let _ = std::fs::remove_file(&file);
    let (host, port) = point.rsplit_once(':').unwrap_or((point, "9042"));
    let columns = "(sensor, ts, day, value, payload)";
    let (to, from) = if tuned {
        (
            " WITH NUMPROCESSES = 4 AND PAGESIZE = 5000",
            " WITH NUMPROCESSES = 4 AND CHUNKSIZE = 5000 AND MAXBATCHSIZE = 100 AND \
             MINBATCHSIZE = 10",
        )
    } else {
        ("", "")
    };
    let f = file.display();
    let statements = [
        format!("COPY {KEYSPACE}.events {columns} TO '{f}'{to}"),
        format!("COPY {KEYSPACE}.events_by_day {columns} FROM '{f}'{from}"),
    ];
    let timed = std::path::Path::new("/usr/bin/time").exists();
    let t = Instant::now();
    let mut peak = 0;
    for statement in &statements {
        let mut cmd = if timed {
            let mut c = Command::new("/usr/bin/time");
            c.args(["-f", "%M", cqlsh]);
            c
        } else {
            Command::new(cqlsh)
        };
        let out = cmd
            .args([host, port, "--request-timeout", "60", "-e", statement])
            .output()
            .map_err(|e| format!("{cqlsh}: {e}"))?;
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            return Err(format!("cqlsh {statement}: {err}"));
        }
        if timed
            && let Some(kib) = err
                .lines()
                .last()
                .and_then(|l| l.trim().parse::<u64>().ok())
        {
            peak = peak.max(kib);
        }
    }
    let _ = std::fs::remove_file(&file);
    Ok((t.elapsed().as_secs_f64(), peak))
}

async fn all(args: &[String]) -> Res<()> {
    let info = results::RunInfo::start(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    let rows = flag(args, "--rows").unwrap_or(1_000_000);
    let rounds = flag(args, "--rounds").unwrap_or(3) as usize;
    let cqlsh = text_flag(args, "--cqlsh");
    let counts = args.iter().any(|a| a == "--counters");
    let db = connect().await?;
    let point = cassmodel_node::cluster_or_local_node()
        .await
        .map_err(|e| e.to_string())?
        .get_contact_points()
        .first()
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:9042".into());
    if counts {
        counters::load(&db, rows).await?;
    } else {
        load(&db, rows).await?;
    }
    let source = if counts {
        Some(counters::totals(&db, "views", "sensor").await?)
    } else {
        None
    };
    let mut variants: Vec<String> = [
        "cassmodel",
        "cassmodel-first",
        "raw-rows:128",
        "raw-rows:256",
        "raw-batched:16",
        "raw-batched:32",
        "raw-batched:64",
    ]
    .map(str::to_owned)
    .to_vec();
    if cqlsh.is_some() && !counts {
        variants.extend(["cqlsh-default".to_owned(), "cqlsh-tuned".to_owned()]);
    }
    let mut warm_up = ["raw-batched:32", "cassmodel"];
    if counts {
        variants = counters::VARIANTS.map(str::to_owned).to_vec();
        warm_up = ["counters-raw:32", "counters-cassmodel"];
    }
    let reset_target = |db: &Db| {
        let db = db.clone();
        async move {
            if counts {
                counters::reset(&db).await
            } else {
                reset(&db).await
            }
        }
    };
    // Warm-up: the node's JIT, and cassmodel's record keyspace (created by its first copy on
    // a cluster, once).
    for v in warm_up {
        reset_target(&db).await?;
        let (n, secs, _, _) = run_child(v)?;
        eprintln!("warm-up {v}: {n} rows in {secs:.1} s");
    }
    let mut results: BTreeMap<String, Vec<Run>> = BTreeMap::new();
    for round in 0..rounds {
        let mut order = variants.clone();
        order.rotate_left(round % variants.len());
        for v in &order {
            reset_target(&db).await?;
            if v == "cassmodel-first" {
                forget_record(&db).await?;
            }
            let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
            let (secs, peak, ranges) = match v.strip_prefix("cqlsh-") {
                Some(kind) => {
                    let (secs, peak) =
                        run_cqlsh(cqlsh.unwrap_or("cqlsh"), kind == "tuned", &point)?;
                    (secs, peak, 0)
                }
                None => {
                    let (n, secs, peak, ranges) = run_child(v)?;
                    if n != rows {
                        return Err(format!("{v} reports {n} rows copied, not {rows}"));
                    }
                    (secs, peak, ranges)
                }
            };
            match source {
                // Every row, and every count exactly once.
                Some(source) => {
                    let target = counters::totals(&db, "views_by_day", "sensor, day").await?;
                    if target != source {
                        return Err(format!(
                            "after {v}, the target has (rows, sum) {target:?}, the source {source:?}"
                        ));
                    }
                }
                None => {
                    let counted = count_target(&db).await?;
                    if counted != rows {
                        return Err(format!(
                            "after {v}, the target has {counted} rows, not {rows}"
                        ));
                    }
                }
            }
            let rate = rows as f64 / secs;
            let in_ranges = match ranges {
                0 => String::new(),
                n => format!(" in {n} ranges"),
            };
            eprintln!(
                "round {round} {v}: {rate:.0} rows/s ({secs:.1} s{in_ranges}), peak {} MiB, load {}",
                peak / 1024,
                load.split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            results.entry(v.clone()).or_default().push(Run {
                rate,
                peak_kib: peak,
                ranges,
            });
        }
    }
    report(
        &results,
        &info,
        rows,
        rounds,
        counts,
        cqlsh.is_some() && !counts,
    )
}

/// Prints each variant's median rows/s over its rounds, their spread and its peak memory,
/// against the best raw copy, and appends them to `benches/results/backfill.csv` with the
/// run's `info` (`BACKFILL_CSV=<file>` appends elsewhere, `BACKFILL_CSV=` nowhere).
fn report(
    results: &BTreeMap<String, Vec<Run>>,
    info: &results::RunInfo,
    rows: u64,
    rounds: usize,
    counts: bool,
    cqlsh: bool,
) -> Res<()> {
    println!("| variant | rows/s (median of {rounds}) | min - max | peak memory |");
    println!("|---|---:|---:|---:|");
    let median = |runs: &[Run]| {
        let mut r: Vec<f64> = runs.iter().map(|r| r.rate).collect();
        r.sort_by(f64::total_cmp);
        (r[r.len() / 2], r[0], r[r.len() - 1])
    };
    let best_raw = results
        .iter()
        .filter(|(v, _)| v.starts_with("raw") || v.starts_with("counters-raw"))
        .map(|(_, runs)| median(runs).0)
        .fold(0.0, f64::max);
    let load_end = results::load_1min();
    let mut best_marked = false;
    let mut csv = Vec::new();
    for (v, runs) in results {
        let (m, lo, hi) = median(runs);
        let peak = runs.iter().map(|r| r.peak_kib).max().unwrap_or(0);
        println!(
            "| {v} | {m:.0} ({:.2}x best raw) | {lo:.0} - {hi:.0} | {:.1} MiB |",
            m / best_raw,
            peak as f64 / 1024.0
        );
        let best = !best_marked
            && (v.starts_with("raw") || v.starts_with("counters-raw"))
            && m == best_raw;
        best_marked |= best;
        csv.push(vec![
            info.date.clone(),
            info.commit.clone(),
            info.machine.clone(),
            rows.to_string(),
            rounds.to_string(),
            u8::from(counts).to_string(),
            u8::from(cqlsh).to_string(),
            info.load_start.clone(),
            load_end.clone(),
            v.clone(),
            format!("{m:.0}"),
            format!("{lo:.0}"),
            format!("{hi:.0}"),
            format!("{:.2}", m / best_raw),
            u8::from(best).to_string(),
            format!("{:.1}", peak as f64 / 1024.0),
            ranges_note(runs),
        ]);
    }
    // `BACKFILL_CSV=<file>` appends elsewhere, `BACKFILL_CSV=` nowhere.
    let path = match std::env::var_os("BACKFILL_CSV") {
        Some(p) if p.is_empty() => return Ok(()),
        Some(p) => std::path::PathBuf::from(p),
        None => {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results/backfill.csv")
        }
    };
    results::append_csv(&path, &CSV_HEADER, &csv)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{} rows appended to {}", csv.len(), path.display());
    Ok(())
}

/// The `notes` of a variant's row: cassmodel's number of ranges in each round, when it sized
/// them (`ranges per round: 32 32 50`).
fn ranges_note(runs: &[Run]) -> String {
    if runs.iter().all(|r| r.ranges == 0) {
        return String::new();
    }
    let each: Vec<String> = runs.iter().map(|r| r.ranges.to_string()).collect();
    format!("ranges per round: {}", each.join(" "))
}

/// The columns of `benches/results/backfill.csv`: one row per variant and run.
const CSV_HEADER: [&str; 17] = [
    "date",
    "commit",
    "machine",
    "rows",
    "rounds",
    "counters",
    "cqlsh",
    "load_start",
    "load_end",
    "variant",
    "rows_per_s",
    "min_rows_per_s",
    "max_rows_per_s",
    "ratio_vs_best_raw",
    "best_raw",
    "peak_mib",
    "notes",
];
