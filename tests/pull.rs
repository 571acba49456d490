//! `cassmodel pull` on a real node: the models it writes for a keyspace compile (they are
//! this file's modules), `migrate plan` against the same keyspace has nothing to do,
//! `validate` passes, and rows written with plain CQL read back through the generated
//! structs equal to what plain CQL returns.
//!
//! Two sources: every seed model (created by the models of `examples/models`, in the test's
//! keyspace and the supermarket's two keyspaces), and a keyspace created only by the
//! hand-written CQL of `tests/pull/handwritten.cql` (every CQL type and key shape, quoted
//! mixed-case and reserved-word names, and what cannot be modelled). The generated modules
//! are committed (`tests/pull/*.rs`) and must equal what `pull` writes now; after a change to
//! `pull`, rewrite them with `CASSMODEL_BLESS=1 cargo test --test pull` and review the diff.

#[path = "pull/handwritten.rs"]
mod handwritten;
#[path = "../examples/models/mod.rs"]
mod models;
#[path = "pull/seed.rs"]
mod seed;
#[path = "pull/seed_customer.rs"]
mod seed_customer;
#[path = "pull/seed_order_delivery.rs"]
mod seed_order_delivery;
mod support;

use std::collections::BTreeMap;
use std::path::Path;

use cassmodel::migrate::{LiveSchema, LiveTable, LiveType, Migrator, Models};
use cassmodel::scylla::deserialize::FrameSlice;
use cassmodel::scylla::deserialize::value::DeserializeValue;
use cassmodel::scylla::serialize::writers::CellWriter;
use cassmodel::scylla::value::{CqlValue, Row};
use cassmodel::{ColumnKind, CqlType, Db, NativeType, Table, TableSchema};
use cassmodel_cli::pull::{PullOptions, pull};
use futures::TryStreamExt;

const HANDWRITTEN: &str = include_str!("pull/handwritten.cql");

/// Rows written with plain CQL per table (the second with its key columns only).
const ROWS: usize = 3;

