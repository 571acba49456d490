//! The writes the seed workflows need, on a real node: the timeslot reservation with TTL and
//! lightweight transactions, concurrent map updates of a basket, counters, denormalised
//! likes written and deleted in one logged batch (all or nothing), collection updates,
//! static columns, conditional batches, and `None` fields that write no tombstone.

#[path = "../examples/models/mod.rs"]
mod models;
mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use cassmodel::value::Counter;
use cassmodel::{Batch, CassTable, Db, Error, Insert, Outcome, query::Cmp};
use chrono::SubsecRound;
use futures::future::join_all;
use models::{at, id};
use uuid::Uuid;

/// A test keyspace for each keyspace the supermarket models declare.
async fn supermarket_db(test: &str) -> support::TestDb {
    let mut t = support::test_db(test).await;
    for ks in models::supermarket::KEYSPACES {
        t.map_keyspace(ks).await;
    }
    t
}

/// [`supermarket_db`] with the `customers` table created, and the keyspace it is in.
async fn customer_records(test: &str) -> (support::TestDb, String) {
    let t = supermarket_db(test).await;
    t.db.create_table::<models::supermarket::CustomerRecord>()
        .await
        .expect("create");
    let ks =
        t.db.resolve_keyspace(Some("customer"))
            .expect("mapped")
            .to_owned();
    (t, ks)
}

mod timeslots {
    use super::*;
    use models::supermarket::*;

    /// Reserves a free slot for `customer` for `ttl` seconds: only if nobody holds it.
    pub async fn reserve(
        db: &Db,
        start: u32,
        customer: Uuid,
        ttl: i32,
    ) -> cassmodel::Result<Outcome<DeliveryTimeslots>> {
        // A CQL timestamp holds milliseconds: the value the test compares with what it reads
        // back is truncated as the write truncates it.
        let expiry =
            (chrono::Utc::now() + chrono::Duration::seconds(i64::from(ttl))).trunc_subsecs(3);
        DeliveryTimeslots::update()
            .set_customer_id(&customer)
            .set_reservation_expiry(&expiry)
            .delivery_date(&delivery_day())
            .start_time(&hour(start))
            .delivery_team_id(&team())
            .if_customer_id(Cmp::Eq, &None::<Uuid>)
            .using_ttl(ttl)
            .execute(db)
            .await
    }

    /// Confirms the slot: only for the customer who holds it. The confirmation has no TTL.
    pub async fn confirm(
        db: &Db,
        start: u32,
        customer: Uuid,
    ) -> cassmodel::Result<Outcome<DeliveryTimeslots>> {
        DeliveryTimeslots::update()
            .set_confirmed(&true)
            .set_customer_id(&customer)
            .delivery_date(&delivery_day())
            .start_time(&hour(start))
            .delivery_team_id(&team())
            .if_customer_id(Cmp::Eq, &customer)
            .execute(db)
            .await
    }

    pub async fn slot(db: &Db, start: u32) -> DeliveryTimeslots {
        DeliveryTimeslots::get(db, &delivery_day(), &hour(start), &team())
            .await
            .expect("read")
            .expect("the slot exists")
    }
}

