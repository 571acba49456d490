//! Every valid query of seed-models.md, written with the typed API, against the same query in
//! plain CQL on the same node: same rows, same order. Sample rows are the articles' plus larger
//! generated sets. Also: IN, LIMIT, PER PARTITION LIMIT, reversed reads, inclusive and
//! exclusive bounds on both ends, projections, range deletes, updates, paging, full scans,
//! and ALLOW FILTERING behind its explicit call.
//!
//! Each differential case goes through [`same`]: it also asserts that the plain CQL query
//! returns rows, so a case where both sides are empty (a wrong key, missing sample data)
//! fails instead of passing. Reads checked for emptiness on purpose (deletes, missing keys)
//! first check that the rows were there.

#[path = "../examples/models/mod.rs"]
mod models;
mod support;

use cassmodel::scylla::deserialize::row::DeserializeRow;
use cassmodel::scylla::serialize::row::SerializeRow;
use cassmodel::{Order, PagingState};
use futures::TryStreamExt;
use models::{at, id, timeuuid};
use support::TestDb;

/// The rows a plain CQL statement returns (columns listed in the struct's field order).
async fn plain<R>(t: &TestDb, cql: &str, values: impl SerializeRow) -> Vec<R>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    t.db.session()
        .query_iter(cql, values)
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .rows_stream::<R>()
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
}

/// One differential case: the typed rows equal the rows of the same query in plain CQL,
/// in the same order, and the plain query returns rows (so two empty answers cannot pass).
/// Returns the typed rows for the case's own further checks.
async fn same<R>(
    t: &TestDb,
    case: &str,
    typed: cassmodel::Result<Vec<R>>,
    cql: &str,
    values: impl SerializeRow,
) -> Vec<R>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm> + PartialEq + std::fmt::Debug,
{
    same_after(t, case, typed, cql, values, |_| {}).await
}

/// [`same`], with both sides passed through `normalize` before they are compared (sorted,
/// where the query leaves the order across partitions to the cluster). The one place where
/// the "non-empty and equal" check lives.
async fn same_after<R>(
    t: &TestDb,
    case: &str,
    typed: cassmodel::Result<Vec<R>>,
    cql: &str,
    values: impl SerializeRow,
    normalize: impl Fn(&mut Vec<R>),
) -> Vec<R>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm> + PartialEq + std::fmt::Debug,
{
    let mut typed =
        typed.unwrap_or_else(|e| panic!("{case}: typed read failed: {e}\n  cql: {cql}"));
    let mut expected: Vec<R> = plain(t, cql, values).await;
    normalize(&mut typed);
    normalize(&mut expected);
    assert!(
        !expected.is_empty(),
        "{case}: the plain query returned no rows, so the comparison would prove nothing\n  cql: {cql}"
    );
    assert_eq!(
        typed, expected,
        "{case}: typed rows differ from plain CQL\n  cql: {cql}"
    );
    typed
}

