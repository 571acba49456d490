//! `lwt` (cluster only): node 3 killed with SIGKILL (by its pid) under QUORUM writes and
//! lightweight transactions (`IF NOT EXISTS`, SERIAL), started again, and the load kept up
//! until it has rejoined and a while more. Every acknowledged write and every applied
//! transaction must read back at QUORUM, every transaction on a new key must apply, and a
//! transaction whose connection broke once it was sent must say it may have been applied; the
//! errors are counted by phase (before the kill, node down, rejoining, after), by kind and
//! by the node that answered, which is what tells the load from the driver and the retry
//! decision apart.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use cassmodel::{Consistency, Db, Insert, errors::Answer};
use cassmodel_node::Signal;

use crate::cluster::{Kv, kv};
use crate::env::{Env, Outcome};

/// Writers, each on keys of its own (no two transactions contend).
const TASKS: i32 = 16;
/// The first key: the other cluster checks write small keys (`0..2N`, `-1`) into the same
/// table, and a transaction on one of those would find a row and rightly not apply.
const FIRST_KEY: i32 = 1_000_000_000;
/// Load before the kill, with the node down, and after it has rejoined.
const BEFORE: Duration = Duration::from_secs(10);
const DOWN: Duration = Duration::from_secs(15);
const AFTER: Duration = Duration::from_secs(20);
/// At most this many operations per writer, whatever the time.
const MAX_OPS: i32 = 200_000;

const PHASES: [&str; 4] = ["before", "down", "rejoining", "after"];

/// One failed operation: its phase, whether it was a transaction, its kind and the node
/// whose answer the error is about (or `-` when no node answered).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Failure {
    phase: u8,
    lwt: bool,
    kind: String,
    node: String,
}

/// What one writer did: the keys acknowledged, transactions that did not apply, failures.
#[derive(Default)]
struct Done {
    acked: Vec<i32>,
    ops: [u64; 4],
    not_applied: u64,
    /// The first key whose transaction did not apply.
    first_not_applied: Option<i32>,
    /// Transactions whose connection broke once sent, with a message that does not say they
    /// may have been applied.
    untold: u64,
    failures: Vec<Failure>,
    first: BTreeMap<(u8, bool), String>,
}

/// The node an error is about: the last one that answered.
fn answered_by(e: &cassmodel::Error) -> String {
    e.attempts()
        .iter()
        .rev()
        .find(|a| matches!(a.answer, Answer::Server { .. }))
        .map_or("-".to_owned(), |a| a.node.ip().to_string())
}

async fn writer(db: Db, task: i32, phase: Arc<AtomicU8>, stop: Arc<AtomicBool>) -> Done {
    let mut done = Done::default();
    let mut seq = 0;
    while !stop.load(Ordering::Relaxed) && seq < MAX_OPS {
        let key = FIRST_KEY + task * 1_000_000 + seq;
        let row = kv(key, "lwt");
        let lwt = seq % 2 == 1;
        let at = phase.load(Ordering::Relaxed);
        let result = if lwt {
            Insert::new(&row)
                .if_not_exists()
                .execute(&db)
                .await
                .map(|o| o.applied)
        } else {
            Insert::new(&row)
                .with_options(|o| o.consistency = Some(Consistency::Quorum))
                .execute(&db)
                .await
                .map(|()| true)
        };
        done.ops[usize::from(at)] += 1;
        match result {
            Ok(true) => done.acked.push(key),
            Ok(false) => {
                done.not_applied += 1;
                done.first_not_applied.get_or_insert(key);
            }
            Err(e) => {
                let connection = e.kind() == cassmodel::ErrorKind::Connection;
                if lwt && connection && !e.to_string().contains("may have been applied") {
                    done.untold += 1;
                }
                done.first.entry((at, lwt)).or_insert_with(|| e.to_string());
                done.failures.push(Failure {
                    phase: at,
                    lwt,
                    kind: format!("{:?}", e.kind()),
                    node: answered_by(&e),
                });
            }
        }
        seq += 1;
    }
    done
}

