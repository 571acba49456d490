//! Migrations from structs, on the real node.
//!
//! The walk: the online supermarket (seed-models.md, section E) through five versions (add a
//! column, add a static column, add a UDT field, add a query table and change a table
//! option), then three changes that are refused or left alone (a clustering order, a type, a
//! removed column), an explicitly allowed drop, and a refused re-add of the dropped column.
//! At each step the plan's CQL is exactly the expected text, the same plan computed twice is
//! the same text, applying works, every row written before reads back unchanged (count and
//! content), a refused change leaves the schema untouched, and the plan after applying is
//! empty.
//!
//! Each version is a module of structs with the same table names, listed explicitly (the
//! registry of this binary holds every version at once; `registry_*` tests it).

// The derives' registration (`inventory::submit!`) needs no unsafe code in the user's crate.
#![forbid(unsafe_code)]

#[path = "../examples/models/mod.rs"]
mod models;
mod support;
use support::migrator;

use std::collections::BTreeMap;

use cassmodel::migrate::{
    Change, MigrationError, MigrationPlan, Migrator, Models, Unmanaged, registered_tables,
    registered_udts,
};
use cassmodel::{CassTable, Db, Table};
use cassmodel_cli as cli;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use futures::TryStreamExt;
use models::supermarket as v1;
use uuid::Uuid;

/// Version 2: a new column.
mod v2 {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(keyspace = "customer", table = "customers")]
    pub struct CustomerRecord {
        #[partition_key]
        pub id: Uuid,
        pub name: String,
        pub telephone: Option<String>,
        pub email: Option<String>,
        pub default_address_key: Option<String>,
        pub loyalty_points: Option<i32>,
    }
}

/// Version 3: a new static column (one note per delivery day).
mod v3 {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(keyspace = "order_delivery")]
    pub struct DeliveryTimeslots {
        #[partition_key]
        pub delivery_date: NaiveDate,
        #[clustering]
        pub start_time: NaiveTime,
        #[clustering]
        pub delivery_team_id: Uuid,
        pub confirmed: Option<bool>,
        pub customer_id: Option<Uuid>,
        pub reservation_expiry: Option<DateTime<Utc>>,
        #[cass(static)]
        pub day_note: Option<String>,
    }
}

/// Version 4: a new field in the address type.
mod v4 {
    use super::*;
    use cassmodel::CassUdt;

    #[derive(CassUdt, Debug, Clone, PartialEq)]
    #[cass(name = "address_type")]
    pub struct Address {
        pub street_name: String,
        pub city: String,
        pub country: String,
        pub zipcode: String,
        pub region: Option<String>,
    }

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(keyspace = "customer")]
    pub struct CustomerAddresses {
        #[partition_key]
        pub customer_id: Uuid,
        #[clustering]
        pub address_key: String,
        #[cass(frozen)]
        pub address: Address,
    }
}

/// Version 5: a new query table, and a comment on the timeslots table.
mod v5 {
    use super::*;

    /// Orders by status, newest first.
    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(keyspace = "order_delivery")]
    pub struct OrdersByStatus {
        #[partition_key]
        pub status: String,
        #[clustering(desc)]
        pub submission_time: DateTime<Utc>,
        #[clustering]
        pub order_id: Uuid,
        pub customer_id: Uuid,
    }

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(
        keyspace = "order_delivery",
        comment = "Delivery slots: one partition per day"
    )]
    pub struct DeliveryTimeslots {
        #[partition_key]
        pub delivery_date: NaiveDate,
        #[clustering]
        pub start_time: NaiveTime,
        #[clustering]
        pub delivery_team_id: Uuid,
        pub confirmed: Option<bool>,
        pub customer_id: Option<Uuid>,
        pub reservation_expiry: Option<DateTime<Utc>>,
        #[cass(static)]
        pub day_note: Option<String>,
    }
}

/// Version 6 (from v1): indexes on tables that already hold rows, a customer's `email` and
/// the product ids (map keys) of a basket.
mod v6 {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(keyspace = "customer", table = "customers")]
    pub struct CustomerRecord {
        #[partition_key]
        pub id: Uuid,
        pub name: String,
        pub telephone: Option<String>,
        #[cass(index)]
        pub email: Option<String>,
        pub default_address_key: Option<String>,
    }

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(keyspace = "customer")]
    pub struct BasketByCustomer {
        #[partition_key]
        pub customer_id: Uuid,
        #[cass(index(keys, name = "baskets_by_product"))]
        pub products: BTreeMap<Uuid, i32>,
    }

    /// The same table with the index on the values instead: a different definition under
    /// the same name.
    pub mod by_quantity {
        use super::*;

        #[derive(CassTable, Debug, Clone, PartialEq)]
        #[cass(keyspace = "customer")]
        pub struct BasketByCustomer {
            #[partition_key]
            pub customer_id: Uuid,
            #[cass(index(values, name = "baskets_by_product"))]
            pub products: BTreeMap<Uuid, i32>,
        }
    }
}

/// A table created with indexes: a reserved word as the indexed column, and a set.
mod indexed {
    use super::*;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "notes")]
    pub struct Note {
        #[partition_key]
        pub id: i32,
        #[cass(name = "select", index)]
        pub chosen: String,
        #[cass(index)]
        pub tags: std::collections::BTreeSet<String>,
    }
}

fn v6_models() -> Models {
    Models::new()
        .table::<v6::CustomerRecord>()
        .table::<v1::CustomerAddresses>()
        .table::<v6::BasketByCustomer>()
        .table::<v1::DeliveryTimeslots>()
        .table::<v1::OrdersByCustomer>()
        .table::<v1::OrdersByDeliveryDate>()
}

