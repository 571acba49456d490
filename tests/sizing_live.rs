//! The live partition-size check (`cassmodel::sizing::live`, `migrate analyze --live`) on the
//! node: one partition made large (3,000 rows of 1 kB, about 3 MB) among 40 small ones, then
//! flushed, so the node's own figures (`system_views.max_partition_size`,
//! `system.table_estimates`) describe it, and the row count finds it.

mod support;

use cassmodel::migrate::Models;
use cassmodel::sizing::{self, LiveSize};
use cassmodel::{CassTable, Db, Table};
use cassmodel_cli as cli;

#[derive(CassTable, Debug, Clone)]
#[cass(table = "events", expect(rows = 100, per = "day", horizon = "30 days"))]
struct Event {
    #[partition_key]
    device: i32,
    #[clustering(desc)]
    seq: i32,
    #[cass(avg_bytes = 1000)]
    payload: Vec<u8>,
}

const BIG: i32 = 7;
const BIG_ROWS: i32 = 3_000;
const SMALL: i32 = 40;

async fn fill(db: &Db) {
    db.create_table::<Event>().await.expect("create table");
    let mut rows: Vec<Event> = (0..BIG_ROWS)
        .map(|seq| Event {
            device: BIG,
            seq,
            payload: vec![(seq % 251) as u8; 1000],
        })
        .collect();
    for device in (100..100 + SMALL).filter(|&d| d != BIG) {
        rows.extend((0..5).map(|seq| Event {
            device,
            seq,
            payload: vec![1; 100],
        }));
    }
    support::insert_all(db, rows).await;
}

fn nodetool(args: &[&str]) {
    let cfg = cassmodel_node::NodeConfig::from_env();
    if let Err(e) = cassmodel_node::nodetool(&cfg, args) {
        panic!(
            "this test flushes the table with the local node's nodetool (against a cluster of \
             your own, run it on the project's node: unset CASSMODEL_CONTACT_POINTS): {e}"
        );
    }
}

#[tokio::test]
async fn live_check_finds_the_large_partition() {
    let t = support::test_db("sizing_live").await;
    fill(&t.db).await;
    let ks = t.keyspace().to_owned();
    nodetool(&["flush", &ks, "events"]);
    nodetool(&["refreshsizeestimates"]);

    let live: LiveSize = sizing::live(&t.db, Event::schema(), true)
        .await
        .expect("live check");
    assert_eq!(live.table, format!("{ks}.events"));
    // The row count finds the large partition, with its exact number of rows.
    let (key, rows) = live
        .largest
        .clone()
        .expect("a table with rows has a largest partition");
    assert_eq!(rows, i64::from(BIG_ROWS));
    assert!(key.contains(&BIG.to_string()), "{key}");
    // The node reports the size of the flushed partition: ~3 MB of payload, in whole MiB
    // (its histogram rounds a size up to a bucket boundary).
    let mib = live
        .max_partition_mib
        .expect("flushed data has a max partition size");
    assert!((2..=6).contains(&mib), "max partition size {mib} MiB");
    // And the partition estimates count the table's partitions.
    let partitions = live
        .partitions
        .expect("estimates after refreshsizeestimates");
    assert!(partitions >= 1, "{partitions}");
    assert!(live.mean_partition_bytes.is_some_and(|b| b > 0), "{live:?}");

    // Compared with the model: 3,000 rows of (4 + 1000 + 8) bytes is about 3 MB.
    let estimate = sizing::analyze(Event::schema(), Some(&ks));
    let text = live.compare(estimate.estimate.as_ref());
    assert!(text.contains("most rows: 3,000"), "{text}");
    assert!(
        text.contains("about 3.0 MB by the model's row size"),
        "{text}"
    );

    // The CLI prints the same line after the offline report.
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let points = std::env::var("CASSMODEL_CONTACT_POINTS")
        .unwrap_or_else(|_| cassmodel::config::local_contact_point());
    let exit = cli::run(
        [
            "migrate",
            "--contact-points",
            &points,
            "--keyspace",
            &ks,
            "analyze",
            "--live",
            "--count-rows",
        ],
        Models::new().table::<Event>(),
        &mut out,
        &mut err,
    )
    .await;
    let out = String::from_utf8_lossy(&out);
    assert_eq!(
        exit,
        cli::Exit::Ok,
        "{out}{}",
        String::from_utf8_lossy(&err)
    );
    assert!(out.contains("most rows: 3,000"), "{out}");
    t.drop_all().await;
}
