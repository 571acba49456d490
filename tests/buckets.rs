//! Buckets on the node: the bucket column is filled in on every write (the struct has no
//! field for it), key reads and writes give its source, and a range read fans out over the
//! buckets in range, merged in clustering order. Every result is checked against plain CQL over
//! the same buckets, including ranges that cross a year boundary, both orders, limits, a
//! projection and a width bucket.

#![allow(dead_code)]

mod support;

#[path = "../examples/models/mod.rs"]
mod models;

use cassmodel::{CassProjection, CassTable, Db, Table};
use chrono::{DateTime, NaiveDate, Utc};
use futures::TryStreamExt;
use models::supermarket::{OrdersByCustomerMonth, jane, month_start, monthly_orders};
use uuid::Uuid;

/// What plain CQL returns for `customer_id = ? AND submission_time_month IN (months) AND
/// submission_time >= from AND submission_time < to`, in the table's order (newest first).
async fn plain(
    db: &Db,
    ks: &str,
    months: &[NaiveDate],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, Uuid)> {
    let mut out = Vec::new();
    for m in months {
        let rows = db
            .session()
            .query_unpaged(
                format!(
                    "SELECT submission_time, order_id FROM {ks}.orders_by_customer_month \
                     WHERE customer_id = ? AND submission_time_month = ? \
                     AND submission_time >= ? AND submission_time < ?"
                ),
                (jane(), *m, from, to),
            )
            .await
            .expect("plain CQL")
            .into_rows_result()
            .expect("rows");
        for r in rows.rows::<(DateTime<Utc>, Uuid)>().expect("typed") {
            out.push(r.expect("row"));
        }
    }
    out
}

fn month(y: i32, m: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, 1).expect("a date")
}

#[derive(CassProjection, Debug, PartialEq)]
#[cass(table = OrdersByCustomerMonth)]
struct OrderTime {
    submission_time: DateTime<Utc>,
    order_id: Uuid,
}

#[tokio::test]
async fn month_buckets_match_plain_cql() {
    let mut t = support::test_db("buckets_month").await;
    t.map_keyspace("order_delivery").await;
    let ks = t.keyspaces[1].clone();
    t.db.create_table::<OrdersByCustomerMonth>()
        .await
        .expect("create table");
    let written = monthly_orders();
    for o in &written {
        t.db.insert(o).await.expect("insert");
    }

    // The bucket column was filled from `submission_time` on every write.
    let months: Vec<NaiveDate> = t
        .db
        .session()
        .query_unpaged(
            format!("SELECT DISTINCT customer_id, submission_time_month FROM {ks}.orders_by_customer_month"),
            &[],
        )
        .await
        .expect("distinct partitions")
        .into_rows_result()
        .expect("rows")
        .rows::<(Uuid, NaiveDate)>()
        .expect("typed")
        .map(|r| r.expect("row").1)
        .collect();
    let mut sorted = months.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            (2024, 10),
            (2024, 11),
            (2024, 12),
            (2025, 1),
            (2025, 2),
            (2025, 3)
        ]
        .map(|(y, m)| month(y, m))
    );

    // November 2024 to February 2025 (across the new year), newest first.
    let (from, to) = (month_start(2024, 11), month_start(2025, 3));
    let expected = plain(
        &t.db,
        &ks,
        &[
            month(2025, 2),
            month(2025, 1),
            month(2024, 12),
            month(2024, 11),
        ],
        from,
        to,
    )
    .await;
    assert_eq!(
        expected.len(),
        8,
        "the plain query finds the 8 orders in range"
    );
    let got: Vec<(DateTime<Utc>, Uuid)> = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time_range(from..to)
        .fetch_all(&t.db)
        .await
        .expect("range read")
        .into_iter()
        .map(|o| (o.submission_time, o.order_id))
        .collect();
    assert_eq!(got, expected);
    assert!(
        got.windows(2).all(|w| w[0].0 > w[1].0),
        "newest first: {got:?}"
    );

    // Reversed (oldest first), one bucket at a time, streamed, as a projection.
    let mut oldest_first = expected.clone();
    oldest_first.reverse();
    let streamed: Vec<OrderTime> = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time_range(from..to)
        .reversed()
        .concurrency(1)
        .page_size(1)
        .read_as::<OrderTime>()
        .fetch_stream(&t.db)
        .await
        .expect("stream")
        .try_collect()
        .await
        .expect("rows");
    let streamed: Vec<_> = streamed
        .into_iter()
        .map(|o| (o.submission_time, o.order_id))
        .collect();
    assert_eq!(streamed, oldest_first);

    // A limit stops after n rows in all, across buckets.
    let limited = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time_range(from..to)
        .limit(3)
        .fetch_all(&t.db)
        .await
        .expect("limited");
    assert_eq!(limited.len(), 3);
    assert_eq!(limited[2].submission_time, expected[2].0);

    // Three buckets at once: the same rows in the same order, and the same limit.
    let at_once: Vec<(DateTime<Utc>, Uuid)> = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time_range(from..to)
        .concurrency(3)
        .fetch_all(&t.db)
        .await
        .expect("three buckets at once")
        .into_iter()
        .map(|o| (o.submission_time, o.order_id))
        .collect();
    assert_eq!(at_once, expected);
    let limited_at_once = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time_range(from..to)
        .concurrency(3)
        .limit(3)
        .fetch_all(&t.db)
        .await
        .expect("limited, at once");
    assert_eq!(limited_at_once, limited);

    // An inclusive range ending on an order's instant includes it.
    let last = written[5].submission_time; // 2024-12-17
    let inclusive = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time_range(from..=last)
        .fetch_all(&t.db)
        .await
        .expect("inclusive");
    assert_eq!(inclusive.len(), 4);
    assert_eq!(inclusive[0].submission_time, last);

    // A conditional insert of an existing row does not apply, and reads the row back.
    let mut again = written[0].clone();
    again.status = "DUPLICATE".into();
    let outcome = cassmodel::Insert::new(&again)
        .if_not_exists()
        .execute(&t.db)
        .await
        .expect("insert if not exists");
    assert!(!outcome.applied);
    assert_eq!(outcome.current.as_ref(), Some(&written[0]));

    // `get`, update and delete give the source; the bucket follows.
    let o = &written[3];
    let got = OrdersByCustomerMonth::get(&t.db, &jane(), &o.submission_time, &o.order_id)
        .await
        .expect("get");
    assert_eq!(got.as_ref(), Some(o));
    OrdersByCustomerMonth::update()
        .customer_id(&jane())
        .submission_time(&o.submission_time)
        .order_id(&o.order_id)
        .set_status("RETURNED")
        .execute(&t.db)
        .await
        .expect("update");
    let one = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time(&o.submission_time)
        .fetch_all(&t.db)
        .await
        .expect("select by source");
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].status, "RETURNED");
    OrdersByCustomerMonth::delete()
        .customer_id(&jane())
        .submission_time(&o.submission_time)
        .order_id(&o.order_id)
        .execute(&t.db)
        .await
        .expect("delete");
    let after = plain(&t.db, &ks, &[month(2024, 11)], from, to).await;
    assert_eq!(after.len(), 1, "{after:?}");
    t.drop_all().await;
}