/// `(index_name, target, class_name)` of every index of `keyspace.table`, from
/// `system_schema.indexes`.
async fn live_indexes(db: &Db, keyspace: &str, table: &str) -> Vec<(String, String, String)> {
    let cql = "SELECT index_name, options FROM system_schema.indexes WHERE keyspace_name = ? \
               AND table_name = ?";
    let rows: Vec<(String, BTreeMap<String, String>)> = db
        .session()
        .query_iter(cql, (keyspace, table))
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .rows_stream::<(String, BTreeMap<String, String>)>()
        .expect("index rows")
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"));
    rows.into_iter()
        .map(|(name, mut o)| {
            let target = o.remove("target").unwrap_or_default();
            let class = o.remove("class_name").unwrap_or_default();
            (name, target, class)
        })
        .collect()
}

/// The first column of every row `cql` returns with `values` bound, sorted. Plain CQL
/// without ALLOW FILTERING: the server runs it only with an index on the restricted column.
async fn uuids<V: scylla::serialize::row::SerializeRow>(
    db: &Db,
    cql: &str,
    values: V,
) -> Vec<Uuid> {
    let mut out: Vec<Uuid> = db
        .session()
        .query_iter(cql, values)
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .rows_stream::<(Uuid,)>()
        .expect("rows")
        .map_ok(|(id,)| id)
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"));
    out.sort();
    out
}

/// Indexes added to tables that hold rows: the plan is exactly the two `CREATE INDEX`,
/// applying them leaves the rows as they were, `system_schema.indexes` has them with the
/// declared targets, queries that need them work (without ALLOW FILTERING), and the next
/// plan is empty. Then the same name with another target is refused.
#[tokio::test]
async fn indexes_added_to_tables_with_rows() {
    let (t, c, _) = supermarket_db("migr_index").await;
    let db = &t.db;
    migrator(db, v1_models()).apply().await.expect("v1");
    v1::demo(db).await.expect("v1 rows");
    let bob = models::id(0xb0b);
    db.insert(&v1::CustomerRecord {
        id: bob,
        name: "Bob".into(),
        telephone: None,
        email: Some("bob@example.com".into()),
        default_address_key: None,
    })
    .await
    .expect("bob");
    let apple = models::id(0xa991e);
    let pear = models::id(0x9ea2);
    db.insert(&v1::BasketByCustomer {
        customer_id: bob,
        products: BTreeMap::from([(pear, 2)]),
    })
    .await
    .expect("bob's basket");

    // Without the index the server refuses the query (so the check below proves the index).
    let by_email = format!("SELECT id FROM {c}.customers WHERE email = ?");
    let no_index = db
        .session()
        .query_unpaged(by_email.as_str(), ("bob@example.com",))
        .await
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(no_index.contains("ALLOW FILTERING"), "{no_index}");

    if support::refused_before_cassandra_5(db, &migrator(db, v6_models())).await {
        return t.drop_all().await;
    }
    step(
        db,
        &v1_models(),
        v6_models(),
        &[
            format!(
                "CREATE INDEX IF NOT EXISTS baskets_by_product ON {c}.basket_by_customer \
                 (keys(products)) USING 'sai'"
            ),
            format!("CREATE INDEX IF NOT EXISTS customers_email_idx ON {c}.customers (email) USING 'sai'"),
        ],
    )
    .await;
    assert_eq!(rows(&snapshot(db, &v6_models()).await), 10);
    assert_eq!(
        live_indexes(db, &c, "customers").await,
        [("customers_email_idx".into(), "email".into(), "sai".into())]
    );
    assert_eq!(
        live_indexes(db, &c, "basket_by_customer").await,
        [(
            "baskets_by_product".into(),
            "keys(products)".into(),
            "sai".into()
        )]
    );
    assert_eq!(uuids(db, &by_email, ("bob@example.com",)).await, [bob]);
    assert_eq!(
        uuids(db, &by_email, ("jane@example.com",)).await,
        [v1::jane()]
    );
    assert!(
        uuids(db, &by_email, ("nobody@example.com",))
            .await
            .is_empty()
    );
    let by_product =
        format!("SELECT customer_id FROM {c}.basket_by_customer WHERE products CONTAINS KEY ?");
    assert_eq!(uuids(db, &by_product, (apple,)).await, [v1::jane()]);
    assert_eq!(uuids(db, &by_product, (pear,)).await, [bob]);
    // The typed API reads the indexed tables as before.
    let jane = v6::CustomerRecord::get(db, &v1::jane())
        .await
        .expect("read v6")
        .expect("jane");
    assert_eq!(jane.email.as_deref(), Some("jane@example.com"));

    // The same index name with another target: refused, nothing changes.
    let p = refused(
        db,
        &v6_models(),
        Models::new()
            .table::<v6::CustomerRecord>()
            .table::<v6::by_quantity::BasketByCustomer>(),
    )
    .await;
    assert!(p.steps.is_empty(), "{p}");
    assert_eq!(p.refused.len(), 1, "{p}");
    let r = &p.refused[0];
    assert_eq!(
        (r.table.as_str(), r.column.as_deref()),
        (format!("{c}.basket_by_customer").as_str(), Some("products"))
    );
    assert_eq!(
        r.old,
        format!(
            "CREATE INDEX baskets_by_product ON {c}.basket_by_customer (keys(products)) USING 'sai'"
        )
    );
    assert_eq!(
        r.new,
        format!(
            "CREATE INDEX baskets_by_product ON {c}.basket_by_customer (values(products)) USING 'sai'"
        )
    );
    assert!(
        r.advice
            .contains(&format!("DROP INDEX {c}.baskets_by_product")),
        "{}",
        r.advice
    );
    let e = migrator(
        db,
        Models::new().table::<v6::by_quantity::BasketByCustomer>(),
    )
    .validate()
    .await
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("baskets_by_product"), "{e}");

    // Back to the v1 models: the indexes are listed, never dropped.
    let p = plan(&migrator(db, v1_models())).await;
    assert!(p.is_empty(), "{p}");
    let listed: Vec<String> = p.unmanaged.iter().map(ToString::to_string).collect();
    assert_eq!(
        listed,
        [
            format!("index {c}.baskets_by_product on basket_by_customer (keys(products))"),
            format!("index {c}.customers_email_idx on customers (email)"),
        ]
    );
    t.drop_all().await;
}