#[tokio::test]
async fn a_social_posts() {
    use models::social::*;
    let t = support::test_db("q_a").await;
    create(&t.db).await.expect("create");
    let ks = t.keyspace().to_owned();
    let (alice, bob) = (alice(), id(0xb0b));
    // 40 posts for alice over 40 days, 5 for bob.
    for day in 0..40u32 {
        for (user, n) in [(alice, 40u32), (bob, 5)] {
            if day < n {
                let post = Post {
                    user_id: user,
                    post_id: timeuuid(at(1 + day / 28, 1 + day % 28, 12, 0), 0),
                    content: format!("post {day} of {user}"),
                };
                t.db.insert(&post).await.expect("insert");
            }
        }
    }
    let cols = "user_id, post_id, content";

    // Latest 20 posts of a user: newest first, no sort.
    let typed = same(
        &t,
        "a: latest 20 posts of a user",
        Post::select()
            .user_id(&alice)
            .limit(20)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.posts_facebook WHERE user_id = ? LIMIT 20"),
        (alice,),
    )
    .await;
    assert_eq!(typed.len(), 20);
    assert!(
        typed.windows(2).all(|w| w[0].post_id > w[1].post_id),
        "newest first"
    );

    // `fetch_all` and `fetch_first` return unboxed futures: `Send + 'static` when the values
    // are owned, so they run on another task, with the same rows.
    let db = t.db.clone();
    let spawned = tokio::spawn(async move {
        let all = Post::select()
            .user_id(&alice)
            .limit(20)
            .fetch_all(&db)
            .await;
        let first = Post::select().user_id(&alice).fetch_first(&db).await;
        (all, first)
    })
    .await
    .expect("task");
    assert_eq!(spawned.0.expect("spawned fetch_all"), typed);
    assert_eq!(
        spawned.1.expect("spawned fetch_first").as_ref(),
        typed.first()
    );
    // Called on what the builder dereferences to (where the compile errors of unreadable
    // states come from), the reads are refused with an error, not a panic.
    let refused = (*Post::select().user_id(&alice)).fetch_all(&t.db).await;
    assert!(
        matches!(&refused, Err(cassmodel::Error::Invalid(m)) if m.contains("query builder")),
        "{refused:?}"
    );
    let refused = (*Post::select().user_id(&alice)).fetch_first(&t.db).await;
    assert!(
        matches!(refused, Err(cassmodel::Error::Invalid(_))),
        "{refused:?}"
    );

    // A time window with exclusive bounds on both ends.
    let (from, to) = (timeuuid(at(1, 5, 12, 0), 0), timeuuid(at(1, 15, 12, 0), 0));
    let typed = same(
        &t,
        "a: time window, exclusive bounds",
        Post::select()
            .user_id(&alice)
            .post_id_gt(&from)
            .post_id_lt(&to)
            .fetch_all(&t.db)
            .await,
        &format!(
            "SELECT {cols} FROM {ks}.posts_facebook WHERE user_id = ? AND post_id > ? AND post_id < ?"
        ),
        (alice, from, to),
    )
    .await;
    assert_eq!(typed.len(), 9, "days 6..=14, both ends excluded");
    // Inclusive bounds on both ends, the upper bound given first.
    let typed = Post::select()
        .user_id(&alice)
        .post_id_le(&to)
        .post_id_ge(&from)
        .fetch_all(&t.db)
        .await
        .expect("typed");
    assert_eq!(typed.len(), 11, "days 5..=15, both ends included");

    // Only the content column: the article's `SELECT content ... LIMIT 20`.
    // The projection is compared as `(content,)` rows, the plain query's shape.
    same(
        &t,
        "a: content column only",
        Post::select()
            .user_id(&alice)
            .limit(20)
            .read_as::<PostContent>()
            .fetch_all(&t.db)
            .await
            .map(|rows| rows.into_iter().map(|p| (p.content,)).collect::<Vec<_>>()),
        &format!("SELECT content FROM {ks}.posts_facebook WHERE user_id = ? LIMIT 20"),
        (alice,),
    )
    .await;

    // Oldest first: the reverse of the clustering order, explicitly.
    let typed = same(
        &t,
        "a: oldest first (reversed)",
        Post::select()
            .user_id(&alice)
            .reversed()
            .limit(3)
            .fetch_all(&t.db)
            .await,
        &format!(
            "SELECT {cols} FROM {ks}.posts_facebook WHERE user_id = ? ORDER BY post_id ASC LIMIT 3"
        ),
        (alice,),
    )
    .await;
    assert_eq!(typed[0].content, format!("post 0 of {alice}"));
    let asc = Post::select()
        .user_id(&alice)
        .order_by_post_id(Order::Asc)
        .limit(3)
        .fetch_all(&t.db)
        .await
        .expect("typed");
    assert_eq!(asc, typed, "order_by_post_id(Asc) is the reversed read");

    // Several partitions at once, 2 rows from each.
    let typed = same(
        &t,
        "a: IN on the partition key, PER PARTITION LIMIT 2",
        Post::select()
            .user_id_in(&[alice, bob])
            .per_partition_limit(2)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.posts_facebook WHERE user_id IN ? PER PARTITION LIMIT 2"),
        (vec![alice, bob],),
    )
    .await;
    assert_eq!(typed.len(), 4);

    // One row by its full key (equal to the plain rows above), and a missing one.
    let one = &typed[0];
    assert_eq!(
        Post::get(&t.db, &one.user_id, &one.post_id)
            .await
            .expect("get")
            .as_ref(),
        Some(one)
    );
    assert_eq!(
        Post::get(&t.db, &id(0xdead), &one.post_id)
            .await
            .expect("get"),
        None
    );
    t.drop_all().await;
}

