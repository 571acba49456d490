//! Typed queries on SAI-indexed columns against the same query in plain CQL on the node: `=`,
//! ranges, `CONTAINS`, `CONTAINS KEY`, map entries; across partitions and within one; several
//! indexed columns combined; with clustering restrictions, limits, projections and paging.
//! Every case asserts that the plain query returns rows, so that an empty answer on both sides
//! cannot pass.

mod support;

use std::collections::{BTreeSet, HashMap, HashSet};

use cassmodel::scylla::serialize::row::SerializeRow;
use cassmodel::{CassProjection, CassTable, PagingState};
use chrono::{DateTime, TimeZone, Utc};
use futures::TryStreamExt;
use support::TestDb;

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "idx_items")]
struct Item {
    #[partition_key]
    shop: String,
    #[clustering(asc)]
    sku: i32,
    #[cass(index)]
    stock: i32,
    #[cass(index)]
    email: String,
    #[cass(index)]
    added: DateTime<Utc>,
    #[cass(index)]
    tags: HashSet<String>,
    #[cass(index(keys))]
    by_key: HashMap<String, i32>,
    #[cass(index(entries))]
    by_entry: HashMap<String, i32>,
    #[cass(index)]
    by_value: HashMap<String, i32>,
    #[cass(index)]
    maybe: Option<String>,
    note: Option<String>,
}

#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Item)]
struct Stock {
    shop: String,
    sku: i32,
    stock: i32,
}

fn item(shop: usize, sku: i32) -> Item {
    let day =
        Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + chrono::Duration::days(i64::from(sku));
    let colours = ["red", "green", "blue"];
    Item {
        shop: format!("shop{shop}"),
        sku,
        stock: (sku * 7 + shop as i32) % 20,
        email: format!("owner{}@x.org", sku % 4),
        added: day,
        tags: [
            colours[sku as usize % 3],
            if sku % 2 == 0 { "even" } else { "odd" },
        ]
        .into_iter()
        .map(str::to_owned)
        .collect(),
        by_key: HashMap::from([(format!("k{}", sku % 5), sku)]),
        by_entry: HashMap::from([("size".to_owned(), sku % 3), ("w".to_owned(), shop as i32)]),
        by_value: HashMap::from([("v".to_owned(), sku % 6)]),
        maybe: (sku % 2 == 0).then(|| format!("m{}", sku % 3)),
        note: None,
    }
}

/// The `(shop, sku)` keys a plain CQL statement returns, in order.
async fn plain(t: &TestDb, cql: &str, values: impl SerializeRow) -> Vec<(String, i32)> {
    let cql = cql.replace("{ks}", t.keyspace());
    t.db.session()
        .query_iter(cql.as_str(), values)
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .rows_stream::<(String, i32)>()
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
}

/// One case: the typed rows' keys equal the plain query's, which are not empty. Across
/// partitions the order is the token order on both sides, but compared as sets, since the
/// server does not promise an order between partitions for an index scan.
async fn same(t: &TestDb, case: &str, typed: Vec<Item>, cql: &str, values: impl SerializeRow) {
    let expected = plain(t, cql, values).await;
    assert!(
        !expected.is_empty(),
        "{case}: the plain query returned no row: {cql}"
    );
    let got: BTreeSet<_> = typed.iter().map(|i| (i.shop.clone(), i.sku)).collect();
    let want: BTreeSet<_> = expected.iter().cloned().collect();
    assert_eq!(got.len(), typed.len(), "{case}: duplicate rows");
    assert_eq!(got, want, "{case}: {cql}");
    for row in &typed {
        let shop: usize = row.shop["shop".len()..].parse().expect("shop number");
        assert_eq!(*row, item(shop, row.sku), "{case}: a row read back differs");
    }
}

