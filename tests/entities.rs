//! Entities whose key fields change, on a real node: an order's delivery date moves it
//! between partitions of the by-date table; a video is one row per tag in the by-tag table.
//! Each test first shows the stale rows the plain `save` leaves, then that `replace`,
//! `replace_current` and `replace_if_unchanged` leave every table holding the entity under
//! its new keys only.

mod support;

#[path = "entities/drift.rs"]
mod drift;

use std::collections::BTreeSet;

use cassmodel::{CassEntity, CassTable, Db, Error};
use chrono::NaiveDate;
use uuid::Uuid;

/// An order, stored by id (its identity: keyed by what never changes), by customer and by
/// delivery date.
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(
    tables(OrderById, OrdersByCustomer, OrdersByDeliveryDate),
    identity = OrderById
)]
struct Order {
    order_id: Uuid,
    customer_id: Uuid,
    delivery_date: NaiveDate,
    status: String,
    remarks: Option<String>,
}

/// The identity table: the order's key fields and its status (its remarks are kept with the
/// deliveries only).
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Order)]
struct OrderById {
    #[partition_key]
    order_id: Uuid,
    status: String,
    customer_id: Uuid,
    delivery_date: NaiveDate,
}

/// A customer's orders, latest delivery first: its key moves with the delivery date too.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Order)]
struct OrdersByCustomer {
    #[partition_key]
    customer_id: Uuid,
    #[clustering(desc)]
    delivery_date: NaiveDate,
    #[clustering]
    order_id: Uuid,
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
    remarks: Option<String>,
}

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 12, d).unwrap_or_default()
}

fn order(delivery: u32) -> Order {
    Order {
        order_id: Uuid::new_v4(),
        customer_id: Uuid::new_v4(),
        delivery_date: day(delivery),
        status: "placed".into(),
        remarks: Some("ring twice".into()),
    }
}

async fn orders_db(test: &str) -> support::TestDb {
    let t = support::test_db(test).await;
    t.db.create_table::<OrderById>().await.expect("create");
    t.db.create_table::<OrdersByCustomer>()
        .await
        .expect("create");
    t.db.create_table::<OrdersByDeliveryDate>()
        .await
        .expect("create");
    t
}

/// The ids of the orders the by-date table lists on day `d`.
async fn delivered_on(db: &Db, d: u32) -> Vec<Uuid> {
    OrdersByDeliveryDate::partition(db, &day(d))
        .await
        .expect("read by date")
        .into_iter()
        .map(|r| r.order_id)
        .collect()
}

/// Every table holds `o` under its key, and the by-date table lists it on its date only
/// (of the days `days`).
async fn holds_only(db: &Db, o: &Order, days: &[u32]) {
    let by_id = OrderById::get(db, &o.order_id).await.expect("read by id");
    assert_eq!(
        by_id,
        Some(OrderById {
            order_id: o.order_id,
            customer_id: o.customer_id,
            delivery_date: o.delivery_date,
            status: o.status.clone(),
        })
    );
    let by_customer = OrdersByCustomer::partition(db, &o.customer_id)
        .await
        .expect("read by customer");
    let dates: Vec<(NaiveDate, &str)> = by_customer
        .iter()
        .map(|r| (r.delivery_date, r.status.as_str()))
        .collect();
    assert_eq!(dates, [(o.delivery_date, o.status.as_str())]);
    for &d in days {
        let listed = delivered_on(db, d).await;
        let expected = if day(d) == o.delivery_date {
            vec![o.order_id]
        } else {
            vec![]
        };
        assert_eq!(listed, expected, "the orders listed on day {d}");
    }
    let row = OrdersByDeliveryDate::partition(db, &o.delivery_date)
        .await
        .expect("read by date");
    assert_eq!(
        row.first().map(|r| (&r.status, &r.remarks)),
        Some((&o.status, &o.remarks))
    );
}

