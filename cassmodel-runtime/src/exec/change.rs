//! Changes of an entity (`#[derive(CassEntity)]`) whose key fields may have changed: the
//! generated `replace` (the caller holds the stored entity), `replace_current` (read from the
//! identity table first) and `replace_if_unchanged` (decided by a lightweight transaction on
//! the identity table).
//!
//! A change is one logged batch. For each table, the stored row's key and the new row's key
//! are compared as the table's DELETE binds them: a table whose key did not move gets the new
//! row written over the stored one (a field now `None` written as a null, so that it is
//! removed); a table whose key moved gets the delete of the stored row and the insert of the
//! new one. Only the deletes a change needs are written: a delete and an insert of the same
//! key in one batch share its write time, and a delete wins a tie, so the row would be lost.

use std::future::Future;

use super::batch::{Batch, KeyOf};
use super::change_batch::{keys_differ, send_change};
use super::entity::{EntityRow, EntityTable, StoredRow, entity_span};
use super::mirror::{new_name, write_time};
use super::read::first_by_key_prefix;
use super::result::{Outcome, QueryFuture};
use super::write::{execute, serialize_for};
use crate::error::errors::{Error, Result};
use crate::mapping::cells::{CellStop, Walk};
use crate::mapping::erased::{Bound, ErasedValue};
use crate::mapping::table::{RowFields, Table};
use crate::schema::model::TableSchema;
use crate::session::db::Db;
use crate::session::trace::{Returned, in_span};
use crate::statement::options::QueryOptions;
use crate::statement::spec::{Op, SetOp, Statement};
use crate::statement::state::QueryState;

/// The stored rows of one of an entity's tables.
pub(crate) type StoredRows<'s> = Vec<StoredRow<'s>>;

/// The body of a generated entity's `replace`: `new` written over `stored` in every table,
/// in one logged batch.
#[doc(hidden)]
pub fn replace_entity<'d, E: Sync + 'static>(
    db: &'d Db,
    new: &'d E,
    stored: &'d E,
    tables: &'static [EntityTable<E>],
) -> QueryFuture<'d, ()> {
    change(db, tables, async move {
        // Tables of one row each: the kept batch; else (rows per element, or a row over its
        // share of the request limit), the general batch.
        if send_change(db, new, stored, tables).await? {
            return Ok(());
        }
        let old = |t: &'static EntityTable<E>| -> StoredRows<'d> { t.rows_of(stored) };
        let batch = change_batch(db, new, &old, tables, None).await?;
        batch.run(db).await.map(drop)
    })
}

/// A change of entity `E`: `body` in the entity's span, after the refusal of a table under
/// dual writes.
pub(super) fn change<'d, E, T: Returned>(
    db: &'d Db,
    tables: &'static [EntityTable<E>],
    body: impl Future<Output = Result<T>> + Send + 'd,
) -> QueryFuture<'d, T> {
    QueryFuture::new(in_span(
        move || entity_span::<E>(db),
        move || async move {
            refuse_dual_writes::<E>(tables)?;
            body.await
        },
    ))
}

/// The body of a generated entity's `replace_current`: the stored entity's row read from its
/// identity table `I` by `new`'s key, then `new` written over it in every table (or, with no
/// row, written to every table).
#[doc(hidden)]
pub fn replace_current_entity<'d, E: Sync + 'static, I: Table>(
    db: &'d Db,
    new: &'d E,
    tables: &'static [EntityTable<E>],
) -> QueryFuture<'d, ()> {
    change(db, tables, async move {
        let identity = identity_of::<E, I>(tables)?;
        let key = KeyOf(&EntityRow::new(new, identity));
        let n = I::schema().primary_key().len();
        let stored = first_by_key_prefix::<I>(db, n, key, &QueryOptions::default()).await?;
        let batch = match &stored {
            Some(row) => {
                let old = |t: &'static EntityTable<E>| FromIdentity::rows(row, t);
                change_batch(db, new, &old, tables, None).await?
            }
            None => tables
                .iter()
                .fold(Batch::logged(), |b, t| (t.overwrite)(new, b)),
        };
        batch.run(db).await.map(drop)
    })
}

/// The body of a generated entity's `replace_if_unchanged`: an UPDATE of the identity table
/// `I`'s row to `new`'s values if it still holds `stored`'s; when it applied, the change of
/// the other tables in one logged batch, at one write time taken before the condition.
#[doc(hidden)]
pub fn replace_entity_if<'d, E: Sync + 'static, I: Table>(
    db: &'d Db,
    new: &'d E,
    stored: &'d E,
    tables: &'static [EntityTable<E>],
) -> QueryFuture<'d, Outcome<I>> {
    change(db, tables, async move {
        let identity = identity_of::<E, I>(tables)?;
        let (new_row, old_row) = (
            EntityRow::new(new, identity),
            EntityRow::new(stored, identity),
        );
        let delete = (identity.prepare_delete)(db).await?;
        if keys_differ(&delete, &new_row, &old_row, &mut Vec::new())? {
            return Err(identity_moved::<E>(identity));
        }
        // Later than the write time of any change this one's condition saw applied.
        let at = write_time();
        let q = conditional_update(&new_row, &old_row)?;
        let outcome = execute::<I>(db, q, Statement::Update).await?;
        if !outcome.applied {
            return Ok(outcome);
        }
        let old = |t: &'static EntityTable<E>| -> StoredRows<'d> { t.rows_of(stored) };
        let skip = Some(I::schema().ordinal());
        let written = match change_batch(db, new, &old, tables, skip).await {
            Ok(batch) => batch.at(at).run(db).await,
            Err(e) => Err(e),
        };
        match written {
            Ok(_) => Ok(outcome),
            Err(e) => Err(Error::EntityChange {
                entity: std::any::type_name::<E>(),
                identity: new_name::<I>(db),
                source: Box::new(e),
            }),
        }
    })
}