#[tokio::test]
async fn b_gyms_by_city() {
    use models::gyms::*;
    let t = support::test_db("q_b").await;
    create(&t.db).await.expect("create");
    let ks = t.keyspace().to_owned();
    for g in sample() {
        t.db.insert(&g).await.expect("insert");
    }
    for i in 0..15u32 {
        t.db.insert(&GymsByCity {
            country_code: "US".into(),
            state: "Arizona".into(),
            city: "Phoenix".into(),
            opening_date: at(1 + i % 12, 1 + i, 6, 0),
            gym_name: format!("Gym {i:02}"),
        })
        .await
        .expect("insert");
    }
    let cols = "country_code, state, city, opening_date, gym_name";
    let where_ = "country_code = ? AND state = ? AND city = ?";
    let key = ("US", "Arizona", "Phoenix");

    // The first 10 gyms to open in Phoenix, Arizona, US.
    let typed = same(
        &t,
        "b: first 10 gyms to open in a city",
        GymsByCity::select()
            .country_code("US")
            .state("Arizona")
            .city("Phoenix")
            .limit(10)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.gyms_by_city WHERE {where_} LIMIT 10"),
        key,
    )
    .await;
    assert_eq!(typed.len(), 10);
    assert!(
        typed
            .windows(2)
            .all(|w| w[0].opening_date <= w[1].opening_date)
    );

    // The latest 10: a reverse scan, asked for explicitly.
    let typed = same(
        &t,
        "b: latest 10 gyms (reversed)",
        GymsByCity::select()
            .country_code("US")
            .state("Arizona")
            .city("Phoenix")
            .reversed()
            .limit(10)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.gyms_by_city WHERE {where_} ORDER BY opening_date DESC LIMIT 10"),
        key,
    )
    .await;
    assert!(
        typed
            .windows(2)
            .all(|w| w[0].opening_date >= w[1].opening_date)
    );

    // Gyms opened in the first half of the year, IN on the last partition-key column.
    let (from, to) = (at(1, 1, 0, 0), at(7, 1, 0, 0));
    let typed = same(
        &t,
        "b: IN on the last partition-key column, half-open date range",
        GymsByCity::select()
            .country_code("US")
            .state("Arizona")
            .city_in(&["Phoenix", "Tucson"])
            .opening_date_ge(&from)
            .opening_date_lt(&to)
            .fetch_all(&t.db)
            .await,
        &format!(
            "SELECT {cols} FROM {ks}.gyms_by_city WHERE country_code = ? AND state = ? AND city IN ? \
             AND opening_date >= ? AND opening_date < ?"
        ),
        ("US", "Arizona", vec!["Phoenix", "Tucson"], from, to),
    )
    .await;
    assert!(typed.iter().any(|g| g.city == "Tucson"));
    t.drop_all().await;
}

