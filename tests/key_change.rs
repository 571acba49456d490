//! Key changes on the node: a new table declares where its rows come from
//! (`#[cass(from = ..)]`), `backfill` copies them, `verify` compares, `drop-source` drops the
//! old table.

#![forbid(unsafe_code)]

mod support;

use std::collections::BTreeMap;

use cassmodel::migrate::copy::{self, CopyOptions, VerifyOptions};
use cassmodel::{CassTable, Db};
use chrono::{DateTime, Duration, TimeZone, Utc};

/// The table as it was: one partition per sensor, growing without end.
mod v1 {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(
        table = "readings",
        expect(rows = 50_000, per = "day", horizon = "2 years")
    )]
    pub struct Reading {
        #[partition_key]
        pub sensor: i32,
        #[clustering(desc)]
        pub ts: DateTime<Utc>,
        pub value: f64,
        pub note: Option<String>,
    }
}

/// The same rows bucketed by day, in a new table whose rows come from the old one.
mod v2 {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(
        table = "readings_v2",
        from = "readings",
        expect(rows = 50_000, per = "day", horizon = "2 years")
    )]
    pub struct Reading {
        #[partition_key]
        pub sensor: i32,
        #[clustering(desc)]
        #[cass(bucket(day))]
        pub ts: DateTime<Utc>,
        pub value: f64,
        pub note: Option<String>,
    }
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0)
        .single()
        .expect("a time")
}

fn reading(sensor: i32, i: i64) -> v1::Reading {
    v1::Reading {
        sensor,
        ts: start() + Duration::minutes(37 * i),
        value: sensor as f64 * 1000.0 + i as f64 / 4.0,
        note: (i % 3 == 0).then(|| format!("note {sensor}/{i}")),
    }
}

/// `(sensor, ts) -> (value, note)` of a table, read with plain CQL.
async fn plain(db: &Db, table: &str) -> BTreeMap<(i32, DateTime<Utc>), (f64, Option<String>)> {
    let ks = db.keyspace().expect("a keyspace");
    let cql = format!("SELECT sensor, ts, value, note FROM {ks}.{table}");
    let mut out = BTreeMap::new();
    let mut pager = db
        .session()
        .query_iter(cql.as_str(), &[])
        .await
        .expect("plain CQL")
        .rows_stream::<(i32, DateTime<Utc>, f64, Option<String>)>()
        .expect("typed");
    use futures::TryStreamExt;
    while let Some((s, ts, v, n)) = pager.try_next().await.expect("row") {
        assert!(out.insert((s, ts), (v, n)).is_none(), "a row twice");
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn bucket_copy_smoke() {
    let t = support::test_db("keychange_smoke").await;
    let db = &t.db;
    db.create_table::<v1::Reading>().await.expect("create v1");
    support::insert_all(
        db,
        (0..20).flat_map(|s| (0..300).map(move |i| reading(s, i))),
    )
    .await;
    db.create_table::<v2::Reading>().await.expect("create v2");
    let report = copy::backfill::<v2::Reading>(db, &CopyOptions::new().ranges(16))
        .await
        .expect("backfill");
    assert_eq!(report.rows, 6000, "{report}");
    let verify = copy::verify::<v2::Reading>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(verify.is_clean(), "{verify}");
    assert_eq!(verify.source_rows, 6000, "{verify}");
    assert_eq!(verify.target_rows, 6000, "{verify}");
    let old = plain(db, "readings").await;
    let new = plain(db, "readings_v2").await;
    assert_eq!(old.len(), 6000);
    assert_eq!(old, new);
    t.drop_all().await;
}
