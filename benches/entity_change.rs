//! The cost of an entity's change that moves a row: `order.replace(&db, &stored)` against
//! the same change written by hand on the raw scylla driver, on the same node, in paired
//! interleaved rounds.
//!
//! ```text
//! cargo bench --bench entity_change
//! ```
//!
//! The model: an order stored by id (`order_by_id`) and by delivery date
//! (`orders_by_delivery_date`, keyed by the date), 20,000 orders for each side, loaded once
//! in a new keyspace. Every operation moves one order's delivery to the next day (and changes
//! its status): cassmodel's `replace` compares each table's stored and new keys and sends one
//! logged batch (the by-id row overwritten, the by-date row deleted under the old date and
//! written under the new one); the raw side sends the batch a user writes knowing what moved,
//! three statements prepared once (`INSERT` by id, `DELETE` by the old date, `INSERT` by the
//! new date), as the driver's documentation shows batches. Operation `i` of a side changes
//! order `i mod 20,000` from version `i / 20,000` to the next, so both sides do the same
//! work and no two changes of one order are in flight together.
//!
//! Each round runs each side for `ENTITY_CHANGE_SLICE_MS` (default 300) of wall time with 1,
//! then 32, requests in flight, in an order that alternates between rounds, and records the
//! process's CPU time per operation, allocations per operation and throughput. Reported per
//! in-flight count: the median of the paired per-round CPU ratios cassmodel/raw with a
//! distribution-free 95% interval, appended to `benches/results/entity_change.csv`.
//! `ENTITY_CHANGE_ROUNDS` (default 24).

#[path = "query_overhead/drive.rs"]
mod drive;
#[path = "../xtask/src/results.rs"]
mod results;
#[allow(dead_code)] // the medians and interval only
#[path = "query_overhead/stats.rs"]
mod stats;

use std::alloc::System;
use std::path::Path;
use std::time::Duration;

use cassmodel::{CassEntity, CassTable, Db, Replication};
use chrono::{Duration as Days, NaiveDate};
use futures::{StreamExt, TryStreamExt};
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::prepared::PreparedStatement;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use uuid::Uuid;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Orders of each side.
const ORDERS: usize = 20_000;

#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(OrderById, OrdersByDeliveryDate), identity = OrderById)]
struct Order {
    order_id: Uuid,
    customer_id: Uuid,
    delivery_date: NaiveDate,
    status: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Order)]
struct OrderById {
    #[partition_key]
    order_id: Uuid,
    customer_id: Uuid,
    delivery_date: NaiveDate,
    status: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Order)]
struct OrdersByDeliveryDate {
    #[partition_key]
    delivery_date: NaiveDate,
    #[clustering]
    order_id: Uuid,
    customer_id: Uuid,
    status: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Cassmodel,
    Raw,
}

/// Order `n` of `side` at `version`: its ids are fixed, its date and status move with it.
fn order(side: Side, n: usize, version: usize) -> Order {
    let salt = match side {
        Side::Cassmodel => 1,
        Side::Raw => 2,
    };
    let id = (salt as u128) << 64 | n as u128;
    let base = NaiveDate::from_ymd_opt(2027, 1, 1).unwrap_or_default();
    Order {
        order_id: Uuid::from_u128(id),
        customer_id: Uuid::from_u128(id ^ 0xc0ffee),
        delivery_date: base + Days::days((version % 365) as i64),
        status: format!("moved {version} times"),
    }
}

/// The raw side's batch: the statements prepared once.
struct Raw {
    batch: Batch,
}

impl Raw {
    async fn prepare(db: &Db, ks: &str) -> Raw {
        let s = db.session();
        let prepare = |cql: String| async move {
            s.prepare(cql)
                .await
                .unwrap_or_else(|e| panic!("prepare: {e}"))
        };
        let by_id = prepare(format!(
            "INSERT INTO {ks}.order_by_id (order_id, customer_id, delivery_date, status) \
             VALUES (?, ?, ?, ?)"
        ))
        .await;
        let delete = prepare(format!(
            "DELETE FROM {ks}.orders_by_delivery_date WHERE delivery_date = ? AND order_id = ?"
        ))
        .await;
        let by_date = prepare(format!(
            "INSERT INTO {ks}.orders_by_delivery_date (delivery_date, order_id, customer_id, \
             status) VALUES (?, ?, ?, ?)"
        ))
        .await;
        let mut batch = Batch::new(BatchType::Logged);
        for st in [by_id, delete, by_date] {
            batch.append_statement(PreparedStatement::clone(&st));
        }
        Raw { batch }
    }

    /// `stored` becomes `new`: the one date moved, written by hand.
    async fn change(&self, db: &Db, stored: &Order, new: &Order) {
        let values = (
            (
                new.order_id,
                new.customer_id,
                new.delivery_date,
                new.status.as_str(),
            ),
            (stored.delivery_date, stored.order_id),
            (
                new.delivery_date,
                new.order_id,
                new.customer_id,
                new.status.as_str(),
            ),
        );
        db.session()
            .batch(&self.batch, values)
            .await
            .unwrap_or_else(|e| panic!("raw batch: {e}"));
    }
}

/// Operation `i` of `side`: its order moved from version `i / ORDERS` to the next.
async fn change(db: &Db, raw: &Raw, side: Side, i: usize) -> usize {
    let (n, version) = (i % ORDERS, i / ORDERS);
    let (stored, new) = (order(side, n, version), order(side, n, version + 1));
    match side {
        Side::Cassmodel => new.replace(db, &stored).await.expect("replace"),
        Side::Raw => raw.change(db, &stored, &new).await,
    }
    1
}

