//! The drift check of an entity's tables (`check_entity`, what `migrate check-entity` runs)
//! against the key-change verify (`verify`, what `migrate verify` runs), on the same two
//! tables of the same node, in interleaved rounds.
//!
//! ```text
//! ENTITY_CHECK_ROWS=1000000 ENTITY_CHECK_ROUNDS=3 cargo bench --bench entity_check
//! ```
//!
//! The tables: `readings` (one partition per sensor, rows in time order, ~150 bytes each:
//! `sensor int, ts timestamp, day date, value double, payload text` of 100 characters) and
//! `readings_by_day`, keyed by `(sensor, day)`, holding the same rows. They are at once the
//! old and the new table of a key change (`ReadingByDay` declares `from = "readings"`) and
//! the identity table and the other table of an entity (`Reading` lists both). N rows over
//! N/500 sensors, 500 rows each over 10 days, written once by the raw driver into both tables
//! (kept between runs of the same N, in keyspace `bench_entity_check_<N>`).
//!
//! Both read every row of both tables by token range and look every row up in the other:
//! verify, each source row in the new table, then each row of the new table in the source (a
//! copy by name); the check, each identity row's row in the other table, then each row of the
//! other table's identity row. Each runs with its defaults (verify: 256 ranges, 4 in flight,
//! 32 look-ups per range; the check: 64 ranges, 4 in flight, 32 rows per range, each range
//! claimed through the record). Reported: rows per second of each (rows of the source or
//! identity table over the wall time) and their ratio per round (median and range),
//! appended to `benches/results/entity_check.csv`.

#[path = "../xtask/src/results.rs"]
mod results;

use std::path::Path;
use std::time::Instant;

use cassmodel::migrate::copy::{VerifyOptions, verify};
use cassmodel::migrate::drift::{DriftOptions, check_entity};
use cassmodel::{CassEntity, CassTable, Db, Replication};
use chrono::{DateTime, Duration as Span, NaiveDate, TimeZone, Utc};
use futures::{StreamExt, TryStreamExt};

/// A reading, stored by sensor and time and by sensor and day.
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(Reading, ReadingByDay), identity = Reading)]
struct Event {
    sensor: i32,
    ts: DateTime<Utc>,
    day: NaiveDate,
    value: f64,
    payload: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "readings", entity = Event)]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering]
    ts: DateTime<Utc>,
    day: NaiveDate,
    value: f64,
    payload: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "readings_by_day", from = "readings", entity = Event)]