#[tokio::test]
async fn handwritten_keyspace_round_trips() {
    let t = support::test_db("pull_hand").await;
    let ks = t.keyspace().to_owned();
    t.db.session().use_keyspace(&ks, false).await.expect("USE");
    for statement in cassmodel_cli::cql_statements(HANDWRITTEN) {
        t.db.execute_ddl(&statement)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let pulled = pull(&t.db, &ks, &PullOptions::new()).await.expect("pull");
    fixture("tests/pull/handwritten.rs", &pulled.module);
    // What cannot be modelled is named, with the reason.
    let warnings = pulled.warnings.join("\n");
    for expected in [
        "not generated: table `int_vectors`: column `v`: `vector<int, 3>`: cassmodel's \
         `Vector<N>` holds `vector<float, N>` only",
        "frozen_keys.v: Not declared here: the index `legacy_v` on `v` (a legacy secondary index",
        "every_type.vc: Not declared here: the index `vc_folded` on `vc` (options the derive \
         does not declare: {'case_sensitive': 'false'})",
    ] {
        assert!(
            warnings.contains(expected),
            "no `{expected}` in:\n{warnings}"
        );
    }
    assert_eq!(pulled.warnings.len(), 3, "{warnings}");

    let generated = [
        handwritten::EveryType::schema(),
        handwritten::Events::schema(),
        handwritten::FrozenKeys::schema(),
        handwritten::PageCounts::schema(),
    ];
    nothing_to_do(&t.db, &generated).await;
    let live = LiveSchema::read(t.db.session(), &[&ks])
        .await
        .expect("live schema");
    let k = &live.keyspaces[&ks];
    for table in generated {
        write_rows(&t.db, &k.tables[table.name], &k.types).await;
    }
    rows_match::<handwritten::EveryType>(&t.db).await;
    rows_match::<handwritten::Events>(&t.db).await;
    rows_match::<handwritten::FrozenKeys>(&t.db).await;
    rows_match::<handwritten::PageCounts>(&t.db).await;
    t.drop_all_unmodelled().await;
}

#[tokio::test]
async fn seed_models_round_trip() {
    let mut t = support::test_db("pull_seed").await;
    for ks in models::supermarket::KEYSPACES {
        t.map_keyspace(ks).await;
    }
    models::create_all(&t.db, &cassmodel::Replication::Simple(1))
        .await
        .expect("create the seed models");
    let seed_tables: Vec<&'static TableSchema> =
        models::SECTIONS.iter().flat_map(|s| (s.tables)()).collect();
    let keyspaces = [
        (None, "tests/pull/seed.rs"),
        (Some("customer"), "tests/pull/seed_customer.rs"),
        (Some("order_delivery"), "tests/pull/seed_order_delivery.rs"),
    ];
    let mut covered = 0;
    for (declared, file) in keyspaces {
        let ks =
            t.db.resolve_keyspace(declared)
                .expect("a keyspace")
                .to_owned();
        let db = t.db.with_keyspace(&ks).expect("keyspace");
        let pulled = pull(&db, &ks, &PullOptions::new()).await.expect("pull");
        fixture(file, &pulled.module);
        assert_eq!(pulled.warnings, Vec::<String>::new(), "{ks}");
        // Every seed table of that keyspace has its generated struct.
        let seeds: Vec<&str> = seed_tables
            .iter()
            .filter(|s| s.keyspace == declared)
            .map(|s| s.name)
            .collect();
        let generated = generated_in(&seed_tables, &seeds);
        assert_eq!(generated.len(), seeds.len(), "{ks}: {seeds:?}");
        covered += generated.len();
        nothing_to_do(&db, &generated).await;
        let live = LiveSchema::read(db.session(), &[&ks]).await.expect("live");
        let k = &live.keyspaces[&ks];
        for table in &generated {
            write_rows(&db, &k.tables[table.name], &k.types).await;
        }
    }
    assert_eq!(covered, seed_tables.len());
    let db = &t.db;
    let mut checked = 0;
    macro_rules! rows_match {
        ($db:expr => $($m:ident::$t:ident),* $(,)?) => {
            $(rows_match::<$m::$t>($db).await; checked += 1;)*
        };
    }
    rows_match!(db =>
        seed::Customer, seed::CustomerByLikedProduct, seed::GymsByCity, seed::Items,
        seed::ItemsByUser, seed::KeyParts, seed::MagazineName, seed::MagazinePublisher,
        seed::PostsFacebook, seed::Product, seed::ProductLikedByCustomer, seed::T1, seed::T2,
        seed::T3, seed::Users, seed::UsersByItem, seed::UsersByMainland, seed::Wide,
    );
    let in_keyspace = |declared| {
        let ks = db.resolve_keyspace(Some(declared)).expect("mapped");
        db.with_keyspace(ks).expect("keyspace")
    };
    let customer = in_keyspace("customer");
    rows_match!(&customer =>
        seed_customer::BasketByCustomer, seed_customer::CustomerAddresses,
        seed_customer::Customers,
    );
    let delivery = in_keyspace("order_delivery");
    rows_match!(&delivery =>
        seed_order_delivery::DeliveryTimeslots, seed_order_delivery::OrdersByCustomer,
        seed_order_delivery::OrdersByCustomerMonth, seed_order_delivery::OrdersByDeliveryDate,
    );
    assert_eq!(
        checked, covered,
        "every generated table's rows are compared"
    );
    t.drop_all().await;
}

/// The generated tables (those of the registry that are not seed models) named `names`.
fn generated_in(seeds: &[&'static TableSchema], names: &[&str]) -> Vec<&'static TableSchema> {
    cassmodel::migrate::registered_tables()
        .into_iter()
        .filter(|t| !seeds.iter().any(|s| std::ptr::eq(*s, *t)))
        .filter(|t| names.contains(&t.name))
        .collect()
}

/// The committed file `path` equals `generated` (or is rewritten with CASSMODEL_BLESS=1).
fn fixture(path: &str, generated: &str) {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if std::env::var_os("CASSMODEL_BLESS").is_some() {
        std::fs::write(&full, generated).expect("write the fixture");
        return;
    }
    let committed = std::fs::read_to_string(&full).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{path} is not what `cassmodel pull` writes now (from line {}: `{}` vs `{}`); \
             rewrite it with `CASSMODEL_BLESS=1 cargo test --test pull` and review the diff",
            line + 1,
            committed.lines().nth(line).unwrap_or(""),
            generated.lines().nth(line).unwrap_or("")
        );
    }
}

/// `migrate plan` of `tables` against their keyspace runs nothing and refuses nothing, and
/// `validate` passes.
async fn nothing_to_do(db: &Db, tables: &[&'static TableSchema]) {
    let models = tables.iter().fold(Models::new(), |m, t| m.table_schema(t));
    let migrator = Migrator::new(db, models);
    let plan = migrator.plan().await.expect("plan");
    assert!(
        plan.is_empty(),
        "the generated models are not the keyspace:\n{plan}"
    );
    migrator.validate().await.expect("validate");
}

/// Writes [`ROWS`] rows into `table` with plain CQL: every column of a type-specific literal
/// (the second row: its key columns only, every other column null); a counter table's rows by
/// `UPDATE .. SET c = c + n`.
async fn write_rows(db: &Db, table: &LiveTable, types: &BTreeMap<String, LiveType>) {
    let name = qualified(db, &table.name);
    for i in 0..ROWS {
        let keys: Vec<_> = table
            .columns
            .iter()
            .filter(|c| matches!(c.kind, ColumnKind::PartitionKey | ColumnKind::Clustering(_)))
            .collect();
        let others: Vec<_> = table
            .columns
            .iter()
            .filter(|c| matches!(c.kind, ColumnKind::Static | ColumnKind::Regular))
            .filter(|_| i != 1)
            .collect();
        let q = quote;
        let cql = if table.columns.iter().any(|c| c.cql_type.is_counter()) {
            let sets: Vec<String> = table
                .columns
                .iter()
                .filter(|c| c.cql_type.is_counter())
                .take(if i == 1 { 1 } else { usize::MAX })
                .map(|c| format!("{0} = {0} + {1}", q(&c.name), i + 2))
                .collect();
            let wheres: Vec<String> = keys
                .iter()
                .map(|c| format!("{} = {}", q(&c.name), literal(&c.cql_type, types, i)))
                .collect();
            format!(
                "UPDATE {name} SET {} WHERE {}",
                sets.join(", "),
                wheres.join(" AND ")
            )
        } else {
            let columns: Vec<_> = keys.iter().chain(&others).collect();
            format!(
                "INSERT INTO {name} ({}) VALUES ({})",
                columns
                    .iter()
                    .map(|c| q(&c.name))
                    .collect::<Vec<_>>()
                    .join(", "),
                columns
                    .iter()
                    .map(|c| literal(&c.cql_type, types, i))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        db.session()
            .query_unpaged(cql.as_str(), ())
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"));
    }
}

/// A CQL literal of type `t`, different for each `i`.
fn literal(t: &CqlType, types: &BTreeMap<String, LiveType>, i: usize) -> String {
    use NativeType as N;
    let lit = |t: &CqlType, j: usize| literal(t, types, j);
    match t {
        CqlType::Native(n) => match n {
            N::Ascii => format!("'ascii{i}'"),
            N::Text => format!("'text {i} é''s'"),
            N::Bigint => format!("{}", 1_234_567_890_123_i64 + i as i64),
            N::Int => format!("{}", 40 + i),
            N::Smallint => format!("{}", 300 + i),
            N::Tinyint => format!("{}", 7 + i),
            N::Boolean => i.is_multiple_of(2).to_string(),
            N::Float => format!("{}.5", i),
            N::Double => format!("-{}.25", i),
            N::Blob => format!("0x01020{i}"),
            N::Inet => ["'127.0.0.1'", "'::1'", "'10.1.2.3'"][i % 3].to_owned(),
            N::Uuid => format!("123e4567-e89b-12d3-a456-42661417400{i}"),
            N::Timeuuid => format!("5055{i}d6e-29bb-11e5-b345-feff819cdc9f"),
            N::Timestamp => format!("'2024-01-0{} 03:04:05.678+0000'", i + 1),
            N::Date => format!("'2024-02-0{}'", i + 1),
            N::Time => format!("'08:0{i}:00.000000001'"),
            N::Duration => format!("{}mo2d3h4m5s6ms7us8ns", i + 1),
            N::Decimal => format!("{i}2.345"),
            N::Varint => format!("12345678901234567890123456789{i}"),
            N::Counter => format!("{i}"),
        },
        CqlType::Frozen(inner) => lit(inner, i),
        CqlType::List(e) => format!("[{}, {}]", lit(e, i), lit(e, i + 1)),
        CqlType::Set(e) => format!("{{{}, {}}}", lit(e, i), lit(e, i + 1)),
        CqlType::Map(k, v) => format!(
            "{{{}: {}, {}: {}}}",
            lit(k, i),
            lit(v, i),
            lit(k, i + 1),
            lit(v, i + 1)
        ),
        CqlType::Tuple(ts) => format!(
            "({})",
            ts.iter().map(|t| lit(t, i)).collect::<Vec<_>>().join(", ")
        ),
        CqlType::Udt(name) => format!(
            "{{{}}}",
            types[name]
                .fields
                .iter()
                .map(|(f, t, _)| format!("{}: {}", quote(f), lit(t, i)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        CqlType::Vector(_, n) => format!(
            "[{}]",
            (0..*n)
                .map(|d| format!("{}.5", d as usize + i))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The rows of `T`'s table read through `T` equal those plain CQL reads (`SELECT *`), as
/// the driver's `CqlValue`s: each field written by its mapping for the column's type and read
/// back as a `CqlValue`. Non-empty: every table has [`ROWS`] rows.
async fn rows_match<T: Table>(db: &Db) {
    let name = T::schema().name;
    let cql = format!("SELECT * FROM {}", qualified(db, name));
    let result = db
        .session()
        .query_unpaged(cql.as_str(), ())
        .await
        .expect("plain read")
        .into_rows_result()
        .expect("rows");
    let specs: Vec<_> = result.column_specs().iter().cloned().collect();
    let plain: Vec<String> = result
        .rows::<Row>()
        .expect("rows")
        .map(|r| normalized(&specs, r.expect("row").columns))
        .collect();
    let typed: Vec<T> = cassmodel::__private::query::scan::<T>(db, 1)
        .await
        .expect("typed read")
        .try_collect()
        .await
        .expect("typed rows");
    let typed: Vec<String> = typed
        .iter()
        .map(|row| {
            let values = specs
                .iter()
                .map(|spec| {
                    let i = T::schema().column_index(spec.name()).expect("a field");
                    let v = row.__value(i).expect("its value");
                    if v.is_none() {
                        return None;
                    }
                    let mut buf = Vec::new();
                    v.write_to(spec.typ(), CellWriter::new(&mut buf))
                        .expect("written");
                    let cell = &buf[4..];
                    Some(
                        CqlValue::deserialize(spec.typ(), Some(FrameSlice::new_borrowed(cell)))
                            .expect("read as a CqlValue"),
                    )
                })
                .collect();
            normalized(&specs, values)
        })
        .collect();
    let (mut plain, mut typed) = (plain, typed);
    plain.sort();
    typed.sort();
    assert!(plain.len() >= ROWS, "{name}: {} rows", plain.len());
    assert_eq!(typed, plain, "{name}");
}

/// Table `name` of `db`'s keyspace.
fn qualified(db: &Db, name: &str) -> String {
    format!(
        "{}.{}",
        quote(db.keyspace().expect("a keyspace")),
        quote(name)
    )
}

/// `name` quoted, as CQL takes any name.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A row as text to compare: an empty collection is a null (Cassandra stores one as null,
/// and a struct field that is not an `Option` reads a null collection as empty).
fn normalized(
    specs: &[cassmodel::scylla::frame::response::result::ColumnSpec<'_>],
    values: Vec<Option<CqlValue>>,
) -> String {
    let values: Vec<(String, Option<CqlValue>)> = specs
        .iter()
        .zip(values)
        .map(|(s, v)| {
            let v = match v {
                Some(CqlValue::List(l)) if l.is_empty() => None,
                Some(CqlValue::Set(l)) if l.is_empty() => None,
                Some(CqlValue::Map(m)) if m.is_empty() => None,
                v => v,
            };
            (s.name().to_owned(), v)
        })
        .collect();
    format!("{values:?}")
}
