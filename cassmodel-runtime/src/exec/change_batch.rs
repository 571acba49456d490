//! The kept batch of an entity's change (`replace` of an entity whose tables hold one row
//! each): like `save`'s, a driver batch prepared once per entity type and set of tables whose
//! keys moved, its values written straight from the stored and the new entity's fields, so
//! that a change copies no row and boxes no statement.

use std::any::TypeId;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use scylla::serialize::SerializationError;
use scylla::serialize::batch::{BatchValues, BatchValuesIterator};
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::writers::RowWriter;
use scylla::statement::batch::{Batch as DriverBatch, BatchStatement, BatchType};
use scylla::statement::prepared::PreparedStatement;

use super::batch::KeyOf;
use super::entity::{EntityRow, EntityTable, note_refused};
use super::insert::InsertValues;
use super::send;
use crate::error::errors::{Error, Result};
use crate::mapping::table::RowFields;
use crate::session::db::Db;

/// Sends the change of `stored` into `new` in every one of `tables` (each of one row per
/// entity, none under dual writes) in one logged batch: for a table whose key moved, the
/// delete of the stored row, then the new row written over what its key holds. `false` when
/// it cannot take this way (no table or more than 64, or a row over its share of the
/// request limit): the caller takes the general batch.
pub(super) async fn send_change<E: Sync + 'static>(
    db: &Db,
    new: &E,
    stored: &E,
    tables: &'static [EntityTable<E>],
) -> Result<bool> {
    if tables.is_empty() || tables.len() > 64 || tables.iter().any(|t| t.each.is_some()) {
        return Ok(false);
    }
    // The batch of a change that moves every row holds each table's DELETE, whose markers
    // type the keys compared.
    let all = u64::MAX >> (64 - tables.len());
    let every = kept(db, tables, all).await?;
    let mut moved = 0;
    let mut buffer = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let BatchStatement::PreparedStatement(delete) = &every.statements[2 * i] else {
            continue;
        };
        let (new, old) = (EntityRow::new(new, t), EntityRow::new(stored, t));
        if keys_differ(delete, &new, &old, &mut buffer)? {
            moved |= 1 << i;
        }
    }
    let batch = if moved == all {
        every
    } else {
        kept(db, tables, moved).await?
    };
    let values = ChangeValues {
        new,
        stored,
        tables,
        moved,
        share: db.max_request_size() / batch.statements.len().max(1),
        refused: AtomicBool::new(false),
    };
    match send::batch(db, &batch, &values, "BATCH").await {
        Ok(_) => Ok(true),
        Err(_) if values.refused.load(Ordering::Relaxed) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether the keys of rows `new` and `old` differ as `delete` binds them (written one after
/// the other into `buffer`).
pub(super) fn keys_differ(
    delete: &PreparedStatement,
    new: &(dyn RowFields + Sync),
    old: &(dyn RowFields + Sync),
    buffer: &mut Vec<u8>,
) -> Result<bool> {
    let specs = delete.get_variable_col_specs();
    let ctx = RowSerializationContext::from_specs(specs.as_slice());
    buffer.clear();
    let unsent = |e| Error::unsent(delete.get_statement(), e);
    KeyOf(new)
        .serialize(&ctx, &mut RowWriter::new(buffer))
        .map_err(unsent)?;
    let half = buffer.len();
    KeyOf(old)
        .serialize(&ctx, &mut RowWriter::new(buffer))
        .map_err(unsent)?;
    Ok(buffer[..half] != buffer[half..])
}

/// The kept batch of a change of `tables` whose rows `moved` (a bit per table), prepared and
/// kept on first use: per table, its DELETE where it moved, then its INSERT.
async fn kept<E: 'static>(
    db: &Db,
    tables: &'static [EntityTable<E>],
    moved: u64,
) -> Result<Arc<DriverBatch>> {
    let entity = TypeId::of::<E>();
    if let Some(batch) = db.statements().change_batch(entity, moved) {
        return Ok(batch);
    }
    let mut batch = DriverBatch::new(BatchType::Logged);
    for (i, t) in tables.iter().enumerate() {
        let mut statements = Vec::with_capacity(2);
        if moved & (1 << i) != 0 {
            statements.push((t.prepare_delete)(db).await?);
        }
        statements.push((t.prepare)(db).await?);
        for st in statements {
            let st = PreparedStatement::clone(&st);
            batch.append_statement(BatchStatement::PreparedStatement(st));
        }
    }
    // Deletes of the stored keys and inserts of whole rows: sending them again changes nothing.
    batch.set_is_idempotent(true);
    Ok(db.statements().keep_change_batch(entity, moved, batch))
}

/// The values of a change's kept batch: per table, the stored row's key where it moved, then
/// the new row, `None` fields as nulls, each refused beyond `share` bytes (and `refused` set).
struct ChangeValues<'e, E: 'static> {
    new: &'e E,
    stored: &'e E,
    tables: &'static [EntityTable<E>],
    moved: u64,
    share: usize,
    refused: AtomicBool,
}

impl<E: Sync> BatchValues for ChangeValues<'_, E> {
    type BatchValuesIter<'r>
        = ChangeRows<'r, E>
    where
        Self: 'r;

    fn batch_values_iter(&self) -> ChangeRows<'_, E> {
        ChangeRows {
            values: self,
            table: 0,
            deleted: false,
        }
    }
}

/// The statements of [`ChangeValues`], one after the other.
struct ChangeRows<'r, E: 'static> {
    values: &'r ChangeValues<'r, E>,
    /// The table of the next statement.
    table: usize,
    /// Whether that table's delete has been written (the next statement is its insert).
    deleted: bool,
}

impl<E> ChangeRows<'_, E> {
    /// Moves past the next statement: whether it is a delete, and its table.
    fn advance(&mut self) -> Option<(bool, usize)> {
        let v = self.values;
        let i = self.table;
        if i >= v.tables.len() {
            return None;
        }
        if v.moved & (1 << i) != 0 && !self.deleted {
            self.deleted = true;
            return Some((true, i));
        }
        self.deleted = false;
        self.table += 1;
        Some((false, i))
    }
}

impl<'r, E: Sync> BatchValuesIterator<'r> for ChangeRows<'r, E> {
    fn serialize_next(
        &mut self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Option<std::result::Result<(), SerializationError>> {
        let (delete, i) = self.advance()?;
        let v = self.values;
        let t = &v.tables[i];
        if delete {
            return Some(KeyOf(&EntityRow::new(v.stored, t)).serialize(ctx, writer));
        }
        let row = EntityRow::new(v.new, t);
        let written = InsertValues::with_nulls_within(&row, v.share).serialize(ctx, writer);
        note_refused(&written, &v.refused);
        Some(written)
    }

    fn is_empty_next(&mut self) -> Option<bool> {
        self.advance().map(|_| false)
    }

    fn skip_next(&mut self) -> Option<()> {
        self.advance().map(drop)
    }
}
