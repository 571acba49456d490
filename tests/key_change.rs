//! Key changes on the node: a new table declares where its rows come from
//! (`#[cass(from = ..)]`), the application writes both tables (`dual_writes`), `backfill`
//! copies the old rows, `verify` compares, `drop-source` drops the old table.
//!
//! The journey a user follows (README, "Changing a key"): `migrate analyze` says a partition
//! grows too large and names the bucket; the bucketed struct gets a new table name and
//! `from`; `migrate plan` prints the steps; `apply` creates the table; the application writes
//! through the new model (both tables) while `backfill` runs, is killed, and runs again;
//! `verify` finds nothing missing, different or extra; `drop-source` drops the old table.

#![forbid(unsafe_code)]

mod support;

#[path = "key_change/edges.rs"]
mod edges;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cassmodel::migrate::Models;
use cassmodel::migrate::copy::{self, CopyOptions, VerifyOptions};
use cassmodel::{Batch, CassTable, Db, Insert, Table};
use cassmodel_cli as cli;
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use futures::TryStreamExt;

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
        dual_writes,
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
    while let Some((s, ts, v, n)) = pager.try_next().await.expect("row") {
        assert!(out.insert((s, ts), (v, n)).is_none(), "a row twice");
    }
    out
}

/// Runs the migration command `args` on `models` against the test's keyspace.
async fn migrate(db: &Db, models: Models, args: &[&str]) -> (cli::Exit, String, String) {
    let (exit, out, err) = migrate_until(db, models, std::future::pending(), args).await;
    (exit.expect("the command ends"), out, err)
}

