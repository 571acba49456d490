//! Partial updates of an entity (`#[derive(CassEntity)]`'s `update()`): the columns set, in
//! every table that holds them, by each table's key, in one logged batch. A table whose rows
//! the update moves (a key field set to another value, a collection whose elements a table
//! holds a row each of) gets the change `replace` writes there instead.

use super::batch::Batch;
use super::change::{StoredRows, change, moved_rows, update_of};
use super::entity::EntityTable;
use super::result::QueryFuture;
use crate::error::errors::{Error, Result};
use crate::session::db::Db;

/// What an entity's update sets besides its columns: `USING TTL` and `USING TIMESTAMP`.
#[doc(hidden)]
#[derive(Debug, Default, Clone, Copy)]
pub struct UpdateOptions {
    /// Seconds the cells set live (`USING TTL`).
    pub ttl: Option<i32>,
    /// The write time of every statement, in microseconds (`USING TIMESTAMP`).
    pub timestamp: Option<i64>,
}

/// The body of a generated entity update's `execute`: `stored` becomes `new`, whose fields
/// `set` were set; every table that holds one of them gets an UPDATE of those columns by its
/// key, or, where rows move, the change `replace` writes.
#[doc(hidden)]
pub fn update_entity<'d, E: Send + Sync + 'static>(
    db: &'d Db,
    stored: &'d E,
    new: E,
    set: Vec<&'static str>,
    options: UpdateOptions,
    tables: &'static [EntityTable<E>],
) -> QueryFuture<'d, ()> {
    change(db, tables, async move {
        let new = &new;
        let new_rows: Vec<StoredRows<'_>> = tables.iter().map(|t| t.rows_of(new)).collect();
        let mut batch = Batch::logged();
        for (t, rows) in tables.iter().zip(&new_rows) {
            batch = update_table(db, t, new, rows, t.rows_of(stored), &set, options, batch).await?;
        }
        if let Some(micros) = options.timestamp {
            batch = batch.at(micros);
        }
        batch.run(db).await.map(drop)
    })
}

/// Adds to `batch` the update of table `t`: the UPDATE of each of its rows `rows` (of `new`)
/// that sets the columns of the fields `set`, or, when its rows move (from `old`), their
/// change.
#[allow(clippy::too_many_arguments)]
async fn update_table<'b, E: Sync + 'static>(
    db: &'b Db,
    t: &'static EntityTable<E>,
    new: &'b E,
    rows: &'b StoredRows<'b>,
    old: StoredRows<'b>,
    set: &'b [&'static str],
    options: UpdateOptions,
    mut batch: Batch<'b>,
) -> Result<Batch<'b>> {
    let schema = (t.schema)();
    let (stale, moved) = moved_rows(db, t, rows, old).await?;
    if moved {
        if options.ttl.is_some() {
            return Err(Error::Invalid(format!(
                "table `{}`: the update moves its rows (a key field or a collection whose \
                 elements it holds changed), and a TTL applies to the columns an update \
                 sets, not to rows written again: set the TTL in an update of the other \
                 fields",
                schema.name
            )));
        }
        for row in stale {
            batch = (t.delete_key)(row, batch);
        }
        return Ok((t.overwrite)(new, batch));
    }
    let key = schema.primary_key();
    let columns: Vec<usize> = (0..schema.columns.len())
        .filter(|i| !key.contains(i))
        .filter(|&i| schema.columns[i].bucket.is_none())
        .filter(|&i| set.contains(&schema.columns[i].field))
        .collect();
    if columns.is_empty() {
        return Ok(batch);
    }
    for row in rows {
        batch = batch.entry((t.update)(update_of(&**row, &columns, options.ttl)?));
    }
    Ok(batch)
}
