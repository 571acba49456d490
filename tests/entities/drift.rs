//! The drift check of an entity's tables, on the node: drift injected with plain CQL (a
//! missing row, an extra row, a different cell, a different TTL, a stale row under an old
//! key) is found exactly, a dry run writes nothing, the repair makes the tables agree (each
//! cell from the copy with the latest write time), and a second check is clean.

use cassmodel::migrate::Models;
use cassmodel::migrate::drift::{DriftOptions, DriftReport, TableDrift, check_entity};
use uuid::Uuid;

use super::support::{self, TestDb};
use super::{Order, OrderById, OrdersByCustomer, OrdersByDeliveryDate, Video, VideoById};
use super::{VideosByTag, day, order, orders_db, tags};

/// Runs `cql` with `values` as another program would (not through cassmodel).
async fn cql(t: &TestDb, cql: &str, values: impl cassmodel::scylla::serialize::row::SerializeRow) {
    let cql = cql.replace("KS.", &format!("{}.", t.keyspace()));
    t.db.session()
        .query_unpaged(cql, values)
        .await
        .expect("plain CQL");
}

/// (rows, missing, extra, different, cells different) of each table, by table name.
fn counts(r: &DriftReport) -> Vec<(String, [u64; 5])> {
    r.tables
        .iter()
        .map(|t: &TableDrift| {
            let name = t.table.rsplit('.').next().unwrap_or_default().to_owned();
            (
                name,
                [t.rows, t.missing, t.extra, t.different, t.cells_different],
            )
        })
        .collect()
}

fn table<'r>(r: &'r DriftReport, name: &str) -> &'r TableDrift {
    r.tables
        .iter()
        .find(|t| t.table.ends_with(&format!(".{name}")))
        .unwrap_or_else(|| panic!("no table {name} in {r}"))
}

/// The TTL of `status` in each table of order `o`, read with plain CQL.
async fn status_ttls(t: &TestDb, o: &Order) -> Vec<Option<i32>> {
    let ks = t.keyspace();
    let (id, customer, date) = (o.order_id, o.customer_id, o.delivery_date);
    let by_id: (Option<i32>,) = support::plain_row(
        &t.db,
        format!("SELECT TTL(status) FROM {ks}.order_by_id WHERE order_id = ?"),
        (id,),
    )
    .await;
    let by_customer: (Option<i32>,) = support::plain_row(
        &t.db,
        format!(
            "SELECT TTL(status) FROM {ks}.orders_by_customer WHERE customer_id = ? AND \
             delivery_date = ? AND order_id = ?"
        ),
        (customer, date, id),
    )
    .await;
    let by_date: (Option<i32>,) = support::plain_row(
        &t.db,
        format!(
            "SELECT TTL(status) FROM {ks}.orders_by_delivery_date WHERE delivery_date = ? AND \
             order_id = ?"
        ),
        (date, id),
    )
    .await;
    vec![by_id.0, by_customer.0, by_date.0]
}

/// The status of order `id` in each table, read with plain CQL (every row of the order).
async fn statuses(t: &TestDb, id: Uuid) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for table in [
        "order_by_id",
        "orders_by_customer",
        "orders_by_delivery_date",
    ] {
        let rows: Vec<(Uuid, String)> = super::all_rows(t, table, "order_id, status").await;
        out.extend(
            rows.into_iter()
                .filter(|(o, _)| *o == id)
                .map(|(_, s)| (table.to_owned(), s)),
        );
    }
    out
}

/// The migration command with the order tables as its models: its exit and its output.
async fn migrate(t: &TestDb, args: &[&str]) -> (cassmodel_cli::Exit, String) {
    let mut argv = vec!["--keyspace", t.keyspace()];
    argv.extend_from_slice(args);
    let models = Models::new()
        .table::<OrderById>()
        .table::<OrdersByCustomer>()
        .table::<OrdersByDeliveryDate>();
    support::migrate_command(models, &argv).await
}