/// A new table with indexes: created, then its indexes; a reserved word as the indexed
/// column and a set's values both work in queries.
#[tokio::test]
async fn a_new_table_with_indexes() {
    let t = support::test_db("migr_index_new").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    let models = || Models::new().table::<indexed::Note>();
    if support::refused_before_cassandra_5(db, &migrator(db, models())).await {
        return t.drop_all().await;
    }
    step(
        db,
        &Models::new(),
        models(),
        &[
            format!(
                "CREATE TABLE IF NOT EXISTS {ks}.notes (id int, \"select\" text, tags set<text>, \
                 PRIMARY KEY (id))"
            ),
            format!(
                "CREATE INDEX IF NOT EXISTS notes_select_idx ON {ks}.notes (\"select\") USING 'sai'"
            ),
            format!(
                "CREATE INDEX IF NOT EXISTS notes_tags_idx ON {ks}.notes (values(tags)) USING 'sai'"
            ),
        ],
    )
    .await;
    assert_eq!(
        live_indexes(db, &ks, "notes").await,
        [
            ("notes_select_idx".into(), "\"select\"".into(), "sai".into()),
            ("notes_tags_idx".into(), "values(tags)".into(), "sai".into()),
        ]
    );
    for (id, chosen, tags) in [
        (1, "a", &["red", "blue"][..]),
        (2, "b", &["red"]),
        (3, "a", &[]),
    ] {
        db.insert(&indexed::Note {
            id,
            chosen: chosen.into(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        })
        .await
        .expect("note");
    }
    let ids = |cql: String, v: &'static str| async move {
        let mut out: Vec<i32> = db
            .session()
            .query_iter(cql.as_str(), (v,))
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"))
            .rows_stream::<(i32,)>()
            .expect("rows")
            .map_ok(|(id,)| id)
            .try_collect()
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"));
        out.sort();
        out
    };
    assert_eq!(
        ids(
            format!("SELECT id FROM {ks}.notes WHERE \"select\" = ?"),
            "a"
        )
        .await,
        [1, 3]
    );
    assert_eq!(
        ids(
            format!("SELECT id FROM {ks}.notes WHERE tags CONTAINS ?"),
            "red"
        )
        .await,
        [1, 2]
    );
    assert_eq!(
        ids(
            format!("SELECT id FROM {ks}.notes WHERE tags CONTAINS ?"),
            "blue"
        )
        .await,
        [1]
    );
    t.drop_all().await;
}

/// `orders_by_customer` with a changed clustering order, a changed type, a removed column,
/// and the removed column back with another type.
mod changed {
    #![allow(dead_code)] // the query builders of these versions are not used

    use super::*;

    macro_rules! orders_by_customer {
        ($module:ident, [$($order:tt)*], $vat:ty, { $($remarks:tt)* }) => {
            pub mod $module {
                use super::*;
                #[derive(CassTable, Debug, Clone, PartialEq)]
                #[cass(keyspace = "order_delivery")]
                pub struct OrdersByCustomer {
                    #[partition_key]
                    pub customer_id: Uuid,
                    #[clustering(asc)]
                    pub order_id: Uuid,
                    #[clustering($($order)*)]
                    pub submission_time: DateTime<Utc>,
                    pub products: BTreeMap<Uuid, i32>,
                    pub status: String,
                    pub delivery_address_key: String,
                    pub currency: String,
                    pub item_subtotal: f64,
                    pub postage_packing_fee: f64,
                    pub vat: $vat,
                    pub promotional_discount: Option<f64>,
                    $($remarks)*
                }
            }
        };
    }

    orders_by_customer!(order_asc, [asc], f64, { pub remarks: Option<String>, });
    orders_by_customer!(vat_float, [desc], f32, { pub remarks: Option<String>, });
    orders_by_customer!(no_remarks, [desc], f64, {});
    orders_by_customer!(remarks_int, [desc], f64, { pub remarks: Option<i32>, });
}

/// The supermarket's models of one version: its customer record, addresses and delivery
/// timeslots, beside the tables no version changes.
fn supermarket<Customer: Table, Addresses: Table, Timeslots: Table>() -> Models {
    Models::new()
        .table::<Customer>()
        .table::<Addresses>()
        .table::<v1::BasketByCustomer>()
        .table::<Timeslots>()
        .table::<v1::OrdersByCustomer>()
        .table::<v1::OrdersByDeliveryDate>()
}

fn v1_models() -> Models {
    supermarket::<v1::CustomerRecord, v1::CustomerAddresses, v1::DeliveryTimeslots>()
}

fn v2_models() -> Models {
    supermarket::<v2::CustomerRecord, v1::CustomerAddresses, v1::DeliveryTimeslots>()
}

fn v3_models() -> Models {
    supermarket::<v2::CustomerRecord, v1::CustomerAddresses, v3::DeliveryTimeslots>()
}

fn v4_models() -> Models {
    supermarket::<v2::CustomerRecord, v4::CustomerAddresses, v3::DeliveryTimeslots>()
}

/// v5 with another `orders_by_customer`.
fn v5_models_with(orders_by_customer: &'static cassmodel::schema::TableSchema) -> Models {
    Models::new()
        .table::<v2::CustomerRecord>()
        .table::<v4::CustomerAddresses>()
        .table::<v1::BasketByCustomer>()
        .table::<v5::DeliveryTimeslots>()
        .table_schema(orders_by_customer)
        .table::<v1::OrdersByDeliveryDate>()
        .table::<v5::OrdersByStatus>()
}

fn v5_models() -> Models {
    v5_models_with(v1::OrdersByCustomer::schema())
}

