//! Every seed model, created on a real node: the schema the server reports in
//! `system_schema.columns` must be exactly the one written in seed-models.md (partition key
//! and its order, clustering columns with their order and ASC/DESC, static columns, every
//! column's CQL type). The expectations below are copied from the articles' CQL, not derived
//! from the structs, so a wrong key order or type in the derive fails here.
//!
//! Then each model's sample rows are written and read back through the generated API.

#[path = "../examples/models/mod.rs"]
mod models;
mod support;

use std::collections::BTreeSet;

use cassmodel::Table;
use futures::TryStreamExt;
use support::TestDb;

/// The role of a column, as `system_schema.columns` reports it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Partition-key column at this position.
    Pk(i32),
    /// Clustering column at this position, "asc" or "desc".
    Ck(i32, &'static str),
    Static,
    Regular,
}
use Kind::*;

type Expected<'a> = (&'static str, &'a [(&'static str, &'static str, Kind)]);

/// (column, type, kind) rows of a table in `keyspace`, as the server reports them.
async fn server_columns(
    t: &TestDb,
    keyspace: &str,
    table: &str,
) -> BTreeSet<(String, String, Kind)> {
    let rows =
        t.db.session()
            .query_iter(
                "SELECT column_name, type, kind, position, clustering_order \
             FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
                (keyspace, table),
            )
            .await
            .expect("query system_schema.columns")
            .rows_stream::<(String, String, String, i32, String)>()
            .expect("row types")
            .try_collect::<Vec<_>>()
            .await
            .expect("read system_schema.columns");
    rows.into_iter()
        .map(|(name, typ, kind, pos, order)| {
            let kind = match (kind.as_str(), order.as_str()) {
                ("partition_key", _) => Pk(pos),
                ("clustering", "asc") => Ck(pos, "asc"),
                ("clustering", "desc") => Ck(pos, "desc"),
                ("static", _) => Static,
                ("regular", _) => Regular,
                other => panic!("unexpected kind/order {other:?} for {table}.{name}"),
            };
            (name, typ, kind)
        })
        .collect()
}

