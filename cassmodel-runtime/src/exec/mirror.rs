//! Dual writes during a key change (`#[cass(from = "old", dual_writes)]` on the new table):
//! every insert, update and delete of the new table is also written to the old table, with
//! the same write time, so that the application can run the release that reads the old
//! table or the one that reads the new one while the copy runs.
//!
//! Columns map by name (the new table has every column of the old key, the copy checks it).
//! A write that names the old table's whole primary key maps to one row there; any other
//! write (a partition or range delete) must name the same key columns in both tables, or it
//! is refused before anything is sent: a delete of a day bucket has no equivalent in a table
//! without the bucket column. A lightweight transaction is decided on the new table; when it
//! applies, its writes go to the old table without the condition.

use std::any::TypeId;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::writers::RowWriter;
use scylla::statement::prepared::PreparedStatement;

use super::send::unpaged;
use super::statement::{Stmt, cached};
use crate::error::errors::{Error, Result};
use crate::mapping::table::{Table, write_column};
use crate::schema::ddl::qualified;
use crate::session::cache::CacheKey;
use crate::session::db::Db;
use crate::session::mirror::MirrorTable;
use crate::statement::cql;
use crate::statement::options::QueryOptions;
use crate::statement::spec::{Op, SetOp, Spec, Statement};
use crate::statement::values::QueryValues;

/// A write time for both halves of a dual write: microseconds since the epoch, later than
/// every one this process gave before (two writes of one row in one microsecond keep their
/// order).
pub(crate) fn write_time() -> i64 {
    static LAST: AtomicI64 = AtomicI64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let next = now.max(last + 1);
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

/// `options` with the write time `time` (the protocol's timestamp of the request).
pub(crate) fn at(options: &QueryOptions, time: i64) -> QueryOptions {
    let mut o = options.clone();
    o.write_time = Some(time);
    o
}

/// The outcome of a dual write from its two halves: the new table's and the old table's.
pub(crate) fn both<T: Table>(
    db: &Db,
    m: &MirrorTable,
    new: Result<()>,
    old: Result<()>,
) -> Result<()> {
    match (new, old) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(e), Err(_)) => Err(e),
        (Err(e), Ok(())) => Err(Error::DualWrite {
            not_written: new_name::<T>(db),
            written: m.name.clone(),
            applied: true,
            source: Box::new(e),
        }),
        (Ok(()), Err(e)) => Err(old_failed::<T>(db, m, e)),
    }
}

/// The half of a dual write that failed on the old table after the new table's applied.
pub(crate) fn old_failed<T: Table>(db: &Db, m: &MirrorTable, e: Error) -> Error {
    Error::DualWrite {
        not_written: m.name.clone(),
        written: new_name::<T>(db),
        applied: true,
        source: Box::new(e),
    }
}

/// `keyspace.table` of `T` (the new table of a key change), for messages.
pub(crate) fn new_name<T: Table>(db: &Db) -> String {
    let ks = db.keyspace_of::<T>().unwrap_or("?");
    format!("{ks}.{}", T::schema().name)
}

/// The INSERT of `row` into the old table: the columns it has, `None` fields unset unless
/// `write_nulls`, at write time `time`.
pub(crate) async fn insert<T: Table>(
    db: &Db,
    m: &MirrorTable,
    row: &T,
    ttl: Option<i32>,
    write_nulls: bool,
    options: &QueryOptions,
) -> Result<()> {
    let st = insert_statement::<T>(db, m, ttl.is_some(), options).await?;
    let values = InsertValues {
        row,
        present: &m.present,
        unset_nulls: !write_nulls,
        ttl,
    };
    unpaged!(db, st.get(), values).map(drop)
}

async fn insert_statement<T: Table>(
    db: &Db,
    m: &MirrorTable,
    ttl: bool,
    options: &QueryOptions,
) -> Result<Stmt> {
    let spec = Spec {
        ttl,
        ..Spec::default()
    };
    Ok(Stmt::with(prepare_insert::<T>(db, m, spec).await?, options))
}

/// The prepared INSERT of `T`'s columns that the old table has.
pub(crate) async fn prepare_insert<T: Table>(
    db: &Db,
    m: &MirrorTable,
    spec: Spec,
) -> Result<Arc<PreparedStatement>> {
    let key = CacheKey::Mirror {
        table: std::any::TypeId::of::<T>(),
        what: None,
        spec,
    };
    cached(db, T::schema(), &[], key, true, |key| {
        let CacheKey::Mirror { spec, .. } = key else {
            return Err(Error::Invalid("statement cache key mismatch".into()));
        };
        let columns: Vec<usize> = (0..m.present.len()).filter(|&i| m.present[i]).collect();
        Ok(cql::insert_columns(
            T::schema(),
            &m.qualified,
            &columns,
            spec.ttl,
        ))
    })
    .await
}