#[tokio::test]
async fn timeslot_reservation_race_ttl_and_confirmation() {
    use models::supermarket::*;
    let t = supermarket_db("w_slots").await;
    t.db.create_table::<DeliveryTimeslots>()
        .await
        .expect("create");
    for h in [9, 10] {
        // Free slots: no customer, no expiry (unset, not null).
        t.db.insert(&DeliveryTimeslots {
            delivery_date: delivery_day(),
            start_time: hour(h),
            delivery_team_id: team(),
            confirmed: None,
            customer_id: None,
            reservation_expiry: None,
        })
        .await
        .expect("free slot");
    }

    // 20 customers race for the 9:00 slot: exactly one wins, the others see the holder.
    let customers: Vec<Uuid> = (0..20).map(|i| id(0xc000 + i)).collect();
    let outcomes = join_all(
        customers
            .iter()
            .map(|c| timeslots::reserve(&t.db, 9, *c, 3)),
    )
    .await;
    let outcomes: Vec<_> = outcomes.into_iter().map(|o| o.expect("reserve")).collect();
    let winners: Vec<Uuid> = customers
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| o.applied)
        .map(|(c, _)| *c)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one reservation applies");
    let holder = winners[0];
    for o in outcomes.iter().filter(|o| !o.applied) {
        let current = o.current.as_ref().expect("the losers get the current row");
        assert_eq!(current.customer_id, Some(holder));
    }
    assert_eq!(timeslots::slot(&t.db, 9).await.customer_id, Some(holder));

    // Confirming works only for the holder.
    let other = customers
        .iter()
        .copied()
        .find(|c| *c != holder)
        .expect("another");
    let refused = timeslots::confirm(&t.db, 9, other).await.expect("confirm");
    assert!(!refused.applied);
    assert_eq!(refused.current.and_then(|s| s.customer_id), Some(holder));
    assert!(
        timeslots::confirm(&t.db, 9, holder)
            .await
            .expect("confirm")
            .applied
    );

    // Another reservation, never confirmed, lapses with its TTL.
    assert!(
        timeslots::reserve(&t.db, 10, other, 2)
            .await
            .expect("reserve")
            .applied
    );
    assert_eq!(timeslots::slot(&t.db, 10).await.customer_id, Some(other));
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let lapsed = timeslots::slot(&t.db, 10).await;
    assert_eq!(
        (lapsed.customer_id, lapsed.reservation_expiry),
        (None, None)
    );
    // ... and the slot can be reserved again.
    assert!(
        timeslots::reserve(&t.db, 10, holder, 60)
            .await
            .expect("reserve")
            .applied
    );
    // The confirmed 9:00 slot kept its holder after the reservation's TTL ran out.
    let confirmed = timeslots::slot(&t.db, 9).await;
    assert_eq!(
        (confirmed.confirmed, confirmed.customer_id),
        (Some(true), Some(holder))
    );
    t.drop_all().await;
}

#[tokio::test]
async fn basket_concurrent_map_updates() {
    use models::supermarket::*;
    let t = supermarket_db("w_basket").await;
    t.db.create_table::<BasketByCustomer>()
        .await
        .expect("create");
    let customer = jane();
    let products: Vec<Uuid> = (0..70).map(|i| id(0xb000 + i)).collect();
    let qty: Vec<i32> = (0..70).map(|i| i + 1).collect();
    // 50 tasks each add a different product.
    let adds = join_all((0..50).map(|i| {
        BasketByCustomer::update()
            .put_products(&products[i], &qty[i])
            .customer_id(&customer)
            .execute(&t.db)
    }))
    .await;
    assert!(adds.iter().all(Result::is_ok), "{adds:?}");
    // Then, at the same time: 20 tasks remove products 0..20 and 20 tasks add 50..70.
    let removes = (0..20).map(|i| {
        BasketByCustomer::update()
            .remove_products_keys(std::slice::from_ref(&products[i]))
            .customer_id(&customer)
            .execute(&t.db)
    });
    let more = (50..70).map(|i| {
        BasketByCustomer::update()
            .put_products(&products[i], &qty[i])
            .customer_id(&customer)
            .execute(&t.db)
    });
    let results = join_all(removes.chain(more)).await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    let basket = BasketByCustomer::get(&t.db, &customer)
        .await
        .expect("read")
        .expect("basket");
    let expected: BTreeMap<Uuid, i32> = (20..70).map(|i| (products[i], qty[i])).collect();
    assert_eq!(basket.products, expected);
    // Merging a map puts every entry.
    let extra = BTreeMap::from([(products[0], 7), (products[20], 9)]);
    BasketByCustomer::update()
        .merge_products(&extra)
        .customer_id(&customer)
        .execute(&t.db)
        .await
        .expect("merge");
    let basket = BasketByCustomer::get(&t.db, &customer)
        .await
        .expect("read")
        .expect("basket");
    assert_eq!(
        (
            basket.products[&products[0]],
            basket.products[&products[20]]
        ),
        (7, 9)
    );
    t.drop_all().await;
}