/// `save` of an order whose delivery date changed leaves it listed on the old date too;
/// `replace` (with the stored order), then `replace_current` (the stored order read from the
/// identity table) move it, and a field set to `None` is removed; `delete` removes every row.
#[tokio::test]
async fn a_changed_delivery_date_moves_the_order_in_every_table() {
    let t = orders_db("e_moved").await;
    let placed = order(7);
    placed.save(&t.db).await.expect("save");

    // The drift `save` leaves: the by-date table lists the order on both dates.
    let mut moved = placed.clone();
    moved.delivery_date = day(8);
    moved.save(&t.db).await.expect("save");
    assert_eq!(delivered_on(&t.db, 7).await, [placed.order_id], "stale row");
    assert_eq!(delivered_on(&t.db, 8).await, [placed.order_id]);

    // `replace` deletes the row under the stored key.
    moved.replace(&t.db, &placed).await.expect("replace");
    holds_only(&t.db, &moved, &[7, 8]).await;

    // `replace_current` reads the stored order from `OrderById` first.
    let mut again = moved.clone();
    again.delivery_date = day(9);
    again.status = "rescheduled".into();
    again.remarks = None;
    again.replace_current(&t.db).await.expect("replace_current");
    holds_only(&t.db, &again, &[7, 8, 9]).await;

    // Unchanged keys: the rows are overwritten, nothing deleted.
    let mut same_keys = again.clone();
    same_keys.status = "packed".into();
    same_keys.replace(&t.db, &again).await.expect("replace");
    holds_only(&t.db, &same_keys, &[7, 8, 9]).await;

    // With no stored order, `replace_current` writes every table.
    let fresh = order(10);
    fresh.replace_current(&t.db).await.expect("replace_current");
    holds_only(&t.db, &fresh, &[10]).await;

    same_keys.delete(&t.db).await.expect("delete");
    assert_eq!(
        OrderById::get(&t.db, &same_keys.order_id)
            .await
            .expect("read"),
        None
    );
    for d in [7, 8, 9] {
        assert_eq!(
            delivered_on(&t.db, d).await,
            Vec::<Uuid>::new(),
            "day {d} after the delete"
        );
    }
    let by_customer = OrdersByCustomer::partition(&t.db, &same_keys.customer_id)
        .await
        .expect("read");
    assert_eq!(by_customer, []);
    t.drop_all().await;
}

/// Two tasks moving the same order at once: with `save`, the by-date table lists it on both
/// new dates; with `replace_if_unchanged`, exactly one change applies, the other gets the
/// winner's row back, and every table agrees with the winner. Bounded: 8 rounds.
#[tokio::test]
async fn two_tasks_changing_one_order_leave_every_table_agreeing_with_the_winner() {
    let t = orders_db("e_race").await;
    let moved_to = |o: &Order, d: u32, status: &str| Order {
        delivery_date: day(d),
        status: status.into(),
        ..o.clone()
    };

    // The drift plain saves leave: listed on both new dates (and the old one).
    let raced = order(2);
    raced.save(&t.db).await.expect("save");
    let (a, b) = (moved_to(&raced, 3, "by a"), moved_to(&raced, 4, "by b"));
    let (ra, rb) = tokio::join!(a.save(&t.db), b.save(&t.db));
    ra.and(rb).expect("saves");
    for d in [2, 3, 4] {
        assert_eq!(delivered_on(&t.db, d).await, [raced.order_id], "day {d}");
    }

    let mut stored = order(11);
    stored.save(&t.db).await.expect("save");
    for round in 0..8u32 {
        let (a, b) = (
            moved_to(&stored, 14 + round % 2, &format!("a{round}")),
            moved_to(&stored, 16 + round % 2, &format!("b{round}")),
        );
        let (ra, rb) = tokio::join!(
            a.replace_if_unchanged(&t.db, &stored),
            b.replace_if_unchanged(&t.db, &stored)
        );
        let (oa, ob) = (ra.expect("change a"), rb.expect("change b"));
        assert!(
            oa.applied != ob.applied,
            "round {round}: exactly one applies"
        );
        let (winner, loser) = if oa.applied { (a, ob) } else { (b, oa) };
        assert_eq!(
            loser.current.map(|r| r.status),
            Some(winner.status.clone()),
            "round {round}: the loser gets the winner's row"
        );
        holds_only(&t.db, &winner, &[11, 12, 13, 14, 15, 16, 17]).await;
        stored = winner;
    }
    t.drop_all().await;
}

