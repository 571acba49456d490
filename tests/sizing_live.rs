//! The live partition-size check (`cassmodel::sizing::live`, `migrate analyze --live`) on the
//! node: one partition made large (3,000 rows of 1 kB, about 3 MB) among 40 small ones, then
//! flushed, so the node's own figures (`system_views.max_partition_size`,
//! `system.table_estimates`) describe it, and the row count finds it. And the key of the
//! largest partition, printed as CQL literals, pasted back into a query on the node.

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

    let reports = std::sync::Mutex::new(Vec::new());
    let live: LiveSize = sizing::live_with_progress(&t.db, Event::schema(), true, &|p| {
        reports.lock().expect("lock").push(p.clone());
    })
    .await
    .expect("live check");
    assert_eq!(live.table, format!("{ks}.events"));
    // Fewer than 1,000 partitions: one report of the count, when it ends, with every
    // partition (40 small ones and the large one) and every row.
    assert_eq!(
        reports.into_inner().expect("lock"),
        [cassmodel::migrate::Progress::Scanned {
            table: format!("{ks}.events"),
            partitions: 41,
            rows: 3_200,
        }]
    );
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

/// Visits of a city's shop on a day: a composite partition key of a text and a date.
#[derive(CassTable, Debug, Clone)]
#[cass(table = "visits")]
struct Visit {
    #[partition_key]
    city: String,
    #[partition_key]
    day: chrono::NaiveDate,
    #[clustering]
    seq: i32,
}

/// The key of the partition with the most rows is printed as CQL literals (a text quoted, its
/// quote doubled; a date as `'YYYY-MM-DD'`), which `cqlsh` takes as they are: the printed key,
/// pasted into `token(..)`, counts the partition's rows on the node.
#[tokio::test]
async fn largest_key_is_written_as_cql_literals() {
    let t = support::test_db("sizing_literals").await;
    t.db.create_table::<Visit>().await.expect("create table");
    let day = |d| chrono::NaiveDate::from_ymd_opt(2024, 3, d).expect("date");
    let city = "O'Brien's, Main St";
    let mut rows: Vec<Visit> = (0..300)
        .map(|seq| Visit {
            city: city.to_owned(),
            day: day(1),
            seq,
        })
        .collect();
    for (other, d) in [("Oslo", 1), (city, 2), ("Lyon", 3)] {
        rows.extend((0..5).map(|seq| Visit {
            city: other.to_owned(),
            day: day(d),
            seq,
        }));
    }
    support::insert_all(&t.db, rows).await;

    let live = sizing::live(&t.db, Visit::schema(), true)
        .await
        .expect("live check");
    let (key, rows) = live.largest.clone().expect("a largest partition");
    assert_eq!(rows, 300);
    assert_eq!(key, "'O''Brien''s, Main St', '2024-03-01'");
    let text = live.compare(None);
    assert!(
        text.contains("most rows: 300 in partition ('O''Brien''s, Main St', '2024-03-01')"),
        "{text}"
    );

    // The printed key is valid CQL for those values: it finds the partition's 300 rows.
    let ks = t.keyspace().to_owned();
    let cql = format!("SELECT COUNT(*) FROM {ks}.visits WHERE token(city, day) = token({key})");
    let (count,): (i64,) =
        t.db.session()
            .query_unpaged(cql.as_str(), ())
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"))
            .into_rows_result()
            .expect("rows")
            .single_row()
            .expect("one row");
    assert_eq!(count, 300, "{cql}");
    t.drop_all().await;
}
