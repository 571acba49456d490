//! What the round trip of a pulled module checks, shared by `tests/pull.rs` (the seed models
//! and a hand-written keyspace) and `tests/pull_suite.rs` (every keyspace the suite leaves):
//! `migrate plan` has nothing to do, `validate` passes, rows written with plain CQL read
//! back through the generated structs equal to what plain CQL returns, and those rows, read
//! through the structs and inserted into a copy of the keyspace, are there what they are in
//! the keyspace (`SELECT JSON`, which tells a null inside a value from an empty one).

#![allow(dead_code)] // each test binary uses a different part of this module

use std::collections::BTreeMap;
use std::marker::PhantomData;

use cassmodel::migrate::{LiveSchema, LiveTable, LiveType, Migrator, Models};
use cassmodel::scylla::deserialize::FrameSlice;
use cassmodel::scylla::deserialize::value::DeserializeValue;
use cassmodel::scylla::serialize::writers::CellWriter;
use cassmodel::scylla::value::{CqlValue, Row};
use cassmodel::{
    Db, Table, schema::ColumnKind, schema::CqlType, schema::NativeType, schema::TableSchema,
    write::Insertable, write::Writable,
};
use futures::TryStreamExt;
use futures::future::BoxFuture;

/// Rows written with plain CQL per table (the second with its key columns only).
pub const ROWS: usize = 3;

