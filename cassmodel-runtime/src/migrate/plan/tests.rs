//! The plan as a pure function: models and a hand-built live schema in, CQL text out.

use std::collections::BTreeMap;

use cassmodel_schema::{CqlType, Mask, MaskArg, MaskFunction};

use super::plan_target;
use super::steps::MigrationPlan;
use crate::migrate::error::MigrationError;
use crate::migrate::live::{
    DroppedColumn, LiveColumn, LiveIndex, LiveKeyspace, LiveOptions, LiveSchema, LiveTable,
    LiveType,
};
use crate::migrate::migrator::Migrator;
use crate::migrate::models::Models;
use crate::schema::ddl::Replication;
use crate::schema::model::{ColumnDef, ColumnKind, Order, TableOptions, TableSchema, UdtSchema};

fn ty(s: &str) -> CqlType {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn col(name: &'static str, t: &str, kind: ColumnKind) -> ColumnDef {
    ColumnDef::new::<String>(name, name, kind, Some(ty(t)), false)
}

fn leak<T>(t: T) -> &'static T {
    Box::leak(Box::new(t))
}

fn address(extra: bool) -> &'static UdtSchema {
    let mut fields = vec![
        col("street", "text", ColumnKind::Regular),
        col("city", "text", ColumnKind::Regular),
    ];
    if extra {
        fields.push(col("region", "text", ColumnKind::Regular));
    }
    leak(UdtSchema::new("Address", "address", fields))
}

/// A table of keyspace `shop`: `orders (customer_id uuid, order_id timeuuid DESC, total
/// double, address frozen<address>, PRIMARY KEY (customer_id, order_id))`, plus `extra`.
fn orders(
    order: Order,
    total: &str,
    extra: Vec<ColumnDef>,
    options: TableOptions,
) -> &'static TableSchema {
    let mut cols = vec![
        col("customer_id", "uuid", ColumnKind::PartitionKey),
        col("order_id", "timeuuid", ColumnKind::Clustering(order)),
        col("total", total, ColumnKind::Regular),
    ];
    cols.push(col("address", "frozen<address>", ColumnKind::Regular));
    cols.extend(extra);
    leak(TableSchema::new(
        "Orders",
        "orders",
        Some("shop"),
        options,
        cols,
    ))
}

fn customers() -> &'static TableSchema {
    leak(TableSchema::new(
        "Customer",
        "customers",
        None,
        TableOptions::default(),
        vec![
            col("id", "uuid", ColumnKind::PartitionKey),
            col("name", "text", ColumnKind::Regular),
        ],
    ))
}

fn live_column(name: &str, t: &str, kind: ColumnKind, position: i32) -> LiveColumn {
    LiveColumn {
        name: name.into(),
        kind,
        position,
        cql_type: ty(t),
        type_text: t.into(),
        mask: None,
    }
}

/// The cluster as Cassandra describes `orders(Asc/Desc, "double")` and `customers` in `app`.
fn live() -> LiveSchema {
    let orders = LiveTable {
        name: "orders".into(),
        columns: vec![
            live_column("customer_id", "uuid", ColumnKind::PartitionKey, 0),
            live_column(
                "order_id",
                "timeuuid",
                ColumnKind::Clustering(Order::Desc),
                0,
            ),
            live_column("address", "frozen<address>", ColumnKind::Regular, -1),
            live_column("total", "double", ColumnKind::Regular, -1),
        ],
        options: LiveOptions {
            default_ttl: 0,
            gc_grace_seconds: 864000,
            comment: String::new(),
            compaction_class: "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"
                .into(),
        },
        indexes: Vec::new(),
        dropped: Vec::new(),
        compact_storage: false,
    };
    let customers = LiveTable {
        name: "customers".into(),
        columns: vec![
            live_column("id", "uuid", ColumnKind::PartitionKey, 0),
            live_column("name", "varchar", ColumnKind::Regular, -1),
        ],
        options: orders.options.clone(),
        indexes: Vec::new(),
        dropped: Vec::new(),
        compact_storage: false,
    };
    let address = LiveType {
        name: "address".into(),
        fields: vec![
            ("street".into(), ty("text"), "text".into()),
            ("city".into(), ty("text"), "text".into()),
        ],
    };
    let shop = LiveKeyspace {
        name: "shop".into(),
        replication: BTreeMap::new(),
        tables: BTreeMap::from([("orders".into(), orders)]),
        types: BTreeMap::from([("address".into(), address)]),
        ..LiveKeyspace::default()
    };
    let app = LiveKeyspace {
        name: "app".into(),
        replication: BTreeMap::new(),
        tables: BTreeMap::from([("customers".into(), customers)]),
        ..LiveKeyspace::default()
    };
    LiveSchema {
        keyspaces: BTreeMap::from([("shop".into(), shop), ("app".into(), app)]),
        ..LiveSchema::default()
    }
}