/// A conditional change refuses a change of the identity table's own key, before anything
/// is sent; a condition on values no longer stored does not apply and writes nothing.
#[tokio::test]
async fn a_conditional_change_is_decided_on_the_identity_row() {
    let t = orders_db("e_identity").await;
    let stored = order(20);
    stored.save(&t.db).await.expect("save");

    let mut other_id = stored.clone();
    other_id.order_id = Uuid::new_v4();
    match other_id.replace_if_unchanged(&t.db, &stored).await {
        Err(Error::Invalid(m)) => assert!(m.contains("identity table `order_by_id`"), "{m}"),
        other => panic!("expected Error::Invalid, got {other:?}"),
    }

    let mut outdated = stored.clone();
    outdated.status = "cancelled".into();
    let mut moved = stored.clone();
    moved.delivery_date = day(21);
    let outcome = moved
        .replace_if_unchanged(&t.db, &outdated)
        .await
        .expect("change");
    assert!(!outcome.applied);
    assert_eq!(
        outcome.current.map(|r| r.status),
        Some(stored.status.clone())
    );
    holds_only(&t.db, &stored, &[20, 21]).await;
    t.drop_all().await;
}

/// A video, stored by id (its identity, which holds its tags) and once per tag.
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(VideoById, VideosByTag), identity = VideoById)]
struct Video {
    video_id: Uuid,
    title: String,
    tags: BTreeSet<String>,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Video)]
struct VideoById {
    tags: BTreeSet<String>,
    title: String,
    #[partition_key]
    video_id: Uuid,
}

/// One row per tag of each video.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Video)]
struct VideosByTag {
    #[partition_key]
    #[cass(each = tags)]
    tag: String,
    #[clustering]
    video_id: Uuid,
    title: String,
}

fn tags(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|t| (*t).to_owned()).collect()
}

/// The titles of the videos the by-tag table lists under each of `all`, as (tag, title).
async fn listed(db: &Db, all: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for tag in all {
        let rows = VideosByTag::partition(db, tag).await.expect("read by tag");
        out.extend(rows.into_iter().map(|r| (r.tag, r.title)));
    }
    out
}

fn each_tag(v: &Video) -> Vec<(String, String)> {
    v.tags
        .iter()
        .map(|t| (t.clone(), v.title.clone()))
        .collect()
}

/// A video is one row per tag: `save` writes them all, and of a video whose tags changed
/// leaves the rows of the tags it lost; `replace`, `replace_current` and
/// `replace_if_unchanged` write exactly the new tags' rows; `delete` removes every row.
#[tokio::test]
async fn a_video_is_one_row_per_tag_in_step_with_its_tags() {
    let t = support::test_db("e_tags").await;
    t.db.create_table::<VideoById>().await.expect("create");
    t.db.create_table::<VideosByTag>().await.expect("create");
    let all = ["a", "b", "c", "d", "e"];
    let stored = Video {
        video_id: Uuid::new_v4(),
        title: "Cassandra in an hour".into(),
        tags: tags(&["a", "b", "c"]),
    };
    stored.save(&t.db).await.expect("save");
    assert_eq!(listed(&t.db, &all).await, each_tag(&stored));

    // The drift `save` leaves: the rows of `a` and `c` stay.
    let retagged = Video {
        tags: tags(&["b", "d"]),
        ..stored.clone()
    };
    retagged.save(&t.db).await.expect("save");
    let stale = listed(&t.db, &all).await;
    assert_eq!(stale.len(), 4, "a, b, c and d: {stale:?}");

    retagged.replace(&t.db, &stored).await.expect("replace");
    assert_eq!(listed(&t.db, &all).await, each_tag(&retagged));

    // The stored tags read from `VideoById`: `b` goes, `e` comes, `d` stays.
    let renamed = Video {
        title: "Cassandra in fifty minutes".into(),
        tags: tags(&["d", "e"]),
        ..retagged.clone()
    };
    renamed
        .replace_current(&t.db)
        .await
        .expect("replace_current");
    assert_eq!(listed(&t.db, &all).await, each_tag(&renamed));

    // A change made from an outdated copy does not apply; from the stored one, it does.
    let untagged = Video {
        tags: BTreeSet::new(),
        ..renamed.clone()
    };
    let outcome = untagged
        .replace_if_unchanged(&t.db, &retagged)
        .await
        .expect("change");
    assert!(!outcome.applied);
    assert_eq!(listed(&t.db, &all).await, each_tag(&renamed));
    let outcome = untagged
        .replace_if_unchanged(&t.db, &renamed)
        .await
        .expect("change");
    assert!(outcome.applied);
    assert_eq!(listed(&t.db, &all).await, []);

    retagged.save(&t.db).await.expect("save");
    retagged.delete(&t.db).await.expect("delete");
    assert_eq!(listed(&t.db, &all).await, []);
    let by_id = VideoById::get(&t.db, &retagged.video_id)
        .await
        .expect("read");
    assert_eq!(by_id, None);
    t.drop_all().await;
}