/// The batch that writes `new` over the stored rows (`old` of each table): for each of
/// `tables` but the one of ordinal `skip`, [`change_table`].
async fn change_batch<'b, E: Sync + 'static>(
    db: &Db,
    new: &'b E,
    old: &(dyn Fn(&'static EntityTable<E>) -> StoredRows<'b> + Sync),
    tables: &'static [EntityTable<E>],
    skip: Option<usize>,
) -> Result<Batch<'b>> {
    let mut batch = Batch::logged();
    for t in tables {
        if Some((t.schema)().ordinal()) == skip {
            continue;
        }
        batch = change_table(db, t, new, old(t), batch).await?;
    }
    Ok(batch)
}

/// Adds to `batch` the change of table `t` from its stored rows `old` to the rows of `new`:
/// the deletes of the stored rows whose keys no new row has, then the new rows, written over
/// what their keys hold.
async fn change_table<'b, E: Sync + 'static>(
    db: &Db,
    t: &'static EntityTable<E>,
    new: &'b E,
    old: StoredRows<'b>,
    mut batch: Batch<'b>,
) -> Result<Batch<'b>> {
    for stale in moved_rows(db, t, &t.rows_of(new), old).await?.0 {
        batch = (t.delete_key)(stale, batch);
    }
    Ok((t.overwrite)(new, batch))
}

/// The stored rows (of `old`) whose keys none of `new` has, and whether any row's key moved
/// (either way), keys compared as table `t`'s DELETE binds them.
pub(super) async fn moved_rows<'b, E: 'static>(
    db: &Db,
    t: &'static EntityTable<E>,
    new: &StoredRows<'_>,
    old: StoredRows<'b>,
) -> Result<(StoredRows<'b>, bool)> {
    let st = (t.prepare_delete)(db).await?;
    let key = |row: &(dyn RowFields + Sync)| serialize_for(&st, &KeyOf(row));
    let new_keys = new.iter().map(|r| key(&**r)).collect::<Result<Vec<_>>>()?;
    let old_keys = old.iter().map(|r| key(&**r)).collect::<Result<Vec<_>>>()?;
    let arrived = new_keys.iter().any(|k| !old_keys.contains(k));
    let stale: StoredRows<'b> = old
        .into_iter()
        .zip(&old_keys)
        .filter(|(_, k)| !new_keys.contains(k))
        .map(|(row, _)| row)
        .collect();
    let moved = arrived || !stale.is_empty();
    Ok((stale, moved))
}

/// The UPDATE of the identity table's row (`new`'s key) that sets every other column to
/// `new`'s value if each holds `old`'s.
fn conditional_update<'r, E: Sync>(
    new: &'r EntityRow<'r, E>,
    old: &'r EntityRow<'r, E>,
) -> Result<QueryState<'r>> {
    let schema = new.table();
    let refuse = |why: &str| {
        Err(Error::Invalid(format!(
            "table `{}`: `replace_if_unchanged` decides the change on this identity table, \
             but {why}",
            schema.name
        )))
    };
    if schema.columns.iter().any(|c| c.bucket.is_some()) {
        return refuse("it has a bucket column: name a table without one as the identity");
    }
    let key = schema.primary_key();
    let others: Vec<usize> = (0..schema.columns.len())
        .filter(|i| !key.contains(i))
        .collect();
    let mut q = update_of(new, &others, None)?;
    for &i in &others {
        q.condition(column(i)?, Op::Eq, Bound::Value(field(old, i)?));
    }
    if q.spec.conditions.is_empty() {
        return refuse("it has only key columns: there is no value to compare");
    }
    Ok(q)
}

/// The error of a conditional change whose identity table's key changed.
fn identity_moved<E>(identity: &EntityTable<E>) -> Error {
    Error::Invalid(format!(
        "`replace_if_unchanged` of `{}`: the key of its identity table `{}` changed, but an \
         identity table is keyed by what never changes in the entity (its condition is on that \
         row): use `replace`, or name another identity table",
        std::any::type_name::<E>(),
        (identity.schema)().name
    ))
}