#[tokio::test]
async fn indexed_columns() {
    let t = support::test_db("indexes").await;
    if support::create_table_refused_before_cassandra_5::<Item>(&t.db).await {
        return t.drop_all().await;
    }
    for shop in 0..3 {
        for sku in 0..30 {
            t.db.insert(&item(shop, sku)).await.expect("insert");
        }
    }
    let db = &t.db;
    let sel = "SELECT shop, sku FROM {ks}.idx_items";
    let e = |r: Result<Vec<Item>, cassmodel::Error>| r.expect("typed query");

    same(
        &t,
        "= across partitions",
        e(Item::select().stock(&5).fetch_all(db).await),
        &format!("{sel} WHERE stock = 5"),
        (),
    )
    .await;
    same(
        &t,
        "= on text",
        e(Item::select().email("owner1@x.org").fetch_all(db).await),
        &format!("{sel} WHERE email = 'owner1@x.org'"),
        (),
    )
    .await;
    same(
        &t,
        "range, both bounds",
        e(Item::select().stock_ge(&3).stock_lt(&6).fetch_all(db).await),
        &format!("{sel} WHERE stock >= 3 AND stock < 6"),
        (),
    )
    .await;
    let (from, to) = (
        Utc.with_ymd_and_hms(2025, 1, 10, 0, 0, 0).unwrap(),
        Utc.with_ymd_and_hms(2025, 1, 20, 0, 0, 0).unwrap(),
    );
    same(
        &t,
        "range on a timestamp",
        e(Item::select()
            .added_gt(&from)
            .added_le(&to)
            .fetch_all(db)
            .await),
        &format!("{sel} WHERE added > ? AND added <= ?"),
        (from, to),
    )
    .await;
    same(
        &t,
        "CONTAINS on a set",
        e(Item::select().tags_contains("blue").fetch_all(db).await),
        &format!("{sel} WHERE tags CONTAINS 'blue'"),
        (),
    )
    .await;
    same(
        &t,
        "CONTAINS KEY",
        e(Item::select().by_key_contains_key("k3").fetch_all(db).await),
        &format!("{sel} WHERE by_key CONTAINS KEY 'k3'"),
        (),
    )
    .await;
    same(
        &t,
        "map entry",
        e(Item::select()
            .by_entry_entry("size", &2)
            .fetch_all(db)
            .await),
        &format!("{sel} WHERE by_entry['size'] = 2"),
        (),
    )
    .await;
    same(
        &t,
        "CONTAINS on map values",
        e(Item::select().by_value_contains(&4).fetch_all(db).await),
        &format!("{sel} WHERE by_value CONTAINS 4"),
        (),
    )
    .await;
    same(
        &t,
        "= on an Option column",
        e(Item::select().maybe("m1").fetch_all(db).await),
        &format!("{sel} WHERE maybe = 'm1'"),
        (),
    )
    .await;
    same(
        &t,
        "two indexed columns",
        e(Item::select()
            .tags_contains("even")
            .stock_lt(&10)
            .email("owner2@x.org")
            .fetch_all(db)
            .await),
        &format!("{sel} WHERE tags CONTAINS 'even' AND stock < 10 AND email = 'owner2@x.org'"),
        (),
    )
    .await;
    same(
        &t,
        "within a partition",
        e(Item::select()
            .shop("shop1")
            .stock_gt(&8)
            .fetch_all(db)
            .await),
        &format!("{sel} WHERE shop = 'shop1' AND stock > 8"),
        (),
    )
    .await;
    same(
        &t,
        "clustering range then index",
        e(Item::select()
            .shop("shop2")
            .sku_ge(&5)
            .sku_lt(&25)
            .tags_contains("red")
            .fetch_all(db)
            .await),
        &format!("{sel} WHERE shop = 'shop2' AND sku >= 5 AND sku < 25 AND tags CONTAINS 'red'"),
        (),
    )
    .await;
    same(
        &t,
        "whole key then index",
        e(Item::select()
            .shop("shop0")
            .sku(&4)
            .email("owner0@x.org")
            .fetch_all(db)
            .await),
        &format!("{sel} WHERE shop = 'shop0' AND sku = 4 AND email = 'owner0@x.org'"),
        (),
    )
    .await;

    // Within a partition, rows come in clustering order, as in plain CQL.
    let typed = e(Item::select()
        .shop("shop1")
        .tags_contains("odd")
        .fetch_all(db)
        .await);
    let cql = plain(
        &t,
        &format!("{sel} WHERE shop = 'shop1' AND tags CONTAINS 'odd'"),
        (),
    )
    .await;
    assert!(!cql.is_empty());
    assert_eq!(
        typed
            .iter()
            .map(|i| (i.shop.clone(), i.sku))
            .collect::<Vec<_>>(),
        cql
    );

    // A limit, a projection, and paging through an index scan.
    let limited = e(Item::select()
        .email("owner3@x.org")
        .limit(4)
        .fetch_all(db)
        .await);
    assert_eq!(limited.len(), 4, "LIMIT 4");
    let stocks = Item::select()
        .stock_ge(&15)
        .read_as::<Stock>()
        .fetch_all(db)
        .await
        .expect("projection");
    let want = plain(&t, &format!("{sel} WHERE stock >= 15"), ()).await;
    assert!(!want.is_empty());
    assert_eq!(stocks.len(), want.len());
    assert!(
        stocks
            .iter()
            .all(|s| s.stock >= 15 && s.stock == item(s.shop[4..].parse().unwrap(), s.sku).stock)
    );
    let streamed: Vec<Item> = Item::select()
        .tags_contains("even")
        .page_size(7)
        .fetch_stream(db)
        .await
        .expect("stream")
        .try_collect()
        .await
        .expect("pages");
    same(
        &t,
        "paged index scan",
        streamed,
        &format!("{sel} WHERE tags CONTAINS 'even'"),
        (),
    )
    .await;
    let first = Item::select()
        .stock(&5)
        .page_size(2)
        .fetch_page(db, PagingState::start())
        .await
        .expect("page");
    assert_eq!(first.rows.len(), 2, "one page of 2");

    // Filtering behind its explicit call: a range on a column without an index.
    let filtered = e(Item::select_allow_filtering()
        .sku_gt(&27)
        .fetch_all(db)
        .await);
    same(
        &t,
        "ALLOW FILTERING range on a key column",
        filtered,
        &format!("{sel} WHERE sku > 27 ALLOW FILTERING"),
        (),
    )
    .await;
    t.drop_all().await;
}