#[tokio::test]
async fn c_likes() {
    use models::likes::*;
    let t = support::test_db("q_c").await;
    create(&t.db).await.expect("create");
    let ks = t.keyspace().to_owned();
    let (cs, ps) = (customers(), products());
    for (c, p, on) in likes() {
        let (a, b) = like_rows(&cs[c], &ps[p], on);
        t.db.insert(&a).await.expect("insert");
        t.db.insert(&b).await.expect("insert");
    }
    // 25 more customers like Pepsi.
    for i in 0..25u32 {
        let c = Customer {
            cust_id: format!("gen{i}"),
            first_name: format!("F{i}"),
            last_name: format!("L{i}"),
            registered_on: at(1, 2, 0, 0),
        };
        let (a, _) = like_rows(&c, &ps[0], at(7, 1 + i, 8, 0));
        t.db.insert(&a).await.expect("insert");
    }
    let cols = "liked_prdt_id, liked_on, cust_id, title, first_name, last_name";
    let typed = same(
        &t,
        "c: latest 10 customers who liked a product",
        CustomerByLikedProduct::select()
            .liked_prdt_id("p1")
            .limit(10)
            .fetch_all(&t.db)
            .await,
        &format!(
            "SELECT {cols} FROM {ks}.customer_by_liked_product WHERE liked_prdt_id = ? LIMIT 10"
        ),
        ("p1",),
    )
    .await;
    assert_eq!(typed.len(), 10);
    assert_eq!(typed[0].first_name, "F24", "most recent like first");

    let cols = "cust_id, liked_on, liked_prdt_id, title, first_name, last_name";
    let typed = same(
        &t,
        "c: latest 10 products a customer liked",
        ProductLikedByCustomer::select()
            .cust_id("c1")
            .limit(10)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.product_liked_by_customer WHERE cust_id = ? LIMIT 10"),
        ("c1",),
    )
    .await;
    assert_eq!(
        typed.iter().map(|l| l.title.as_str()).collect::<Vec<_>>(),
        ["Coca-Cola", "Pepsi"]
    );
    t.drop_all().await;
}

#[tokio::test]
async fn d_documentation_tables() {
    use models::docs::*;
    let t = support::test_db("q_d").await;
    create(&t.db).await.expect("create");
    let ks = t.keyspace().to_owned();
    for r in t3_sample() {
        t.db.insert(&r).await.expect("insert");
    }
    for c1 in ["a", "b", "c", "d"] {
        for c2 in 0..5 {
            t.db.insert(&T3 {
                id1: 1,
                id2: 2,
                c1: c1.into(),
                c2: format!("g{c2}"),
                k: c2,
                v: "gen".into(),
            })
            .await
            .expect("insert");
        }
    }
    let cols = "id1, id2, c1, c2, k, v";
    same(
        &t,
        "d: whole partition",
        T3::select().id1(&1).id2(&2).fetch_all(&t.db).await,
        &format!("SELECT {cols} FROM {ks}.t3 WHERE id1 = ? AND id2 = ?"),
        (1, 2),
    )
    .await;
    same(
        &t,
        "d: first clustering column",
        T3::select().id1(&1).id2(&2).c1("a").fetch_all(&t.db).await,
        &format!("SELECT {cols} FROM {ks}.t3 WHERE id1 = ? AND id2 = ? AND c1 = ?"),
        (1, 2, "a"),
    )
    .await;
    let c2 = same(
        &t,
        "d: first two clustering columns",
        T3::select()
            .id1(&1)
            .id2(&2)
            .c1("a")
            .c2("y")
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.t3 WHERE id1 = ? AND id2 = ? AND c1 = ? AND c2 = ?"),
        (1, 2, "a", "y"),
    )
    .await;
    assert_eq!(c2.len(), 1);
    let gt = same(
        &t,
        "d: range on the first clustering column",
        T3::select()
            .id1(&1)
            .id2(&2)
            .c1_gt("b")
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.t3 WHERE id1 = ? AND id2 = ? AND c1 > ?"),
        (1, 2, "b"),
    )
    .await;
    assert!(gt.iter().all(|r| r.c1.as_str() > "b") && !gt.is_empty());
    // IN on a clustering column, then `=` on the next one.
    let inn = same(
        &t,
        "d: IN on a clustering column, then =",
        T3::select()
            .id1(&1)
            .id2(&2)
            .c1_in(&["a", "c"])
            .c2("g1")
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.t3 WHERE id1 = ? AND id2 = ? AND c1 IN ? AND c2 = ?"),
        (1, 2, vec!["a", "c"], "g1"),
    )
    .await;
    assert_eq!(inn.len(), 2);

    // Magazines of a publisher, highest id first (DESC clustering).
    for m in magazines() {
        t.db.insert(&m).await.expect("insert");
    }
    let typed = same(
        &t,
        "d: magazines of a publisher (DESC clustering)",
        MagazinePublisher::select()
            .publisher("Acme Press")
            .fetch_all(&t.db)
            .await,
        &format!("SELECT publisher, id, name, publication_frequency FROM {ks}.magazine_publisher WHERE publisher = ?"),
        ("Acme Press",),
    )
    .await;
    assert_eq!(typed.iter().map(|m| m.id).collect::<Vec<_>>(), [3, 2, 1]);
    t.drop_all().await;
}

