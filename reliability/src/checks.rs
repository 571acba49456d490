//! The checks. Each returns its figures, or an error when it could not run at all.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cassmodel::{CassTable, CassUdt, Db};
use cassmodel_node::Signal;

use crate::env::{Env, Outcome};

/// The table of the load and pause checks: one partition per task.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_kv")]
pub struct Kv {
    #[partition_key]
    task: i32,
    #[clustering]
    key: i32,
    value: i64,
    note: Option<String>,
}

/// A user-defined type created by the crash check, after the node started.
#[derive(CassUdt, Debug, Clone, PartialEq)]
#[cass(name = "chaos_point")]
pub struct Point {
    x: i32,
    y: i32,
}

/// The table of the crash check, created after the node started.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_track")]
pub struct Track {
    #[partition_key]
    writer: i32,
    #[clustering]
    seq: i32,
    at: Point,
    note: String,
}

/// A small deterministic generator (xorshift64*), one per task, so a run can be replayed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The environment's settings with the run's keyspace: what every check connects with.
pub(crate) fn options(env: &Env) -> cassmodel::ConnectOptions {
    env.options.clone().keyspace(env.keyspace.clone())
}

pub(crate) async fn connect(env: &Env, request_timeout: Option<Duration>) -> Result<Db, String> {
    let mut o = options(env);
    if let Some(t) = request_timeout {
        o = o.request_timeout(t);
    }
    o.connect().await.map_err(|e| e.to_string())
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}

const TASKS: i32 = 64;
const KEYS_PER_TASK: u64 = 200;

/// 64 tasks, each with its own partition and an in-memory copy of what it should hold,
/// run `ops_per_task` operations: 50% insert, 15% update of one column, 10% delete, 25%
/// read of one row checked against the copy. Then every partition is read back whole.
///
/// On a cluster in several data centres the check connects as a user of `LOCAL_QUORUM` must,
/// with the first node's data centre as the local one: without it, a write coordinated in dc2
/// is acknowledged by dc2's replica alone, and a later read coordinated in dc1 may not see it
/// yet (one read in 8,000 did, in CI).
pub async fn load(env: &Env) -> Result<Outcome, String> {
    let first_dc = env.nodes.first().map(|n| n.datacenter_name().to_owned());
    let several = env
        .nodes
        .iter()
        .any(|n| Some(n.datacenter_name()) != first_dc.as_deref());
    let db = match first_dc {
        Some(dc) if several => options(env).local_dc(dc).connect().await,
        _ => options(env).connect().await,
    }
    .map_err(|e| e.to_string())?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let ops = env.ops_per_task;
    let started = Instant::now();
    let tasks: Vec<_> = (0..TASKS)
        .map(|task| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut rng = Rng::new(task as u64 + 1);
                let mut model: BTreeMap<i32, (i64, Option<String>)> = BTreeMap::new();
                let mut errors: Vec<String> = Vec::new();
                let mut wrong_reads = 0_u64;
                let mut latencies = Vec::with_capacity(ops);
                for i in 0..ops {
                    let key = rng.below(KEYS_PER_TASK) as i32;
                    let value = (i as i64) * 1_000 + i64::from(task);
                    let roll = rng.below(100);
                    let t = Instant::now();
                    let result = if roll < 50 {
                        let note = (i % 3 != 0).then(|| format!("note {task}/{i}"));
                        let row = Kv {
                            task,
                            key,
                            value,
                            note: note.clone(),
                        };
                        // `db.insert` leaves a `None` field unset: an existing note stays.
                        db.insert(&row).await.map(|()| {
                            let note =
                                note.or_else(|| model.get(&key).and_then(|(_, n)| n.clone()));
                            model.insert(key, (value, note));
                        })
                    } else if roll < 65 {
                        Kv::update()
                            .set_value(&value)
                            .task(&task)
                            .key(&key)
                            .execute(&db)
                            .await
                            .map(|()| {
                                let note = model.get(&key).and_then(|(_, n)| n.clone());
                                model.insert(key, (value, note));
                            })
                    } else if roll < 75 {
                        Kv::delete()
                            .task(&task)
                            .key(&key)
                            .execute(&db)
                            .await
                            .map(|()| {
                                model.remove(&key);
                            })
                    } else {
                        Kv::get(&db, &task, &key).await.map(|row| {
                            let got = row.map(|r| (r.value, r.note));
                            if got.as_ref() != model.get(&key) {
                                wrong_reads += 1;
                            }
                        })
                    };
                    latencies.push(t.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
                    if let Err(e) = result {
                        errors.push(e.to_string());
                        // A failed write leaves the row unknown: forget the task's copy of it
                        // and stop checking it (the figures count the errors).
                        model.remove(&key);
                    }
                }
                (task, model, errors, wrong_reads, latencies)
            })
        })
        .collect();
    let mut results = Vec::new();
    for t in tasks {
        results.push(t.await.map_err(|e| format!("a load task panicked: {e}"))?);
    }
    let elapsed = started.elapsed();
    let total_ops = (TASKS as usize) * ops;

    // Read back every partition, whole, and compare it with the task's copy.
    let (mut keys, mut lost, mut wrong, mut extra) = (0_usize, 0_usize, 0_usize, 0_usize);
    let mut errors: Vec<String> = Vec::new();
    let mut wrong_reads = 0;
    let mut latencies: Vec<u32> = Vec::with_capacity(total_ops);
    for (task, model, errs, wr, lat) in results {
        errors.extend(errs);
        wrong_reads += wr;
        latencies.extend(lat);
        let rows = Kv::select()
            .task(&task)
            .fetch_all(&db)
            .await
            .map_err(|e| format!("reading back task {task}: {e}"))?;
        let found: HashMap<i32, (i64, Option<String>)> = rows
            .into_iter()
            .map(|r| (r.key, (r.value, r.note)))
            .collect();
        keys += model.len();
        for (k, v) in &model {
            match found.get(k) {
                None => lost += 1,
                Some(f) if f != v => wrong += 1,
                Some(_) => {}
            }
        }
        extra += found.keys().filter(|k| !model.contains_key(k)).count();
    }
    latencies.sort_unstable();
    let ok = errors.is_empty() && lost == 0 && wrong == 0 && extra == 0 && wrong_reads == 0;
    Ok(Outcome {
        name: "load",
        ok,
        figures: format!(
            "{TASKS} tasks x {ops} ops = {total_ops} ops (50% insert, 15% update, 10% delete, \
             25% read) in {:.1} s = {:.0} ops/s, latency p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms; \
             {} errors{}; {wrong_reads} reads differing from the writes before them; {keys} keys \
             read back: {lost} lost, {wrong} wrong, {extra} not written",
            elapsed.as_secs_f64(),
            total_ops as f64 / elapsed.as_secs_f64(),
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
            percentile(&latencies, 1.0),
            errors.len(),
            errors
                .first()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default(),
        ),
    })
}