/// Creates a section's tables in fresh keyspaces and checks each against `expected`.
async fn check_section(
    test: &str,
    section: &models::Section,
    keyspaces: &[&str],
    expected: &[Expected<'_>],
) -> TestDb {
    let mut t = support::test_db(test).await;
    for ks in keyspaces {
        t.map_keyspace(ks).await;
    }
    let tables = (section.tables)();
    assert_eq!(
        tables.iter().map(|s| s.name).collect::<Vec<_>>(),
        expected.iter().map(|e| e.0).collect::<Vec<_>>(),
        "{}: the section's tables",
        section.title
    );
    for schema in &tables {
        for cql in schema.create_cql(t.db.resolve_keyspace(schema.keyspace).expect("keyspace")) {
            t.db.execute_ddl(&cql)
                .await
                .unwrap_or_else(|e| panic!("{cql}: {e}"));
        }
    }
    for (schema, (name, cols)) in tables.iter().zip(expected) {
        let ks =
            t.db.resolve_keyspace(schema.keyspace)
                .expect("keyspace")
                .to_owned();
        let actual = server_columns(&t, &ks, name).await;
        let want: BTreeSet<(String, String, Kind)> = cols
            .iter()
            .map(|(c, ty, k)| ((*c).to_owned(), (*ty).to_owned(), k.clone()))
            .collect();
        assert_eq!(
            actual, want,
            "{ks}.{name}: server schema differs from seed-models.md"
        );
    }
    t
}

#[tokio::test]
async fn a_social_posts() {
    let t = check_section(
        "seed_a",
        &models::social::SECTION,
        &[],
        &[(
            "posts_facebook",
            &[
                ("user_id", "uuid", Pk(0)),
                ("post_id", "timeuuid", Ck(0, "desc")),
                ("content", "text", Regular),
            ],
        )],
    )
    .await;
    let sample = models::social::sample();
    for p in &sample {
        t.db.insert(p).await.expect("insert");
    }
    let got = models::social::Post::partition(&t.db, &models::social::alice())
        .await
        .expect("read");
    let mut newest_first = sample.clone();
    newest_first.reverse();
    assert_eq!(got, newest_first, "DESC clustering returns newest first");
    t.drop_all().await;
}

#[tokio::test]
async fn b_gyms_by_city() {
    let t = check_section(
        "seed_b",
        &models::gyms::SECTION,
        &[],
        &[(
            "gyms_by_city",
            &[
                ("country_code", "text", Pk(0)),
                ("state", "text", Pk(1)),
                ("city", "text", Pk(2)),
                ("opening_date", "timestamp", Ck(0, "asc")),
                ("gym_name", "text", Ck(1, "asc")),
            ],
        )],
    )
    .await;
    let sample = models::gyms::sample();
    for g in &sample {
        t.db.insert(g).await.expect("insert");
    }
    let got = models::gyms::GymsByCity::partition(&t.db, "US", "Arizona", "Phoenix")
        .await
        .expect("read");
    let names: Vec<&str> = got.iter().map(|g| g.gym_name.as_str()).collect();
    assert_eq!(
        names,
        ["Desert Iron", "Camelback Fitness", "Sonoran Strength"]
    );
    t.drop_all().await;
}

#[tokio::test]
async fn c_customers_products_likes() {
    let like_cols =
        |pk: &'static str, ck2: &'static str| -> [(&'static str, &'static str, Kind); 6] {
            [
                (pk, "text", Pk(0)),
                ("liked_on", "timestamp", Ck(0, "desc")),
                (ck2, "text", Ck(1, "asc")),
                ("title", "text", Regular),
                ("first_name", "text", Regular),
                ("last_name", "text", Regular),
            ]
        };
    let by_product = like_cols("liked_prdt_id", "cust_id");
    let by_customer = like_cols("cust_id", "liked_prdt_id");
    let t = check_section(
        "seed_c",
        &models::likes::SECTION,
        &[],
        &[
            (
                "customer",
                &[
                    ("cust_id", "text", Pk(0)),
                    ("first_name", "text", Regular),
                    ("last_name", "text", Regular),
                    ("registered_on", "timestamp", Regular),
                ],
            ),
            (
                "product",
                &[("prdt_id", "text", Pk(0)), ("title", "text", Regular)],
            ),
            ("customer_by_liked_product", &by_product),
            ("product_liked_by_customer", &by_customer),
        ],
    )
    .await;
    t.drop_all().await;
}

#[tokio::test]
async fn d_documentation_tables() {
    let t = check_section(
        "seed_d",
        &models::docs::SECTION,
        &[],
        &[
            (
                "t1",
                &[
                    ("id", "int", Pk(0)),
                    ("k", "int", Regular),
                    ("v", "text", Regular),
                ],
            ),
            (
                "t2",
                &[
                    ("id", "int", Pk(0)),
                    ("c", "text", Ck(0, "asc")),
                    ("k", "int", Regular),
                    ("v", "text", Regular),
                ],
            ),
            (
                "t3",
                &[
                    ("id1", "int", Pk(0)),
                    ("id2", "int", Pk(1)),
                    ("c1", "text", Ck(0, "asc")),
                    ("c2", "text", Ck(1, "asc")),
                    ("k", "int", Regular),
                    ("v", "text", Regular),
                ],
            ),
            (
                "magazine_name",
                &[
                    ("id", "int", Pk(0)),
                    ("name", "text", Regular),
                    ("publication_frequency", "text", Regular),
                ],
            ),
            (
                "magazine_publisher",
                &[
                    ("publisher", "text", Pk(0)),
                    ("id", "int", Ck(0, "desc")),
                    ("name", "text", Regular),
                    ("publication_frequency", "text", Regular),
                ],
            ),
        ],
    )
    .await;
    for m in models::docs::magazines() {
        t.db.insert(&m).await.expect("insert");
    }
    let ids: Vec<i32> = models::docs::MagazinePublisher::partition(&t.db, "Acme Press")
        .await
        .expect("read")
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids, [3, 2, 1], "highest id first");
    t.drop_all().await;
}