fn migrator(tables: &[&'static TableSchema]) -> Migrator {
    let mut m = Models::new();
    for t in tables {
        m = m.table_schema(t);
    }
    Migrator::offline(m, Some("app"))
}

fn base() -> Vec<&'static TableSchema> {
    vec![
        orders(Order::Desc, "double", vec![], TableOptions::default()),
        customers(),
    ]
}

/// The plan of `m` against `live`, with `udt` as the type the `orders` table uses (tables
/// built by hand, without the derive, do not carry their types).
fn plan_with(m: &Migrator, live: &LiveSchema, udt: &'static UdtSchema) -> MigrationPlan {
    let mut target = m.target().unwrap_or_else(|e| panic!("{e}"));
    if target.tables.iter().any(|(_, t)| t.name == "orders") {
        target.udts.insert("shop".into(), vec![udt]);
    }
    plan_target(&target, live, m.settings())
}

fn plan(m: &Migrator, live: &LiveSchema) -> MigrationPlan {
    plan_with(m, live, address(false))
}

fn plan_text(m: &Migrator, live: &LiveSchema) -> String {
    plan(m, live).to_string()
}

#[test]
fn up_to_date_cluster_gives_an_empty_plan() {
    let plan = plan(&migrator(&base()), &live());
    assert!(plan.is_empty(), "{plan}");
    assert!(plan.unmanaged.is_empty(), "{plan}");
    assert!(plan.mismatches().is_empty());
}

#[test]
fn empty_cluster_creates_everything_in_dependency_order() {
    let m = migrator(&base()).replication(Replication::Simple(1));
    let plan = plan(&m, &LiveSchema::default());
    assert_eq!(
        plan.statements(),
        [
            "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
            "CREATE KEYSPACE IF NOT EXISTS shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
            "CREATE TYPE IF NOT EXISTS shop.address (street text, city text)",
            "CREATE TABLE IF NOT EXISTS app.customers (id uuid, name text, PRIMARY KEY (id))",
            "CREATE TABLE IF NOT EXISTS shop.orders (customer_id uuid, order_id timeuuid, total double, \
             address frozen<address>, PRIMARY KEY (customer_id, order_id)) WITH CLUSTERING ORDER BY (order_id DESC)",
        ]
    );
    // Without a replication, a missing keyspace is refused, not guessed.
    let plan = self::plan(&migrator(&base()), &LiveSchema::default());
    assert_eq!(plan.refused.len(), 2);
    assert!(plan.refused[0].problem.contains("no replication"), "{plan}");
    // Per-keyspace replication wins over the default.
    let m = migrator(&base())
        .replication(Replication::Simple(1))
        .keyspace_replication("shop", Replication::network_topology([("dc1", 3)]));
    let plan = self::plan(&m, &LiveSchema::default());
    assert!(
        plan.steps[1]
            .cql
            .ends_with("{'class': 'NetworkTopologyStrategy', 'dc1': 3}")
    );
}