/// A test's keyspaces: `customer` mapped to a new keyspace that exists, `order_delivery`
/// mapped to one that does not (the first plan creates it).
async fn supermarket_db(test: &str) -> (support::TestDb, String, String) {
    let mut t = support::test_db(test).await;
    t.map_keyspace("customer").await;
    let od = format!("{}_od", t.keyspace());
    t.db = t.db.map_keyspace("order_delivery", &od).expect("map");
    t.keyspaces.push(od.clone());
    let c =
        t.db.resolve_keyspace(Some("customer"))
            .expect("mapped")
            .to_owned();
    (t, c, od)
}

/// The plan, checked to be the same text when computed twice.
async fn plan(m: &Migrator) -> MigrationPlan {
    let a = m.plan().await.unwrap_or_else(|e| panic!("plan: {e}"));
    let b = m.plan().await.unwrap_or_else(|e| panic!("plan: {e}"));
    assert_eq!(a.to_string(), b.to_string(), "the same plan twice");
    a
}

/// Every row of every table of `models`, as JSON of the columns those models have (user-defined
/// types field by field, so a field added later does not change the text), sorted.
async fn snapshot(db: &Db, models: &Models) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for t in models.tables() {
        let ks = db.resolve_keyspace(t.keyspace).expect("keyspace");
        let mut selectors = Vec::new();
        for c in &t.columns {
            let udt = c
                .cql_type
                .udt_names()
                .first()
                .and_then(|n| c.udts().iter().find(|u| u.name == *n));
            match udt {
                Some(u) => {
                    selectors.extend(u.fields.iter().map(|f| format!("{}.{}", c.name, f.name)))
                }
                None => selectors.push(c.name.to_owned()),
            }
        }
        let cql = format!("SELECT JSON {} FROM {ks}.{}", selectors.join(", "), t.name);
        let mut rows: Vec<String> = db
            .session()
            .query_iter(cql.as_str(), &[])
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"))
            .rows_stream::<(String,)>()
            .expect("json rows")
            .map_ok(|(j,)| j)
            .try_collect()
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"));
        rows.sort();
        out.insert(format!("{ks}.{}", t.name), rows);
    }
    out
}

fn rows(s: &BTreeMap<String, Vec<String>>) -> usize {
    s.values().map(Vec::len).sum()
}

/// Applies `models` after checking the plan's statements, and checks that the rows of
/// `before` read back unchanged and that the plan afterwards is empty.
async fn step(db: &Db, before: &Models, models: Models, expected: &[String]) -> Migrator {
    let m = migrator(db, models);
    let p = plan(&m).await;
    println!("{p}");
    assert!(p.refused.is_empty(), "{p}");
    assert_eq!(p.statements(), expected, "the plan:\n{p}");
    let data = snapshot(db, before).await;
    let report = m.apply().await.unwrap_or_else(|e| panic!("apply: {e}"));
    assert_eq!(report.applied.len(), expected.len());
    let after = snapshot(db, before).await;
    assert_eq!(rows(&after), rows(&data), "row count");
    assert_eq!(after, data, "the rows written before read back unchanged");
    let p = plan(&m).await;
    assert!(p.is_empty(), "up to date: {p}");
    m.validate()
        .await
        .unwrap_or_else(|e| panic!("validate: {e}"));
    m
}

/// A refused plan: `apply` runs nothing, the schema and the rows stay as they were.
async fn refused(db: &Db, current: &Models, models: Models) -> MigrationPlan {
    let m = migrator(db, models);
    let p = plan(&m).await;
    println!("{p}");
    let schema = m.live_schema().await.expect("live schema");
    let data = snapshot(db, current).await;
    match m.apply().await {
        Err(MigrationError::Refused(r)) => assert_eq!(r, p.refused),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        m.live_schema().await.expect("live schema"),
        schema,
        "schema untouched"
    );
    assert_eq!(snapshot(db, current).await, data, "rows untouched");
    p
}