/// A counter table: only increments and decrements.
#[derive(CassTable, Debug, PartialEq)]
struct PageViews {
    #[partition_key]
    page: String,
    views: Counter,
    clicks: Counter,
}

#[tokio::test]
async fn counters_sum_exactly() {
    let t = support::test_db("w_counters").await;
    t.db.create_table::<PageViews>().await.expect("create");
    let tasks = (0..20).map(|_| {
        let db = t.db.clone();
        tokio::spawn(async move {
            for _ in 0..1000 {
                PageViews::update()
                    .increment_views(1)
                    .page("home")
                    .execute(&db)
                    .await?;
            }
            Ok::<_, Error>(())
        })
    });
    for r in join_all(tasks).await {
        r.expect("task").expect("increments");
    }
    // A counter batch: both columns of two pages.
    Batch::counter()
        .add(
            PageViews::update()
                .increment_clicks(5)
                .decrement_views(30)
                .page("home"),
        )
        .add(PageViews::update().increment_clicks(1).page("about"))
        .execute(&t.db)
        .await
        .expect("counter batch");
    let home = PageViews::get(&t.db, "home")
        .await
        .expect("read")
        .expect("row");
    assert_eq!(
        (home.views, home.clicks),
        (Counter(20_000 - 30), Counter(5))
    );
    t.drop_all().await;
}

/// `PageViews`'s table read with fields that may hold no value.
#[derive(CassTable, Debug, PartialEq)]
#[cass(table = "page_views")]
struct PageViewsOrNone {
    #[partition_key]
    page: String,
    views: Option<Counter>,
    clicks: Option<Counter>,
}

/// One counter of `PageViews`.
#[derive(cassmodel::CassProjection, Debug, PartialEq)]
#[cass(table = PageViews)]
struct ViewsOnly {
    page: String,
    views: Counter,
}

#[tokio::test]
async fn a_counter_never_incremented_reads_as_zero() {
    let t = support::test_db("w_counter_zero").await;
    t.db.create_table::<PageViews>().await.expect("create");
    PageViews::update()
        .increment_clicks(3)
        .page("about")
        .execute(&t.db)
        .await
        .expect("increment");
    // `views` was never incremented: the server holds no value, which every Cassandra
    // client reads as 0.
    let about = PageViews::get(&t.db, "about").await.expect("read");
    assert_eq!(
        about,
        Some(PageViews {
            page: "about".into(),
            views: Counter(0),
            clicks: Counter(3)
        })
    );
    let all = PageViews::select()
        .page("about")
        .fetch_all(&t.db)
        .await
        .expect("select");
    assert_eq!(all.len(), 1);
    assert_eq!((all[0].views, all[0].clicks), (Counter(0), Counter(3)));
    let projected = PageViews::select()
        .page("about")
        .read_as::<ViewsOnly>()
        .fetch_first(&t.db)
        .await
        .expect("projection");
    assert_eq!(
        projected,
        Some(ViewsOnly {
            page: "about".into(),
            views: Counter(0)
        })
    );
    // An `Option<Counter>` still tells the missing value apart.
    let or_none = PageViewsOrNone::get(&t.db, "about").await.expect("read");
    assert_eq!(
        or_none,
        Some(PageViewsOrNone {
            page: "about".into(),
            views: None,
            clicks: Some(Counter(3))
        })
    );
    // A page never counted at all has no row.
    assert_eq!(PageViews::get(&t.db, "home").await.expect("read"), None);
    t.drop_all().await;
}