/// Twenty orders, then one of each drift by plain CQL: found exactly (by the library and the
/// command), nothing written by a dry run, repaired, and a second check clean.
#[tokio::test]
async fn drift_injected_by_plain_cql_is_found_exactly_and_repaired() {
    let t = orders_db("e_drift").await;
    let orders: Vec<Order> = (0..20).map(|i| order(10 + i % 5)).collect();
    for o in &orders {
        o.save(&t.db).await.expect("save");
    }
    let clean = check_entity::<Order>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert!(clean.is_clean(), "{clean}");
    assert_eq!(clean.entities, 20);

    let [a, b, c, d, e] = [0, 1, 2, 3, 4].map(|i| &orders[i]);
    // A missing row: the order's by-customer row deleted.
    cql(
        &t,
        "DELETE FROM KS.orders_by_customer WHERE customer_id = ? AND delivery_date = ? AND \
         order_id = ?",
        (a.customer_id, a.delivery_date, a.order_id),
    )
    .await;
    // A different cell, written last in a derived table: it wins.
    cql(
        &t,
        "UPDATE KS.orders_by_customer SET status = 'lost' WHERE customer_id = ? AND \
         delivery_date = ? AND order_id = ?",
        (b.customer_id, b.delivery_date, b.order_id),
    )
    .await;
    // A different cell, written last in the identity table: it wins.
    cql(
        &t,
        "UPDATE KS.order_by_id SET status = 'shipped' WHERE order_id = ?",
        (c.order_id,),
    )
    .await;
    // A different TTL: the same value, written last with a TTL.
    cql(
        &t,
        "UPDATE KS.orders_by_delivery_date USING TTL 86400 SET status = 'placed' WHERE \
         delivery_date = ? AND order_id = ?",
        (d.delivery_date, d.order_id),
    )
    .await;
    // A stale row under an old key: the order listed on a day that is not its own.
    cql(
        &t,
        "INSERT INTO KS.orders_by_delivery_date (delivery_date, order_id, customer_id, status) \
         VALUES (?, ?, ?, 'placed')",
        (day(1), e.order_id, e.customer_id),
    )
    .await;
    // An extra row: an order no identity row has.
    let orphan = Uuid::new_v4();
    cql(
        &t,
        "INSERT INTO KS.orders_by_delivery_date (delivery_date, order_id, customer_id, status) \
         VALUES (?, ?, ?, 'placed')",
        (day(11), orphan, Uuid::new_v4()),
    )
    .await;

    let expected = vec![
        ("order_by_id".to_owned(), [20, 0, 0, 2, 2]),
        ("orders_by_customer".to_owned(), [19, 1, 0, 2, 2]),
        ("orders_by_delivery_date".to_owned(), [22, 0, 2, 2, 2]),
    ];
    let dry_run = DriftOptions::new().delete_extra();
    let dry = check_entity::<Order>(&t.db, &dry_run).await.expect("check");
    assert_eq!(counts(&dry), expected, "{dry}");
    assert!(!dry.is_clean());
    let by_date = table(&dry, "orders_by_delivery_date");
    let extra = by_date.first_extra.join("\n");
    assert!(
        extra.contains(&orphan.to_string()) && extra.contains("no identity row"),
        "{extra}"
    );
    assert!(
        extra.contains(&e.order_id.to_string()) && extra.contains("another key"),
        "{extra}"
    );
    let missing = &table(&dry, "orders_by_customer").first_missing;
    assert!(missing[0].contains(&a.order_id.to_string()), "{missing:?}");
    assert_eq!(
        [
            table(&dry, "order_by_id").written,
            table(&dry, "orders_by_customer").written,
            by_date.written,
            by_date.deleted
        ],
        [2, 3, 2, 2],
        "what the repair would write: {dry}"
    );

    // The command says the same and exits 7; a dry run wrote nothing.
    let (exit, out) = migrate(&t, &["check-entity", "Order"]).await;
    assert_eq!(exit, cassmodel_cli::Exit::Drift, "{out}");
    assert!(
        out.contains("orders_by_customer: 19 rows; 1 missing, 0 extra, 2 different"),
        "{out}"
    );
    assert!(out.contains("--repair"), "{out}");
    let again = check_entity::<Order>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert_eq!(counts(&again), expected, "a dry run wrote nothing: {again}");

    // Repaired, extra rows deleted: the latest write of each cell everywhere.
    let (exit, out) = migrate(&t, &["check-entity", "Order", "--repair", "--delete-extra"]).await;
    assert_eq!(exit, cassmodel_cli::Exit::Ok, "{out}");
    let after = check_entity::<Order>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert!(after.is_clean(), "{after}");
    assert_eq!(
        counts(&after),
        vec![
            ("order_by_id".to_owned(), [20, 0, 0, 0, 0]),
            ("orders_by_customer".to_owned(), [20, 0, 0, 0, 0]),
            ("orders_by_delivery_date".to_owned(), [20, 0, 0, 0, 0]),
        ]
    );
    let each = |s: &str| {
        [
            "order_by_id",
            "orders_by_customer",
            "orders_by_delivery_date",
        ]
        .map(|t| (t.to_owned(), s.to_owned()))
        .to_vec()
    };
    assert_eq!(
        statuses(&t, a.order_id).await,
        each("placed"),
        "missing row written"
    );
    assert_eq!(
        statuses(&t, b.order_id).await,
        each("lost"),
        "latest write wins"
    );
    assert_eq!(
        statuses(&t, c.order_id).await,
        each("shipped"),
        "latest write wins"
    );
    assert_eq!(
        statuses(&t, e.order_id).await,
        each("placed"),
        "stale row deleted"
    );
    assert_eq!(statuses(&t, orphan).await, [], "extra row deleted");
    for ttl in status_ttls(&t, d).await {
        assert!(
            ttl.is_some_and(|s| s > 86_000),
            "the winner's TTL everywhere: {ttl:?}"
        );
    }
    assert_eq!(status_ttls(&t, b).await, [None, None, None]);
    t.drop_all().await;
}

