//! The charybdis peer of `cargo bench --bench query_overhead`: the phases charybdis has,
//! written as its README shows (a `CachingSession`, `model.insert()`, `find_by_primary_key_value`,
//! `find_by_partition_key_value`, the `find_event!` macro, the `find_by_<index>` of a global
//! secondary index, `insert_if_not_exists()`), on the tables the bench created and loaded,
//! with the keys the bench's sides draw (`keys.rs`, included from the bench).
//!
//! ```text
//! charybdis-peer CONTACT_POINT KEYSPACE
//! ```
//!
//! Then one line per run on stdin, `SIDE PHASE CONCURRENCY RATE SLICE_MS SEED` (SIDE
//! `charybdis`, or `raw`: the bench's raw code, `raw.rs`, run in this process on the same
//! session, its reads of `events` into [`Event`] as charybdis's; RATE 0: a closed loop), and one line back on stdout, `OPS CPU_NS WALL_NS ALLOCS`,
//! or `unsupported` for a phase charybdis has no form of (buckets, vector search, an entity of
//! two tables). The raw runs are this process's baseline: the bench compares each mapper with
//! the raw driver in its own process, since two processes differ in CPU per operation even
//! when they run the same code.

#[path = "../../../query_overhead/drive.rs"]
mod drive;
#[path = "../../../query_overhead/keys.rs"]
#[allow(dead_code)]
mod keys;
// `RawEvent` is the bench's own row type: this process reads into `Event`.
#[path = "../../../query_overhead/raw.rs"]
#[allow(dead_code)]
mod raw;

use std::alloc::System;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use charybdis::errors::CharybdisError;
use charybdis::macros::charybdis_model;
use charybdis::operations::{Find, Insert};
use charybdis::stream::CharybdisModelStream;
use charybdis::types::{Int, List, Text, Timeuuid, Uuid};
use scylla::client::caching_session::CachingSession;
use scylla::client::session_builder::SessionBuilder;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use keys::*;
use raw::Raw;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[charybdis_model(
    table_name = events,
    partition_keys = [user_id],
    clustering_keys = [event_id],
    global_secondary_indexes = [score],
    local_secondary_indexes = [],
    table_options = "CLUSTERING ORDER BY (event_id DESC)"
)]
#[derive(Clone, Default, Debug)]
pub struct Event {
    pub user_id: Uuid,
    pub event_id: Timeuuid,
    pub body: Text,
    pub score: Int,
    pub tags: List<Text>,
}

/// Writes made so far per side (charybdis, raw) and phase: the next write's new key.
static WRITTEN: [[AtomicUsize; 9]; 2] = [const { [const { AtomicUsize::new(0) }; 9] }; 2];

/// The key pool and the number of the next write of `phase` on side `raw` (the bench's own
/// sides use other pools, so every conditional insert applies).
fn next_write(raw: bool, phase: Phase) -> (u64, usize) {
    let n = WRITTEN[usize::from(raw)][phase as usize].fetch_add(1, Ordering::Relaxed);
    (0x200_0000 | u64::from(raw) << 8 | phase as u64, n)
}

fn new_event(pool: u64, i: usize) -> Event {
    let (user_id, event_id, body, score, tags) = new_row(pool, i);
    Event {
        user_id,
        event_id: Timeuuid::from(event_id),
        body,
        score,
        tags,
    }
}

/// Every row of a read charybdis returns as a stream (`what` names the call in a panic).
async fn all(rows: Result<CharybdisModelStream<Event>, CharybdisError>, what: &str) -> Vec<Event> {
    rows.expect(what).try_collect().await.expect("rows")
}

/// One operation of the raw code: the rows read (1 for a write; for an indexed read, 1 if
/// some, as charybdis's below).
async fn raw_op(
    session: &CachingSession,
    statements: &Raw,
    phase: Phase,
    seed: u64,
    i: usize,
) -> usize {
    let (pool, n) = next_write(true, phase);
    let rows = statements
        .op::<Event>(session.get_session(), phase, seed, i, pool, n, &[])
        .await;
    if phase == Phase::Indexed {
        usize::from(rows > 0)
    } else {
        rows
    }
}