#[tokio::test]
async fn e_supermarket_queries() {
    use models::supermarket::*;
    let mut t = support::test_db("q_e").await;
    for ks in KEYSPACES {
        t.map_keyspace(ks).await;
    }
    create(&t.db).await.expect("create");
    demo(&t.db).await.expect("sample rows and Q1..Q7");
    let od =
        t.db.resolve_keyspace(Some("order_delivery"))
            .expect("mapped")
            .to_owned();
    // Q4 timeslots of a date, Q6 orders of a date and team in start-time order.
    let typed = same(
        &t,
        "e: Q4 timeslots of a date",
        DeliveryTimeslots::select()
            .delivery_date(&delivery_day())
            .fetch_all(&t.db)
            .await,
        &format!(
            "SELECT delivery_date, start_time, delivery_team_id, confirmed, customer_id, \
             reservation_expiry FROM {od}.delivery_timeslots WHERE delivery_date = ?"
        ),
        (delivery_day(),),
    )
    .await;
    assert_eq!(typed.len(), 3);
    let typed = OrdersByDeliveryDate::select()
        .delivery_date(&delivery_day())
        .delivery_team_id(&team())
        .fetch_all(&t.db)
        .await
        .expect("Q6");
    assert_eq!(typed.len(), 1);
    // Timeslots from 10:00 on, inclusive.
    let from10 = DeliveryTimeslots::select()
        .delivery_date(&delivery_day())
        .start_time_ge(&hour(10))
        .fetch_all(&t.db)
        .await
        .expect("range");
    assert_eq!(
        from10.iter().map(|s| s.start_time).collect::<Vec<_>>(),
        [hour(10), hour(11)]
    );

    // Update chosen regular columns by full primary key.
    DeliveryTimeslots::update()
        .set_confirmed(&true)
        .set_customer_id(&jane())
        .delivery_date(&delivery_day())
        .start_time(&hour(11))
        .delivery_team_id(&team())
        .execute(&t.db)
        .await
        .expect("update");
    let slot = DeliveryTimeslots::get(&t.db, &delivery_day(), &hour(11), &team())
        .await
        .expect("get")
        .expect("slot");
    assert_eq!(
        (slot.confirmed, slot.customer_id),
        (Some(true), Some(jane()))
    );
    t.drop_all().await;
}