/// A video's rows per tag: a missing tag row, a row under a tag it no longer has and a
/// different title, found and repaired; extra rows are left (and listed) unless asked.
#[tokio::test]
async fn rows_per_element_drift_is_found_and_repaired() {
    let t = support::test_db("e_drift_tags").await;
    t.db.create_table::<VideoById>().await.expect("create");
    t.db.create_table::<VideosByTag>().await.expect("create");
    let v1 = Video {
        video_id: Uuid::new_v4(),
        title: "first".into(),
        tags: tags(&["a", "b", "c"]),
    };
    let v2 = Video {
        video_id: Uuid::new_v4(),
        title: "second".into(),
        tags: tags(&["b"]),
    };
    v1.save(&t.db).await.expect("save");
    v2.save(&t.db).await.expect("save");
    let id = v1.video_id;
    cql(
        &t,
        "DELETE FROM KS.videos_by_tag WHERE tag = 'b' AND video_id = ?",
        (id,),
    )
    .await;
    cql(
        &t,
        "INSERT INTO KS.videos_by_tag (tag, video_id, title) VALUES ('z', ?, 'first')",
        (id,),
    )
    .await;
    cql(
        &t,
        "UPDATE KS.video_by_id SET title = 'renamed' WHERE video_id = ?",
        (id,),
    )
    .await;
    let found = check_entity::<Video>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert_eq!(
        counts(&found),
        vec![
            ("video_by_id".to_owned(), [2, 0, 0, 0, 0]),
            ("videos_by_tag".to_owned(), [4, 1, 1, 2, 2]),
        ],
        "{found}"
    );
    // Repaired without deleting the extra row: it is still found, the rest agrees.
    let repair = DriftOptions::new().repair();
    check_entity::<Video>(&t.db, &repair).await.expect("repair");
    let after = check_entity::<Video>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert_eq!(
        counts(&after),
        vec![
            ("video_by_id".to_owned(), [2, 0, 0, 0, 0]),
            ("videos_by_tag".to_owned(), [5, 0, 1, 0, 0]),
        ],
        "{after}"
    );
    check_entity::<Video>(&t.db, &repair.delete_extra())
        .await
        .expect("repair");
    let clean = check_entity::<Video>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert!(clean.is_clean(), "{clean}");
    let rows: Vec<(String, Uuid, String)> =
        super::all_rows(&t, "videos_by_tag", "tag, video_id, title").await;
    let mut expected = vec![
        ("a".to_owned(), id, "renamed".to_owned()),
        ("b".to_owned(), id, "renamed".to_owned()),
        ("c".to_owned(), id, "renamed".to_owned()),
        ("b".to_owned(), v2.video_id, "second".to_owned()),
    ];
    expected.sort();
    assert_eq!(rows, expected);
    t.drop_all().await;
}