/// The values of a mirrored INSERT: the columns the old table has, then the TTL.
pub(crate) struct InsertValues<'r, T> {
    pub(crate) row: &'r T,
    pub(crate) present: &'r [bool],
    pub(crate) unset_nulls: bool,
    pub(crate) ttl: Option<i32>,
}

impl<T: Table> SerializeRow for InsertValues<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> std::result::Result<(), SerializationError> {
        let mut specs = ctx.columns().iter();
        for (i, _) in self.present.iter().enumerate().filter(|(_, p)| **p) {
            let Some(spec) = specs.next() else {
                return Err(crate::error::row::count_mismatch(ctx));
            };
            write_column(self.row, i, spec, self.unset_nulls, writer)?;
        }
        if let (Some(ttl), Some(spec)) = (&self.ttl, specs.next()) {
            scylla::serialize::value::SerializeValue::serialize(
                ttl,
                spec.typ(),
                writer.make_cell_writer(),
            )?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        false
    }
}

/// An UPDATE or DELETE of the new table in the old table's terms: its statement (no
/// condition) and which of the new statement's values it binds.
pub(crate) struct Mapped {
    pub(crate) spec: Spec,
    /// By SET entry of the new statement: kept or not.
    set: Vec<bool>,
    /// By restriction of the new statement: kept or not.
    restrictions: Vec<bool>,
}