#[test]
fn additions_are_alters() {
    let tables = vec![
        orders(
            Order::Desc,
            "double",
            vec![
                col("note", "text", ColumnKind::Static),
                col("tags", "set<text>", ColumnKind::Regular),
            ],
            TableOptions {
                default_ttl: Some(3600),
                comment: Some("it's"),
                compaction: Some("SizeTieredCompactionStrategy"),
                gc_grace_seconds: Some(864000),
            },
        ),
        customers(),
    ];
    let mut live = live();
    // The UDT gained a field in the models.
    let plan = plan_with(&migrator(&tables), &live, address(true));
    assert_eq!(
        plan.statements(),
        [
            "ALTER TYPE shop.address ADD IF NOT EXISTS region text",
            "ALTER TABLE shop.orders ADD IF NOT EXISTS note text STATIC",
            "ALTER TABLE shop.orders ADD IF NOT EXISTS tags set<text>",
            "ALTER TABLE shop.orders WITH default_time_to_live = 3600 AND comment = 'it''s'",
        ]
    );
    assert_eq!(
        plan.steps[3].description,
        "change default_time_to_live, comment of shop.orders"
    );
    assert!(plan.refused.is_empty());
    // Once the cluster has the options, that step is done.
    if let Some(t) = live
        .keyspaces
        .get_mut("shop")
        .and_then(|k| k.tables.get_mut("orders"))
    {
        t.options.default_ttl = 3600;
        t.options.comment = "it's".into();
    }
    assert!(plan.steps[3].change.is_done(&live));
    assert!(!plan.steps[1].change.is_done(&live));
}

#[test]
fn refusals_name_table_column_old_new_and_advice() {
    // Clustering order and a type change.
    let m = migrator(&[
        orders(Order::Asc, "decimal", vec![], TableOptions::default()),
        customers(),
    ]);
    let plan = plan(&m, &live());
    assert!(plan.steps.is_empty(), "{plan}");
    assert_eq!(plan.refused.len(), 2, "{plan}");
    let order = &plan.refused[0];
    assert_eq!(order.table, "shop.orders");
    assert_eq!(order.column.as_deref(), Some("order_id"));
    assert_eq!(order.old, "CLUSTERING ORDER BY (order_id DESC)");
    assert_eq!(order.new, "CLUSTERING ORDER BY (order_id ASC)");
    assert!(order.advice.contains("orders_v2"), "{}", order.advice);
    let typ = &plan.refused[1];
    assert_eq!(
        (typ.column.as_deref(), typ.old.as_str(), typ.new.as_str()),
        (Some("total"), "total double", "total decimal")
    );
    assert!(typ.advice.contains("backfill"));
    let err = MigrationError::Refused(plan.refused.clone()).to_string();
    assert!(
        err.contains("`shop.orders`, `order_id`: the clustering order differs"),
        "{err}"
    );
    assert!(
        err.contains("`shop.orders`, `total`: the column's type differs"),
        "{err}"
    );

    // A different partition key.
    let t = leak(TableSchema::new(
        "Customer",
        "customers",
        None,
        TableOptions::default(),
        vec![
            col("id", "uuid", ColumnKind::PartitionKey),
            col("name", "text", ColumnKind::PartitionKey),
        ],
    ));
    let plan = self::plan(&migrator(&[base()[0], t]), &live());
    assert_eq!(plan.refused.len(), 1, "{plan}");
    assert_eq!(plan.refused[0].old, "PRIMARY KEY (id)");
    assert_eq!(plan.refused[0].new, "PRIMARY KEY ((id, name))");
    assert!(plan.refused[0].problem.contains("partition key"));
}