struct ReadingByDay {
    #[partition_key]
    sensor: i32,
    #[partition_key]
    day: NaiveDate,
    #[clustering]
    ts: DateTime<Utc>,
    value: f64,
    payload: String,
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Row `i`: sensor `i / 500` (a random-looking id), at a time within 10 days.
fn row(i: usize) -> (i32, DateTime<Utc>, NaiveDate, f64, String) {
    let sensor = ((i / 500) as u32).wrapping_mul(2_654_435_761) as i32;
    let start = Utc
        .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default();
    let ts = start + Span::seconds(((i as i64 * 7_919) % 864_000) + (i % 500) as i64);
    (
        sensor,
        ts,
        ts.date_naive(),
        i as f64 / 7.0,
        format!("{i:0>100}"),
    )
}

/// Creates the keyspace and both tables and writes `rows` rows into each, unless a run of
/// the same size left them: whether it loaded.
async fn load(root: &Db, ks: &str, rows: usize) -> bool {
    let db = root.with_keyspace(ks).expect("keyspace name");
    let marker = format!("SELECT rows FROM {ks}.loaded WHERE id = 0");
    if let Ok(res) = root.session().query_unpaged(marker.as_str(), ()).await
        && let Ok(Some((n,))) = res
            .into_rows_result()
            .map(|r| r.maybe_first_row::<(i64,)>().ok().flatten())
        && n == rows as i64
    {
        return false;
    }
    root.create_keyspace(ks, &Replication::Simple(1))
        .await
        .expect("keyspace");
    db.create_table::<Reading>().await.expect("create");
    db.create_table::<ReadingByDay>().await.expect("create");
    let s = db.session();
    let insert = |t: &str| {
        format!("INSERT INTO {ks}.{t} (sensor, ts, day, value, payload) VALUES (?, ?, ?, ?, ?)")
    };
    let (a, b) = (
        s.prepare(insert("readings")).await.expect("prepare"),
        s.prepare(insert("readings_by_day")).await.expect("prepare"),
    );
    let (a, b) = (&a, &b);
    futures::stream::iter(0..rows)
        .map(|i| async move {
            let r = row(i);
            s.execute_unpaged(a, &r).await?;
            s.execute_unpaged(b, &r).await
        })
        .buffer_unordered(128)
        .try_collect::<Vec<_>>()
        .await
        .expect("load");
    let cql = format!("CREATE TABLE IF NOT EXISTS {ks}.loaded (id int PRIMARY KEY, rows bigint)");
    db.execute_ddl(&cql).await.expect("marker");
    let cql = format!("INSERT INTO {ks}.loaded (id, rows) VALUES (0, ?)");
    s.query_unpaged(cql, (rows as i64,)).await.expect("marker");
    true
}

/// One run of each, timed: rows per second, and the rows each read.
async fn verify_once(db: &Db) -> (f64, u64) {
    let t = Instant::now();
    let report = verify::<ReadingByDay>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(report.is_clean(), "{report}");
    (
        report.source_rows as f64 / t.elapsed().as_secs_f64(),
        report.source_rows,
    )
}

async fn check_once(db: &Db) -> (f64, u64) {
    let t = Instant::now();
    let report = check_entity::<Event>(db, &DriftOptions::new())
        .await
        .expect("check");
    assert!(report.is_clean(), "{report}");
    (
        report.entities as f64 / t.elapsed().as_secs_f64(),
        report.entities,
    )
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

const HEADER: [&str; 12] = [
    "date",
    "commit",
    "machine",
    "rows",
    "rounds",
    "load_start",
    "load_end",
    "check_rows_per_s",
    "verify_rows_per_s",
    "ratio",
    "min_ratio",
    "max_ratio",
];

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let info = results::RunInfo::start(Path::new(env!("CARGO_MANIFEST_DIR")));
    let rows = env_or("ENTITY_CHECK_ROWS", 100_000);
    let rounds = env_or("ENTITY_CHECK_ROUNDS", 3).max(1);
    let options = cassmodel_node::cluster_or_local_node()
        .await
        .unwrap_or_else(|e| panic!("no Cassandra node: {e}"));
    let root = options.connect().await.expect("connect");
    let ks = format!("bench_entity_check_{rows}");
    let t = Instant::now();
    if load(&root, &ks, rows).await {
        println!(
            "entity_check: loaded {rows} rows into both tables in {:.0?}",
            t.elapsed()
        );
    }
    let db = root.with_keyspace(&ks).expect("keyspace name");
    let (mut check, mut verify, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // The order alternates between rounds.
        let (c, v) = if round % 2 == 0 {
            let c = check_once(&db).await;
            (c, verify_once(&db).await)
        } else {
            let v = verify_once(&db).await;
            (check_once(&db).await, v)
        };
        assert_eq!(
            (c.1, v.1),
            (rows as u64, rows as u64),
            "every row read by both"
        );
        println!(
            "round {round}: check {:.0} rows/s, verify {:.0} rows/s, ratio {:.3} (load {})",
            c.0,
            v.0,
            c.0 / v.0,
            results::load_1min()
        );
        check.push(c.0);
        verify.push(v.0);
        ratio.push(c.0 / v.0);
    }
    let (lo, hi) = (
        ratio.iter().copied().fold(f64::INFINITY, f64::min),
        ratio.iter().copied().fold(0.0, f64::max),
    );
    let (c, v, r) = (median(&mut check), median(&mut verify), median(&mut ratio));
    println!(
        "entity_check: {rows} rows, {rounds} rounds: check {c:.0} rows/s, verify {v:.0} rows/s, \
         ratio {r:.3} [{lo:.3}-{hi:.3}]"
    );
    let line = vec![
        info.date.clone(),
        info.commit.clone(),
        info.machine.clone(),
        rows.to_string(),
        rounds.to_string(),
        info.load_start.clone(),
        results::load_1min(),
        format!("{c:.0}"),
        format!("{v:.0}"),
        format!("{r:.3}"),
        format!("{lo:.3}"),
        format!("{hi:.3}"),
    ];
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results/entity_check.csv");
    results::append_csv(&path, &HEADER, &[line]).expect("entity_check.csv");
}