/// Sends SIGCONT to the node when dropped, so that no path out of the pause check (an
/// error, a panic) leaves the node frozen.
struct ResumeOnDrop<'a>(&'a cassmodel_node::NodeConfig);

impl Drop for ResumeOnDrop<'_> {
    fn drop(&mut self) {
        let _ = cassmodel_node::signal(self.0, Signal::Cont);
    }
}

const PAUSE: Duration = Duration::from_secs(10);
const WRITERS: i32 = 8;

/// 8 writers insert rows one after another through one `Db` with a 2 s request timeout; the
/// node is frozen (SIGSTOP) for 10 s, then resumed (SIGCONT). Every error must be a typed
/// time-out (or a connection error), the writers must go on after the resume, and every
/// acknowledged row must read back.
pub async fn pause(env: &Env) -> Result<Outcome, String> {
    let db = connect(env, Some(Duration::from_secs(2))).await?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let paused = Arc::new(AtomicBool::new(false));
    let resumed_at = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let stop = Arc::new(AtomicBool::new(false));
    let after_resume = Arc::new(AtomicU64::new(0));
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let task = 1_000 + w;
            let db = db.clone();
            let stop = Arc::clone(&stop);
            let paused = Arc::clone(&paused);
            let resumed_at = Arc::clone(&resumed_at);
            let after_resume = Arc::clone(&after_resume);
            tokio::spawn(async move {
                let mut acked = Vec::new();
                let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
                let mut first_ok_after_resume: Option<Duration> = None;
                let mut key = 0;
                // Bounded: at most 100,000 writes each, and the caller stops them.
                while !stop.load(Ordering::Relaxed) && key < 100_000 {
                    let row = Kv {
                        task,
                        key,
                        value: i64::from(key),
                        note: None,
                    };
                    match db.insert(&row).await {
                        Ok(()) => {
                            acked.push(key);
                            let resumed = *resumed_at.lock().unwrap_or_else(|p| p.into_inner());
                            if let Some(r) = resumed {
                                after_resume.fetch_add(1, Ordering::Relaxed);
                                first_ok_after_resume.get_or_insert(r.elapsed());
                            }
                        }
                        Err(e) => {
                            let during = paused.load(Ordering::Relaxed);
                            *kinds
                                .entry(format!(
                                    "{:?}{}",
                                    e.kind(),
                                    if during { "" } else { " (not paused)" }
                                ))
                                .or_default() += 1;
                        }
                    }
                    key += 1;
                }
                (task, acked, kinds, first_ok_after_resume)
            })
        })
        .collect();

    tokio::time::sleep(Duration::from_secs(3)).await;
    let pid = cassmodel_node::signal(&env.node, Signal::Stop).map_err(|e| e.to_string())?;
    let guard = ResumeOnDrop(&env.node);
    paused.store(true, Ordering::Relaxed);
    tokio::time::sleep(PAUSE).await;
    cassmodel_node::signal(&env.node, Signal::Cont).map_err(|e| e.to_string())?;
    *resumed_at.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    drop(guard);
    // The writers go on until 200 writes succeeded after the resume, or 60 s.
    let wait = Instant::now();
    while after_resume.load(Ordering::Relaxed) < 200 && wait.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Errors seen after the resume still count as "during" (requests sent while frozen).
    stop.store(true, Ordering::Relaxed);
    let mut acked_total = 0;
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    let mut first_ok: Option<Duration> = None;
    let mut lost = 0;
    for w in writers {
        let (task, acked, k, f) = w.await.map_err(|e| format!("a writer panicked: {e}"))?;
        for (kind, n) in k {
            *kinds.entry(kind).or_default() += n;
        }
        first_ok = match (first_ok, f) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        acked_total += acked.len();
        let rows = Kv::select()
            .task(&task)
            .fetch_all(&db)
            .await
            .map_err(|e| format!("reading back writer {task}: {e}"))?;
        let found: std::collections::HashSet<i32> = rows.iter().map(|r| r.key).collect();
        lost += acked.iter().filter(|k| !found.contains(k)).count();
    }
    let untyped: u64 = kinds
        .iter()
        .filter(|(k, _)| {
            !(k.starts_with("Timeout") || k.starts_with("Connection")) || k.contains("not paused")
        })
        .map(|(_, n)| n)
        .sum();
    let resumed = after_resume.load(Ordering::Relaxed);
    let ok = lost == 0 && untyped == 0 && resumed >= 200;
    Ok(Outcome {
        name: "pause",
        ok,
        figures: format!(
            "node pid {pid} stopped {} s under {WRITERS} writers (2 s request timeout): errors \
             {kinds:?}; first write acknowledged {} after SIGCONT, {resumed} after it; {acked_total} \
             writes acknowledged, {lost} lost",
            PAUSE.as_secs(),
            first_ok.map_or("never".into(), |d| format!(
                "{:.0} ms",
                d.as_secs_f64() * 1000.0
            )),
        ),
    })
}