#[tokio::test]
async fn option_string_setters_take_str() {
    let t = support::test_db("idx_setters").await;
    if support::create_table_refused_before_cassandra_5::<Item>(&t.db).await {
        return t.drop_all().await;
    }
    t.db.insert(&item(0, 1)).await.expect("insert");
    Item::update()
        .set_note("written as &str")
        .shop("shop0")
        .sku(&1)
        .execute(&t.db)
        .await
        .expect("update");
    let row = Item::get(&t.db, "shop0", &1)
        .await
        .expect("get")
        .expect("row");
    assert_eq!(row.note.as_deref(), Some("written as &str"));
    t.drop_all().await;
}

/// `create_table` returns once every node can answer reads on the new indexes: each node's
/// `system_views.sai_column_indexes` says so. The wait reads that table for real: an index
/// no node has is still waited for, and reported by name when the wait ends.
#[tokio::test]
async fn create_table_waits_for_indexes() {
    let t = support::test_db("index_wait").await;
    if support::create_table_refused_before_cassandra_5::<Item>(&t.db).await {
        return t.drop_all().await;
    }
    let ks = t.keyspace().to_owned();
    let names = [
        "idx_items_stock_idx",
        "idx_items_email_idx",
        "idx_items_tags_idx",
        "idx_items_maybe_idx",
    ];
    let nodes = t.db.session().get_cluster_state().get_nodes_info().to_vec();
    assert!(!nodes.is_empty(), "the session knows no node");
    for node in &nodes {
        let mut st = cassmodel::scylla::statement::unprepared::Statement::new(
            "SELECT index_name, is_queryable FROM system_views.sai_column_indexes \
             WHERE keyspace_name = ?",
        );
        st.set_load_balancing_policy(Some(
            cassmodel::scylla::policies::load_balancing::SingleTargetLoadBalancingPolicy::new(
                cassmodel::scylla::policies::load_balancing::NodeIdentifier::Node(node.clone()),
                None,
            ),
        ));
        // The virtual table walks every keyspace of the node, and fails ("Unknown keyspace
        // ..") when another test drops one meanwhile: asked again, at most 5 times.
        let mut answer = t.db.session().query_unpaged(st.clone(), (&ks,)).await;
        for _ in 1..5 {
            if answer.is_ok() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            answer = t.db.session().query_unpaged(st.clone(), (&ks,)).await;
        }
        let rows: HashMap<String, Option<bool>> = answer
            .expect("sai_column_indexes")
            .into_rows_result()
            .expect("rows")
            .rows::<(String, Option<bool>)>()
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        for name in names {
            assert_eq!(
                rows.get(name),
                Some(&Some(true)),
                "node {}: index {name} not queryable right after create_table; the node has {rows:?}",
                node.address
            );
        }
    }

    let missing =
        t.db.await_indexes(
            &ks,
            &["idx_items_stock_idx", "no_such_idx"],
            std::time::Duration::from_millis(300),
        )
        .await;
    let Err(e @ cassmodel::Error::IndexNotReady { .. }) = missing else {
        panic!("an index no node has was not waited for: {missing:?}");
    };
    let message = e.to_string();
    assert!(
        message.contains(&format!("{ks}.no_such_idx")) && message.contains("INDEX_NOT_AVAILABLE"),
        "{message}"
    );
    assert!(e.is_timeout(), "{e:?}");
    t.drop_all().await;
}

/// A map column with an index on each of its parts: keys, values and entries.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "idx_attrs")]
struct Attrs {
    #[partition_key]
    shop: String,
    #[clustering(asc)]
    sku: i32,
    #[cass(index(keys), index(values))]
    #[cass(index(entries))]
    attrs: HashMap<String, i32>,
}