#[tokio::test]
async fn likes_written_and_deleted_in_both_tables_or_neither() {
    use models::likes::*;
    let t = support::test_db("w_likes").await;
    create(&t.db).await.expect("create");
    let (cs, ps) = (customers(), products());
    let l = like(&cs[0], &ps[0], at(6, 1, 10, 0));
    l.save(&t.db).await.expect("save");
    use models::likes::{CustomerByLikedProduct, ProductLikedByCustomer};
    let by_product = CustomerByLikedProduct::select()
        .liked_prdt_id("p1")
        .fetch_all(&t.db)
        .await
        .expect("read");
    let by_customer = ProductLikedByCustomer::select()
        .cust_id("c1")
        .fetch_all(&t.db)
        .await
        .expect("read");
    assert_eq!(by_product.len(), 1);
    assert_eq!(by_customer.len(), 1);
    assert_eq!(
        (
            by_product[0].title.as_str(),
            by_customer[0].first_name.as_str()
        ),
        ("Pepsi", "Anna")
    );

    l.delete(&t.db).await.expect("delete");
    assert!(no_like(&t.db, "p1", "c1").await, "no row in either table");

    // A batch the server refuses (over the 50 KiB batch size limit) writes neither table.
    let mut huge = like(&cs[1], &ps[1], at(6, 2, 10, 0));
    huge.last_name = "x".repeat(60 * 1024);
    let err = huge.save(&t.db).await.expect_err("the batch is too large");
    assert!(err.to_string().to_lowercase().contains("batch"), "{err}");
    // Over a `Db`'s request limit, counted over both tables' rows (each alone fits): refused
    // by cassmodel before anything is sent.
    let limited = t.db.with_max_request_size(100 * 1024);
    let err = huge.save(&limited).await.expect_err("two rows of 60 KiB");
    match &err {
        cassmodel::Error::RequestTooLarge { bytes, limit, .. } => {
            assert!(*bytes > 120 * 1024 && *limit == 100 * 1024, "{err}");
        }
        other => panic!("expected Error::RequestTooLarge, got {other:?}"),
    }
    assert!(no_like(&t.db, "p2", "c2").await, "no row in either table");
    t.drop_all().await;
}

/// An entity whose two tables take rows of very different sizes: `bio` is only in the first
/// table, `note` only in the second.
#[derive(cassmodel::CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(ProfileById, ProfileByName))]
struct Profile {
    id: i32,
    name: String,
    bio: String,
    note: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Profile)]
struct ProfileById {
    #[partition_key]
    id: i32,
    name: String,
    bio: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Profile)]
struct ProfileByName {
    #[partition_key]
    name: String,
    id: i32,
    note: String,
}

/// A save checks each table's row against its share of the request limit as it writes it;
/// rows of uneven sizes that fit together are saved all the same (the large one first or
/// second in the batch), and rows that do not are refused with their whole size, writing
/// neither table.
#[tokio::test]
async fn an_entity_of_uneven_rows_is_saved_when_they_fit_together() {
    let t = support::test_db("w_uneven").await;
    t.db.create_table::<ProfileById>().await.expect("create");
    t.db.create_table::<ProfileByName>().await.expect("create");
    // 20 KiB: a share of 10 KiB per row; one row takes 12 KiB, the other a few bytes.
    let limited = t.db.with_max_request_size(20 * 1024);
    let profile = |id: i32, name: &str, bio: usize, note: usize| Profile {
        id,
        name: name.into(),
        bio: "b".repeat(bio),
        note: "n".repeat(note),
    };
    for p in [
        profile(1, "ada", 12 * 1024, 1),
        profile(2, "bob", 1, 12 * 1024),
    ] {
        p.save(&limited)
            .await
            .unwrap_or_else(|e| panic!("12 KiB and a few bytes fit in 20 KiB: {e}"));
        let by_id = ProfileById::get(&t.db, &p.id).await.expect("read");
        let by_name = ProfileByName::get(&t.db, &p.name).await.expect("read");
        assert_eq!(by_id.map(|r| r.bio), Some(p.bio.clone()));
        assert_eq!(by_name.map(|r| r.note), Some(p.note.clone()));
    }

    for p in [
        profile(3, "cy", 24 * 1024, 1),
        profile(4, "di", 1, 24 * 1024),
    ] {
        match p.save(&limited).await {
            Err(Error::RequestTooLarge { bytes, limit, .. }) => {
                assert!(bytes > 24 * 1024 && limit == 20 * 1024, "{bytes} / {limit}");
            }
            other => panic!("expected Error::RequestTooLarge, got {other:?}"),
        }
        assert_eq!(ProfileById::get(&t.db, &p.id).await.expect("read"), None);
        assert_eq!(
            ProfileByName::get(&t.db, &p.name).await.expect("read"),
            None
        );
    }
    t.drop_all().await;
}