const CRASH_WRITERS: i32 = 32;
/// The node's `commitlog_sync_period` (periodic sync): a write acknowledged longer ago than
/// this is on disk. (Cassandra also writes the commit log to the OS without syncing about
/// every 100 ms, so a process kill, unlike a power loss, loses far less.)
const SYNC_PERIOD: Duration = Duration::from_secs(10);
const ACKED_BEFORE_KILL: u64 = 20_000;

/// A user-defined type and a table created now (after the node started); 32 writers insert
/// rows; after 20,000 acknowledged writes and 13 s the node is killed (SIGKILL) with writes in
/// flight, then started again. The same `Db` must reconnect by itself, and every write
/// acknowledged more than the commit-log sync period (10 s) before the kill must read back,
/// with its user-defined value; the writes of the last 10 s that were lost are counted.
pub async fn crash(env: &Env) -> Result<Outcome, String> {
    let db = connect(env, Some(Duration::from_secs(5))).await?;
    db.create_table::<Track>()
        .await
        .map_err(|e| e.to_string())?;
    let acked_count = Arc::new(AtomicU64::new(0));
    let killed = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..CRASH_WRITERS)
        .map(|writer| {
            let db = db.clone();
            let acked_count = Arc::clone(&acked_count);
            let killed = Arc::clone(&killed);
            tokio::spawn(async move {
                let mut acked = Vec::new();
                let mut errors = 0_u64;
                let mut seq = 0;
                while !killed.load(Ordering::Relaxed) && seq < 1_000_000 {
                    let row = track(writer, seq);
                    match db.insert(&row).await {
                        Ok(()) => {
                            acked.push((seq, Instant::now()));
                            acked_count.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => errors += 1,
                    }
                    seq += 1;
                }
                (writer, acked, errors)
            })
        })
        .collect();
    let wait = Instant::now();
    while acked_count.load(Ordering::Relaxed) < ACKED_BEFORE_KILL
        || wait.elapsed() < SYNC_PERIOD + Duration::from_secs(3)
    {
        if wait.elapsed() > Duration::from_secs(300) {
            killed.store(true, Ordering::Relaxed);
            return Err(format!(
                "only {} writes acknowledged in 300 s",
                acked_count.load(Ordering::Relaxed)
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pid = cassmodel_node::signal(&env.node, Signal::Kill).map_err(|e| e.to_string())?;
    let killed_at = Instant::now();
    killed.store(true, Ordering::Relaxed);
    let mut acked: Vec<(i32, Vec<(i32, Instant)>)> = Vec::new();
    let mut write_errors = 0;
    for w in writers {
        let (writer, a, e) = w.await.map_err(|e| format!("a writer panicked: {e}"))?;
        write_errors += e;
        acked.push((writer, a));
    }
    // Wait for the old process to be gone before starting a new one on the same ports.
    while cassmodel_node::running_pid(&env.node) == Some(pid)
        && killed_at.elapsed() < Duration::from_secs(30)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let restart = Instant::now();
    cassmodel_node::ensure_running(&env.node)
        .await
        .map_err(|e| format!("the node did not start again after kill -9: {e}"))?;
    let restart_took = restart.elapsed();
    // The same Db: its driver reconnects by itself. Bounded: 120 s.
    let reconnect = Instant::now();
    let mut attempts = 0;
    loop {
        attempts += 1;
        match Track::get(&db, &0, &0).await {
            Ok(_) => break,
            Err(e) if reconnect.elapsed() < Duration::from_secs(120) => {
                if attempts % 20 == 0 {
                    eprintln!("crash: the Db does not answer yet: {e}");
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(e) => return Err(format!("the same Db did not recover in 120 s: {e}")),
        }
    }
    let reconnect_took = reconnect.elapsed();
    let (mut total, mut old, mut lost_old, mut wrong) = (0_usize, 0_usize, 0_usize, 0_usize);
    let mut lost_recent = 0_usize;
    // The age at the kill of the oldest acknowledged write that was lost.
    let mut oldest_lost = Duration::ZERO;
    for (writer, seqs) in &acked {
        let rows = Track::select()
            .writer(writer)
            .fetch_all(&db)
            .await
            .map_err(|e| format!("reading back writer {writer}: {e}"))?;
        let found: HashMap<i32, Track> = rows.into_iter().map(|r| (r.seq, r)).collect();
        total += seqs.len();
        for (s, at) in seqs {
            let age = killed_at.saturating_duration_since(*at);
            let is_old = age > SYNC_PERIOD;
            old += usize::from(is_old);
            match found.get(s) {
                None if is_old => lost_old += 1,
                None => {
                    lost_recent += 1;
                    oldest_lost = oldest_lost.max(age);
                }
                Some(r) if *r != track(*writer, *s) => wrong += 1,
                Some(_) => {}
            }
        }
    }
    // On a cluster the other replicas hold every write acknowledged at quorum: none may be
    // lost, however recent.
    let replicated = env.nodes.len() > 1;
    let ok = lost_old == 0
        && (!replicated || lost_recent == 0)
        && wrong == 0
        && old > 0
        && total as u64 >= ACKED_BEFORE_KILL;
    Ok(Outcome {
        name: "crash",
        ok,
        figures: format!(
            "table `{}.chaos_track` and type `chaos_point` created after the node's start; \
             {CRASH_WRITERS} writers; SIGKILL to pid {pid} after {total} acknowledged writes \
             ({write_errors} writes failed around the kill); restarted in {:.1} s, the same Db \
             answered {:.1} s later; of the {old} writes acknowledged more than the commit-log \
             sync period ({} s) before the kill: {lost_old} lost; of the {} acknowledged in the \
             last {} s: {lost_recent} lost (the oldest {:.0} ms before the kill); {wrong} read \
             back different",
            env.keyspace,
            restart_took.as_secs_f64(),
            reconnect_took.as_secs_f64(),
            SYNC_PERIOD.as_secs(),
            total - old,
            SYNC_PERIOD.as_secs(),
            oldest_lost.as_secs_f64() * 1000.0,
        ),
    })
}

fn track(writer: i32, seq: i32) -> Track {
    Track {
        writer,
        seq,
        at: Point { x: seq, y: -seq },
        note: format!("w{writer} s{seq}"),
    }
}