/// `spec` (a write of `T`) as the old table takes it; `None` when nothing of it reaches the
/// old table (an update of columns it lacks); an error when it has no equivalent there.
pub(crate) fn map_spec<T: Table>(
    m: &MirrorTable,
    spec: &Spec,
    what: Statement,
) -> Result<Option<Mapped>> {
    let schema = T::schema();
    let restrictions: Vec<bool> = spec
        .restrictions
        .iter()
        .map(|&(c, _)| {
            let c = usize::from(c);
            m.present.get(c).copied().unwrap_or(false) && m.is_key(c)
        })
        .collect();
    let kept: Vec<(u16, Op)> = spec
        .restrictions
        .iter()
        .zip(&restrictions)
        .filter(|(_, k)| **k)
        .map(|(r, _)| *r)
        .collect();
    let eq = |i: &usize| kept.contains(&(*i as u16, Op::Eq));
    let whole_key = m.partition_key.iter().chain(&m.clustering).all(eq);
    let partition = m
        .partition_key
        .iter()
        .all(|i| eq(i) || kept.contains(&(*i as u16, Op::In)));
    let dropped = restrictions.iter().any(|k| !k);
    if !partition || (dropped && !whole_key) {
        let names = |cols: &mut dyn Iterator<Item = usize>| {
            cols.filter_map(|i| schema.columns.get(i).map(|c| c.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let named = names(&mut spec.restrictions.iter().map(|&(c, _)| usize::from(c)));
        let key = names(&mut m.partition_key.iter().chain(&m.clustering).copied());
        let what = match what {
            Statement::Delete => "delete",
            _ => "update",
        };
        return Err(Error::Invalid(format!(
            "`{}` writes also to {} (dual writes), and this {what} (by {named}) has no \
             equivalent there, whose key is ({key}): during the key change, {what} row by row \
             with the whole key",
            schema.name, m.name
        )));
    }
    let set: Vec<bool> = spec
        .sets
        .iter()
        .map(|&(c, _)| m.present.get(usize::from(c)).copied().unwrap_or(false))
        .collect();
    let sets: Vec<(u16, SetOp)> = spec
        .sets
        .iter()
        .zip(&set)
        .filter(|(_, k)| **k)
        .map(|(s, _)| *s)
        .collect();
    if what == Statement::Update && sets.is_empty() {
        return Ok(None);
    }
    Ok(Some(Mapped {
        spec: Spec {
            restrictions: kept,
            sets,
            ttl: spec.ttl,
            timestamp: spec.timestamp,
            ..Spec::default()
        },
        set,
        restrictions,
    }))
}

impl Mapped {
    /// The values of the mapped statement, taken from the new statement's.
    pub(crate) fn values<'v>(&self, spec: &Spec, values: &'v QueryValues<'_>) -> QueryValues<'v> {
        let mut set = Vec::new();
        let mut slots = values.set.iter();
        for (&(_, op), keep) in spec.sets.iter().zip(&self.set) {
            let n = if op == SetOp::AtKey { 2 } else { 1 };
            for _ in 0..n {
                if let Some(v) = slots.next()
                    && *keep
                {
                    set.push(v.reborrow());
                }
            }
        }
        let mut where_ = Vec::new();
        let mut slots = values.where_.iter();
        for (&(_, op), keep) in spec.restrictions.iter().zip(&self.restrictions) {
            let n = if op == Op::Entry { 2 } else { 1 };
            for _ in 0..n {
                if let Some(v) = slots.next()
                    && *keep
                {
                    where_.push(v.reborrow());
                }
            }
        }
        QueryValues {
            ttl: values.ttl,
            timestamp: values.timestamp,
            set,
            where_,
            ..QueryValues::default()
        }
    }
}

/// The prepared statement of a mapped UPDATE or DELETE on the old table.
pub(crate) async fn prepare_query<T: Table>(
    db: &Db,
    m: &MirrorTable,
    spec: Spec,
    what: Statement,
) -> Result<Arc<PreparedStatement>> {
    let idempotent = spec.is_idempotent();
    let key = CacheKey::Mirror {
        table: std::any::TypeId::of::<T>(),
        what: Some(what),
        spec,
    };
    cached(db, T::schema(), &[], key, idempotent, |key| {
        let CacheKey::Mirror { spec, .. } = key else {
            return Err(Error::Invalid("statement cache key mismatch".into()));
        };
        Ok(match what {
            Statement::Delete => cql::delete_from(T::schema(), &m.qualified, spec),
            _ => cql::update_of(T::schema(), &m.qualified, spec),
        })
    })
    .await
}

/// Runs the mapped statement on the old table with the new statement's values.
pub(crate) async fn query<T: Table>(
    db: &Db,
    m: &MirrorTable,
    mapped: &Mapped,
    spec: &Spec,
    values: &QueryValues<'_>,
    what: Statement,
    options: &QueryOptions,
) -> Result<()> {
    let st = Stmt::with(
        prepare_query::<T>(db, m, mapped.spec.clone(), what).await?,
        options,
    );
    unpaged!(db, st.get(), mapped.values(spec, values)).map(drop)
}

/// The old table that every write of `T` also reaches, or `None` when `T` declares no dual
/// writes. An old table missing from the cluster, or one whose key has a column `T` lacks,
/// is an error that says what to do.
pub(crate) async fn mirror_table<T: Table>(db: &Db) -> Result<Option<Arc<MirrorTable>>> {
    let schema = T::schema();
    let Some(source) = schema.source.filter(|s| s.dual_writes) else {
        return Ok(None);
    };
    if let Some(m) = db.statements().mirror(TypeId::of::<T>()) {
        return Ok(Some(m));
    }
    let keyspace = match source.keyspace {
        Some(k) => db.resolve_keyspace(Some(k)).unwrap_or(k),
        None => db.keyspace_of::<T>()?,
    }
    .to_owned();
    let name = format!("{keyspace}.{}", source.table);
    let mut found = find(db, &keyspace, source.table);
    if found.is_none() {
        // Created since the session last read the schema, perhaps.
        db.session()
            .refresh_metadata()
            .await
            .map_err(|e| Error::Driver(Box::new(e)))?;
        found = find(db, &keyspace, source.table);
    }
    let Some((columns, partition_key, clustering)) = found else {
        return Err(Error::Invalid(format!(
            "`{}` writes also to {name} (dual writes), which does not exist: once the old \
             table is dropped, remove `dual_writes` and `from` from #[cass(..)] of `{}`",
            schema.name, schema.rust_name
        )));
    };
    let index = |column: &String| {
        schema.column_index(column).ok_or_else(|| {
            Error::Invalid(format!(
                "`{}` cannot write to {name} (dual writes): its key column `{column}` is not a \
                 column of `{}`; keep the column in the new table",
                schema.name, schema.rust_name
            ))
        })
    };
    let mirror = MirrorTable {
        qualified: qualified(&keyspace, source.table),
        present: schema
            .columns
            .iter()
            .map(|c| columns.iter().any(|n| n == c.name))
            .collect(),
        partition_key: partition_key.iter().map(index).collect::<Result<_>>()?,
        clustering: clustering.iter().map(index).collect::<Result<_>>()?,
        name,
    };
    Ok(Some(db.statements().keep_mirror(TypeId::of::<T>(), mirror)))
}

/// The columns, partition key and clustering columns of `keyspace.table` in the session's
/// metadata.
fn find(db: &Db, keyspace: &str, table: &str) -> Option<(Vec<String>, Vec<String>, Vec<String>)> {
    let state = db.session().get_cluster_state();
    let t = state.get_keyspace(keyspace)?.tables.get(table)?;
    Some((
        t.columns.keys().cloned().collect(),
        t.partition_key.clone(),
        t.clustering_key.clone(),
    ))
}