/// A width bucket of an integer clustering column, with negative values.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "readings_by_block")]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering]
    #[cass(bucket(width = 100, name = "block"))]
    seq: i64,
    value: f64,
}

#[tokio::test]
async fn width_buckets_match_plain_cql() {
    let t = support::test_db("buckets_width").await;
    t.db.create_table::<Reading>().await.expect("create table");
    assert_eq!(
        Reading::schema().columns.last().map(|c| c.name),
        Some("block")
    );
    for seq in (-250..250).step_by(10) {
        let r = Reading {
            sensor: 1,
            seq,
            value: seq as f64 / 10.0,
        };
        t.db.insert(&r).await.expect("insert");
    }
    let got: Vec<i64> = Reading::select()
        .sensor(&1)
        .seq_range(-120..=130)
        .fetch_all(&t.db)
        .await
        .expect("range")
        .into_iter()
        .map(|r| r.seq)
        .collect();
    let mut expected = Vec::new();
    for block in [-200i64, -100, 0, 100] {
        let rows =
            t.db.session()
                .query_unpaged(
                    format!(
                        "SELECT seq FROM {}.readings_by_block WHERE sensor = 1 AND block = ? \
                     AND seq >= -120 AND seq <= 130",
                        t.keyspace()
                    ),
                    (block,),
                )
                .await
                .expect("plain")
                .into_rows_result()
                .expect("rows");
        expected.extend(
            rows.rows::<(i64,)>()
                .expect("typed")
                .map(|r| r.expect("row").0),
        );
    }
    assert_eq!(expected.len(), 26, "{expected:?}");
    assert_eq!(got, expected);

    // An exclusive end at a bucket's first value ends in the bucket before; an empty or
    // reversed range reads nothing (and ends).
    let seqs = |rows: Vec<Reading>| rows.into_iter().map(|r| r.seq).collect::<Vec<_>>();
    let to_block = Reading::select()
        .sensor(&1)
        .seq_range(-100..100)
        .fetch_all(&t.db)
        .await
        .expect("range to a block's start");
    assert_eq!(seqs(to_block), (-100..100).step_by(10).collect::<Vec<_>>());
    for (from, to) in [(0, 0), (100, 100), (150, -150)] {
        let none = Reading::select()
            .sensor(&1)
            .seq_range(from..to)
            .fetch_all(&t.db)
            .await
            .expect("empty range");
        assert_eq!(seqs(none), Vec::<i64>::new(), "{from}..{to}");
    }
    t.drop_all().await;
}

/// Events of a device in day buckets, oldest first in each (so that the latest rows are read
/// against the declared order).
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "device_events")]
struct DeviceEvent {
    #[partition_key]
    device: i32,
    #[clustering]
    #[cass(bucket(day))]
    at: DateTime<Utc>,
    #[clustering]
    seq: i32,
    value: i64,
}

