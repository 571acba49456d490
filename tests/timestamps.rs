//! A `DateTime<Utc>` holds nanoseconds, a CQL timestamp milliseconds. On a real node, against
//! the exact comparison computed in Rust: a write truncates to the millisecond (`Utc::now()`
//! is written as it is), a range bound with finer digits keeps exactly the rows the exact
//! bound keeps, in reads, range deletes and conditions, and a read's equality on such a
//! value matches no row. (The writes' truncation and the strict mode are in
//! `types_roundtrip.rs` and `feature_types.rs`.)

mod support;

use cassmodel::{CassTable, PagingState, query::Cmp};
use chrono::{DateTime, Duration, SubsecRound, TimeZone, Utc};
use futures::TryStreamExt;

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "events")]
struct Event {
    #[partition_key]
    source: String,
    #[clustering]
    at: DateTime<Utc>,
    seen: Option<DateTime<Utc>>,
}

/// The same rows, one partition per day.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "events_by_day")]
struct DailyEvent {
    #[partition_key]
    source: String,
    #[clustering(desc)]
    #[cass(bucket(day))]
    at: DateTime<Utc>,
    seen: Option<DateTime<Utc>>,
}

/// `base` plus `micros` microseconds.
fn plus(base: DateTime<Utc>, micros: i64) -> DateTime<Utc> {
    base + Duration::microseconds(micros)
}

/// Rows at -2, -1, 0, 1 and 2 ms from `base` (whole milliseconds), `seen` at `at`.
fn rows(base: DateTime<Utc>) -> Vec<Event> {
    (-2..=2)
        .map(|ms| {
            let at = base + Duration::milliseconds(ms);
            Event {
                source: "s".into(),
                at,
                seen: Some(at),
            }
        })
        .collect()
}

/// The `at` of the rows `keep` keeps, in clustering order: the exact comparison.
fn expected(rows: &[Event], keep: impl Fn(&DateTime<Utc>) -> bool) -> Vec<DateTime<Utc>> {
    rows.iter().map(|r| r.at).filter(|at| keep(at)).collect()
}

/// Instants, in the order read.
type Times = Vec<DateTime<Utc>>;

fn ats(rows: &[Event]) -> Vec<DateTime<Utc>> {
    rows.iter().map(|r| r.at).collect()
}

/// Each range with a bound inside a millisecond reads exactly the rows the exact bound keeps,
/// after and before the epoch (where truncation goes towards the past); each expectation is
/// a proper part of the rows, so that a bound off by one millisecond fails.
#[tokio::test]
async fn ranges_with_finer_digits_keep_exactly_the_rows_of_the_exact_bound() {
    let t = support::test_db("ts_ranges").await;
    t.db.create_table::<Event>().await.expect("create");
    for base in [
        Utc.with_ymd_and_hms(2026, 12, 3, 12, 0, 0).unwrap(),
        DateTime::UNIX_EPOCH,
    ] {
        let all = rows(base);
        // Rows of other bases are in the partition too: compare within this base's rows.
        let (lo, hi) = (
            base - Duration::milliseconds(2),
            base + Duration::milliseconds(2),
        );
        support::insert_all(&t.db, all.clone()).await;
        for micros in [500, -500, 1] {
            let bound = plus(base, micros);
            let within = |v: Vec<Event>| -> Vec<DateTime<Utc>> {
                ats(&v)
                    .into_iter()
                    .filter(|at| (lo..=hi).contains(at))
                    .collect()
            };
            let cases: [(&str, Times, Times); 4] = [
                (
                    ">",
                    within(
                        Event::select()
                            .source("s")
                            .at_gt(&bound)
                            .fetch_all(&t.db)
                            .await
                            .expect(">"),
                    ),
                    expected(&all, |at| *at > bound),
                ),
                (
                    ">=",
                    within(
                        Event::select()
                            .source("s")
                            .at_ge(&bound)
                            .fetch_all(&t.db)
                            .await
                            .expect(">="),
                    ),
                    expected(&all, |at| *at >= bound),
                ),
                (
                    "<",
                    within(
                        Event::select()
                            .source("s")
                            .at_lt(&bound)
                            .fetch_all(&t.db)
                            .await
                            .expect("<"),
                    ),
                    expected(&all, |at| *at < bound),
                ),
                (
                    "<=",
                    within(
                        Event::select()
                            .source("s")
                            .at_le(&bound)
                            .fetch_all(&t.db)
                            .await
                            .expect("<="),
                    ),
                    expected(&all, |at| *at <= bound),
                ),
            ];
            for (op, got, want) in cases {
                assert!(
                    !want.is_empty() && want.len() < all.len(),
                    "{op} {bound}: the rows tell a bound off by a millisecond apart"
                );
                assert_eq!(got, want, "at {op} {bound}");
            }
        }
    }
    t.drop_all().await;
}