#[test]
fn removed_udt_field_and_dropped_column_are_refused() {
    let mut live = live();
    if let Some(k) = live.keyspaces.get_mut("shop") {
        if let Some(u) = k.types.get_mut("address") {
            u.fields.push(("zip".into(), ty("int"), "int".into()));
        }
        if let Some(t) = k.tables.get_mut("orders") {
            t.dropped.push(DroppedColumn {
                name: "note".into(),
                type_text: "int".into(),
                kind: "regular".into(),
            });
        }
    }
    let tables = [
        orders(
            Order::Desc,
            "double",
            vec![col("note", "text", ColumnKind::Regular)],
            TableOptions::default(),
        ),
        customers(),
    ];
    let plan = self::plan(&migrator(&tables), &live);
    assert!(plan.steps.is_empty(), "{plan}");
    let what: Vec<(&str, Option<&str>)> = plan
        .refused
        .iter()
        .map(|r| (r.table.as_str(), r.column.as_deref()))
        .collect();
    assert_eq!(
        what,
        [("shop.address", Some("zip")), ("shop.orders", Some("note"))]
    );
    assert_eq!(plan.refused[1].old, "note int (dropped)");
    // Re-adding it with the same type is fine.
    let tables = [
        orders(
            Order::Desc,
            "double",
            vec![col("note", "int", ColumnKind::Regular)],
            TableOptions::default(),
        ),
        customers(),
    ];
    let plan = self::plan(&migrator(&tables), &live);
    assert_eq!(
        plan.statements(),
        ["ALTER TABLE shop.orders ADD IF NOT EXISTS note int"]
    );
}

#[test]
fn nothing_is_dropped_without_an_opt_in() {
    let mut live = live();
    if let Some(k) = live.keyspaces.get_mut("shop") {
        if let Some(t) = k.tables.get_mut("orders") {
            t.columns
                .push(live_column("remarks", "text", ColumnKind::Regular, -1));
            t.indexes.push(LiveIndex {
                name: "orders_total_idx".into(),
                kind: "CUSTOM".into(),
                options: BTreeMap::from([("target".into(), "total".into())]),
            });
        }
        k.tables.insert(
            "legacy".into(),
            LiveTable {
                name: "legacy".into(),
                ..LiveTable::default()
            },
        );
        k.types.insert(
            "old_type".into(),
            LiveType {
                name: "old_type".into(),
                fields: Vec::new(),
            },
        );
    }
    let plan = self::plan(&migrator(&base()), &live);
    assert!(plan.is_empty(), "{plan}");
    let listed: Vec<String> = plan.unmanaged.iter().map(ToString::to_string).collect();
    assert_eq!(
        listed,
        [
            "column shop.orders.remarks (text); to drop it, allow it explicitly \
             (--allow-drop shop.orders.remarks)",
            "index shop.orders_total_idx on orders (total)",
            "table shop.legacy",
            "type shop.old_type",
        ]
    );
    let plan = self::plan(
        &migrator(&base()).allow_drop("shop", "orders", "remarks"),
        &live,
    );
    assert_eq!(
        plan.statements(),
        ["ALTER TABLE shop.orders DROP IF EXISTS remarks"]
    );
}

#[test]
fn plans_are_deterministic() {
    let m1 = migrator(&base()).replication(Replication::Simple(1));
    let mut reversed = base();
    reversed.reverse();
    let m2 = migrator(&reversed).replication(Replication::Simple(1));
    let a = plan_text(&m1, &LiveSchema::default());
    assert_eq!(a, plan_text(&m1, &LiveSchema::default()));
    assert_eq!(
        a,
        plan_text(&m2, &LiveSchema::default()),
        "model order does not matter"
    );
}

#[test]
fn models_without_keyspace_or_with_conflicts_are_errors() {
    let m = Migrator::offline(Models::new().table_schema(customers()), None);
    let e = m
        .plan_against(&LiveSchema::default())
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("table `customers` (struct `Customer`) has no keyspace"),
        "{e}"
    );
    let other = leak(TableSchema::new(
        "CustomerV2",
        "customers",
        None,
        TableOptions::default(),
        vec![col("id", "int", ColumnKind::PartitionKey)],
    ));
    let m = migrator(&[customers(), other]);
    let e = m
        .plan_against(&LiveSchema::default())
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("table `app.customers` is described by two structs that differ, `Customer` and `CustomerV2`"),
        "{e}"
    );
}