#[tokio::test]
async fn supermarket_version_walk() {
    let (t, c, o) = supermarket_db("migr_walk").await;
    let db = &t.db;
    let simple = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

    // v1: the seed model, from nothing (the `customer` keyspace exists, `order_delivery` not).
    step(
        db,
        &Models::new(),
        v1_models(),
        &[
            format!("CREATE KEYSPACE IF NOT EXISTS {o} WITH replication = {simple}"),
            format!(
                "CREATE TYPE IF NOT EXISTS {c}.address_type (street_name text, city text, \
                 country text, zipcode text)"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {c}.basket_by_customer (customer_id uuid, \
                 products map<uuid, int>, PRIMARY KEY (customer_id))"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {c}.customer_addresses (customer_id uuid, \
                 address_key text, address frozen<address_type>, PRIMARY KEY (customer_id, \
                 address_key)) WITH CLUSTERING ORDER BY (address_key ASC)"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {c}.customers (id uuid, name text, telephone text, \
                 email text, default_address_key text, PRIMARY KEY (id))"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {o}.delivery_timeslots (delivery_date date, \
                 start_time time, delivery_team_id uuid, confirmed boolean, customer_id uuid, \
                 reservation_expiry timestamp, PRIMARY KEY (delivery_date, start_time, \
                 delivery_team_id)) WITH CLUSTERING ORDER BY (start_time ASC, delivery_team_id ASC)"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {o}.orders_by_customer (customer_id uuid, order_id uuid, \
                 submission_time timestamp, products map<uuid, int>, status text, \
                 delivery_address_key text, currency text, item_subtotal double, \
                 postage_packing_fee double, vat double, promotional_discount double, remarks text, \
                 PRIMARY KEY (customer_id, order_id, submission_time)) WITH CLUSTERING ORDER BY \
                 (order_id ASC, submission_time DESC)"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {o}.orders_by_delivery_date (delivery_date date, \
                 delivery_team_id uuid, start_time time, order_id uuid, submission_time timestamp, \
                 customer_id uuid, delivery_address_key text, status text, products map<uuid, int>, \
                 remarks text, PRIMARY KEY ((delivery_date, delivery_team_id), start_time, \
                 order_id)) WITH CLUSTERING ORDER BY (start_time ASC, order_id ASC)"
            ),
        ],
    )
    .await;
    // The seed's sample rows (customer, address, basket, three slots, an order in both tables).
    v1::demo(db).await.expect("v1 rows");
    assert_eq!(rows(&snapshot(db, &v1_models()).await), 8);

    // v2: a column.
    step(
        db,
        &v1_models(),
        v2_models(),
        &[format!(
            "ALTER TABLE {c}.customers ADD IF NOT EXISTS loyalty_points int"
        )],
    )
    .await;
    let jane = v2::CustomerRecord::get(db, &v1::jane())
        .await
        .expect("read v2")
        .expect("jane");
    assert_eq!(
        (jane.name.as_str(), jane.loyalty_points),
        ("Jane Doe", None)
    );
    db.insert(&v2::CustomerRecord {
        id: models::id(0xb0b),
        name: "Bob".into(),
        telephone: None,
        email: None,
        default_address_key: None,
        loyalty_points: Some(42),
    })
    .await
    .expect("v2 row");

    // v3: a static column.
    step(
        db,
        &v2_models(),
        v3_models(),
        &[format!(
            "ALTER TABLE {o}.delivery_timeslots ADD IF NOT EXISTS day_note text STATIC"
        )],
    )
    .await;
    let slots = v3::DeliveryTimeslots::partition(db, &v1::delivery_day())
        .await
        .expect("read v3");
    assert_eq!(slots.len(), 3);
    assert!(slots.iter().all(|s| s.day_note.is_none()));
    let mut slot = slots[0].clone();
    slot.start_time = v1::hour(12);
    slot.day_note = Some("short day".into());
    db.insert(&slot).await.expect("v3 row");

    // v4: a UDT field.
    step(
        db,
        &v3_models(),
        v4_models(),
        &[format!(
            "ALTER TYPE {c}.address_type ADD IF NOT EXISTS region text"
        )],
    )
    .await;
    let home = v4::CustomerAddresses::get(db, &v1::jane(), "home")
        .await
        .expect("read v4")
        .expect("home");
    assert_eq!(home.address.street_name, v1::sample_address().street_name);
    assert_eq!(home.address.region, None);
    let mut work = home.clone();
    work.address_key = "work".into();
    work.address.region = Some("Greater London".into());
    db.insert(&work).await.expect("v4 row");

    // v5: a new query table and a table option.
    step(
        db,
        &v4_models(),
        v5_models(),
        &[
            format!(
                "ALTER TABLE {o}.delivery_timeslots WITH comment = 'Delivery slots: one \
                 partition per day'"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {o}.orders_by_status (status text, submission_time \
                 timestamp, order_id uuid, customer_id uuid, PRIMARY KEY (status, \
                 submission_time, order_id)) WITH CLUSTERING ORDER BY (submission_time DESC, \
                 order_id ASC)"
            ),
        ],
    )
    .await;
    let order = v1::sample_order();
    db.insert(&v5::OrdersByStatus {
        status: order.status.clone(),
        submission_time: order.submission_time,
        order_id: order.order_id,
        customer_id: order.customer_id,
    })
    .await
    .expect("v5 row");
    let v5_rows = snapshot(db, &v5_models()).await;
    assert_eq!(rows(&v5_rows), 12);

    // A clustering order change: refused, nothing changes.
    let p = refused(
        db,
        &v5_models(),
        v5_models_with(changed::order_asc::OrdersByCustomer::schema()),
    )
    .await;
    assert!(p.steps.is_empty(), "{p}");
    assert_eq!(p.refused.len(), 1, "{p}");
    let r = &p.refused[0];
    assert_eq!(r.table, format!("{o}.orders_by_customer"));
    assert_eq!(r.column.as_deref(), Some("submission_time"));
    assert_eq!(
        r.old,
        "CLUSTERING ORDER BY (order_id ASC, submission_time DESC)"
    );
    assert_eq!(
        r.new,
        "CLUSTERING ORDER BY (order_id ASC, submission_time ASC)"
    );
    assert!(r.advice.contains("orders_by_customer_v2") && r.advice.contains("backfill"));

    // A type change: refused, nothing changes.
    let p = refused(
        db,
        &v5_models(),
        v5_models_with(changed::vat_float::OrdersByCustomer::schema()),
    )
    .await;
    assert_eq!(p.refused.len(), 1, "{p}");
    let r = &p.refused[0];
    assert_eq!(
        (r.column.as_deref(), r.old.as_str(), r.new.as_str()),
        (Some("vat"), "vat double", "vat float")
    );
    let e = MigrationError::Refused(p.refused.clone()).to_string();
    assert!(
        e.contains(&format!(
            "`{o}.orders_by_customer`, `vat`: the column's type differs; Cassandra cannot \
             change a column's type"
        )),
        "{e}"
    );

    // A removed column: listed, not dropped; the plan is empty and the data stays.
    let no_remarks = || v5_models_with(changed::no_remarks::OrdersByCustomer::schema());
    let m = migrator(db, no_remarks());
    let p = plan(&m).await;
    assert!(p.is_empty(), "{p}");
    assert_eq!(
        p.unmanaged,
        [Unmanaged::Column {
            keyspace: o.clone(),
            table: "orders_by_customer".into(),
            column: "remarks".into(),
            cql_type: "text".into(),
        }]
    );
    let report = m.apply().await.expect("apply nothing");
    assert!(report.applied.is_empty());
    assert_eq!(snapshot(db, &v5_models()).await, v5_rows, "remarks kept");

    // Dropping it needs an opt-in for that column.
    let m = migrator(db, no_remarks()).allow_drop(&o, "orders_by_customer", "remarks");
    let p = plan(&m).await;
    assert_eq!(
        p.statements(),
        [format!(
            "ALTER TABLE {o}.orders_by_customer DROP IF EXISTS remarks"
        )]
    );
    let before = snapshot(db, &no_remarks()).await;
    m.apply().await.expect("drop");
    assert_eq!(
        snapshot(db, &no_remarks()).await,
        before,
        "the other columns"
    );
    assert!(plan(&migrator(db, no_remarks())).await.is_empty());

    // Re-adding it with another type is refused before the server refuses it.
    let p = refused(
        db,
        &no_remarks(),
        v5_models_with(changed::remarks_int::OrdersByCustomer::schema()),
    )
    .await;
    assert_eq!(p.refused.len(), 1, "{p}");
    assert_eq!(p.refused[0].old, "remarks text (dropped)");
    assert_eq!(p.refused[0].new, "remarks int");

    t.drop_all().await;
}