/// A read by equality on a value with finer digits matches no row and sends nothing that
/// fails; an `IN` leaves such values out; counts, pages and streams agree.
#[tokio::test]
async fn equality_on_finer_digits_matches_no_row() {
    let t = support::test_db("ts_equality").await;
    t.db.create_table::<Event>().await.expect("create");
    let base = Utc.with_ymd_and_hms(2026, 12, 3, 12, 0, 0).unwrap();
    let all = rows(base);
    support::insert_all(&t.db, all.clone()).await;
    let fine = plus(base, 250);
    assert_eq!(fine.trunc_subsecs(3), base);
    assert_eq!(Event::get(&t.db, "s", &fine).await.expect("get"), None);
    assert_eq!(
        Event::get(&t.db, "s", &base).await.expect("get"),
        Some(all[2].clone())
    );
    let by_eq = Event::select()
        .source("s")
        .at(&fine)
        .fetch_all(&t.db)
        .await
        .expect("=");
    assert_eq!(by_eq, vec![]);
    let first = Event::select()
        .source("s")
        .at(&fine)
        .fetch_first(&t.db)
        .await
        .expect("=");
    assert_eq!(first, None);
    let listed = [fine, base, plus(base, 1_000)];
    let by_in = Event::select()
        .source("s")
        .at_in(&listed)
        .fetch_all(&t.db)
        .await
        .expect("IN");
    assert_eq!(ats(&by_in), vec![base, plus(base, 1_000)]);
    let none_left = Event::select()
        .source("s")
        .at_in(&[fine])
        .fetch_all(&t.db)
        .await
        .expect("IN");
    assert_eq!(none_left, vec![]);
    let counted = Event::select()
        .source("s")
        .at_ge(&fine)
        .count_rows(&t.db)
        .await
        .expect("count");
    assert_eq!(counted, 2);
    assert_eq!(
        Event::select()
            .source("s")
            .at(&fine)
            .count_rows(&t.db)
            .await
            .expect("count"),
        0
    );
    let streamed: Vec<Event> = Event::select()
        .source("s")
        .at_lt(&fine)
        .fetch_stream(&t.db)
        .await
        .expect("stream")
        .try_collect()
        .await
        .expect("rows");
    assert_eq!(ats(&streamed), expected(&all, |at| *at < fine));
    let page = Event::select()
        .source("s")
        .at(&fine)
        .fetch_page(&t.db, PagingState::start())
        .await
        .expect("page");
    assert!(page.rows.is_empty() && page.next.is_none());
    t.drop_all().await;
}