/// Creates the tables and saves every order of both sides at version 0.
async fn load(db: &Db) {
    db.create_table::<OrderById>().await.expect("create");
    db.create_table::<OrdersByDeliveryDate>()
        .await
        .expect("create");
    let all = [Side::Cassmodel, Side::Raw]
        .into_iter()
        .flat_map(|side| (0..ORDERS).map(move |n| order(side, n, 0)));
    futures::stream::iter(all)
        .map(|o| async move { o.save(db).await })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .expect("load");
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Per side: CPU time per operation (µs), allocations per operation, operations per second.
#[derive(Default)]
struct Samples {
    cpu_us: Vec<f64>,
    allocs: Vec<f64>,
    per_s: Vec<f64>,
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let info = results::RunInfo::start(Path::new(env!("CARGO_MANIFEST_DIR")));
    let (rounds, slice) = (
        env_or("ENTITY_CHANGE_ROUNDS", 24),
        Duration::from_millis(env_or("ENTITY_CHANGE_SLICE_MS", 300) as u64),
    );
    let options = cassmodel_node::cluster_or_local_node()
        .await
        .unwrap_or_else(|e| panic!("no Cassandra node: {e}"));
    let root = options.connect().await.expect("connect");
    let ks = format!("bench_change_{}", std::process::id());
    root.create_keyspace(&ks, &Replication::Simple(1))
        .await
        .expect("keyspace");
    let db = root.with_keyspace(&ks).expect("keyspace name");
    load(&db).await;
    let raw_db = Db::new(
        scylla::client::session_builder::SessionBuilder::new()
            .known_nodes(options.get_contact_points())
            .build()
            .await
            .expect("the raw side's session"),
    );
    let raw = Raw::prepare(&raw_db, &ks).await;
    println!("entity_change: keyspace {ks}, {rounds} rounds of {slice:?}");
    let mut rows = Vec::new();
    for in_flight in [1, 32] {
        rows.push(run(&db, &raw_db, &raw, in_flight, rounds, slice, &info).await);
    }
    root.execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
        .await
        .expect("drop keyspace");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results/entity_change.csv");
    results::append_csv(&path, &HEADER, &rows).expect("entity_change.csv");
}

const HEADER: [&str; 17] = [
    "date",
    "commit",
    "machine",
    "rounds",
    "slice_ms",
    "load_start",
    "load_end",
    "in_flight",
    "ratio_cpu",
    "ci_low",
    "ci_high",
    "cpu_us_cassmodel",
    "cpu_us_raw",
    "per_s_cassmodel",
    "per_s_raw",
    "allocs_cassmodel",
    "allocs_raw",
];

/// The rounds at `in_flight`, and their row of the CSV.
async fn run(
    db: &Db,
    raw_db: &Db,
    raw: &Raw,
    in_flight: usize,
    rounds: usize,
    slice: Duration,
    info: &results::RunInfo,
) -> Vec<String> {
    let (mut ours, mut theirs, mut ratios) = (Samples::default(), Samples::default(), Vec::new());
    let mut next = [0usize; 2];
    for round in 0..rounds {
        let order = if round % 2 == 0 {
            [Side::Cassmodel, Side::Raw]
        } else {
            [Side::Raw, Side::Cassmodel]
        };
        let mut cpu = [0.0; 2];
        for side in order {
            let k = side as usize;
            let (base, session) = (next[k], if side == Side::Raw { raw_db } else { db });
            let m = drive::measure(GLOBAL, in_flight, None, slice, 1, |i| {
                change(session, raw, side, base + i)
            })
            .await;
            next[k] += m.ops;
            let ops = m.ops.max(1) as f64;
            let s = if side == Side::Raw {
                &mut theirs
            } else {
                &mut ours
            };
            s.cpu_us.push(m.cpu.as_secs_f64() * 1e6 / ops);
            s.allocs.push(m.allocs as f64 / ops);
            s.per_s.push(ops / m.wall.as_secs_f64());
            cpu[k] = m.cpu.as_secs_f64() / ops;
        }
        ratios.push(cpu[0] / cpu[1]);
    }
    let (lo, hi) = stats::median_ci95(&ratios).unwrap_or((f64::NAN, f64::NAN));
    let f = |v: f64| format!("{v:.3}");
    println!(
        "{in_flight} in flight: cassmodel / raw CPU per change {} [{}-{}], {:.1} / {:.1} µs, \
         {:.0} / {:.0} changes/s, {:.1} / {:.1} allocations",
        f(stats::median(&ratios)),
        f(lo),
        f(hi),
        stats::median(&ours.cpu_us),
        stats::median(&theirs.cpu_us),
        stats::median(&ours.per_s),
        stats::median(&theirs.per_s),
        stats::median(&ours.allocs),
        stats::median(&theirs.allocs),
    );
    vec![
        info.date.clone(),
        info.commit.clone(),
        info.machine.clone(),
        rounds.to_string(),
        slice.as_millis().to_string(),
        info.load_start.clone(),
        results::load_1min(),
        in_flight.to_string(),
        f(stats::median(&ratios)),
        f(lo),
        f(hi),
        format!("{:.1}", stats::median(&ours.cpu_us)),
        format!("{:.1}", stats::median(&theirs.cpu_us)),
        format!("{:.0}", stats::median(&ours.per_s)),
        format!("{:.0}", stats::median(&theirs.per_s)),
        format!("{:.1}", stats::median(&ours.allocs)),
        format!("{:.1}", stats::median(&theirs.allocs)),
    ]
}