#[test]
fn schema_cql_is_offline_ddl() {
    let m = migrator(&base());
    let text = m.schema_cql().expect("schema");
    assert!(
        text.starts_with("-- `app`: the keyspace does not exist and no replication"),
        "{text}"
    );
    assert!(
        text.contains(
            "CREATE TABLE IF NOT EXISTS app.customers (id uuid, name text, PRIMARY KEY (id));\n"
        ),
        "{text}"
    );
}

/// `orders` with an index on `total` (default target) and, if `tags`, a new `tags set<text>`
/// column with an index on its values.
fn orders_with_indexes(tags: bool) -> &'static TableSchema {
    let mut extra = Vec::new();
    if tags {
        extra.push(
            col("tags", "set<text>", ColumnKind::Regular).with_index("orders_tags_idx", None),
        );
    }
    let t = orders(Order::Desc, "double", extra, TableOptions::default());
    let mut columns = t.columns.clone();
    columns[2] = columns[2].clone().with_index("orders_total_idx", None);
    leak(TableSchema::new(
        "Orders",
        "orders",
        Some("shop"),
        TableOptions::default(),
        columns,
    ))
}

fn sai(name: &str, target: &str) -> LiveIndex {
    LiveIndex {
        name: name.into(),
        kind: "CUSTOM".into(),
        options: BTreeMap::from([
            ("class_name".into(), "sai".into()),
            ("target".into(), target.into()),
        ]),
    }
}

fn with_live_index(live: &mut LiveSchema, table: &str, index: LiveIndex) {
    let t = live
        .keyspaces
        .get_mut("shop")
        .and_then(|k| k.tables.get_mut(table));
    match t {
        Some(t) => t.indexes.push(index),
        None => panic!("no table shop.{table}"),
    }
}

#[test]
fn a_new_table_is_created_then_its_indexes() {
    let m = migrator(&[orders_with_indexes(true), customers()]).replication(Replication::Simple(1));
    let plan = plan(&m, &LiveSchema::default());
    let statements = plan.statements();
    assert_eq!(statements.len(), 7, "{plan}");
    assert!(statements[4].starts_with("CREATE TABLE IF NOT EXISTS shop.orders ("));
    assert_eq!(
        &statements[5..],
        [
            "CREATE INDEX IF NOT EXISTS orders_total_idx ON shop.orders (total) USING 'sai'",
            "CREATE INDEX IF NOT EXISTS orders_tags_idx ON shop.orders (values(tags)) USING 'sai'",
        ]
    );
    assert_eq!(
        plan.steps[6].description,
        "create index orders_tags_idx on shop.orders (values(tags))"
    );
    // The offline DDL has them too.
    let text = m.schema_cql().expect("schema");
    assert!(
        text.ends_with(
            "CREATE INDEX IF NOT EXISTS orders_tags_idx ON shop.orders (values(tags)) USING 'sai';\n"
        ),
        "{text}"
    );
}

#[test]
fn indexes_on_an_existing_table_come_after_its_new_columns() {
    let mut live = live();
    let m = migrator(&[orders_with_indexes(true), customers()]);
    let plan = self::plan(&m, &live);
    assert_eq!(
        plan.statements(),
        [
            "ALTER TABLE shop.orders ADD IF NOT EXISTS tags set<text>",
            "CREATE INDEX IF NOT EXISTS orders_total_idx ON shop.orders (total) USING 'sai'",
            "CREATE INDEX IF NOT EXISTS orders_tags_idx ON shop.orders (values(tags)) USING 'sai'",
        ]
    );
    assert!(
        plan.refused.is_empty() && plan.unmanaged.is_empty(),
        "{plan}"
    );
    // `validate` reports the missing indexes.
    let missing: Vec<String> = plan.mismatches().iter().map(ToString::to_string).collect();
    assert_eq!(missing.len(), 3);
    assert!(
        missing[1].contains(
            "the models expect the index, the cluster has no index `orders_total_idx` (the \
             models have `CREATE INDEX IF NOT EXISTS orders_total_idx ON shop.orders (total) \
             USING 'sai'`)"
        ),
        "{}",
        missing[1]
    );
    // Once the cluster has one, its step is done (and no longer planned).
    assert!(!plan.steps[1].change.is_done(&live));
    with_live_index(&mut live, "orders", sai("orders_total_idx", "total"));
    assert!(plan.steps[1].change.is_done(&live));
    assert!(!plan.steps[2].change.is_done(&live));
    assert_eq!(self::plan(&m, &live).steps.len(), 2);
}