#[tokio::test]
async fn e_online_supermarket() {
    use models::supermarket::*;
    let t = check_section(
        "seed_e",
        &SECTION,
        &KEYSPACES,
        &[
            (
                "customers",
                &[
                    ("id", "uuid", Pk(0)),
                    ("name", "text", Regular),
                    ("telephone", "text", Regular),
                    ("email", "text", Regular),
                    ("default_address_key", "text", Regular),
                ],
            ),
            (
                "customer_addresses",
                &[
                    ("customer_id", "uuid", Pk(0)),
                    ("address_key", "text", Ck(0, "asc")),
                    ("address", "frozen<address_type>", Regular),
                ],
            ),
            (
                "basket_by_customer",
                &[
                    ("customer_id", "uuid", Pk(0)),
                    ("products", "map<uuid, int>", Regular),
                ],
            ),
            (
                "delivery_timeslots",
                &[
                    ("delivery_date", "date", Pk(0)),
                    ("start_time", "time", Ck(0, "asc")),
                    ("delivery_team_id", "uuid", Ck(1, "asc")),
                    ("confirmed", "boolean", Regular),
                    ("customer_id", "uuid", Regular),
                    ("reservation_expiry", "timestamp", Regular),
                ],
            ),
            (
                "orders_by_customer",
                &[
                    ("customer_id", "uuid", Pk(0)),
                    ("order_id", "uuid", Ck(0, "asc")),
                    ("submission_time", "timestamp", Ck(1, "desc")),
                    ("products", "map<uuid, int>", Regular),
                    ("status", "text", Regular),
                    ("delivery_address_key", "text", Regular),
                    ("currency", "text", Regular),
                    ("item_subtotal", "double", Regular),
                    ("postage_packing_fee", "double", Regular),
                    ("vat", "double", Regular),
                    ("promotional_discount", "double", Regular),
                    ("remarks", "text", Regular),
                ],
            ),
            (
                "orders_by_delivery_date",
                &[
                    ("delivery_date", "date", Pk(0)),
                    ("delivery_team_id", "uuid", Pk(1)),
                    ("start_time", "time", Ck(0, "asc")),
                    ("order_id", "uuid", Ck(1, "asc")),
                    ("submission_time", "timestamp", Regular),
                    ("customer_id", "uuid", Regular),
                    ("delivery_address_key", "text", Regular),
                    ("status", "text", Regular),
                    ("products", "map<uuid, int>", Regular),
                    ("remarks", "text", Regular),
                ],
            ),
            (
                "orders_by_customer_month",
                &[
                    ("customer_id", "uuid", Pk(0)),
                    ("submission_time_month", "date", Pk(1)),
                    ("submission_time", "timestamp", Ck(0, "desc")),
                    ("order_id", "uuid", Ck(1, "asc")),
                    ("products", "map<uuid, int>", Regular),
                    ("status", "text", Regular),
                    ("item_subtotal", "double", Regular),
                ],
            ),
        ],
    )
    .await;

    // The UDT, as the server describes it.
    let customer_ks =
        t.db.resolve_keyspace(Some("customer"))
            .expect("mapped")
            .to_owned();
    let (fields, types) = support::plain_row::<(Vec<String>, Vec<String>)>(
        &t.db,
        "SELECT field_names, field_types FROM system_schema.types \
             WHERE keyspace_name = ? AND type_name = 'address_type'",
        (customer_ks.as_str(),),
    )
    .await;
    assert_eq!(fields, ["street_name", "city", "country", "zipcode"]);
    assert_eq!(types, ["text", "text", "text", "text"]);

    // Every column type round-trips: UDT, map, date, time, timestamp, double, null.
    let address = CustomerAddresses {
        customer_id: jane(),
        address_key: "home".into(),
        address: sample_address(),
    };
    t.db.insert(&address).await.expect("insert address");
    let order = sample_order();
    t.db.insert(&order).await.expect("insert order");
    let slot = DeliveryTimeslots {
        delivery_date: delivery_day(),
        start_time: hour(10),
        delivery_team_id: team(),
        confirmed: None,
        customer_id: Some(jane()),
        reservation_expiry: Some(models::at(6, 30, 18, 20)),
    };
    t.db.insert(&slot).await.expect("insert slot");
    assert_eq!(
        CustomerAddresses::get(&t.db, &jane(), "home")
            .await
            .expect("Q7"),
        Some(address)
    );
    assert_eq!(
        OrdersByCustomer::partition(&t.db, &jane())
            .await
            .expect("Q5"),
        vec![order]
    );
    assert_eq!(
        DeliveryTimeslots::partition(&t.db, &delivery_day())
            .await
            .expect("Q4"),
        vec![slot]
    );
    t.drop_all().await;
}