/// A title written to one table by hand leaves the other with the old one; `update()` sets it
/// in every table that holds it, by each one's key (every tag's row), with its TTL; a setter
/// of the collection whose elements a table holds moves that table's rows.
#[tokio::test]
async fn an_update_reaches_every_table_that_holds_the_column() {
    let t = support::test_db("e_update").await;
    t.db.create_table::<VideoById>().await.expect("create");
    t.db.create_table::<VideosByTag>().await.expect("create");
    let all = ["a", "b", "c"];
    let video = Video {
        video_id: Uuid::new_v4(),
        title: "Draft".into(),
        tags: tags(&["a", "b"]),
    };
    video.save(&t.db).await.expect("save");

    // The drift of a table updated by hand: the by-tag rows keep the old title.
    t.db.insert(&VideoById {
        tags: video.tags.clone(),
        title: "By hand".into(),
        video_id: video.video_id,
    })
    .await
    .expect("insert");
    assert_eq!(listed(&t.db, &all).await, each_tag(&video));

    video
        .update()
        .title("Final".into())
        .using_ttl(86_400)
        .execute(&t.db)
        .await
        .expect("update");
    let updated = Video {
        title: "Final".into(),
        ..video.clone()
    };
    assert_eq!(listed(&t.db, &all).await, each_tag(&updated));
    let by_id = VideoById::get(&t.db, &video.video_id).await.expect("read");
    assert_eq!(by_id.map(|r| r.title), Some("Final".to_owned()));
    let ks = t.keyspace();
    for tag in ["a", "b"] {
        let (ttl,): (Option<i32>,) = support::plain_row(
            &t.db,
            format!("SELECT TTL(title) FROM {ks}.videos_by_tag WHERE tag = ? AND video_id = ?"),
            (tag, video.video_id),
        )
        .await;
        assert!(
            ttl.is_some_and(|s| s > 86_000 && s <= 86_400),
            "{tag}: {ttl:?}"
        );
    }

    // The tags set: `a`'s row goes, `c`'s comes, with the other fields as stored.
    updated
        .update()
        .tags(tags(&["b", "c"]))
        .execute(&t.db)
        .await
        .expect("update");
    let retagged = Video {
        tags: tags(&["b", "c"]),
        ..updated.clone()
    };
    assert_eq!(listed(&t.db, &all).await, each_tag(&retagged));
    let by_id = VideoById::get(&t.db, &video.video_id).await.expect("read");
    assert_eq!(by_id.map(|r| r.tags), Some(retagged.tags.clone()));
    t.drop_all().await;
}

/// A change whose one large row takes more than its share of the request limit is still
/// written when the rows fit together (it leaves the kept batch for the general one), and one
/// that does not fit is refused before anything is sent, changing no table.
#[tokio::test]
async fn a_change_of_uneven_rows_is_written_when_they_fit_together() {
    let t = orders_db("e_uneven").await;
    let limited = t.db.with_max_request_size(20 * 1024);
    let stored = Order {
        remarks: Some("r".repeat(12 * 1024)),
        ..order(3)
    };
    stored.save(&t.db).await.expect("save");
    let moved = Order {
        delivery_date: day(4),
        ..stored.clone()
    };
    moved
        .replace(&limited, &stored)
        .await
        .unwrap_or_else(|e| panic!("12 KiB and a few rows fit in 20 KiB: {e}"));
    holds_only(&t.db, &moved, &[3, 4]).await;

    let too_large = Order {
        delivery_date: day(5),
        remarks: Some("r".repeat(24 * 1024)),
        ..moved.clone()
    };
    match too_large.replace(&limited, &moved).await {
        Err(Error::RequestTooLarge { bytes, limit, .. }) => {
            assert!(bytes > 24 * 1024 && limit == 20 * 1024, "{bytes} / {limit}");
        }
        other => panic!("expected Error::RequestTooLarge, got {other:?}"),
    }
    holds_only(&t.db, &moved, &[3, 4, 5]).await;
    t.drop_all().await;
}

/// Every row of `table` in the test's keyspace, read with plain CQL (`columns`, sorted).
async fn all_rows<R>(t: &support::TestDb, table: &str, columns: &str) -> Vec<R>
where
    R: for<'f, 'm> cassmodel::scylla::deserialize::row::DeserializeRow<'f, 'm> + Ord,
{
    let cql = format!("SELECT {columns} FROM {}.{table}", t.keyspace());
    let mut rows: Vec<R> = support::plain_rows(&t.db, cql, ()).await;
    rows.sort();
    rows
}