#[tokio::test]
async fn f_ebay_time_ranges() {
    use models::ebay::*;
    let t = support::test_db("q_f").await;
    create(&t.db).await.expect("create");
    let ks = t.keyspace().to_owned();
    let item = camera();
    for d in 0..20u32 {
        t.db.insert(&UsersByItem {
            item_id: item.item_id,
            liked_at: timeuuid(at(9, 1 + d, 10, 0), d as u16),
            user_id: id(u128::from(d)),
            user_name: format!("user{d}"),
        })
        .await
        .expect("insert");
    }
    let cols = "item_id, liked_at, user_id, user_name";
    let typed = same(
        &t,
        "f: latest 5 likes of an item",
        UsersByItem::select()
            .item_id(&item.item_id)
            .limit(5)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.users_by_item WHERE item_id = ? LIMIT 5"),
        (item.item_id,),
    )
    .await;
    assert_eq!(typed[0].user_name, "user19");
    let (from, to) = (timeuuid(at(9, 5, 10, 0), 4), timeuuid(at(9, 9, 10, 0), 8));
    let typed = same(
        &t,
        "f: likes in a time range, inclusive bounds",
        UsersByItem::select()
            .item_id(&item.item_id)
            .liked_at_ge(&from)
            .liked_at_le(&to)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT {cols} FROM {ks}.users_by_item WHERE item_id = ? AND liked_at >= ? AND liked_at <= ?"),
        (item.item_id, from, to),
    )
    .await;
    assert_eq!(typed.len(), 5);

    // Typed counts: what the server counts for a partition, a range of it, an empty one.
    let count = |n: cassmodel::Result<u64>| n.map(|n| vec![(i64::try_from(n).expect("count"),)]);
    let whole = same(
        &t,
        "f: count of a partition",
        count(
            UsersByItem::select()
                .item_id(&item.item_id)
                .count_rows(&t.db)
                .await,
        ),
        &format!("SELECT COUNT(*) FROM {ks}.users_by_item WHERE item_id = ?"),
        (item.item_id,),
    )
    .await;
    assert_eq!(whole, [(20,)]);
    let range = same(
        &t,
        "f: count of a range",
        count(
            UsersByItem::select()
                .item_id(&item.item_id)
                .liked_at_ge(&from)
                .liked_at_le(&to)
                .count_rows(&t.db)
                .await,
        ),
        &format!(
            "SELECT COUNT(*) FROM {ks}.users_by_item WHERE item_id = ? AND liked_at >= ? \
             AND liked_at <= ?"
        ),
        (item.item_id, from, to),
    )
    .await;
    assert_eq!(range, [(5,)]);
    let none = same(
        &t,
        "f: count of an empty partition",
        count(
            UsersByItem::select()
                .item_id(&id(999))
                .count_rows(&t.db)
                .await,
        ),
        &format!("SELECT COUNT(*) FROM {ks}.users_by_item WHERE item_id = ?"),
        (id(999),),
    )
    .await;
    assert_eq!(none, [(0,)]);
    // A limit would not limit the count: refused, not ignored.
    let err = UsersByItem::select()
        .item_id(&item.item_id)
        .limit(3)
        .count_rows(&t.db)
        .await
        .expect_err("a count with a limit");
    assert!(err.to_string().contains("remove the limit"), "{err}");
    t.drop_all().await;
}

#[tokio::test]
async fn g_keys_tutorial() {
    use models::keys::*;
    let t = support::test_db("q_g").await;
    create(&t.db).await.expect("create");
    let ks = t.keyspace().to_owned();
    demo(&t.db).await.expect("sample rows");
    // The article's query: the two Delaware rows.
    let typed = same(
        &t,
        "g: the two Delaware rows",
        UsersByMainland::select()
            .mainland("northamerica")
            .state_gt("ca")
            .state_lt("ny")
            .fetch_all(&t.db)
            .await,
        &format!(
            "SELECT mainland, state, uid, name, zip FROM {ks}.users_by_mainland \
             WHERE mainland = ? AND state > ? AND state < ?"
        ),
        ("northamerica", "ca", "ny"),
    )
    .await;
    assert_eq!(
        typed.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
        ["bob", "carol"]
    );

    // wide: each valid prefix.
    let w = Wide::select()
        .col1("x")
        .col2("y")
        .fetch_all(&t.db)
        .await
        .expect("wide");
    assert_eq!(w.len(), 1);
    assert_eq!(
        Wide::select()
            .col1("x")
            .col2("y")
            .col10("p")
            .fetch_all(&t.db)
            .await
            .expect("wide"),
        w
    );
    assert_eq!(
        Wide::select()
            .col1("x")
            .col2("y")
            .col10("p")
            .col4("q")
            .fetch_all(&t.db)
            .await
            .expect("wide"),
        w
    );

    // `WHERE key_part_two = 9` only behind the explicit opt-in, which says it scans.
    // Compared sorted by key_part_one: the rows come from several partitions.
    same_after(
        &t,
        "g: ALLOW FILTERING on the second key part",
        KeyParts::select_allow_filtering()
            .key_part_two(&9)
            .fetch_all(&t.db)
            .await,
        &format!("SELECT key_part_one, key_part_two, data FROM {ks}.key_parts WHERE key_part_two = ? ALLOW FILTERING"),
        (9,),
        |v: &mut Vec<KeyParts>| v.sort_by(|a, b| a.key_part_one.cmp(&b.key_part_one)),
    )
    .await;
    let regular = KeyParts::select_allow_filtering()
        .data("a10")
        .fetch_all(&t.db)
        .await
        .expect("filtering");
    assert_eq!(regular.len(), 1);
    t.drop_all().await;
}

