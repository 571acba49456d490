//! `copy`: the backfill of a key change under faults. The rows of `copy_readings` (one
//! partition per sensor) are copied into `copy_readings_by_day` (a day bucket) by backfill
//! worker processes (this binary, `chaos copy-worker`), while an application writes through
//! the new model (dual writes): inserts, updates and deletes of the rows being copied. Workers
//! are killed with SIGKILL (by the pid of the process this check started) at set points of
//! the copy and new ones started; on the cluster, node 3 is also killed (SIGKILL) at the
//! first kill of a worker and started again after the copy. At the end: every range done,
//! `verify` finds nothing missing, different or extra, and the new table read through the new
//! model equals the old table read with plain CQL and the rows the application wrote.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cassmodel::migrate::copy::{self, CopyOptions, VerifyOptions};
use cassmodel::{CassTable, Db};
use chrono::{DateTime, TimeZone, Utc};
use futures::{StreamExt, TryStreamExt};

use crate::env::{Env, Outcome};

/// The table as the application had it.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "copy_readings")]
pub struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering(desc)]
    ts: DateTime<Utc>,
    value: f64,
    note: Option<String>,
}

/// The same rows, one partition per sensor and day, written by the application during the
/// copy (dual writes).
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "copy_readings_by_day", from = "copy_readings", dual_writes)]
pub struct ReadingByDay {
    #[partition_key]
    sensor: i32,
    #[clustering(desc)]
    #[cass(bucket(day))]
    ts: DateTime<Utc>,
    value: f64,
    note: Option<String>,
}

const SENSORS: i32 = 60;
const RANGES: u32 = 64;
const LEASE: Duration = Duration::from_secs(3);