/// The entry of `tables` for the identity table `I`, which holds one row per entity.
pub(crate) fn identity_of<E, I: Table>(
    tables: &'static [EntityTable<E>],
) -> Result<&'static EntityTable<E>> {
    let ordinal = I::schema().ordinal();
    let entity = std::any::type_name::<E>();
    let identity = tables
        .iter()
        .find(|t| (t.schema)().ordinal() == ordinal)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "`{}` is not one of the tables of `{entity}`",
                I::schema().name
            ))
        })?;
    if identity.each.is_some() {
        return Err(Error::Invalid(format!(
            "`{}` holds one row per element of a collection of `{entity}`, so it cannot be its \
             identity table (one row per entity): name a table keyed by what never changes",
            I::schema().name
        )));
    }
    Ok(identity)
}

/// Refuses a change of an entity with a table under a key change's dual writes, before
/// anything is sent.
fn refuse_dual_writes<E>(tables: &[EntityTable<E>]) -> Result<()> {
    match tables
        .iter()
        .map(|t| (t.schema)())
        .find(|s| s.source.is_some_and(|s| s.dual_writes))
    {
        Some(s) => Err(Error::Invalid(format!(
            "table `{}` is under a key change's dual writes: a change of `{}` that may move \
             its rows waits until the key change is finished (`save` and `delete` write both \
             tables meanwhile)",
            s.name,
            std::any::type_name::<E>()
        ))),
        None => Ok(()),
    }
}

/// The stored row of one of an entity's tables, as its identity table's row holds it: each
/// column is the identity row's field of the same name; for a table with one row per
/// element, the column that takes each element is one element of the identity row's
/// collection.
pub(crate) struct FromIdentity<'s, I> {
    identity: &'s I,
    table: &'static TableSchema,
    /// The field of the column that takes each element, and this row's element.
    element: Option<(&'static str, &'s dyn ErasedValue)>,
}

impl<'s, I: Table> FromIdentity<'s, I> {
    /// The stored rows of table `t`: one, or one per element of the collection.
    pub(crate) fn rows<E>(identity: &'s I, t: &'static EntityTable<E>) -> StoredRows<'s> {
        let table = (t.schema)();
        let Some(each) = &t.each else {
            let row = FromIdentity {
                identity,
                table,
                element: None,
            };
            return vec![Box::new(row)];
        };
        let mut rows: StoredRows<'s> = Vec::new();
        let column = each.column;
        if let Some(c) = field_named(identity, each.collection) {
            c.each(&mut |element| {
                let row = FromIdentity {
                    identity,
                    table,
                    element: Some((column, element)),
                };
                rows.push(Box::new(row));
            });
        }
        rows
    }
}

/// The field `name` of table row `row`, if it has one (a bucket column has none).
fn field_named<'r, I: Table>(row: &'r I, name: &str) -> Option<&'r dyn ErasedValue> {
    let at = I::schema()
        .columns
        .iter()
        .position(|c| c.field == name && c.bucket.is_none())?;
    row.__value(at)
}

impl<I: Table> RowFields for FromIdentity<'_, I> {
    fn table(&self) -> &'static TableSchema {
        self.table
    }

    fn field(&self, index: usize) -> Option<&dyn ErasedValue> {
        let field = self.table.column(index)?.field;
        match self.element {
            Some((column, element)) if column == field => Some(element),
            _ => field_named(self.identity, field),
        }
    }

    fn write_cells(&self, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop> {
        // Only its key is written (a delete's), column by column.
        Err(CellStop::At(walk.from))
    }
}

/// The field of column `index` of `row`.
pub(super) fn field(row: &(dyn RowFields + Send + Sync), index: usize) -> Result<&dyn ErasedValue> {
    row.field(index).ok_or_else(|| {
        Error::Invalid(format!(
            "`{}` has no column #{index}",
            row.table().rust_name
        ))
    })
}

/// A column's index as a statement's description holds it.
pub(super) fn column(index: usize) -> Result<u16> {
    u16::try_from(index).map_err(|_| Error::Invalid(format!("column #{index}: too many columns")))
}

/// The UPDATE of `row` (by its key) that sets its `columns` to its values.
pub(super) fn update_of<'r>(
    row: &'r (dyn RowFields + Send + Sync),
    columns: &[usize],
    ttl: Option<i32>,
) -> Result<QueryState<'r>> {
    let schema = row.table();
    let mut q = QueryState::default();
    for &i in schema.primary_key() {
        q.restrict(column(i)?, Op::Eq, key_value(row, i)?);
    }
    for &i in columns {
        q.set(
            column(i)?,
            SetOp::Assign,
            [Some(Bound::Value(field(row, i)?)), None],
        );
    }
    if let Some(seconds) = ttl {
        q.ttl(seconds);
    }
    Ok(q)
}

/// The value of key column `index` of `row`: its field, or, for a bucket, the bucket of its
/// source field.
fn key_value<'r>(row: &'r (dyn RowFields + Send + Sync), index: usize) -> Result<Bound<'r>> {
    let schema = row.table();
    let Some(bucket) = schema.column(index).and_then(|c| c.bucket) else {
        return field(row, index).map(Bound::Value);
    };
    field(row, bucket.source)?
        .source_bucket(bucket.rule)
        .map(Bound::Bucket)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "table `{}`: column #{index} is a bucket whose source has none",
                schema.name
            ))
        })
}