/// Deletes by full key, by partition, by clustering prefix and by a range (one range
/// tombstone), checked against what plain CQL then reads.
#[tokio::test]
async fn deletes() {
    use models::docs::*;
    let t = support::test_db("q_del").await;
    create(&t.db).await.expect("create");
    let ks = t.keyspace().to_owned();
    let insert_grid = |id1: i32| {
        let db = t.db.clone();
        async move {
            for c1 in ["a", "b", "c", "d"] {
                for c2 in ["1", "2", "3"] {
                    db.insert(&T3 {
                        id1,
                        id2: 0,
                        c1: c1.into(),
                        c2: c2.into(),
                        k: 0,
                        v: String::new(),
                    })
                    .await
                    .expect("insert");
                }
            }
        }
    };
    let remaining = |id1: i32| {
        let t = &t;
        let ks = ks.clone();
        async move {
            plain::<(String, String)>(
                t,
                &format!("SELECT c1, c2 FROM {ks}.t3 WHERE id1 = ? AND id2 = 0"),
                (id1,),
            )
            .await
            .into_iter()
            .map(|(a, b)| format!("{a}{b}"))
            .collect::<Vec<_>>()
        }
    };
    insert_grid(1).await;
    assert_eq!(remaining(1).await.len(), 12, "the grid before any delete");
    T3::delete()
        .id1(&1)
        .id2(&0)
        .c1("a")
        .c2("2")
        .execute(&t.db)
        .await
        .expect("full key");
    T3::delete()
        .id1(&1)
        .id2(&0)
        .c1("b")
        .execute(&t.db)
        .await
        .expect("prefix");
    T3::delete()
        .id1(&1)
        .id2(&0)
        .c1_gt("b")
        .c1_le("c")
        .execute(&t.db)
        .await
        .expect("range");
    assert_eq!(remaining(1).await, ["a1", "a3", "d1", "d2", "d3"]);
    T3::delete()
        .id1(&1)
        .id2(&0)
        .c1("d")
        .c2_ge("2")
        .execute(&t.db)
        .await
        .expect("range after prefix");
    assert_eq!(remaining(1).await, ["a1", "a3", "d1"]);
    T3::delete()
        .id1(&1)
        .id2(&0)
        .execute(&t.db)
        .await
        .expect("partition");
    assert!(remaining(1).await.is_empty());
    t.drop_all().await;
}

/// Page by page with an opaque paging state (a web API's cursor), and a full-table scan.
#[tokio::test]
async fn paging_and_full_scan() {
    use models::keys::*;
    let t = support::test_db("q_page").await;
    create(&t.db).await.expect("create");
    for uid in 0..95 {
        t.db.insert(&UsersByMainland {
            mainland: if uid % 2 == 0 { "europe" } else { "asia" }.into(),
            state: format!("s{:02}", uid % 10),
            uid,
            name: format!("n{uid}"),
            zip: uid,
        })
        .await
        .expect("insert");
    }
    let expected = UsersByMainland::select()
        .mainland("europe")
        .fetch_all(&t.db)
        .await
        .expect("all");
    assert_eq!(expected.len(), 48);
    let mut from = PagingState::start();
    let mut pages = Vec::new();
    loop {
        let page = UsersByMainland::select()
            .mainland("europe")
            .page_size(10)
            .fetch_page(&t.db, from)
            .await
            .expect("page");
        assert!(page.rows.len() <= 10);
        pages.extend(page.rows);
        match page.next {
            // Round-trip the state through bytes, as a client would.
            Some(next) => {
                let bytes = next.as_bytes_slice().expect("state").to_vec();
                from = PagingState::new_from_raw_bytes(bytes);
            }
            None => break,
        }
    }
    assert_eq!(pages, expected);

    let mut scanned: Vec<UsersByMainland> = UsersByMainland::scan_full_table(&t.db, 7)
        .await
        .expect("scan")
        .try_collect()
        .await
        .expect("scan rows");
    assert_eq!(scanned.len(), 95);
    scanned.sort_by_key(|u| u.uid);
    assert!(scanned.iter().enumerate().all(|(i, u)| u.uid == i as i32));
    t.drop_all().await;
}