/// A table with a static column and collections.
#[derive(CassTable, Debug, Clone, PartialEq)]
struct Room {
    #[partition_key]
    room: String,
    #[clustering]
    msg: i32,
    #[cass(static)]
    topic: Option<String>,
    text: String,
    tags: Vec<String>,
    readers: BTreeSet<String>,
}

#[tokio::test]
async fn static_columns_and_collections() {
    let t = support::test_db("w_room").await;
    t.db.create_table::<Room>().await.expect("create");
    for msg in 1..=2 {
        t.db.insert(&Room {
            room: "r".into(),
            msg,
            topic: None,
            text: format!("m{msg}"),
            tags: vec!["b".into()],
            readers: BTreeSet::new(),
        })
        .await
        .expect("insert");
    }
    // A static column is updated with the partition key alone, for every row of it.
    Room::update()
        .set_topic(&Some("rust".to_owned()))
        .room("r")
        .execute(&t.db)
        .await
        .expect("static");
    let rows = Room::select()
        .room("r")
        .fetch_all(&t.db)
        .await
        .expect("read");
    assert!(rows.iter().all(|r| r.topic.as_deref() == Some("rust")));

    let upd = || Room::update().room("r").msg(&1);
    upd()
        .append_tags(&vec!["c".to_owned(), "d".to_owned()])
        .execute(&t.db)
        .await
        .expect("append");
    upd()
        .prepend_tags(&vec!["a".to_owned()])
        .execute(&t.db)
        .await
        .expect("prepend");
    upd()
        .set_tags_at(1, "B")
        .execute(&t.db)
        .await
        .expect("set at");
    upd()
        .remove_tags(&vec!["c".to_owned()])
        .execute(&t.db)
        .await
        .expect("remove");
    upd()
        .add_readers(&BTreeSet::from(["ann".to_owned(), "bob".to_owned()]))
        .execute(&t.db)
        .await
        .expect("add");
    upd()
        .remove_readers(&BTreeSet::from(["bob".to_owned()]))
        .execute(&t.db)
        .await
        .expect("remove");
    let row = Room::get(&t.db, "r", &1).await.expect("read").expect("row");
    assert_eq!(row.tags, ["a", "B", "d"]);
    assert_eq!(row.readers, BTreeSet::from(["ann".to_owned()]));
    t.drop_all().await;
}