#[test]
fn a_matching_live_index_gives_an_empty_plan() {
    let mut live = live();
    with_live_index(&mut live, "orders", sai("orders_total_idx", "total"));
    let plan = self::plan(&migrator(&[orders_with_indexes(false), customers()]), &live);
    assert!(plan.is_empty(), "{plan}");
    assert!(plan.unmanaged.is_empty(), "{plan}");
    assert!(plan.mismatches().is_empty());
    // The class may be spelled out, as `USING 'StorageAttachedIndex'` stores it.
    let mut live = self::live();
    let mut full_name = sai("orders_total_idx", "total");
    full_name.options.insert(
        "class_name".into(),
        "org.apache.cassandra.index.sai.StorageAttachedIndex".into(),
    );
    with_live_index(&mut live, "orders", full_name);
    let plan = self::plan(&migrator(&[orders_with_indexes(false), customers()]), &live);
    assert!(plan.is_empty() && plan.unmanaged.is_empty(), "{plan}");
}

#[test]
fn an_index_name_taken_by_another_definition_is_refused() {
    let models = [orders_with_indexes(false), customers()];
    let legacy = LiveIndex {
        name: "orders_total_idx".into(),
        kind: "COMPOSITES".into(),
        options: BTreeMap::from([("target".into(), "total".into())]),
    };
    // Another target, another class (a legacy 2i), another table of the keyspace.
    let cases = [
        (
            "orders",
            sai("orders_total_idx", "address"),
            "CREATE INDEX orders_total_idx ON shop.orders (address) USING 'sai'",
        ),
        (
            "orders",
            legacy,
            "CREATE INDEX orders_total_idx ON shop.orders (total)",
        ),
    ];
    for (table, index, old) in cases {
        let mut live = live();
        with_live_index(&mut live, table, index);
        let plan = self::plan(&migrator(&models), &live);
        assert!(plan.steps.is_empty(), "{plan}");
        assert_eq!(plan.refused.len(), 1, "{plan}");
        let r = &plan.refused[0];
        assert_eq!(r.table, "shop.orders");
        assert_eq!(r.column.as_deref(), Some("total"));
        assert_eq!(r.old, old);
        assert_eq!(
            r.new,
            "CREATE INDEX orders_total_idx ON shop.orders (total) USING 'sai'"
        );
        assert!(
            r.problem
                .contains("already has an index named `orders_total_idx` with another definition"),
            "{}",
            r.problem
        );
        assert!(
            r.advice.contains("DROP INDEX shop.orders_total_idx")
                && r.advice
                    .contains("#[cass(index(name = \"...\"))] on field `total`"),
            "{}",
            r.advice
        );
        // Not listed as unmanaged too: the refusal names it.
        assert!(plan.unmanaged.is_empty(), "{plan}");
        // `validate` reports it.
        assert_eq!(plan.mismatches().len(), 1);
    }
    // The name used by an index of another table.
    let mut live = live();
    let shop = live.keyspaces.get_mut("shop").expect("shop");
    shop.tables.insert(
        "legacy".into(),
        LiveTable {
            name: "legacy".into(),
            indexes: vec![sai("orders_total_idx", "x")],
            ..LiveTable::default()
        },
    );
    let plan = self::plan(&migrator(&models), &live);
    assert_eq!(plan.refused.len(), 1, "{plan}");
    assert_eq!(
        plan.refused[0].old,
        "CREATE INDEX orders_total_idx ON shop.legacy (x) USING 'sai'"
    );
}