/// [`migrate`] until the command ends or `stop` does (the command's future is then dropped,
/// as a process killed): its exit (`None`: stopped), output and error output.
async fn migrate_until(
    db: &Db,
    models: Models,
    stop: impl std::future::Future<Output = ()>,
    args: &[&str],
) -> (Option<cli::Exit>, String, String) {
    let points = std::env::var("CASSMODEL_CONTACT_POINTS")
        .unwrap_or_else(|_| cassmodel::config::local_contact_point());
    let ks = db.keyspace().expect("a keyspace").to_owned();
    let mut argv: Vec<String> = vec!["migrate".into(), "--contact-points".into(), points];
    argv.extend(["--keyspace".into(), ks]);
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let exit = tokio::select! {
        exit = cli::run(argv, models, &mut out, &mut err) => Some(exit),
        () = stop => None,
    };
    (
        exit,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// `migrate backfill` of `models` in 32 ranges, with leases of `lease_seconds`.
async fn backfill_32_ranges(
    db: &Db,
    models: Models,
    lease_seconds: &str,
) -> (cli::Exit, String, String) {
    let args = [
        "backfill",
        "--ranges",
        "32",
        "--lease-seconds",
        lease_seconds,
        "--quiet",
    ];
    migrate(db, models, &args).await
}

/// A small deterministic generator (the test's writes are the same on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

type Rows = BTreeMap<(i32, DateTime<Utc>), (f64, Option<String>)>;

fn as_new(r: &v1::Reading) -> v2::Reading {
    v2::Reading {
        sensor: r.sensor,
        ts: r.ts,
        value: r.value,
        note: r.note.clone(),
    }
}

/// The application of the release that writes both tables: inserts, updates, deletes (one at a
/// time, a batch, an LWT) of rows the copy is moving, through the new model only, until
/// `stop` (at most 4,000 writes, 120 s). Returns the rows both tables must end with.
async fn application(db: Db, mut rows: Rows, stop: Arc<AtomicBool>) -> (Rows, u32) {
    let mut rng = Lcg(7);
    let started = std::time::Instant::now();
    let mut writes = 0u32;
    let keys: Vec<(i32, DateTime<Utc>)> = rows.keys().copied().collect();
    while writes < 4000 && started.elapsed() < std::time::Duration::from_secs(120) {
        if stop.load(Ordering::Relaxed) && writes >= 200 {
            break;
        }
        let (sensor, ts) = keys[rng.below(keys.len() as u64) as usize];
        match writes % 6 {
            // A new row, in a day the copy also moves.
            0 => {
                let r = v2::Reading {
                    sensor,
                    ts: ts + Duration::seconds(1 + i64::from(writes)),
                    value: -f64::from(writes),
                    note: Some(format!("app {writes}")),
                };
                db.insert(&r).await.expect("insert through the new model");
                rows.insert((r.sensor, r.ts), (r.value, r.note.clone()));
            }
            // An update of a copied row.
            1 | 2 => {
                let value = 0.5 + f64::from(writes);
                v2::Reading::update()
                    .set_value(&value)
                    .sensor(&sensor)
                    .ts(&ts)
                    .execute(&db)
                    .await
                    .expect("update through the new model");
                if let Some(r) = rows.get_mut(&(sensor, ts)) {
                    r.0 = value;
                } else {
                    // An update creates the row's value cell only (no note).
                    rows.insert((sensor, ts), (value, None));
                }
            }
            // A delete of a copied row.
            3 => {
                v2::Reading::delete()
                    .sensor(&sensor)
                    .ts(&ts)
                    .execute(&db)
                    .await
                    .expect("delete through the new model");
                rows.remove(&(sensor, ts));
            }
            // A delete in a logged batch.
            4 => {
                let (value, note) = rows.get(&(sensor, ts)).cloned().unwrap_or((0.0, None));
                Batch::logged()
                    .delete_row(v2::Reading {
                        sensor,
                        ts,
                        value,
                        note,
                    })
                    .execute(&db)
                    .await
                    .expect("batch delete through the new model");
                rows.remove(&(sensor, ts));
            }
            // A lightweight transaction: decided on the new table, written to both.
            _ => {
                let r = v2::Reading {
                    sensor,
                    ts: ts - Duration::milliseconds(1 + i64::from(writes)),
                    value: 1e6 + f64::from(writes),
                    note: None,
                };
                let outcome = Insert::new(&r)
                    .if_not_exists()
                    .execute(&db)
                    .await
                    .expect("LWT through the new model");
                assert!(outcome.applied, "a new key");
                rows.insert((r.sensor, r.ts), (r.value, None));
            }
        }
        writes += 1;
    }
    (rows, writes)
}

/// Every row of the new table, read through the new model.
async fn through_new_model(db: &Db) -> Rows {
    let mut out = Rows::new();
    let mut rows = v2::Reading::scan_full_table(db, 8).await.expect("scan");
    while let Some(r) = rows.try_next().await.expect("row") {
        assert!(
            out.insert((r.sensor, r.ts), (r.value, r.note)).is_none(),
            "a row twice"
        );
    }
    out
}

/// From "analyze says split" to "old table dropped", with the application writing through the
/// new model during the copy and the copy killed half-way and started again.
#[tokio::test(flavor = "multi_thread")]
async fn analyze_then_bucket_journey() {
    let t = support::test_db_replicated("keychange_journey").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();

    // Production: one partition per sensor. Some rows expire, some were updated later (their
    // cells have different write times).
    db.create_table::<v1::Reading>().await.expect("create v1");
    let initial: Vec<v1::Reading> = (0..30)
        .flat_map(|s| (0..400).map(move |i| reading(s, i)))
        .collect();
    support::insert_all(
        db,
        initial
            .iter()
            .filter(|r| r.ts.timestamp() % 7 != 0)
            .cloned(),
    )
    .await;
    for r in initial.iter().filter(|r| r.ts.timestamp() % 7 == 0) {
        Insert::new(r)
            .using_ttl(86_400)
            .execute(db)
            .await
            .expect("insert with TTL");
    }
    for r in initial.iter().step_by(5) {
        v1::Reading::update()
            .set_value(&(r.value + 0.125))
            .sensor(&r.sensor)
            .ts(&r.ts)
            .execute(db)
            .await
            .expect("later update");
    }
    let before = plain(db, "readings").await;
    assert_eq!(before.len(), 12_000);

    // 1. `analyze` says the partitions outgrow the guidance, and names the bucket.
    let (exit, out, err) = migrate(db, Models::new().table::<v1::Reading>(), &["analyze"]).await;
    assert_eq!(exit, cli::Exit::OverGuidance, "{out}{err}");
    assert!(out.contains("`#[cass(bucket(day))]` on `ts`"), "{out}");

    // 2. The bucketed struct, under a new name and with `from`: `plan` prints the steps of
    // the key change and creates the new table; nothing is refused.
    let both = || Models::new().table::<v1::Reading>().table::<v2::Reading>();
    let (exit, out, err) = migrate(db, both(), &["plan"]).await;
    assert_eq!(exit, cli::Exit::Pending, "{out}{err}");
    assert!(
        out.contains(&format!("CREATE TABLE IF NOT EXISTS {ks}.readings_v2")),
        "{out}"
    );
    assert!(
        out.contains(&format!("-- KEY CHANGE {ks}.readings_v2 <- {ks}.readings")),
        "{out}"
    );
    for step in [
        "1. create",
        "2. release",
        "3. copy",
        "4. check",
        "5. release",
        "6. release",
        "7. drop",
    ] {
        assert!(out.contains(step), "{step}: {out}");
    }
    let (exit, out, err) = migrate(db, both(), &["apply"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");

    // 3. The release that writes both tables runs during the whole copy.
    let stop = Arc::new(AtomicBool::new(false));
    let app = tokio::spawn(application(db.clone(), before.clone(), Arc::clone(&stop)));

    // The first backfill is killed after a quarter of the ranges (its future dropped: claimed
    // ranges half copied, leases held).
    let done = Arc::new(AtomicU32::new(0));
    let seen = Arc::clone(&done);
    let options = CopyOptions::new()
        .ranges(32)
        .lease(std::time::Duration::from_secs(2))
        .progress(move |p| seen.store(p.ranges_done, Ordering::Relaxed));
    let killed = async {
        while done.load(Ordering::Relaxed) < 8 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        r = copy::backfill::<v2::Reading>(db, &options) => panic!("not killed: {r:?}"),
        () = killed => {}
    }
    let status = copy::status(db).await.expect("status");
    let s = status
        .iter()
        .find(|s| s.target == format!("{ks}.readings_v2"))
        .expect("the copy is recorded");
    assert!(
        !s.finished && s.ranges_done >= 8 && s.ranges_done < 32,
        "{s}"
    );
    let (exit, out, _) = migrate(db, both(), &["status"]).await;
    assert_eq!(exit, cli::Exit::Ok);
    assert!(
        out.contains("step 3 of 7, the copy: `backfill` (again, to continue"),
        "{out}"
    );

    // Started again (the CLI, another connection): it continues and ends.
    let (exit, out, err) = backfill_32_ranges(db, both(), "2").await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(out.contains("all 32 ranges copied"), "{out}");
    stop.store(true, Ordering::Relaxed);
    let (expected, writes) = app.await.expect("the application");
    assert!(writes >= 200, "{writes} writes");

    // 4. Verify: nothing missing, different or extra.
    let (exit, out, err) = migrate(db, both(), &["verify"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(
        out.contains("0 missing, 0 different, 0 extra, 0 not converted"),
        "{out}"
    );
    assert!(
        out.contains("clean. next: release the application reading"),
        "{out}"
    );

    // Every row through the new model equals plain CQL on the old table, and both are the
    // rows before the copy plus the application's writes.
    let new = through_new_model(db).await;
    let old = plain(db, "readings").await;
    assert_eq!(new.len(), expected.len());
    assert!(new == old, "the new table differs from the old one");
    assert!(new == expected, "the tables differ from the rows written");

    // Copied cells keep their write time and TTL.
    let times = |table: &'static str| {
        let cql = format!("SELECT sensor, ts, WRITETIME(value), TTL(value) FROM {ks}.{table}");
        async move {
            let mut out = BTreeMap::new();
            let mut rows = db
                .session()
                .query_iter(cql.as_str(), &[])
                .await
                .expect("times")
                .rows_stream::<(i32, DateTime<Utc>, i64, Option<i32>)>()
                .expect("typed");
            while let Some((s, ts, w, ttl)) = rows.try_next().await.expect("row") {
                out.insert((s, ts), (w, ttl));
            }
            out
        }
    };
    let (old_times, new_times) = (times("readings").await, times("readings_v2").await);
    let mut with_ttl = 0;
    for (key, (w, ttl)) in &old_times {
        let (nw, nttl) = new_times[key];
        if expected[key].0 >= 1e6 {
            // Written by an LWT: its write time on the new table is Paxos's, and the old
            // table's is the moment its outcome was written there.
            assert!(nw <= *w, "{key:?}");
            continue;
        }
        assert_eq!(*w, nw, "write time of {key:?}");
        if let (Some(a), Some(b)) = (ttl, nttl) {
            with_ttl += 1;
            assert!((a - b).abs() <= 120, "TTL of {key:?}: {a} vs {b}");
        } else {
            assert_eq!(ttl.is_some(), nttl.is_some(), "TTL of {key:?}");
        }
    }
    assert!(with_ttl > 1000, "{with_ttl} rows with a TTL");

    let (exit, out, _) = migrate(db, both(), &["status"]).await;
    assert_eq!(exit, cli::Exit::Ok);
    assert!(out.contains("copied and verified"), "{out}");

    // 7. The old table goes only by the explicit command.
    let (exit, out, err) =
        migrate(db, both(), &["drop-source", &format!("{ks}.readings_v2")]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(
        out.contains(&format!("DROP TABLE IF EXISTS {ks}.readings")),
        "{out}"
    );
    db.session().refresh_metadata().await.expect("metadata");
    let (_, out, _) = migrate(db, Models::new().table::<v2::Reading>(), &["plan"]).await;
    assert!(
        out.contains("which no longer exists: remove #[cass(from = ..)]"),
        "{out}"
    );
    // A release that still declares dual writes says what to remove.
    let fresh = db.with_keyspace(&ks).expect("keyspace");
    let err = fresh
        .insert(&as_new(&reading(1, 1)))
        .await
        .expect_err("the old table is gone");
    assert!(err.to_string().contains("remove `dual_writes`"), "{err}");
    t.drop_all().await;
}

/// A clustering order reversed (ASC to DESC): the same key, another table.
mod visits {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "visits")]
    pub struct Visit {
        #[partition_key]
        pub page: String,
        #[clustering]
        pub at: DateTime<Utc>,
        pub user_id: i32,
    }

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "visits_newest_first", from = Visit, dual_writes)]
    pub struct VisitNewestFirst {
        #[partition_key]
        pub page: String,
        #[clustering(desc)]
        pub at: DateTime<Utc>,
        pub user_id: i32,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn clustering_order_change() {
    use visits::{Visit, VisitNewestFirst};
    let t = support::test_db_replicated("keychange_order").await;
    let db = &t.db;
    db.create_table::<Visit>().await.expect("create");
    let rows: Vec<Visit> = (0..50)
        .flat_map(|p| {
            (0..60).map(move |i| Visit {
                page: format!("/page/{p}"),
                at: start() + Duration::seconds(i * 13),
                user_id: i as i32,
            })
        })
        .collect();
    support::insert_all(db, rows.iter().cloned()).await;
    db.create_table::<VisitNewestFirst>().await.expect("create");
    let report = copy::backfill::<VisitNewestFirst>(db, &CopyOptions::new().ranges(16))
        .await
        .expect("backfill");
    assert_eq!(report.rows, 3000, "{report}");
    assert_eq!(report.ranges_copied, 16, "{report}");
    let verify = copy::verify::<VisitNewestFirst>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(verify.is_clean(), "{verify}");
    assert_eq!((verify.source_rows, verify.target_rows), (3000, 3000));

    // The new table reads newest first, with the same rows.
    let newest = VisitNewestFirst::partition(db, "/page/7")
        .await
        .expect("read");
    let mut oldest = Visit::partition(db, "/page/7").await.expect("read");
    oldest.reverse();
    assert_eq!(newest.len(), 60);
    let as_old: Vec<Visit> = newest
        .into_iter()
        .map(|v| Visit {
            page: v.page,
            at: v.at,
            user_id: v.user_id,
        })
        .collect();
    assert_eq!(as_old, oldest);

    // A dual write of a delete of a whole partition: the same partition in both tables.
    VisitNewestFirst::delete()
        .page("/page/7")
        .execute(db)
        .await
        .expect("partition delete");
    assert!(
        Visit::partition(db, "/page/7")
            .await
            .expect("read")
            .is_empty()
    );
    assert!(
        VisitNewestFirst::partition(db, "/page/7")
            .await
            .expect("read")
            .is_empty()
    );
    let verify = copy::verify::<VisitNewestFirst>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(verify.is_clean() && verify.source_rows == 2940, "{verify}");

    // An old release, without dual writes, still writes the old table after the copy: verify
    // finds its rows missing and marks their ranges, and `backfill` copies those again.
    let late: Vec<Visit> = (0..3)
        .map(|i| Visit {
            page: format!("/late/{i}"),
            at: start(),
            user_id: 1000 + i,
        })
        .collect();
    support::insert_all(db, late.iter().cloned()).await;
    let verify = copy::verify::<VisitNewestFirst>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert_eq!(verify.missing, 3, "{verify}");
    assert!(
        (1..=3).contains(&verify.ranges_to_copy),
        "ranges of the three rows: {verify}"
    );
    let status = copy::status(db).await.expect("status");
    let target = format!("{}.visits_newest_first", t.keyspace());
    let s = status
        .iter()
        .find(|s| s.target == target)
        .expect("recorded");
    assert!(
        !s.finished && s.ranges_done == 16 - verify.ranges_to_copy,
        "{s}"
    );
    let report = copy::backfill::<VisitNewestFirst>(db, &CopyOptions::new().ranges(16))
        .await
        .expect("backfill again");
    assert_eq!(report.ranges_copied, verify.ranges_to_copy, "{report}");
    let verify = copy::verify::<VisitNewestFirst>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(verify.is_clean() && verify.source_rows == 2943, "{verify}");
    for v in &late {
        let copied = VisitNewestFirst::get(db, &v.page, &v.at)
            .await
            .expect("read");
        assert_eq!(copied.map(|c| c.user_id), Some(v.user_id));
    }
    t.drop_all().await;
}

/// A column moves into the partition key: orders by customer become orders by customer and
/// status.
mod orders {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "orders")]
    pub struct Order {
        #[partition_key]
        pub customer: i32,
        #[clustering(desc)]
        pub at: DateTime<Utc>,
        pub status: String,
        pub total: i64,
    }

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "orders_by_status", from = "orders", dual_writes)]
    pub struct OrderByStatus {
        #[partition_key]
        pub customer: i32,
        #[partition_key]
        pub status: String,
        #[clustering(desc)]
        pub at: DateTime<Utc>,
        pub total: i64,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn partition_key_change() {
    use orders::{Order, OrderByStatus};
    let t = support::test_db_replicated("keychange_pk").await;
    let db = &t.db;
    db.create_table::<Order>().await.expect("create");
    let statuses = ["open", "paid", "shipped"];
    let rows: Vec<Order> = (0..40)
        .flat_map(|c| {
            (0..30).map(move |i| Order {
                customer: c,
                at: start() + Duration::minutes(i),
                status: statuses[(i % 3) as usize].to_owned(),
                total: i64::from(c) * 100 + i,
            })
        })
        .collect();
    support::insert_all(db, rows.iter().cloned()).await;
    db.create_table::<OrderByStatus>().await.expect("create");
    let report = copy::backfill::<OrderByStatus>(db, &CopyOptions::new())
        .await
        .expect("backfill");
    assert_eq!(report.rows, 1200, "{report}");
    let verify = copy::verify::<OrderByStatus>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(verify.is_clean(), "{verify}");
    let paid = OrderByStatus::partition(db, &3, "paid")
        .await
        .expect("read");
    let expected: Vec<i64> = rows
        .iter()
        .filter(|o| o.customer == 3 && o.status == "paid")
        .rev()
        .map(|o| o.total)
        .collect();
    assert_eq!(paid.iter().map(|o| o.total).collect::<Vec<_>>(), expected);

    // A delete of a (customer, status) partition has no equivalent in `orders`, whose
    // partition is the customer: refused before anything is written.
    let err = OrderByStatus::delete()
        .customer(&3)
        .status("paid")
        .execute(db)
        .await
        .expect_err("no equivalent in the old table");
    let text = err.to_string();
    assert!(text.contains("row by row with the whole key"), "{text}");
    assert!(text.contains("whose key is (customer, at)"), "{text}");
    assert_eq!(
        OrderByStatus::partition(db, &3, "paid")
            .await
            .expect("read")
            .len(),
        10
    );
    // Row by row, it reaches both.
    for o in &paid {
        OrderByStatus::delete()
            .customer(&o.customer)
            .status(&o.status)
            .at(&o.at)
            .execute(db)
            .await
            .expect("row delete");
    }
    assert_eq!(Order::partition(db, &3).await.expect("read").len(), 20);
    let verify = copy::verify::<OrderByStatus>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(verify.is_clean() && verify.source_rows == 1190, "{verify}");

    // A row only in the new table is reported as extra, with its key.
    let ks = t.keyspace();
    db.session()
        .query_unpaged(
            format!(
                "INSERT INTO {ks}.orders_by_status (customer, status, at, total) VALUES (99, \
                 'open', '2026-01-01', 1)"
            ),
            &[],
        )
        .await
        .expect("a stray row");
    let verify = copy::verify::<OrderByStatus>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert_eq!(verify.extra, 1, "{verify}");
    assert!(verify.first_extra[0].contains("customer = 99"), "{verify}");
    t.drop_all().await;
}

/// A type change (int to bigint) through a conversion function, which refuses one row.
mod stock {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "stock")]
    pub struct Stock {
        #[partition_key]
        pub sku: i32,
        pub qty: i32,
        pub label: String,
    }

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "stock_v2", from = Stock, with = widen)]
    pub struct StockV2 {
        #[partition_key]
        pub sku: i32,
        pub qty: i64,
        pub label: String,
    }

    pub fn widen(old: Stock) -> Result<StockV2, String> {
        if old.label.is_empty() {
            return Err("no label".into());
        }
        Ok(StockV2 {
            sku: old.sku,
            qty: i64::from(old.qty),
            label: old.label,
        })
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn type_change_with_a_failing_row() {
    use stock::{Stock, StockV2};
    let t = support::test_db_replicated("keychange_type").await;
    let db = &t.db;

    // The source missing: a clear error, nothing created.
    db.create_table::<StockV2>().await.expect("create");
    let err = copy::backfill::<StockV2>(db, &CopyOptions::new())
        .await
        .expect_err("no source");
    assert!(
        err.to_string().contains(&format!(
            "the source table {0}.stock of {0}.stock_v2 does not exist",
            t.keyspace()
        )),
        "{err}"
    );
    let (exit, out, _) = migrate(db, Models::new().table::<StockV2>(), &["plan"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}");
    let (exit, _, err) = migrate(
        db,
        Models::new().table::<StockV2>(),
        &["backfill", "--quiet"],
    )
    .await;
    assert_eq!(exit, cli::Exit::Refused, "a refusal, not an error: {err}");
    assert!(err.contains("does not exist"), "{err}");

    db.create_table::<Stock>().await.expect("create");
    let rows: Vec<Stock> = (0..500)
        .map(|sku| Stock {
            sku,
            qty: if sku % 2 == 0 { i32::MAX - sku } else { -sku },
            label: if sku == 13 {
                String::new()
            } else {
                format!("item {sku}")
            },
        })
        .collect();
    support::insert_all(db, rows.iter().cloned()).await;
    let (exit, out, err) = migrate(
        db,
        Models::new().table::<StockV2>(),
        &["backfill", "--quiet"],
    )
    .await;
    assert_eq!(exit, cli::Exit::Incomplete, "{out}{err}");
    assert!(
        out.contains("1 row(s) not copied:\n  (sku = 13): no label"),
        "{out}"
    );
    let (exit, out, _) = migrate(db, Models::new().table::<StockV2>(), &["verify"]).await;
    assert_eq!(exit, cli::Exit::Incomplete, "{out}");
    assert!(
        out.contains("0 missing, 0 different, 0 extra, 1 not converted"),
        "{out}"
    );
    let mut copied: Vec<StockV2> = StockV2::scan_full_table(db, 4)
        .await
        .expect("scan")
        .try_collect()
        .await
        .expect("rows");
    copied.sort_by_key(|s| s.sku);
    let expected: Vec<StockV2> = rows
        .into_iter()
        .filter_map(|s| stock::widen(s).ok())
        .collect();
    assert_eq!(copied, expected);
    assert_eq!(StockV2::schema().source.map(|s| s.converted), Some(true));
    t.drop_all().await;
}

/// A target that already holds rows of its own is refused before anything is written; two
/// backfills of one copy at once share its ranges and copy every row once.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_target_and_two_backfills_at_once() {
    let t = support::test_db_replicated("keychange_bad").await;
    let db = &t.db;
    db.create_table::<v1::Reading>().await.expect("create");
    support::insert_all(
        db,
        (0..10).flat_map(|s| (0..300).map(move |i| reading(s, i))),
    )
    .await;
    db.create_table::<v2::Reading>().await.expect("create");
    let stray = v2::Reading {
        sensor: 77,
        ts: start(),
        value: 1.0,
        note: None,
    };
    // Written with plain CQL (the model's own writes would reach the old table too).
    let ks = t.keyspace();
    db.session()
        .query_unpaged(
            format!("INSERT INTO {ks}.readings_v2 (sensor, ts, ts_day, value) VALUES (?, ?, ?, ?)"),
            (stray.sensor, stray.ts, stray.ts.date_naive(), stray.value),
        )
        .await
        .expect("a row of its own");
    let err = copy::backfill::<v2::Reading>(db, &CopyOptions::new())
        .await
        .expect_err("a target with rows of its own");
    let text = err.to_string();
    assert!(
        text.contains("already has rows that do not come from"),
        "{text}"
    );
    assert!(text.contains("sensor = 77"), "{text}");
    assert_eq!(plain(db, "readings_v2").await.len(), 1, "nothing written");

    db.session()
        .query_unpaged(format!("TRUNCATE {ks}.readings_v2"), &[])
        .await
        .expect("empty it");
    let other = support::test_db_replicated("keychange_bad2").await;
    let second = other.db.with_keyspace(t.keyspace()).expect("keyspace");
    let options = CopyOptions::new().ranges(64).ranges_in_flight(2);
    let (a, b) = tokio::join!(
        copy::backfill::<v2::Reading>(db, &options),
        copy::backfill::<v2::Reading>(&second, &options)
    );
    let (a, b) = (a.expect("first"), b.expect("second"));
    assert_eq!(a.rows + b.rows, 3000, "{a}\n{b}");
    assert_eq!(a.ranges_copied + b.ranges_copied, 64, "{a}\n{b}");
    assert!(a.ranges_copied > 0 && b.ranges_copied > 0, "{a}\n{b}");
    let verify = copy::verify::<v2::Reading>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(verify.is_clean(), "{verify}");
    other.drop_all().await;
    t.drop_all().await;
}

/// A counter table whose partitions grew too large: views per site and page by day, moved to
/// a partition per page. Copied offline (`offline`), with its writers stopped.
mod views {
    use super::*;
    use cassmodel::value::Counter;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "page_views")]
    pub struct PageViews {
        #[partition_key]
        pub site: String,
        #[clustering]
        pub page: String,
        #[clustering(desc)]
        pub day: NaiveDate,
        pub views: Counter,
        pub visitors: Option<Counter>,
    }

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "page_views_v2", from = PageViews, offline)]
    pub struct PageViewsV2 {
        #[partition_key]
        pub site: String,
        #[partition_key]
        pub page: String,
        #[clustering(desc)]
        pub day: NaiveDate,
        pub views: Counter,
        pub visitors: Option<Counter>,
    }
}