/// A user by id (the identity) and by email, whose row holds the user's id as a regular
/// column.
#[derive(cassmodel::CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(UserById, UserByEmail), identity = UserById)]
struct User {
    user_id: Uuid,
    email: String,
    name: String,
}

#[derive(cassmodel::CassTable, Debug, Clone, PartialEq)]
#[cass(entity = User)]
struct UserById {
    #[partition_key]
    user_id: Uuid,
    email: String,
    name: String,
}

#[derive(cassmodel::CassTable, Debug, Clone, PartialEq)]
#[cass(entity = User)]
struct UserByEmail {
    #[partition_key]
    email: String,
    user_id: Uuid,
    name: String,
}

/// The identity table's key decides a field another table holds as a regular column: a
/// missing by-email row is written back with its user's id, and a by-email row that names
/// another user gets its own back (a dry run also lists it as extra: traced by the id it
/// names, it belongs to no user; the repair's first pass mends it before the second reads it).
#[tokio::test]
async fn the_identity_key_decides_a_copy_held_as_a_regular_column() {
    let t = support::test_db("e_drift_users").await;
    t.db.create_table::<UserById>().await.expect("create");
    t.db.create_table::<UserByEmail>().await.expect("create");
    let user = |n: u8| User {
        user_id: Uuid::new_v4(),
        email: format!("u{n}@example.com"),
        name: format!("user {n}"),
    };
    let (a, b) = (user(1), user(2));
    a.save(&t.db).await.expect("save");
    b.save(&t.db).await.expect("save");
    cql(
        &t,
        "DELETE FROM KS.user_by_email WHERE email = ?",
        (&a.email,),
    )
    .await;
    cql(
        &t,
        "UPDATE KS.user_by_email SET user_id = ? WHERE email = ?",
        (Uuid::new_v4(), &b.email),
    )
    .await;
    let dry = check_entity::<User>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert_eq!(
        counts(&dry),
        vec![
            ("user_by_id".to_owned(), [2, 0, 0, 0, 0]),
            ("user_by_email".to_owned(), [1, 1, 1, 1, 1]),
        ],
        "{dry}"
    );
    let repair = DriftOptions::new().repair();
    let repaired = check_entity::<User>(&t.db, &repair).await.expect("repair");
    assert_eq!(
        counts(&repaired),
        vec![
            ("user_by_id".to_owned(), [2, 0, 0, 0, 0]),
            ("user_by_email".to_owned(), [2, 1, 0, 1, 1]),
        ],
        "{repaired}"
    );
    let after = check_entity::<User>(&t.db, &DriftOptions::new())
        .await
        .expect("check");
    assert!(after.is_clean(), "{after}");
    let rows: Vec<(String, Uuid, String)> =
        super::all_rows(&t, "user_by_email", "email, user_id, name").await;
    assert_eq!(
        rows,
        [
            (a.email.clone(), a.user_id, a.name.clone()),
            (b.email.clone(), b.user_id, b.name.clone()),
        ]
    );
    t.drop_all().await;
}