/// An apply interrupted after some steps completes when run again; then the plan is empty.
#[tokio::test]
async fn interrupted_apply_completes() {
    let (t, _, _) = supermarket_db("migr_resume").await;
    let m = migrator(&t.db, v5_models());
    let full = plan(&m).await;
    assert_eq!(full.steps.len(), 9, "{full}");
    let mut first = full.clone();
    first.steps.truncate(4); // keyspace, type, two tables
    let report = m.apply_plan(&first).await.expect("first part");
    assert_eq!(report.applied.len(), 4);
    let rest = plan(&m).await;
    assert_eq!(
        rest.steps,
        full.steps[4..].to_vec(),
        "the plan resumes where it stopped"
    );
    // Running the whole original plan again: the done steps are skipped, not repeated.
    let report = m.apply_plan(&full).await.expect("resume");
    assert_eq!(report.already_applied, full.steps[..4].to_vec());
    assert_eq!(report.applied, full.steps[4..].to_vec());
    assert!(plan(&m).await.is_empty());
    assert!(m.apply().await.expect("again").applied.is_empty());
    t.drop_all().await;
}

/// Two processes (two sessions) applying the same plan at once: both succeed, every step is
/// run or seen done by each, and the cluster ends up matching the models.
#[tokio::test]
async fn concurrent_applies_agree() {
    let (t, c, o) = supermarket_db("migr_concurrent").await;
    let options = cassmodel_node::cluster_or_local_node().await.expect("node");
    let other = options
        .connect()
        .await
        .expect("second session")
        .map_keyspace("customer", &c)
        .and_then(|d| d.map_keyspace("order_delivery", &o))
        .expect("map");
    let m1 = migrator(&t.db, v5_models());
    let m2 = migrator(&other, v5_models());
    let steps = plan(&m1).await.steps;
    let (r1, r2) = tokio::join!(m1.apply(), m2.apply());
    let (r1, r2) = (
        r1.unwrap_or_else(|e| panic!("first: {e}")),
        r2.unwrap_or_else(|e| panic!("second: {e}")),
    );
    println!(
        "first: {} applied, {} already applied; second: {} applied, {} already applied",
        r1.applied.len(),
        r1.already_applied.len(),
        r2.applied.len(),
        r2.already_applied.len()
    );
    // Each process plans when it starts, so either may see fewer steps (the other has run
    // some already). Every step either reports is one of the plan's, and
    // every step of the plan was run by at least one of them.
    for (name, r) in [("first", &r1), ("second", &r2)] {
        for s in r.applied.iter().chain(&r.already_applied) {
            assert!(
                steps.contains(s),
                "{name} reports a step outside the plan: {s:?}"
            );
        }
    }
    for s in &steps {
        assert!(
            r1.applied.contains(s) || r2.applied.contains(s),
            "neither process ran {s:?}"
        );
    }
    assert!(plan(&m1).await.is_empty());
    assert!(plan(&m2).await.is_empty());
    m1.validate().await.expect("valid");
    t.drop_all().await;
}

/// `validate` reports every mismatch at once, including clustering order, which the Java
/// driver's mapper does not check.
#[tokio::test]
async fn validate_lists_every_mismatch() {
    let (t, c, o) = supermarket_db("migr_validate").await;
    migrator(&t.db, v1_models()).apply().await.expect("v1");
    migrator(&t.db, v1_models())
        .validate()
        .await
        .expect("v1 matches");
    let wrong = Models::new()
        .table::<v2::CustomerRecord>()
        .table::<v4::CustomerAddresses>()
        .table::<changed::order_asc::OrdersByCustomer>()
        .table::<v5::OrdersByStatus>();
    let err = migrator(&t.db, wrong)
        .validate()
        .await
        .map(|_| ())
        .unwrap_err();
    let MigrationError::Mismatch(list) = &err else {
        panic!("expected mismatches, got {err}");
    };
    let objects: Vec<(String, Option<&str>)> = list
        .iter()
        .map(|m| (m.object.clone(), m.column.as_deref()))
        .collect();
    assert_eq!(
        objects,
        [
            (format!("{c}.address_type"), Some("region")),
            (format!("{c}.customers"), Some("loyalty_points")),
            (format!("{o}.orders_by_status"), None),
            (format!("{o}.orders_by_customer"), Some("submission_time")),
        ],
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("4 mismatch(es)"), "{text}");
    assert!(
        text.contains("CLUSTERING ORDER BY (order_id ASC, submission_time DESC)"),
        "{text}"
    );
    t.drop_all().await;
}