/// `(site, page, day) -> (views, visitors)`.
type Counts = BTreeMap<(String, String, NaiveDate), (i64, Option<i64>)>;

/// The counts of a table of views, read with plain CQL.
async fn counts(db: &Db, table: &str) -> Counts {
    use cassmodel::value::Counter;
    let ks = db.keyspace().expect("a keyspace");
    let cql = format!("SELECT site, page, day, views, visitors FROM {ks}.{table}");
    let mut out = BTreeMap::new();
    let mut rows = db
        .session()
        .query_iter(cql.as_str(), &[])
        .await
        .expect("plain CQL")
        .rows_stream::<(String, String, NaiveDate, Counter, Option<Counter>)>()
        .expect("typed");
    while let Some((site, page, day, views, visitors)) = rows.try_next().await.expect("row") {
        out.insert((site, page, day), (views.0, visitors.map(|v| v.0)));
    }
    out
}

/// Adds `views` and `visitors` (when given) to one row of the old table.
async fn count_view(db: &Db, key: &(String, String, NaiveDate), views: i64, visitors: Option<i64>) {
    let update = views::PageViews::update().increment_views(views);
    let update = match visitors {
        Some(v) => update.increment_visitors(v),
        None => update,
    };
    update
        .site(&key.0)
        .page(&key.1)
        .day(&key.2)
        .execute(db)
        .await
        .expect("an increment");
}