/// A range delete and a condition compare exactly too; what `Utc::now()` writes reads back
/// truncated to its millisecond.
#[tokio::test]
async fn range_deletes_and_conditions_compare_exactly() {
    let t = support::test_db("ts_writes").await;
    t.db.create_table::<Event>().await.expect("create");
    let base = Utc.with_ymd_and_hms(2026, 12, 3, 12, 0, 0).unwrap();
    let all = rows(base);
    support::insert_all(&t.db, all.clone()).await;
    let fine = plus(base, 500);
    // Conditions on a partition of their own (lightweight transactions and plain writes are
    // not mixed on one partition).
    let lwt = Event {
        source: "lwt".into(),
        at: base,
        seen: Some(base),
    };
    t.db.insert(&lwt).await.expect("insert");
    // `seen < fine` holds for the row at `base`; truncated, `seen < base` would not.
    let applied = Event::update()
        .set_seen(&Some(fine))
        .source("lwt")
        .at(&base)
        .if_seen(Cmp::Lt, &fine)
        .execute(&t.db)
        .await
        .expect("lwt");
    assert!(applied.applied, "{applied:?}");
    // `seen >= fine` (the value just written, truncated to `base`) does not hold.
    let refused = Event::update()
        .set_seen(&None::<DateTime<Utc>>)
        .source("lwt")
        .at(&base)
        .if_seen(Cmp::Ge, &fine)
        .execute(&t.db)
        .await
        .expect("lwt");
    assert!(!refused.applied, "{refused:?}");
    Event::delete()
        .source("s")
        .at_lt(&fine)
        .execute(&t.db)
        .await
        .expect("range delete");
    let left = Event::select()
        .source("s")
        .fetch_all(&t.db)
        .await
        .expect("read");
    assert_eq!(ats(&left), expected(&all, |at| *at >= fine));

    let now = Utc::now();
    let row = Event {
        source: "now".into(),
        at: now,
        seen: Some(now),
    };
    t.db.insert(&row).await.expect("Utc::now() is written");
    let back = Event::select()
        .source("now")
        .fetch_first(&t.db)
        .await
        .expect("read")
        .expect("the row");
    let millis = now.trunc_subsecs(3);
    assert_eq!(
        back,
        Event {
            source: "now".into(),
            at: millis,
            seen: Some(millis)
        }
    );
    assert_eq!(
        Event::get(&t.db, "now", &millis).await.expect("get"),
        Some(back)
    );
    t.drop_all().await;
}

/// A read over day buckets whose bounds have finer digits, across midnight: the rows of the
/// exact range, and the latest rows back from such a start.
#[tokio::test]
async fn bucket_ranges_with_finer_digits_keep_exactly_the_rows_of_the_exact_range() {
    let t = support::test_db("ts_buckets").await;
    t.db.create_table::<DailyEvent>().await.expect("create");
    let midnight = Utc.with_ymd_and_hms(2026, 12, 4, 0, 0, 0).unwrap();
    let ats: Vec<DateTime<Utc>> = (-2..=2)
        .map(|ms| midnight + Duration::milliseconds(ms))
        .collect();
    for at in &ats {
        t.db.insert(&DailyEvent {
            source: "s".into(),
            at: *at,
            seen: None,
        })
        .await
        .expect("insert");
    }
    let newest_first = |v: Vec<DailyEvent>| v.into_iter().map(|r| r.at).collect::<Vec<_>>();
    let from = plus(midnight, -1_500);
    let to = plus(midnight, 1_500);
    let mut want: Vec<DateTime<Utc>> = ats
        .iter()
        .copied()
        .filter(|a| *a >= from && *a < to)
        .collect();
    want.reverse();
    assert!(want.len() == 3, "{want:?}");
    let ranged = DailyEvent::select()
        .source("s")
        .at_range(from..to)
        .fetch_all(&t.db)
        .await
        .expect("range");
    assert_eq!(newest_first(ranged), want);
    let inclusive = DailyEvent::select()
        .source("s")
        .at_range(plus(midnight, -999)..=plus(midnight, -1))
        .fetch_all(&t.db)
        .await
        .expect("range");
    assert_eq!(newest_first(inclusive), Vec::<DateTime<Utc>>::new());
    let latest = DailyEvent::select()
        .source("s")
        .at_latest(2_u32, plus(midnight, -3_000)..=plus(midnight, 500))
        .fetch_all(&t.db)
        .await
        .expect("latest");
    assert_eq!(newest_first(latest), vec![midnight, ats[1]]);
    t.drop_all().await;
}