#[test]
fn an_existing_index_on_the_same_target_is_refused_with_its_name() {
    let mut live = live();
    with_live_index(&mut live, "orders", sai("by_total", "total"));
    let plan = self::plan(&migrator(&[orders_with_indexes(false), customers()]), &live);
    assert!(plan.steps.is_empty(), "{plan}");
    assert_eq!(plan.refused.len(), 1, "{plan}");
    let r = &plan.refused[0];
    assert_eq!(
        r.old,
        "CREATE INDEX by_total ON shop.orders (total) USING 'sai'"
    );
    assert!(
        r.problem.contains("already has an SAI index on `total`"),
        "{}",
        r.problem
    );
    assert!(
        r.advice
            .contains("#[cass(index(name = \"by_total\"))] on field `total`"),
        "{}",
        r.advice
    );
    // It is not declared, so it is also listed as on the cluster only.
    assert_eq!(
        plan.unmanaged
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["index shop.by_total on orders (total)"]
    );
}

#[test]
fn undeclared_live_indexes_are_listed_beside_declared_ones() {
    let mut live = live();
    with_live_index(&mut live, "orders", sai("orders_total_idx", "total"));
    with_live_index(&mut live, "orders", sai("orders_address_idx", "address"));
    let plan = self::plan(&migrator(&[orders_with_indexes(false), customers()]), &live);
    assert!(plan.is_empty(), "{plan}");
    assert_eq!(
        plan.unmanaged
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["index shop.orders_address_idx on orders (address)"]
    );
}

#[test]
fn an_index_cassandra_refuses_is_refused_before_it_runs() {
    // What the derive cannot see (e.g. behind a type alias): `keys` on a set.
    let t = orders(
        Order::Desc,
        "double",
        vec![
            col("tags", "set<text>", ColumnKind::Regular)
                .with_index("orders_tags_idx", Some(cassmodel_schema::IndexTarget::Keys)),
        ],
        TableOptions::default(),
    );
    let plan = self::plan(&migrator(&[t, customers()]), &live());
    assert_eq!(
        plan.statements(),
        ["ALTER TABLE shop.orders ADD IF NOT EXISTS tags set<text>"]
    );
    assert_eq!(plan.refused.len(), 1, "{plan}");
    assert_eq!(
        plan.refused[0].problem,
        "Cassandra refuses this index: Cannot create index on keys of column tags with non-map type"
    );
}

#[test]
fn one_index_name_on_two_tables_of_a_keyspace_is_a_models_error() {
    let a = orders_with_indexes(false);
    let b = leak(TableSchema::new(
        "Other",
        "other",
        Some("shop"),
        TableOptions::default(),
        vec![
            col("id", "int", ColumnKind::PartitionKey),
            col("v", "int", ColumnKind::Regular).with_index("orders_total_idx", None),
        ],
    ));
    let e = migrator(&[a, b])
        .plan_against(&LiveSchema::default())
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.to_string().contains(
            "index `shop.orders_total_idx` is declared on two tables, `orders` (struct `Orders`) \
             and `other` (struct `Other`)"
        ),
        "{e}"
    );
}

/// `orders` with `total` masked as `mask` in the model and as `live_mask` on the cluster;
/// dropping its mask allowed by name when `unmask`.
fn masked_plan(mask: Option<&'static str>, live_mask: Option<Mask>, unmask: bool) -> MigrationPlan {
    let mut total = col("total", "double", ColumnKind::Regular);
    if let Some(m) = mask {
        total = total.with_mask(m);
    }
    let orders = leak(TableSchema::new(
        "Orders",
        "orders",
        Some("shop"),
        TableOptions::default(),
        vec![
            col("customer_id", "uuid", ColumnKind::PartitionKey),
            col("order_id", "timeuuid", ColumnKind::Clustering(Order::Desc)),
            total,
            col("address", "frozen<address>", ColumnKind::Regular),
        ],
    ));
    let mut live = live();
    if let Some(t) = live
        .keyspaces
        .get_mut("shop")
        .and_then(|k| k.tables.get_mut("orders"))
        && let Some(c) = t.columns.iter_mut().find(|c| c.name == "total")
    {
        c.mask = live_mask;
    }
    let mut m = migrator(&[orders, customers()]);
    if unmask {
        m = m.allow_unmask("shop", "orders", "total");
    }
    plan(&m, &live)
}