/// The registry of this test binary holds every derive linked into it: the seed models and
/// every version above.
#[test]
fn registry_finds_the_seed_models() {
    let tables = registered_tables();
    for section in &models::SECTIONS {
        for schema in (section.tables)() {
            assert!(
                tables.iter().any(|t| std::ptr::eq(*t, schema)),
                "{} ({}) is not registered",
                schema.name,
                section.title
            );
        }
    }
    assert!(
        tables
            .iter()
            .any(|t| std::ptr::eq(*t, v5::OrdersByStatus::schema()))
    );
    let udts = registered_udts();
    assert!(
        udts.iter()
            .any(|u| u.rust_name == "Address" && u.name == "address_type")
    );
    // Sorted, so the order does not depend on the linker.
    let keys: Vec<_> = tables
        .iter()
        .map(|t| (t.keyspace, t.name, t.rust_name))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);

    // Two different structs for one table are an error that names both, not a guess.
    let all = Migrator::offline(Models::registered(), Some("demo"));
    let e = all.schema_cql().map(|_| ()).unwrap_err().to_string();
    assert!(
        e.contains(
            "table `customer.customers` is described by two structs that differ, \
             `CustomerRecord` and `CustomerRecord`"
        ),
        "{e}"
    );
}

fn run_cli(args: &[&str], models: Models) -> (cli::Exit, String, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut argv = vec!["migrate"];
    argv.extend_from_slice(args);
    let exit = runtime.block_on(cli::run(argv, models, &mut out, &mut err));
    (
        exit,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// `schema` prints the DDL of the models offline: keyspaces, types before the tables that
/// use them, tables.
#[test]
fn cli_schema_is_offline() {
    let (exit, out, err) = run_cli(
        &[
            "schema",
            "--keyspace",
            "demo",
            "--replication",
            "NetworkTopologyStrategy:datacenter1=1",
        ],
        v1_models(),
    );
    assert_eq!(exit, cli::Exit::Ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 9, "{out}");
    assert_eq!(
        lines[0],
        "CREATE KEYSPACE IF NOT EXISTS customer WITH replication = {'class': \
         'NetworkTopologyStrategy', 'datacenter1': 1};"
    );
    assert!(lines[2].starts_with("CREATE TYPE IF NOT EXISTS customer.address_type ("));
    assert!(lines[4].starts_with("CREATE TABLE IF NOT EXISTS customer.customer_addresses ("));
    // A bad flag is an error (exit 1), not "plan pending" (clap's own 2).
    let (exit, _, err) = run_cli(&["schema", "--replication", "Simple"], v1_models());
    assert_eq!(exit, cli::Exit::Error);
    assert!(err.contains("expected `SimpleStrategy:<rf>`"), "{err}");
}

mod cli_models {
    use super::*;

    #[derive(CassTable, Debug)]
    #[cass(table = "cli_notes")]
    pub struct Note {
        #[partition_key]
        pub id: i32,
        #[clustering(desc)]
        pub at: DateTime<Utc>,
        pub text: String,
    }

    pub mod later {
        use super::*;

        #[derive(CassTable, Debug)]
        #[cass(table = "cli_notes")]
        pub struct Note {
            #[partition_key]
            pub id: i32,
            #[clustering(desc)]
            pub at: DateTime<Utc>,
            pub text: String,
            pub author: Option<String>,
        }
    }

    pub mod refused {
        use super::*;

        #[derive(CassTable, Debug)]
        #[cass(table = "cli_notes")]
        pub struct Note {
            #[partition_key]
            pub id: i32,
            #[clustering(desc)]
            pub at: DateTime<Utc>,
            pub text: i64,
            pub author: Option<String>,
        }
    }
}

/// The CLI on the node: exit codes for CI, generated files that another tool can apply
/// statement by statement, numbering, and nothing written twice.
#[tokio::test(flavor = "multi_thread")]
async fn cli_plan_apply_generate_validate() {
    let t = support::test_db("migr_cli").await;
    let ks = t.keyspace().to_owned();
    let points = cassmodel_node::cluster_or_local_node()
        .await
        .expect("node")
        .get_contact_points()
        .join(",");
    let dir = std::env::temp_dir().join(format!("cassmodel_{ks}"));
    let dir_arg = dir.display().to_string();
    let v1 = || Models::new().table::<cli_models::Note>();
    let v2 = || Models::new().table::<cli_models::later::Note>();
    let v3 = || Models::new().table::<cli_models::refused::Note>();
    let args = |verb: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = verb.iter().map(|s| (*s).to_owned()).collect();
        a.extend([
            "--contact-points".into(),
            points.clone(),
            "--keyspace".into(),
            ks.clone(),
        ]);
        a
    };
    let run = |a: Vec<String>, models: Models| {
        tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            run_cli(&a, models)
        })
    };

    let (exit, out, err) = run(args(&["plan"]), v1()).await.expect("join");
    assert_eq!(exit, cli::Exit::Pending, "{out}{err}");
    let create = format!(
        "CREATE TABLE IF NOT EXISTS {ks}.cli_notes (id int, at timestamp, text text, PRIMARY KEY \
         (id, at)) WITH CLUSTERING ORDER BY (at DESC);"
    );
    assert_eq!(
        out,
        format!("-- 1. create table {ks}.cli_notes\n{create}\n")
    );
    let (exit, _, err) = run(args(&["validate"]), v1()).await.expect("join");
    assert_eq!(exit, cli::Exit::Pending, "{err}");
    assert!(
        err.contains(&format!("`{ks}.cli_notes`: the models expect the table")),
        "{err}"
    );

    // generate writes 0001; the file is deterministic and runs statement by statement.
    let (exit, out, err) = run(args(&["generate", "--dir", &dir_arg]), v1())
        .await
        .expect("join");
    assert_eq!(exit, cli::Exit::Ok, "{err}");
    let name = format!("0001_create_table_{ks}_cli_notes.cql");
    assert_eq!(out.trim(), format!("wrote {}", dir.join(&name).display()));
    let file = std::fs::read_to_string(dir.join(&name)).expect("file");
    assert_eq!(
        file,
        format!(
            "-- {name}\n\
             -- Generated by cassmodel from the models: review it like code.\n\
             -- Every statement is idempotent (IF NOT EXISTS / IF EXISTS): running the file again is harmless.\n\
             -- Apply with the project's migrate binary (`apply`), or `cqlsh -f <this file>`, which runs the\n\
             -- statements in order; wait for schema agreement before using the new schema.\n\
             \n\
             -- 1. create table {ks}.cli_notes\n\
             {create}\n"
        )
    );
    // The same plan again: no second file.
    let (_, out, _) = run(args(&["generate", "--dir", &dir_arg]), v1())
        .await
        .expect("join");
    assert!(out.starts_with("nothing to write"), "{out}");
    // Another tool applies the file: its statements, in order.
    for stmt in file
        .split(";\n")
        .map(|s| {
            s.lines()
                .filter(|l| !l.starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|s| !s.trim().is_empty())
    {
        t.db.execute_ddl(&stmt).await.expect("file statement");
    }
    let (exit, out, _) = run(args(&["plan"]), v1()).await.expect("join");
    assert_eq!(exit, cli::Exit::Ok, "{out}");
    let (exit, out, _) = run(args(&["validate"]), v1()).await.expect("join");
    assert_eq!(
        (exit, out.as_str()),
        (cli::Exit::Ok, "the cluster matches the models\n")
    );

    // v2: 0002, then apply; then the plan is empty.
    let (exit, out, _) = run(args(&["generate", "--dir", &dir_arg]), v2())
        .await
        .expect("join");
    assert_eq!(exit, cli::Exit::Ok);
    assert!(
        out.contains(&format!("0002_add_column_author_to_{ks}_cli_notes.cql")),
        "{out}"
    );
    let (exit, out, err) = run(args(&["apply"]), v2()).await.expect("join");
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(out.contains(&format!(
        "ALTER TABLE {ks}.cli_notes ADD IF NOT EXISTS author text;"
    )));
    let (exit, _, _) = run(args(&["plan"]), v2()).await.expect("join");
    assert_eq!(exit, cli::Exit::Ok);

    // A refused change: exit 3 from plan, apply and generate; nothing written or run.
    for verb in [&["plan"][..], &["apply"], &["generate", "--dir", &dir_arg]] {
        let (exit, out, err) = run(args(verb), v3()).await.expect("join");
        assert_eq!(exit, cli::Exit::Refused, "{verb:?}: {out}{err}");
    }
    let files: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
    assert_eq!(files.len(), 2);
    let (exit, _, _) = run(args(&["validate"]), v2()).await.expect("join");
    assert_eq!(exit, cli::Exit::Ok, "the refused runs changed nothing");

    let _ = std::fs::remove_dir_all(&dir);
    t.drop_all().await;
}

/// The CLI prints the warnings the server attaches to its statements (here: a replication
/// factor above the node count), and refuses a local data centre no node is in, in under a
/// second, naming the cluster's data centres and the one meant.
#[tokio::test(flavor = "multi_thread")]
async fn cli_prints_server_warnings_and_refuses_a_wrong_local_dc() {
    let mut t = support::test_db("migr_cli_warn").await;
    let ks = format!("{}_w", t.keyspace());
    t.keyspaces.push(ks.clone());
    let options = cassmodel_node::cluster_or_local_node().await.expect("node");
    let points = options.get_contact_points().join(",");
    let state = t.db.session().get_cluster_state();
    let nodes = state.get_nodes_info();
    let replicas = (nodes.len() + 1).to_string();
    let dc = nodes
        .iter()
        .find_map(|n| n.datacenter.clone())
        .expect("the node's data centre");
    let run = |a: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            run_cli(&a, Models::new().table::<cli_models::Note>())
        })
    };
    let args = |verb: &str, extra: &[&str]| -> Vec<String> {
        let mut a = vec![
            verb.to_owned(),
            "--contact-points".to_owned(),
            points.clone(),
            "--keyspace".to_owned(),
            ks.clone(),
        ];
        a.extend(extra.iter().map(|s| (*s).to_owned()));
        a
    };
    let replication = format!("SimpleStrategy:{replicas}");
    let (exit, out, err) = run(args("apply", &["--replication", &replication]))
        .await
        .expect("join");
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    let warning = err
        .lines()
        .find(|l| l.starts_with("warning from Cassandra: CREATE KEYSPACE: "))
        .unwrap_or_else(|| panic!("no warning printed: {err}"));
    assert!(
        warning.contains(&format!(
            "Your replication factor {replicas} for keyspace {ks} is higher than the number of nodes"
        )),
        "{warning}"
    );
    // The data centre's name in another case: refused, the right one suggested.
    let wrong = if dc.chars().any(char::is_lowercase) {
        dc.to_uppercase()
    } else {
        dc.to_lowercase()
    };
    let started = std::time::Instant::now();
    let (exit, _, err) = run(args("plan", &["--local-dc", &wrong]))
        .await
        .expect("join");
    let took = started.elapsed();
    assert_eq!(exit, cli::Exit::Error, "{err}");
    // About 0.15 s alone (the `datacenters` cluster check holds `connect` to 1 s); the bound
    // leaves room for the tests running beside this one, and still catches a wait for a
    // timeout (the connect timeout is 5 s).
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    for part in [
        format!("the local data centre `{wrong}`"),
        format!("`{dc}` ("),
        format!("Did you mean `{dc}`?"),
    ] {
        assert!(err.contains(&part), "{part:?} not in {err}");
    }
    t.drop_all().await;
}

/// Nothing in this binary is a `Change` the tests forget to check: every variant is made by
/// some plan above (compile-time reminder when a variant is added).
#[allow(dead_code)]
fn changes_are_covered(c: &Change) -> &'static str {
    match c {
        Change::CreateKeyspace { .. } => "walk v1",
        Change::CreateType { .. } => "walk v1",
        Change::AddField { .. } => "walk v4",
        Change::CreateTable { .. } => "walk v1, v5",
        Change::AddColumn { .. } => "walk v2, v3",
        Change::AlterOptions { .. } => "walk v5",
        Change::CreateIndex { .. } => "indexes_added_to_tables_with_rows, a_new_table_with_indexes",
        Change::DropColumn { .. } => "walk, allowed drop",
        _ => "new",
    }
}