#[tokio::test]
async fn f_ebay_likes() {
    let t = check_section(
        "seed_f",
        &models::ebay::SECTION,
        &[],
        &[
            (
                "users",
                &[
                    ("user_id", "uuid", Pk(0)),
                    ("name", "text", Regular),
                    ("email", "text", Regular),
                ],
            ),
            (
                "items",
                &[
                    ("item_id", "uuid", Pk(0)),
                    ("title", "text", Regular),
                    ("description", "text", Regular),
                    ("price", "decimal", Regular),
                ],
            ),
            (
                "users_by_item",
                &[
                    ("item_id", "uuid", Pk(0)),
                    ("liked_at", "timeuuid", Ck(0, "desc")),
                    ("user_id", "uuid", Ck(1, "asc")),
                    ("user_name", "text", Regular),
                ],
            ),
            (
                "items_by_user",
                &[
                    ("user_id", "uuid", Pk(0)),
                    ("liked_at", "timeuuid", Ck(0, "desc")),
                    ("item_id", "uuid", Ck(1, "asc")),
                    ("item_title", "text", Regular),
                ],
            ),
        ],
    )
    .await;
    let item = models::ebay::camera();
    t.db.insert(&item).await.expect("insert");
    assert_eq!(
        models::ebay::Items::get(&t.db, &item.item_id)
            .await
            .expect("get"),
        Some(item),
        "decimal round-trips"
    );
    t.drop_all().await;
}

#[tokio::test]
async fn g_keys_tutorial() {
    let t = check_section(
        "seed_g",
        &models::keys::SECTION,
        &[],
        &[
            (
                "users_by_mainland",
                &[
                    ("mainland", "text", Pk(0)),
                    ("state", "text", Ck(0, "asc")),
                    ("uid", "int", Ck(1, "asc")),
                    ("name", "text", Regular),
                    ("zip", "int", Regular),
                ],
            ),
            (
                "key_parts",
                &[
                    ("key_part_one", "text", Pk(0)),
                    ("key_part_two", "int", Ck(0, "asc")),
                    ("data", "text", Regular),
                ],
            ),
            (
                "wide",
                &[
                    ("col1", "text", Pk(0)),
                    ("col2", "text", Pk(1)),
                    ("col10", "text", Ck(0, "asc")),
                    ("col4", "text", Ck(1, "asc")),
                    ("data", "text", Regular),
                ],
            ),
        ],
    )
    .await;
    for u in models::keys::mainland_users() {
        t.db.insert(&u).await.expect("insert");
    }
    let states: Vec<String> = models::keys::UsersByMainland::partition(&t.db, "northamerica")
        .await
        .expect("read")
        .into_iter()
        .map(|u| u.state)
        .collect();
    assert_eq!(states, ["ca", "de", "de", "ny", "tx"]);
    t.drop_all().await;
}

/// The statements `Db::create_table` sends are the ones `ddl` renders, and running them twice
/// is harmless (`IF NOT EXISTS`).
#[tokio::test]
async fn create_all_is_idempotent() {
    let mut t = support::test_db("seed_all").await;
    for ks in models::supermarket::KEYSPACES {
        t.map_keyspace(ks).await;
    }
    let replication = cassmodel::Replication::Simple(1);
    models::create_all(&t.db, &replication)
        .await
        .expect("first");
    models::create_all(&t.db, &replication)
        .await
        .expect("second");
    let n: usize = models::SECTIONS.iter().map(|s| (s.tables)().len()).sum();
    assert_eq!(n, 25);
    assert!(models::social::Post::schema().keyspace.is_none());
    t.drop_all().await;
}