/// Rows per sensor, and rows per second of each worker, on `nodes` nodes: the copy lasts
/// long enough (about 10 s of copying) to be killed at set points. On the cluster, where
/// every row is written and verified on three replicas of the same two cores, an eighth of
/// the rows at an eighth of the rate (the same copy time): `verify` looks up every row in
/// both tables, and 120,000 rows took 240 s there, 30,000 rows 126 s.
fn size(nodes: usize) -> (i64, u32) {
    if nodes > 1 {
        (250, 1_500)
    } else {
        (2_000, 12_000)
    }
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

fn reading(sensor: i32, i: i64) -> Reading {
    Reading {
        sensor,
        ts: start() + chrono::Duration::minutes(11 * i),
        value: f64::from(sensor) * 1e4 + i as f64,
        note: (i % 4 == 0).then(|| format!("n{sensor}/{i}")),
    }
}

type Rows = BTreeMap<(i32, DateTime<Utc>), (f64, Option<String>)>;

/// The worker processes still running: killed (SIGKILL, by the pid of each child) and reaped
/// when the check ends, whichever way.
struct Workers(Vec<Child>);

impl Drop for Workers {
    fn drop(&mut self) {
        for w in &mut self.0 {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}

/// Stops the application's writes when the check ends, whichever way.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The connection of a worker process started with `KEYSPACE CONTACT_POINTS`.
pub async fn worker_db(args: &[String]) -> Result<Db, String> {
    let [keyspace, points] = args else {
        return Err("expected KEYSPACE CONTACT_POINTS".into());
    };
    let points: Vec<String> = points.split(',').map(str::to_owned).collect();
    cassmodel::ConnectOptions::from_env()
        .map_err(|e| e.to_string())?
        .contact_points(points)
        .keyspace(keyspace.clone())
        .connect()
        .await
        .map_err(|e| e.to_string())
}

/// `chaos copy-worker KEYSPACE CONTACT_POINTS`: one backfill worker process.
pub async fn worker(args: &[String]) -> Result<(), String> {
    let db = worker_db(args).await?;
    let nodes = args.get(1).map_or(1, |points| points.split(',').count());
    let options = CopyOptions::new()
        .ranges(RANGES)
        .lease(LEASE)
        .rows_per_second(size(nodes).1);
    let report = copy::backfill::<ReadingByDay>(&db, &options)
        .await
        .map_err(|e| e.to_string())?;
    println!("{} {}", report.rows, report.ranges_copied);
    Ok(())
}

/// Starts `chaos <command> KEYSPACE CONTACT_POINTS`: a backfill worker process.
fn spawn_worker(env: &Env, command: &str) -> Result<Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    Command::new(exe)
        .args([
            command,
            &env.keyspace,
            &cassmodel_node::contact_points(&env.nodes).join(","),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting a worker: {e}"))
}

/// The ranges of the copy into `target` done so far (0 while a worker creates the record's
/// tables), or why the record could not tell: one query of the record (`copy::status` looks
/// up every copy the cluster ever recorded, too much to poll several times a second).
pub async fn ranges_done(db: &Db, target: &str) -> Result<u32, String> {
    let cql = format!(
        "SELECT done FROM {}.copy_ranges WHERE migration = ?",
        copy::RECORD_KEYSPACE
    );
    let rows = match db.session().query_unpaged(cql.as_str(), (target,)).await {
        Ok(rows) => rows,
        Err(e) if e.to_string().contains("does not exist") => return Ok(0),
        Err(e) => return Err(e.to_string()),
    };
    let done: Vec<(Option<bool>,)> = rows
        .into_rows_result()
        .map_err(|e| e.to_string())?
        .rows()
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    Ok(done.iter().filter(|(d,)| *d == Some(true)).count() as u32)
}

/// One write of the application.
enum Write {
    Insert(ReadingByDay),
    Update(i32, DateTime<Utc>, f64),
    Delete(i32, DateTime<Utc>),
}

impl Write {
    async fn run(&self, db: &Db) -> cassmodel::Result<()> {
        match self {
            Write::Insert(r) => db.insert(r).await,
            Write::Update(sensor, ts, value) => ReadingByDay::update()
                .set_value(value)
                .sensor(sensor)
                .ts(ts)
                .execute(db)
                .await
                .map(drop),
            Write::Delete(sensor, ts) => ReadingByDay::delete()
                .sensor(sensor)
                .ts(ts)
                .execute(db)
                .await
                .map(drop),
        }
    }

    /// What the tables hold after it.
    fn apply(self, rows: &mut Rows) {
        match self {
            Write::Insert(r) => {
                rows.insert((r.sensor, r.ts), (r.value, r.note));
            }
            Write::Update(sensor, ts, value) => {
                rows.entry((sensor, ts)).or_insert((value, None)).0 = value
            }
            Write::Delete(sensor, ts) => {
                rows.remove(&(sensor, ts));
            }
        }
    }
}

/// The application: writes through the new model until `stop` (at most 3,000 writes, 240 s).
/// A write that fails (a node stopped, a time-out) may or may not have applied: it is run
/// again until it succeeds (every write here is idempotent), so the rows expected stay exact.
async fn application(
    db: Db,
    mut rows: Rows,
    stop: Arc<AtomicBool>,
) -> Result<(Rows, u32, Vec<String>), String> {
    let keys: Vec<(i32, DateTime<Utc>)> = rows.keys().copied().collect();
    let started = Instant::now();
    let (mut writes, mut errors) = (0u32, Vec::new());
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    while writes < 3_000 && started.elapsed() < Duration::from_secs(240) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let (sensor, ts) = keys[(seed % keys.len() as u64) as usize];
        let write = match writes % 3 {
            0 => Write::Insert(ReadingByDay {
                sensor,
                ts: ts + chrono::Duration::seconds(1 + i64::from(writes % 500)),
                value: -f64::from(writes),
                note: Some(format!("app {writes}")),
            }),
            1 => Write::Update(sensor, ts, f64::from(writes) + 0.5),
            _ => Write::Delete(sensor, ts),
        };
        let mut attempts = 0;
        while let Err(e) = write.run(&db).await {
            errors.push(e.to_string());
            attempts += 1;
            if attempts == 100 {
                return Err(format!("a write failed 100 times, last: {e}"));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        write.apply(&mut rows);
        writes += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    Ok((rows, writes, errors))
}

/// `(sensor, ts) -> (value, note)` of `table`, with plain CQL.
async fn plain(db: &Db, keyspace: &str, table: &str) -> Result<Rows, String> {
    let cql = format!("SELECT sensor, ts, value, note FROM {keyspace}.{table}");
    let mut rows = db
        .session()
        .query_iter(cql.as_str(), &[])
        .await
        .map_err(|e| e.to_string())?
        .rows_stream::<(i32, DateTime<Utc>, f64, Option<String>)>()
        .map_err(|e| e.to_string())?;
    let mut out = Rows::new();
    while let Some((s, ts, v, n)) = rows.try_next().await.map_err(|e| e.to_string())? {
        out.insert((s, ts), (v, n));
    }
    Ok(out)
}

pub async fn check(env: &Env) -> Result<Outcome, String> {
    let db = crate::checks::connect(env, Some(Duration::from_secs(20))).await?;
    let ks = env.keyspace.clone();
    let target = format!("{ks}.copy_readings_by_day");
    db.create_table::<Reading>()
        .await
        .map_err(|e| e.to_string())?;
    db.create_table::<ReadingByDay>()
        .await
        .map_err(|e| e.to_string())?;
    let per_sensor = size(env.nodes.len()).0;
    let rows: Vec<Reading> = (0..SENSORS)
        .flat_map(|s| (0..per_sensor).map(move |i| reading(s, i)))
        .collect();
    let total = rows.len();
    let loading = Instant::now();
    futures::stream::iter(rows)
        .map(|r| {
            let db = &db;
            async move { db.insert(&r).await }
        })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .map_err(|e| format!("loading: {e}"))?;
    let before = plain(&db, &ks, "copy_readings").await?;
    let load_took = loading.elapsed();

    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let app = tokio::spawn(application(db.clone(), before, Arc::clone(&stop)));
    // Whatever way this check ends, the application stops and no worker outlives it.
    let _stop_app = StopOnDrop(Arc::clone(&stop));
    let run = copy_with_kills(env, &db, &target, "copy-worker", RANGES, 1).await?;
    let copy_took = started.elapsed();
    let back = Instant::now();
    let restarted = node_back(env, &run.node_stopped).await?;
    let back_took = back.elapsed();
    if let Some(Err(e)) = run.ended.iter().find(|e| e.is_err()) {
        return Err(format!("a worker failed: {e}"));
    }
    stop.store(true, Ordering::Relaxed);
    let (expected, writes, write_errors) = app.await.map_err(|e| e.to_string())??;

    let checking = Instant::now();
    let verify = copy::verify::<ReadingByDay>(&db, &VerifyOptions::new())
        .await
        .map_err(|e| e.to_string())?;
    let mut new = Rows::new();
    let mut scan = ReadingByDay::scan_full_table(&db, 8)
        .await
        .map_err(|e| e.to_string())?;
    while let Some(r) = scan.try_next().await.map_err(|e| e.to_string())? {
        new.insert((r.sensor, r.ts), (r.value, r.note));
    }
    let old = plain(&db, &ks, "copy_readings").await?;
    let status = copy::status(&db).await.map_err(|e| e.to_string())?;
    let finished = status.iter().any(|s| s.target == target && s.finished);
    let same = new == old && new == expected;
    let check_took = checking.elapsed();
    let ok = verify.is_clean() && same && finished;
    Ok(Outcome {
        name: "copy",
        ok,
        figures: format!(
            "{total} rows in {RANGES} ranges copied by worker processes while the application \
             made {writes} writes through the new model ({} failed and retried); workers killed \
             with SIGKILL (pid at ranges done, as last read before the kill): {}{}; the \
             workers left reported (rows ranges): {}; copy {copy_took:.1?}; all ranges done: {finished}; verify: {} missing, {} \
             different, {} extra of {} source rows; new table = old table = rows written: \
             {same} ({} rows); load {load_took:.0?}, verify and reads {check_took:.0?}",
            write_errors.len(),
            run.kills.join(", "),
            run.node_stopped
                .as_ref()
                .map_or(String::new(), |(n, pid, at)| format!(
                    "; {} (pid {pid}) killed with SIGKILL at {at} ranges and started again after \
                 the copy (rejoined: {restarted} in {back_took:.0?})",
                    n.host
                )),
            run.ended
                .iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            verify.missing,
            verify.different,
            verify.extra,
            verify.source_rows,
            new.len(),
        ),
    })
}

/// What became of the workers of a copy killed at set points.
pub struct KilledCopy {
    /// `pid at ranges done` of each worker killed.
    pub kills: Vec<String>,
    /// On the cluster: node 3, its pid when it was killed, and the ranges done then.
    pub node_stopped: Option<(cassmodel_node::NodeConfig, u32, u32)>,
    /// How each worker left running ended: what it printed, or its error.
    pub ended: Vec<Result<String, String>>,
}

/// Runs the copy into `target` with worker processes (`chaos <command>`): two at first; one
/// killed with SIGKILL (by the pid of the process this check started) at each of 1/8, 1/3
/// and 1/2 of the ranges done, and another started; on the cluster, node 3 killed (SIGKILL)
/// at kill number `node_at` (1 to 3) of those, left down. Then waits for the workers left
/// (at most 240 s).
/// If it fails, node 3 (if it was killed) is started again before the error is returned.
pub async fn copy_with_kills(
    env: &Env,
    db: &Db,
    target: &str,
    command: &str,
    ranges: u32,
    node_at: usize,
) -> Result<KilledCopy, String> {
    let mut node_stopped = None;
    let mut kills = Vec::new();
    let run = kill_and_wait(
        env,
        db,
        (target, command, ranges, node_at),
        &mut kills,
        &mut node_stopped,
    )
    .await;
    match run {
        Ok(ended) => Ok(KilledCopy {
            kills,
            node_stopped,
            ended,
        }),
        Err(e) => Err(match node_back(env, &node_stopped).await {
            Ok(_) => e,
            Err(back) => format!("{e}; and node 3 did not start again: {back}"),
        }),
    }
}

/// The body of [`copy_with_kills`]: the workers' ends. The kills and node 3's stop are
/// recorded as they happen, so that a failure still tells what to start again.
async fn kill_and_wait(
    env: &Env,
    db: &Db,
    (target, command, ranges, node_at): (&str, &str, u32, usize),
    kills: &mut Vec<String>,
    node_stopped: &mut Option<(cassmodel_node::NodeConfig, u32, u32)>,
) -> Result<Vec<Result<String, String>>, String> {
    let mut workers = Workers(vec![
        spawn_worker(env, command)?,
        spawn_worker(env, command)?,
    ]);
    // Kill a worker at each of these shares of the ranges, and start another.
    for at in [ranges / 8, ranges / 3, ranges / 2] {
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut last = ranges_done(db, target).await;
        let mut seen = *last.as_ref().unwrap_or(&0);
        while seen < at {
            if Instant::now() > deadline {
                let workers: Vec<String> = workers
                    .0
                    .iter_mut()
                    .map(|w| match w.try_wait() {
                        Ok(Some(status)) => {
                            let mut said = String::new();
                            if let Some(err) = w.stderr.as_mut() {
                                let _ = std::io::Read::read_to_string(err, &mut said);
                            }
                            format!("{} ended ({status}): {}", w.id(), said.trim())
                        }
                        _ => format!("{} running", w.id()),
                    })
                    .collect();
                return Err(format!(
                    "the copy did not reach {at} ranges in 120 s (status: {last:?}; workers: {})",
                    workers.join(", ")
                ));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            last = ranges_done(db, target).await;
            seen = seen.max(*last.as_ref().unwrap_or(&0));
        }
        let mut victim = workers.0.remove(0);
        let pid = victim.id();
        let killed = victim.kill();
        let _ = victim.wait();
        killed.map_err(|e| format!("kill -9 {pid}: {e}"))?;
        kills.push(format!("{pid} at {seen}"));
        workers.0.push(spawn_worker(env, command)?);
        // On the cluster: node 3 killed (SIGKILL, by its pid) at kill `node_at` of a worker,
        // down until the copy ends.
        if env.nodes.len() > 2 && kills.len() == node_at {
            let down = &env.nodes[2];
            let pid = cassmodel_node::signal(down, cassmodel_node::Signal::Kill)
                .map_err(|e| format!("kill -9 of {}: {e}", down.host))?;
            *node_stopped = Some((down.clone(), pid, seen));
        }
    }
    // The workers left run to their end (at most 240 s).
    let mut ended = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(240);
    while let Some(mut w) = workers.0.pop() {
        loop {
            if let Some(status) = w.try_wait().map_err(|e| e.to_string())? {
                let out = w.wait_with_output().map_err(|e| e.to_string())?;
                ended.push(if status.success() {
                    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
                } else {
                    Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
                });
                break;
            }
            if Instant::now() > deadline {
                workers.0.push(w);
                return Err("a worker did not finish in 240 s".into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    Ok(ended)
}

/// Node 3, if a copy killed it, started again once its process is gone: whether it was.
pub async fn node_back(
    env: &Env,
    stopped: &Option<(cassmodel_node::NodeConfig, u32, u32)>,
) -> Result<bool, String> {
    let Some((down, pid, _)) = stopped else {
        return Ok(false);
    };
    let killed_at = Instant::now();
    while cassmodel_node::running_pid(down) == Some(*pid)
        && killed_at.elapsed() < Duration::from_secs(30)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    crate::cluster::start_again(env, &[down]).await?;
    Ok(true)
}