/// Kills node 3 under the load, starts it again, and checks what was acknowledged.
pub async fn check(env: &Env) -> Result<Outcome, String> {
    let db = crate::checks::connect(env, None).await?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let victim = env
        .nodes
        .get(2)
        .ok_or("the lwt check needs the three-node cluster")?;
    let phase = Arc::new(AtomicU8::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let tasks: Vec<_> = (0..TASKS)
        .map(|t| tokio::spawn(writer(db.clone(), t, phase.clone(), stop.clone())))
        .collect();
    let timeline = async {
        tokio::time::sleep(BEFORE).await;
        let pid = cassmodel_node::signal(victim, Signal::Kill).map_err(|e| e.to_string())?;
        phase.store(1, Ordering::Relaxed);
        let killed = Instant::now();
        while cassmodel_node::running_pid(victim) == Some(pid)
            && killed.elapsed() < Duration::from_secs(30)
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(DOWN.saturating_sub(killed.elapsed())).await;
        phase.store(2, Ordering::Relaxed);
        let restart = Instant::now();
        crate::cluster::start_again(env, &[victim]).await?;
        let rejoined = restart.elapsed();
        phase.store(3, Ordering::Relaxed);
        tokio::time::sleep(AFTER).await;
        Ok::<_, String>((pid, rejoined))
    };
    let timeline = timeline.await;
    stop.store(true, Ordering::Relaxed);
    let mut all = Done::default();
    for t in tasks {
        let d = t.await.map_err(|e| format!("a writer panicked: {e}"))?;
        all.acked.extend(d.acked);
        for (i, n) in d.ops.iter().enumerate() {
            all.ops[i] += n;
        }
        all.not_applied += d.not_applied;
        all.first_not_applied = all.first_not_applied.or(d.first_not_applied);
        all.untold += d.untold;
        all.failures.extend(d.failures);
        for (k, v) in d.first {
            all.first.entry(k).or_insert(v);
        }
    }
    let (pid, rejoined) = timeline?;
    if let Some(key) = all.first_not_applied {
        eprintln!(
            "lwt: first transaction not applied: key {key}, {}",
            held(&db, key).await
        );
    }
    let lost = lost_keys(&db, &all.acked).await?;
    let ok = lost == 0 && all.not_applied == 0 && all.untold == 0 && !all.acked.is_empty();
    for ((p, lwt), msg) in &all.first {
        let what = if *lwt { "LWT" } else { "QUORUM write" };
        eprintln!("lwt: first {what} error {}: {msg}", PHASES[usize::from(*p)]);
    }
    Ok(Outcome {
        name: "lwt",
        ok,
        figures: format!(
            "{TASKS} writers, half QUORUM inserts and half INSERT IF NOT EXISTS (SERIAL); \
             {} (pid {pid}) killed with SIGKILL after {} s, started again after {} s down, \
             rejoined in {rejoined:.1?}; operations by the phase they were sent in (before the kill, node down, rejoining, after): \
             {}; errors by phase, operation, kind and answering node: {}; {} acknowledged, \
             {lost} lost, {} transactions on new keys not applied; {} transactions cut off \
             in flight without saying they may have been applied",
            victim.host,
            BEFORE.as_secs(),
            DOWN.as_secs(),
            all.ops.map(|n| n.to_string()).join(", "),
            failures_text(&all.failures),
            all.acked.len(),
            all.not_applied,
            all.untold,
        ),
    })
}

/// `down LWT Timeout @127.0.0.3: 12, ...`, or `none`.
fn failures_text(failures: &[Failure]) -> String {
    let mut counts: BTreeMap<&Failure, usize> = BTreeMap::new();
    for f in failures {
        *counts.entry(f).or_default() += 1;
    }
    if counts.is_empty() {
        return "none".to_owned();
    }
    counts
        .iter()
        .map(|(f, n)| {
            format!(
                "{} {} {} @{}: {n}",
                PHASES[usize::from(f.phase)],
                if f.lwt { "LWT" } else { "write" },
                f.kind,
                f.node
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What `key` holds, read at SERIAL (the value the transaction found, or that it applied
/// after all).
async fn held(db: &Db, key: i32) -> String {
    match Kv::select()
        .key(&key)
        .consistency(Consistency::Serial)
        .fetch_first(db)
        .await
    {
        Ok(Some(row)) => format!("which holds {:?}", row.value),
        Ok(None) => "which holds no row".to_owned(),
        Err(e) => format!("which could not be read: {e}"),
    }
}

/// How many of `keys` do not read back at QUORUM (64 reads in flight: tens of thousands of
/// keys one after the other took minutes).
async fn lost_keys(db: &Db, keys: &[i32]) -> Result<usize, String> {
    use futures::{StreamExt, TryStreamExt};
    futures::stream::iter(keys)
        .map(|key| async move {
            Kv::select()
                .key(key)
                .consistency(Consistency::Quorum)
                .fetch_first(db)
                .await
                .map(|back| usize::from(back.is_none()))
                .map_err(|e| format!("read of {key} at QUORUM: {e}"))
        })
        .buffer_unordered(64)
        .try_fold(0, |lost, missing| async move { Ok(lost + missing) })
        .await
}