fn day_at(day: u32, hour: u32) -> DateTime<Utc> {
    use chrono::TimeZone;
    Utc.with_ymd_and_hms(2025, 3, day, hour, 0, 0)
        .single()
        .expect("an instant")
}

/// The latest `n` rows of `device` in `horizon..=start` as plain CQL reads them: each day
/// from the start's back to the horizon's, newest first, until `n`.
async fn plain_latest(
    db: &Db,
    ks: &str,
    device: i32,
    n: usize,
    horizon: DateTime<Utc>,
    start: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, i32)> {
    let mut out = Vec::new();
    let mut day = start.date_naive();
    while day >= horizon.date_naive() && out.len() < n {
        let rows = db
            .session()
            .query_unpaged(
                format!(
                    "SELECT at, seq FROM {ks}.device_events WHERE device = ? AND at_day = ? \
                     AND at >= ? AND at <= ? ORDER BY at DESC, seq DESC"
                ),
                (device, day, horizon, start),
            )
            .await
            .expect("plain CQL")
            .into_rows_result()
            .expect("rows");
        for r in rows.rows::<(DateTime<Utc>, i32)>().expect("typed") {
            out.push(r.expect("row"));
        }
        day = day.pred_opt().expect("a day before");
    }
    out.truncate(n);
    out
}

/// The latest N rows back from a start across day buckets, newest first, equal to plain CQL
/// over the same buckets: N inside the start's bucket, N across several (over an empty day),
/// N past the horizon (fewer rows), with one bucket at a time and several; and back from now.
#[tokio::test]
async fn latest_rows_walk_buckets_back_to_a_horizon() {
    let t = support::test_db("buckets_latest").await;
    let db = &t.db;
    db.create_table::<DeviceEvent>()
        .await
        .expect("create table");
    let ks = t.keyspace().to_owned();
    // Days 1..=9 of March, day 6 empty, a few events a day; device 2 is another partition.
    let mut seq = 0;
    for day in [1u32, 2, 3, 4, 5, 7, 8, 9] {
        for hour in [3, 9, 15].into_iter().take(1 + (day as usize % 3)) {
            for device in [1, 2] {
                seq += 1;
                db.insert(&DeviceEvent {
                    device,
                    at: day_at(day, hour),
                    seq,
                    value: i64::from(seq),
                })
                .await
                .expect("insert");
            }
        }
    }
    let keys = |rows: Vec<DeviceEvent>| -> Vec<(DateTime<Utc>, i32)> {
        rows.into_iter().map(|e| (e.at, e.seq)).collect()
    };
    let start = day_at(8, 12);
    for (case, n, horizon) in [
        ("inside the start's bucket", 1, day_at(1, 0)),
        ("across buckets and an empty day", 6, day_at(1, 0)),
        ("past the horizon", 50, day_at(4, 6)),
    ] {
        let expected = plain_latest(db, &ks, 1, n, horizon, start).await;
        assert!(!expected.is_empty(), "{case}: plain CQL found no row");
        assert!(
            expected.windows(2).all(|w| w[0] > w[1]),
            "{case}: newest first"
        );
        for concurrency in [1, 4] {
            let got = DeviceEvent::select()
                .device(&1)
                .at_latest(i32::try_from(n).expect("n"), horizon..=start)
                .concurrency(concurrency)
                .fetch_all(db)
                .await
                .unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(keys(got), expected, "{case}, {concurrency} at a time");
        }
        let streamed: Vec<DeviceEvent> = DeviceEvent::select()
            .device(&1)
            .at_latest(i32::try_from(n).expect("n"), horizon..=start)
            .fetch_stream(db)
            .await
            .expect("stream")
            .try_collect()
            .await
            .expect("rows");
        assert_eq!(keys(streamed), expected, "{case}, streamed");
        if case == "past the horizon" {
            assert!(expected.len() < n, "the horizon stops the walk");
            assert!(expected.iter().all(|(at, _)| *at >= horizon));
        }
    }
    assert_eq!(
        plain_latest(db, &ks, 1, 1, day_at(1, 0), start).await[0].0,
        day_at(8, 9),
        "the start's bucket holds the latest row"
    );

    // Back from now: rows in the last hours and days, none in the future.
    let now = chrono::SubsecRound::trunc_subsecs(Utc::now(), 3);
    let recent = [2i64, 30, 54, 200].map(|h| now - chrono::Duration::hours(h));
    for (i, at) in recent.iter().enumerate() {
        db.insert(&DeviceEvent {
            device: 3,
            at: *at,
            seq: i32::try_from(i).expect("seq"),
            value: 0,
        })
        .await
        .expect("insert");
    }
    db.insert(&DeviceEvent {
        device: 3,
        at: now + chrono::Duration::days(2),
        seq: 99,
        value: 0,
    })
    .await
    .expect("a future event");
    let got = DeviceEvent::select()
        .device(&3)
        .at_latest(3, now - chrono::Duration::days(3)..)
        .fetch_all(db)
        .await
        .expect("latest back from now");
    assert_eq!(
        got.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [0, 1, 2],
        "the three latest before now, newest first, none past the horizon"
    );
    t.drop_all().await;
}