/// One operation: the rows read (1 for a write).
async fn op(session: &CachingSession, phase: Phase, seed: u64, i: usize) -> usize {
    match phase {
        Phase::Insert => {
            let (pool, n) = next_write(false, phase);
            let row = new_event(pool, n);
            row.insert().execute(session).await.expect("insert");
            1
        }
        Phase::Conditional => {
            let (pool, n) = next_write(false, phase);
            let row = new_event(pool, n);
            // charybdis returns the driver's result: whether the insert applied is read
            // from it as the raw side and cassmodel's `applied` read it (the `[applied]`
            // column), so that the three sides do the same work.
            let (applied,) = row
                .insert_if_not_exists()
                .execute(session)
                .await
                .expect("insert if not exists")
                .into_rows_result()
                .expect("rows")
                .first_row::<(bool,)>()
                .expect("[applied]");
            usize::from(applied)
        }
        Phase::Point => {
            let (u, e) = point_key(seed, i);
            let row = Event::find_by_primary_key_value((u, Timeuuid::from(e)))
                .execute(session)
                .await
                .expect("find_by_primary_key_value");
            black_box(row);
            1
        }
        Phase::Latest => {
            let (u,) = (user(pick(seed, i, USERS)),);
            let rows = find_event!("user_id = ? LIMIT 20", (u,)).execute(session);
            black_box(all(rows.await, "find_event!").await).len()
        }
        Phase::Partition => {
            let u = user(pick(seed, i, USERS));
            let rows = Event::find_by_partition_key_value((u,)).execute(session);
            black_box(all(rows.await, "find_by_partition_key_value").await).len()
        }
        Phase::Indexed => {
            let rows = Event::find_by_score(score_of(seed, i)).execute(session);
            usize::from(!black_box(all(rows.await, "find_by_score").await).is_empty())
        }
        other => panic!("charybdis has no form of {other:?}"),
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [point, keyspace] = &args[..] else {
        panic!("usage: charybdis-peer CONTACT_POINT KEYSPACE");
    };
    let session = SessionBuilder::new()
        .known_node(point)
        .use_keyspace(keyspace, false)
        .build()
        .await
        .expect("connect");
    let statements = Raw::prepare(&session, keyspace).await;
    let session = CachingSession::from(session, 1_000);
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut out = tokio::io::stdout();
    while let Some(line) = lines.next_line().await.expect("stdin") {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [side, phase_name, conc, rate, slice, seed] = w[..] else {
            panic!("expected SIDE PHASE CONCURRENCY RATE SLICE_MS SEED, got `{line}`");
        };
        let phase = Phase::ALL
            .into_iter()
            .find(|p| format!("{p:?}") == phase_name)
            .unwrap_or_else(|| panic!("no phase {phase_name}"));
        let reply = if [
            Phase::Insert,
            Phase::Point,
            Phase::Latest,
            Phase::Partition,
            Phase::Indexed,
            Phase::Conditional,
        ]
        .contains(&phase)
        {
            let rate: f64 = rate.parse().expect("rate");
            let seed: u64 = seed.parse().expect("seed");
            let conc = conc.parse().expect("concurrency");
            let rate = (rate > 0.0).then_some(rate);
            let slice = Duration::from_millis(slice.parse().expect("slice"));
            let expected = phase.expected();
            let m = match side {
                "charybdis" => {
                    let op = |i| op(&session, phase, seed, i);
                    drive::measure(GLOBAL, conc, rate, slice, expected, op).await
                }
                "raw" => {
                    let op = |i| raw_op(&session, &statements, phase, seed, i);
                    drive::measure(GLOBAL, conc, rate, slice, expected, op).await
                }
                other => panic!("no side {other}"),
            };
            format!(
                "{} {} {} {}\n",
                m.ops,
                m.cpu.as_nanos(),
                m.wall.as_nanos(),
                m.allocs
            )
        } else {
            "unsupported\n".to_owned()
        };
        out.write_all(reply.as_bytes()).await.expect("stdout");
        out.flush().await.expect("stdout");
    }
}