/// A delivery date moved and moved back within the same second (one write time per batch: a
/// delete and an insert of one key in a batch would lose the row), by each form of change:
/// every table, read with plain CQL, holds the order under its last date only.
#[tokio::test]
async fn a_key_moved_and_back_within_a_second_keeps_one_row_per_table() {
    let t = orders_db("e_back").await;
    let o = order(7);
    o.save(&t.db).await.expect("save");
    let at = |d: u32| Order {
        delivery_date: day(d),
        ..o.clone()
    };
    let started = std::time::Instant::now();
    at(8).replace(&t.db, &o).await.expect("replace");
    at(7).replace(&t.db, &at(8)).await.expect("replace back");
    at(8).replace_current(&t.db).await.expect("replace_current");
    at(7)
        .replace_current(&t.db)
        .await
        .expect("replace_current back");
    let applied = at(8).replace_if_unchanged(&t.db, &o).await.expect("change");
    assert!(applied.applied);
    let applied = o
        .replace_if_unchanged(&t.db, &at(8))
        .await
        .expect("change back");
    assert!(applied.applied);
    at(7)
        .update()
        .delivery_date(day(8))
        .execute(&t.db)
        .await
        .expect("update");
    at(8)
        .update()
        .delivery_date(day(7))
        .execute(&t.db)
        .await
        .expect("update back");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "within a second"
    );

    let (id, customer) = (o.order_id, o.customer_id);
    let by_id: Vec<(Uuid, Uuid, NaiveDate)> =
        all_rows(&t, "order_by_id", "order_id, customer_id, delivery_date").await;
    assert_eq!(by_id, [(id, customer, day(7))]);
    let by_customer: Vec<(Uuid, NaiveDate, Uuid)> = all_rows(
        &t,
        "orders_by_customer",
        "customer_id, delivery_date, order_id",
    )
    .await;
    assert_eq!(by_customer, [(customer, day(7), id)]);
    let by_date: Vec<(NaiveDate, Uuid, Uuid)> = all_rows(
        &t,
        "orders_by_delivery_date",
        "delivery_date, order_id, customer_id",
    )
    .await;
    assert_eq!(by_date, [(day(7), id, customer)]);
    t.drop_all().await;
}

/// A video with no tags is no row of the by-tag table; with 300 tags, 300 rows; back to none
/// (and to the same 300 again, by `update()`), every table read with plain CQL agrees.
#[tokio::test]
async fn a_fan_out_over_an_empty_and_a_large_collection() {
    let t = support::test_db("e_fan_out").await;
    t.db.create_table::<VideoById>().await.expect("create");
    t.db.create_table::<VideosByTag>().await.expect("create");
    let none = Video {
        video_id: Uuid::new_v4(),
        title: "Untagged".into(),
        tags: BTreeSet::new(),
    };
    let many: BTreeSet<String> = (0..300).map(|i| format!("tag{i:03}")).collect();
    let tagged = Video {
        tags: many.clone(),
        ..none.clone()
    };
    let by_tag = |v: &Video| -> Vec<(String, Uuid)> {
        v.tags.iter().map(|t| (t.clone(), v.video_id)).collect()
    };
    let check = |v: Video| {
        let t = &t;
        async move {
            let rows: Vec<(String, Uuid)> = all_rows(t, "videos_by_tag", "tag, video_id").await;
            assert_eq!(rows, by_tag(&v), "by tag");
            let ids: Vec<(Uuid, Option<BTreeSet<String>>)> =
                all_rows(t, "video_by_id", "video_id, tags").await;
            let stored = Some(v.tags.clone()).filter(|s| !s.is_empty());
            assert_eq!(ids, [(v.video_id, stored)], "by id");
        }
    };

    none.save(&t.db).await.expect("save");
    check(none.clone()).await;
    tagged.replace(&t.db, &none).await.expect("replace");
    check(tagged.clone()).await;
    none.replace_current(&t.db).await.expect("replace_current");
    check(none.clone()).await;
    none.update()
        .tags(many)
        .execute(&t.db)
        .await
        .expect("update");
    check(tagged.clone()).await;
    tagged.delete(&t.db).await.expect("delete");
    let rows: Vec<(String, Uuid)> = all_rows(&t, "videos_by_tag", "tag, video_id").await;
    assert_eq!(rows, []);
    t.drop_all().await;
}