#[tokio::test]
async fn insert_if_not_exists_and_conditional_batches() {
    use models::docs::*;
    let t = support::test_db("w_lwt").await;
    create(&t.db).await.expect("create");
    let first = T1 {
        id: 1,
        k: 1,
        v: "first".into(),
    };
    let second = T1 {
        id: 1,
        k: 2,
        v: "second".into(),
    };
    assert!(
        Insert::new(&first)
            .if_not_exists()
            .execute(&t.db)
            .await
            .expect("insert")
            .applied
    );
    let o = Insert::new(&second)
        .if_not_exists()
        .execute(&t.db)
        .await
        .expect("insert");
    assert!(!o.applied);
    assert_eq!(o.current, Some(first.clone()));
    // Conditional delete: only if the value is what we think.
    let o = T1::delete()
        .id(&1)
        .if_v(Cmp::Eq, "second")
        .execute(&t.db)
        .await
        .expect("delete");
    assert_eq!((o.applied, o.current), (false, Some(first.clone())));
    assert!(
        T1::delete()
            .id(&1)
            .if_exists()
            .execute(&t.db)
            .await
            .expect("delete")
            .applied
    );
    assert!(
        !T1::delete()
            .id(&1)
            .if_exists()
            .execute(&t.db)
            .await
            .expect("delete")
            .applied
    );

    // A conditional batch in one partition: all or nothing.
    t.db.insert(&T2 {
        id: 5,
        c: "a".into(),
        k: 0,
        v: "x".into(),
    })
    .await
    .expect("insert");
    let batch = || {
        Batch::unlogged()
            .add(T2::update().set_v("y").id(&5).c("a").if_v(Cmp::Eq, "x"))
            .add(T2::update().set_v("z").set_k(&0).id(&5).c("b"))
    };
    assert!(batch().execute(&t.db).await.expect("batch"), "applies once");
    assert!(
        !batch().execute(&t.db).await.expect("batch"),
        "the condition no longer holds"
    );
    let rows = T2::select().id(&5).fetch_all(&t.db).await.expect("read");
    assert_eq!(
        rows.iter().map(|r| r.v.as_str()).collect::<Vec<_>>(),
        ["y", "z"]
    );

    // ... but across partitions or tables it is refused before it is sent.
    let err = Batch::logged()
        .add(T2::update().set_v("y").id(&5).c("a").if_exists())
        .add(T2::update().set_v("z").id(&6).c("a"))
        .execute(&t.db)
        .await
        .expect_err("two partitions");
    assert!(err.to_string().contains("one partition"), "{err}");
    let err = Batch::logged()
        .add(T2::update().set_v("y").id(&5).c("a").if_exists())
        .insert(&first)
        .execute(&t.db)
        .await
        .expect_err("two tables");
    assert!(err.to_string().contains("one table"), "{err}");
    t.drop_all().await;
}

/// `None` fields are left unset by an insert: no cell, no tombstone (seen in the read's
/// trace); `write_nulls()` writes them as nulls, which are tombstones.
#[tokio::test]
async fn none_writes_no_tombstone() {
    use cassmodel::scylla::statement::unprepared::Statement;
    use models::supermarket::*;
    let (t, ks) = customer_records("w_tombstones").await;
    let record = |n: u128| CustomerRecord {
        id: id(n),
        name: "no contact details".into(),
        telephone: None,
        email: None,
        default_address_key: None,
    };
    t.db.insert(&record(1)).await.expect("insert");
    Insert::new(&record(2))
        .write_nulls()
        .execute(&t.db)
        .await
        .expect("insert");

    let tombstones = |n: u128| {
        let db = t.db.clone();
        let ks = ks.clone();
        async move {
            let mut st = Statement::new(format!("SELECT * FROM {ks}.customers WHERE id = ?"));
            st.set_tracing(true);
            let res = db
                .session()
                .query_unpaged(st, (id(n),))
                .await
                .expect("select");
            let trace = res.tracing_id().expect("traced");
            // The count of the read of `customers`: on a node with authentication, the
            // reads of the role and permission tables are traced before it, with their own.
            // Trace events are written in the background: asked again (at most 50 times,
            // 100 ms apart) until the read's count is there.
            let mut tries = 0;
            let line = loop {
                let info = db.session().get_tracing_info(&trace).await.expect("trace");
                let found = info
                    .events
                    .iter()
                    .filter_map(|e| e.activity.as_deref())
                    .skip_while(|a| !a.contains("query on customers"))
                    .find(|a| a.contains("tombstone cells"))
                    .map(str::to_owned);
                tries += 1;
                match found {
                    Some(line) => break line,
                    None if tries < 50 => {
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    }
                    None => panic!("no tombstone count in the trace: {:?}", info.events),
                }
            };
            // "Read 1 live rows and N tombstone cells"
            line.split_whitespace()
                .rev()
                .nth(2)
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or_else(|| panic!("cannot read the count in {line:?}"))
        }
    };
    assert_eq!(tombstones(1).await, 0, "unset fields write nothing");
    assert_eq!(
        tombstones(2).await,
        3,
        "write_nulls writes one tombstone per None field"
    );
    t.drop_all().await;
}