fn inner_mask() -> Mask {
    Mask {
        function: MaskFunction::Inner,
        args: vec![MaskArg::Int(1), MaskArg::Null],
    }
}

#[test]
fn masks_are_added_and_replaced() {
    let same = masked_plan(Some("mask_inner(1, null)"), Some(inner_mask()), false);
    assert!(same.is_empty(), "{same}");
    assert!(same.mismatches().is_empty());
    let add = masked_plan(Some("mask_default()"), None, false);
    assert_eq!(
        add.statements(),
        ["ALTER TABLE shop.orders ALTER total MASKED WITH mask_default()"]
    );
    assert_eq!(
        add.mismatches()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "`shop.orders`, `total`: the models expect the column masked with `mask_default()`, \
             the cluster has it without a mask"
        ]
    );
    // Another masking function: the column stays masked, so no opt-in is needed.
    let change = masked_plan(Some("mask_null()"), Some(inner_mask()), false);
    assert_eq!(
        change.statements(),
        ["ALTER TABLE shop.orders ALTER total MASKED WITH mask_null()"]
    );
    assert_eq!(
        change.steps[0].description,
        "replace the mask of column total of shop.orders: mask_inner(1, null) -> mask_null() \
         (the column stays masked)"
    );
    assert_eq!(
        change.mismatches()[0].to_string(),
        "`shop.orders`, `total`: the models expect the column masked with `mask_null()`, the \
         cluster has it masked with `mask_inner(1, null)`"
    );
}

#[test]
fn a_mask_the_model_lacks_is_dropped_only_when_allowed_by_name() {
    let refused = masked_plan(None, Some(inner_mask()), false);
    assert!(refused.steps.is_empty(), "{refused}");
    assert_eq!(refused.refused.len(), 1, "{refused}");
    assert_eq!(
        refused.refused[0].to_string(),
        "`shop.orders`, `total`: dropping the mask would expose the column's values to every \
         role without the UNMASK permission\n  \
         cluster: total double MASKED WITH mask_inner(1, null)\n  \
         models:  total double (no mask)\n  \
         instead: to keep the mask, declare it on the field: #[cass(masked = mask_inner(1, \
         null))]; to expose the column, drop the mask by name: \
         `Migrator::allow_unmask(\"shop\", \"orders\", \"total\")` (CLI: `--allow-unmask \
         shop.orders.total`)"
    );
    // `validate` says what each side has, and the two ways out.
    let mismatch = refused.mismatches();
    assert_eq!(mismatch.len(), 1, "{mismatch:?}");
    let text = mismatch[0].to_string();
    assert!(
        text.starts_with(
            "`shop.orders`, `total`: the models expect `total double (no mask)`, the cluster \
             has `total double MASKED WITH mask_inner(1, null)` (dropping the mask would \
             expose"
        ) && text.contains("\n  fix: to keep the mask, declare it on the field")
            && text.contains("--allow-unmask shop.orders.total"),
        "{text}"
    );

    let allowed = masked_plan(None, Some(inner_mask()), true);
    assert_eq!(
        allowed.statements(),
        ["ALTER TABLE shop.orders ALTER total DROP MASKED"]
    );
    assert!(allowed.steps[0].exposes_data());
    let text = allowed.to_string();
    assert!(
        text.starts_with(
            "-- WARNING: step(s) 1 drop a column's mask: every role without the UNMASK \
             permission then reads its values\n\
             -- 1. EXPOSES DATA: drop the mask mask_inner(1, null) of column total of \
             shop.orders (allowed by name)"
        ),
        "{text}"
    );
    assert_eq!(
        allowed.mismatches()[0].to_string(),
        "`shop.orders`, `total`: the models expect the column without a mask (its field \
         declares none), the cluster has it masked with `mask_inner(1, null)` (the plan drops \
         the mask, allowed by name: every role without UNMASK then reads the column)"
    );
}