/// `migrate plan` of `tables` against their keyspace runs nothing and refuses nothing, and
/// `validate` passes.
pub async fn nothing_to_do(db: &Db, tables: &[&'static TableSchema]) {
    let models = tables.iter().fold(Models::new(), |m, t| m.table_schema(t));
    let migrator = Migrator::new(db, models);
    let plan = migrator.plan().await.expect("plan");
    assert!(
        plan.is_empty(),
        "the generated models are not the keyspace:\n{plan}"
    );
    migrator.validate().await.expect("validate");
}

/// Writes [`ROWS`] rows into each of `tables` of `db`'s keyspace ([`write_rows`]).
pub async fn write_rows_into(db: &Db, tables: &[&'static TableSchema]) {
    let ks = db.keyspace().expect("a keyspace");
    let live = LiveSchema::read(db, &[ks]).await.expect("live schema");
    let k = &live.keyspaces[ks];
    // A materialized view is written by the server, from its base table's rows.
    for table in tables.iter().filter(|t| t.view_of.is_none()) {
        write_rows(db, &k.tables[table.name], &k.types).await;
    }
}

/// Writes [`ROWS`] rows into `table` with plain CQL: every column of a type-specific literal
/// (the second row: its key columns only, every other column null); a counter table's rows by
/// `UPDATE .. SET c = c + n`.
pub async fn write_rows(db: &Db, table: &LiveTable, types: &BTreeMap<String, LiveType>) {
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
pub fn literal(t: &CqlType, types: &BTreeMap<String, LiveType>, i: usize) -> String {
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
/// back as a `CqlValue`. Non-empty: every table has [`ROWS`] rows, and a materialized view
/// at least one (the base's rows whose view key columns are not null; the second row's
/// regular columns are null).
pub async fn rows_match<T: Table>(db: &Db) {
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
    let least = if T::schema().view_of.is_some() {
        1
    } else {
        ROWS
    };
    assert!(plain.len() >= least, "{name}: {} rows", plain.len());
    assert_eq!(typed, plain, "{name}");
}

/// Table `name` of `db`'s keyspace.
pub fn qualified(db: &Db, name: &str) -> String {
    format!(
        "{}.{}",
        quote(db.keyspace().expect("a keyspace")),
        quote(name)
    )
}

/// `name` quoted, as CQL takes any name.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A row as text to compare: an empty collection is a null (Cassandra stores one as null,
/// and a struct field that is not an `Option` reads a null collection as empty).
pub fn normalized(
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

/// Makes keyspace `to` with the statements (`DESCRIBE KEYSPACE`) that made keyspace `from`,
/// on one replica (the replication is no part of the models); `what` names the statements'
/// source in a failure.
pub async fn recreate(db: &Db, statements: &[String], from: &str, to: &str, what: &str) {
    for statement in statements {
        let statement = if statement.starts_with("CREATE KEYSPACE ") {
            format!(
                "CREATE KEYSPACE {to} WITH replication = \
                 {{'class': 'SimpleStrategy', 'replication_factor': 1}}"
            )
        } else {
            statement.replace(from, to)
        };
        db.execute_ddl(&statement)
            .await
            .unwrap_or_else(|e| panic!("{what} ({from}): {statement}: {e}"));
    }
}

/// A new keyspace with the tables and types of `db`'s (without its views and indexes, which
/// rows inserted there do not need), and a `Db` on it; drop it with [`drop_keyspace`].
pub async fn copy_keyspace(db: &Db) -> Db {
    let from = db.keyspace().expect("a keyspace");
    let to = crate::support::unique_name("pull_copy");
    let statements: Vec<String> = crate::support::describe(db, from)
        .await
        .into_iter()
        .filter(|s| {
            ![
                "CREATE MATERIALIZED VIEW",
                "CREATE INDEX",
                "CREATE CUSTOM INDEX",
            ]
            .iter()
            .any(|p| s.starts_with(p))
        })
        .collect();
    recreate(db, &statements, from, &to, "the copy").await;
    db.with_keyspace(&to).expect("keyspace")
}

/// Drops `db`'s keyspace.
pub async fn drop_keyspace(db: &Db) {
    let ks = db.keyspace().expect("a keyspace");
    db.execute_ddl(&format!("DROP KEYSPACE {ks}"))
        .await
        .unwrap_or_else(|e| panic!("DROP KEYSPACE {ks}: {e}"));
}

/// Every row of `T`'s table in `from`, read through `T` and inserted into the same table in
/// `to`, is there what it is in `from`: `SELECT JSON *` of the two, row by row. The rows
/// compared, at least `least`.
pub async fn copied_rows_match<T: Insertable + Writable>(from: &Db, to: &Db, least: usize) {
    let rows: Vec<T> = cassmodel::__private::query::scan::<T>(from, 1)
        .await
        .expect("typed read")
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("{}: typed read: {e}", T::schema().name));
    for row in &rows {
        to.insert(row)
            .await
            .unwrap_or_else(|e| panic!("{}: insert into the copy: {e}", T::schema().name));
    }
    let (source, copy) = (json_rows::<T>(from).await, json_rows::<T>(to).await);
    let name = T::schema().name;
    assert!(source.len() >= least, "{name}: {} rows", source.len());
    assert_eq!(
        rows.len(),
        source.len(),
        "{name}: rows read through the struct"
    );
    assert_eq!(copy.len(), source.len(), "{name}: rows in the copy");
    for (c, s) in copy.iter().zip(&source) {
        assert_eq!(c, s, "{name}: the copy's row, then the source's");
    }
}

/// `SELECT JSON *` of `T`'s table in `db`'s keyspace, sorted.
pub async fn json_rows<T: Table>(db: &Db) -> Vec<String> {
    let cql = format!("SELECT JSON * FROM {}", qualified(db, T::schema().name));
    let mut rows: Vec<String> = db
        .session()
        .query_unpaged(cql.as_str(), ())
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("one text column")
        .map(|r| r.expect("row").0)
        .collect();
    rows.sort();
    rows
}

/// [`copied_rows_match`] for a table whose rows can be inserted, nothing for a view or a
/// counter table, chosen by the table's type where a macro names it (`tests/pull_suite.rs`):
/// `(&&Copied::<T>::new()).copy(from, to)` takes [`ByInsert`]'s method when `T` is
/// `Insertable + Writable`, else [`NotCopied`]'s (the method found with the fewest
/// dereferences wins). Whether it copied.
pub struct Copied<T>(PhantomData<T>);

impl<T> Copied<T> {
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

/// [`Copied`] of a table whose rows can be inserted.
pub trait ByInsert {
    fn copy<'a>(&self, from: &'a Db, to: &'a Db) -> BoxFuture<'a, bool>;
}

impl<T: Insertable + Writable> ByInsert for &Copied<T> {
    fn copy<'a>(&self, from: &'a Db, to: &'a Db) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            copied_rows_match::<T>(from, to, ROWS).await;
            true
        })
    }
}

/// [`Copied`] of a view (the server writes it) or a counter table (whose rows are counted,
/// not inserted).
pub trait NotCopied {
    fn copy<'a>(&self, from: &'a Db, to: &'a Db) -> BoxFuture<'a, bool>;
}

impl<T> NotCopied for Copied<T> {
    fn copy<'a>(&self, _: &'a Db, _: &'a Db) -> BoxFuture<'a, bool> {
        Box::pin(async { false })
    }
}