/// Each INSERT shape (TTL or not, write time or not) is prepared once per `Db` and then sent
/// without the statement cache: every insert, the first of its shape and the ones after it,
/// in any order and with options, writes with its own TTL and write time, and none with
/// another shape's.
#[tokio::test]
async fn every_insert_shape_writes_its_own_ttl_and_write_time() {
    use cassmodel::scylla::statement::Consistency;
    use models::supermarket::*;
    let (t, ks) = customer_records("w_insert_shapes").await;
    let record = |n: u128| CustomerRecord {
        id: id(n),
        name: format!("customer {n}"),
        telephone: Some("0".into()),
        email: None,
        default_address_key: None,
    };
    // (ttl, write time) of row n; shapes interleaved, each several times, one with options.
    const TTL: i32 = 3600;
    let shapes = [
        (None, None),
        (Some(TTL), None),
        (None, Some(1_000_001)),
        (Some(TTL), Some(1_000_002)),
        (None, None),
        (Some(TTL), Some(1_000_003)),
        (Some(TTL), None),
        (None, Some(1_000_004)),
        (Some(TTL), None),
        (None, None),
    ];
    let started = chrono::Utc::now().timestamp_micros();
    for (n, &(ttl, ts)) in shapes.iter().enumerate() {
        let row = record(n as u128);
        let mut insert = Insert::new(&row);
        if let Some(ttl) = ttl {
            insert = insert.using_ttl(ttl);
        }
        if let Some(ts) = ts {
            insert = insert.using_timestamp(ts);
        }
        if n == 6 {
            insert = insert.with_options(|o| o.consistency = Some(Consistency::All));
        }
        insert.execute(&t.db).await.expect("insert");
    }
    let read =
        t.db.session()
            .prepare(format!(
                "SELECT name, TTL(name), WRITETIME(name) FROM {ks}.customers WHERE id = ?"
            ))
            .await
            .expect("prepare");
    for (n, &(ttl, ts)) in shapes.iter().enumerate() {
        let (name, left, written) =
            t.db.session()
                .execute_unpaged(&read, (id(n as u128),))
                .await
                .expect("select")
                .into_rows_result()
                .expect("rows")
                .single_row::<(String, Option<i32>, i64)>()
                .expect("one row");
        assert_eq!(name, format!("customer {n}"));
        match ttl {
            Some(ttl) => assert!(
                left.is_some_and(|left| left > ttl - 120 && left <= ttl),
                "row {n}: TTL {left:?}, expected about {ttl}"
            ),
            None => assert_eq!(left, None, "row {n}: no TTL"),
        }
        match ts {
            Some(ts) => assert_eq!(written, ts, "row {n}: the given write time"),
            None => assert!(written >= started, "row {n}: written now, not {written}"),
        }
    }
    t.drop_all().await;
}

/// Whether neither table of the likes holds a row of `product` (by product) or of `customer`
/// (by customer).
async fn no_like(db: &Db, product: &str, customer: &str) -> bool {
    use models::likes::{CustomerByLikedProduct, ProductLikedByCustomer};
    let by_product = CustomerByLikedProduct::select()
        .liked_prdt_id(product)
        .fetch_all(db)
        .await
        .expect("read");
    let by_customer = ProductLikedByCustomer::select()
        .cust_id(customer)
        .fetch_all(db)
        .await
        .expect("read");
    by_product.is_empty() && by_customer.is_empty()
}