fn attrs(shop: usize, sku: i32) -> Attrs {
    Attrs {
        shop: format!("shop{shop}"),
        sku,
        attrs: HashMap::from([
            (format!("k{}", sku % 4), sku % 5),
            ("size".to_owned(), sku % 3),
        ]),
    }
}

/// The three indexes of one map column are created (migrator, with `validate` after) under
/// their names, and each answers its own query: `CONTAINS KEY`, `CONTAINS`, `m[k] = v`, as
/// plain CQL does (non-empty).
#[tokio::test]
async fn a_map_with_keys_values_and_entries_indexes() {
    use cassmodel::Replication;
    use cassmodel::migrate::{Migrator, Models};

    let t = support::test_db("idx_map3").await;
    let db = &t.db;
    let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = std::sync::Arc::clone(&reports);
    let m = Migrator::new(db, Models::new().table::<Attrs>())
        .replication(Replication::Simple(1))
        .on_progress(move |p| kept.lock().expect("lock").push(p.clone()));
    if support::refused_before_cassandra_5(db, &m).await {
        return t.drop_all().await;
    }
    let plan = m.plan().await.expect("plan");
    m.apply_plan(&plan).await.expect("migrate");
    m.validate().await.expect("validate after apply");
    // `on_progress` heard each step, in order, before it ran; index builds (if the wait
    // paused) name one of the three indexes, within the wait.
    let reports = std::mem::take(&mut *reports.lock().expect("lock"));
    let steps: Vec<(usize, usize, String)> = reports
        .iter()
        .filter_map(|p| match p {
            cassmodel::migrate::Progress::Step {
                n,
                total,
                description,
            } => Some((*n, *total, description.clone())),
            _ => None,
        })
        .collect();
    let total = plan.steps.len();
    assert_eq!(
        steps,
        plan.steps
            .iter()
            .enumerate()
            .map(|(i, s)| (i + 1, total, s.description.clone()))
            .collect::<Vec<_>>()
    );
    assert_eq!(total, 4, "{steps:?}");
    for p in &reports {
        if let cassmodel::migrate::Progress::IndexBuilding {
            index,
            waited,
            limit,
            ..
        } = p
        {
            assert!(index.starts_with("idx_attrs_attrs_"), "{p:?}");
            assert!(waited <= limit, "{p:?}");
        }
    }
    let created: Vec<(String, String)> =
        support::index_options(db, t.keyspace(), "idx_attrs", "target")
            .await
            .into_iter()
            .map(|(name, target)| (name, target.unwrap_or_default()))
            .collect();
    assert_eq!(
        created,
        [
            (
                "idx_attrs_attrs_entries_idx".to_owned(),
                "entries(attrs)".to_owned()
            ),
            ("idx_attrs_attrs_idx".to_owned(), "keys(attrs)".to_owned()),
            (
                "idx_attrs_attrs_values_idx".to_owned(),
                "values(attrs)".to_owned()
            ),
        ]
    );

    for shop in 0..3 {
        for sku in 0..24 {
            db.insert(&attrs(shop, sku)).await.expect("insert");
        }
    }
    let sel = "SELECT shop, sku FROM {ks}.idx_attrs";
    let cases: [(&str, cassmodel::Result<Vec<Attrs>>, String); 3] = [
        (
            "CONTAINS KEY",
            Attrs::select().attrs_contains_key("k1").fetch_all(db).await,
            format!("{sel} WHERE attrs CONTAINS KEY 'k1'"),
        ),
        (
            "CONTAINS",
            Attrs::select().attrs_contains(&4).fetch_all(db).await,
            format!("{sel} WHERE attrs CONTAINS 4"),
        ),
        (
            "entry",
            Attrs::select().attrs_entry("size", &2).fetch_all(db).await,
            format!("{sel} WHERE attrs['size'] = 2"),
        ),
    ];
    for (case, typed, cql) in cases {
        let typed = typed.unwrap_or_else(|e| panic!("{case}: {e}"));
        let expected = plain(&t, &cql, ()).await;
        assert!(
            !expected.is_empty(),
            "{case}: the plain query returned no row"
        );
        let got: BTreeSet<_> = typed.iter().map(|a| (a.shop.clone(), a.sku)).collect();
        let want: BTreeSet<_> = expected.into_iter().collect();
        assert_eq!(got.len(), typed.len(), "{case}: duplicate rows");
        assert_eq!(got, want, "{case}: {cql}");
        for row in &typed {
            let shop: usize = row.shop["shop".len()..].parse().expect("shop number");
            assert_eq!(
                *row,
                attrs(shop, row.sku),
                "{case}: a row read back differs"
            );
        }
    }
    t.drop_all().await;
}