#[tokio::test(flavor = "multi_thread")]
async fn counter_table_copied_offline() {
    use futures::StreamExt;
    let t = support::test_db_replicated("keychange_counters").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    db.create_table::<views::PageViews>()
        .await
        .expect("create v1");

    // Counts made of several increments each, decrements among them (some to zero), and
    // `visitors` counted on some rows only.
    let mut rng = Lcg(7);
    let mut expected = Counts::new();
    let mut increments = Vec::new();
    let first_day = NaiveDate::from_ymd_opt(2026, 3, 1).expect("a day");
    for site in 0..12 {
        for page in 0..20 {
            for d in 0..8 {
                let key = (
                    format!("site{site}"),
                    format!("/page/{page}"),
                    first_day + Duration::days(d),
                );
                let (mut views, mut visitors) = (0i64, None::<i64>);
                for _ in 0..=rng.below(2) {
                    let n = rng.below(50) as i64 - 10;
                    let v = (rng.below(3) == 0).then(|| rng.below(7) as i64);
                    views += n;
                    if let Some(v) = v {
                        *visitors.get_or_insert(0) += v;
                    }
                    increments.push((key.clone(), n, v));
                }
                if rng.below(10) == 0 {
                    increments.push((key.clone(), -views, None));
                    views = 0;
                }
                expected.insert(key, (views, visitors));
            }
        }
    }
    futures::stream::iter(&increments)
        .for_each_concurrent(64, |(key, n, v)| count_view(db, key, *n, *v))
        .await;
    assert_eq!(counts(db, "page_views").await, expected);
    assert!(expected.values().any(|(v, _)| *v == 0));
    assert!(expected.values().any(|(_, v)| v.is_none()));

    // `plan` prints the steps of an offline copy: the writers stop first, one release at
    // the end.
    let both = || {
        Models::new()
            .table::<views::PageViews>()
            .table::<views::PageViewsV2>()
    };
    let (exit, out, err) = migrate(db, both(), &["plan"]).await;
    assert_eq!(exit, cli::Exit::Pending, "{out}{err}");
    assert!(
        out.contains(&format!(
            "-- KEY CHANGE {ks}.page_views_v2 <- {ks}.page_views (counters copied offline"
        )),
        "{out}"
    );
    for step in [
        "2. stop every write to",
        "3. copy the counts",
        "5. release the application reading and writing",
        "6. drop",
    ] {
        assert!(out.contains(step), "{step}: {out}");
    }
    assert!(!out.contains("7. "), "{out}");
    let (exit, out, err) = migrate(db, both(), &["apply"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");

    // A new table that already counts something is refused before anything is added.
    let stray = ("site99".to_owned(), "/".to_owned(), first_day);
    db.session()
        .query_unpaged(
            format!(
                "UPDATE {ks}.page_views_v2 SET views = views + 1 WHERE site = ? AND page = ? \
                 AND day = ?"
            ),
            (&stray.0, &stray.1, stray.2),
        )
        .await
        .expect("a count of its own");
    let err = copy::backfill::<views::PageViewsV2>(db, &CopyOptions::new())
        .await
        .expect_err("a target that counts something");
    let text = err.to_string();
    assert!(
        text.contains("a copy of counters adds to what is there"),
        "{text}"
    );
    assert_eq!(counts(db, "page_views_v2").await.len(), 1, "nothing added");
    db.session()
        .query_unpaged(format!("TRUNCATE {ks}.page_views_v2"), &[])
        .await
        .expect("empty it");

    // The first backfill is killed with a quarter of its ranges done, others half added (its
    // future dropped with increments in flight, its leases held): slowed down so that every
    // range in flight is half-way.
    let done = Arc::new(AtomicU32::new(0));
    let seen = Arc::clone(&done);
    let lease = std::time::Duration::from_secs(3);
    let options = CopyOptions::new()
        .ranges(32)
        .lease(lease)
        .rows_per_second(1500)
        .progress(move |p| seen.store(p.ranges_done, Ordering::Relaxed));
    let killed = async {
        while done.load(Ordering::Relaxed) < 8 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        r = copy::backfill::<views::PageViewsV2>(db, &options) => panic!("not killed: {r:?}"),
        () = killed => {}
    }
    let half = counts(db, "page_views_v2").await;
    assert!(
        !half.is_empty() && half.len() < expected.len(),
        "{}",
        half.len()
    );
    let (exit, out, _) = migrate(db, both(), &["status"]).await;
    assert_eq!(exit, cli::Exit::Ok);
    assert!(out.contains("step 3 of 6, the copy"), "{out}");

    // Started again (the CLI): the ranges the killed one held are repaired once their leases
    // end, the others added.
    let (exit, out, err) = backfill_32_ranges(db, both(), "3").await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(out.contains("all 32 ranges copied"), "{out}");
    assert!(out.contains("claimed before repaired"), "{out}");

    // Verify: nothing missing, different or extra; the new table counts what the old one does,
    // through the model and with plain CQL.
    let (exit, out, err) = migrate(db, both(), &["verify"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(out.contains("0 missing, 0 different, 0 extra"), "{out}");
    assert!(
        out.contains("clean. next: release the application reading and writing"),
        "{out}"
    );
    assert_eq!(counts(db, "page_views_v2").await, expected);
    let through_model: Vec<views::PageViewsV2> =
        views::PageViewsV2::partition(db, "site3", "/page/4")
            .await
            .expect("a partition of the new table");
    let days: Vec<(NaiveDate, i64)> = through_model.iter().map(|r| (r.day, r.views.0)).collect();
    let want: Vec<(NaiveDate, i64)> = expected
        .iter()
        .filter(|((s, p, _), _)| s == "site3" && p == "/page/4")
        .map(|((_, _, day), (v, _))| (*day, *v))
        .rev()
        .collect();
    assert_eq!(days, want, "newest day first");

    // A writer that was not stopped: the old table counts on. Verify finds the rows different
    // and marks their ranges; `backfill` repairs them (adds only the difference).
    let late: Vec<_> = expected.keys().step_by(97).cloned().collect();
    for key in &late {
        count_view(db, key, 5, Some(1)).await;
        let e = expected.get_mut(key).expect("a row");
        e.0 += 5;
        *e.1.get_or_insert(0) += 1;
    }
    let (exit, out, err) = migrate(db, both(), &["verify"]).await;
    assert_eq!(exit, cli::Exit::Incomplete, "{out}{err}");
    assert!(
        out.contains(&format!("0 missing, {} different, 0 extra", late.len())),
        "{out}"
    );
    assert!(out.contains("marked to copy again"), "{out}");
    assert!(
        out.contains("not clean: check that nothing writes")
            && out.contains("run `backfill` again"),
        "{out}"
    );
    let (_, out, _) = migrate(db, both(), &["status"]).await;
    assert!(out.contains("step 3 of 6"), "{out}");
    let report = copy::backfill::<views::PageViewsV2>(db, &options_for_repair())
        .await
        .expect("repair");
    assert!(report.ranges_repaired > 0, "{report}");
    let report = copy::verify::<views::PageViewsV2>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(report.is_clean(), "{report}");
    assert_eq!(counts(db, "page_views_v2").await, expected);
    assert_eq!(counts(db, "page_views").await, expected);
    let (_, out, _) = migrate(db, both(), &["status"]).await;
    assert!(out.contains("copied and verified; steps 5 and 6"), "{out}");

    let (exit, out, err) =
        migrate(db, both(), &["drop-source", &format!("{ks}.page_views_v2")]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    t.drop_all().await;
}

/// The options of a backfill that repairs ranges verify marked. Nothing else holds a lease
/// by then, so its lease need not be short (the 3 s of the killed backfill, which the restart
/// waits out): with 3 s its renewals came late on a loaded three-node cluster (load average
/// 12) and the repair ended with "the lease of a range ran out".
fn options_for_repair() -> CopyOptions {
    CopyOptions::new()
        .ranges(32)
        .lease(std::time::Duration::from_secs(30))
}
