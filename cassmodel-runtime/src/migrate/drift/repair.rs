//! The repair's writes: cells written with the write time and TTL of the copy that won (an
//! application write made after the check read the row has a later write time, and wins),
//! cells removed at the write time of the copy they remove, extra rows deleted at the
//! latest write time of their cells.

use std::collections::HashMap;
use std::sync::Mutex;

use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::RowWriter;
use scylla::statement::prepared::PreparedStatement;

use cassmodel_schema::quote_ident;

use super::read::{Cell, KIND, RawCell, Shape, TooFew};
use crate::exec::send;
use crate::migrate::error::MigrationError;
use crate::session::db::Db;

/// A cell to write into a row: its column, its value (`None`: remove it), its write time
/// (µs) and TTL (seconds, 0: none).
#[derive(Debug, Clone)]
pub(super) struct Fix {
    pub column: usize,
    pub cell: Cell,
    pub written: i64,
    pub ttl: i32,
}

/// The write time, TTL and kind (a value, or a removal) of the fixes one statement writes.
type Group = (i64, i32, bool);

/// The statements of a repair, prepared once per shape (the columns written).
#[derive(Default)]
pub(super) struct Writes {
    prepared: Mutex<HashMap<String, PreparedStatement>>,
}

impl Writes {
    async fn prepared(&self, db: &Db, cql: String) -> Result<PreparedStatement, MigrationError> {
        if let Some(ps) = self.prepared.lock().ok().and_then(|m| m.get(&cql).cloned()) {
            return Ok(ps);
        }
        let ps = send::prepare(db, KIND, &cql, true).await?;
        if let Ok(mut m) = self.prepared.lock() {
            m.insert(cql, ps.clone());
        }
        Ok(ps)
    }

    /// Writes `fixes` into the row of `key` of `shape`'s table: one statement per write time
    /// and TTL (an INSERT of the cells with a value, a DELETE of those without). With no fix,
    /// the row's key alone is inserted at `written` (a row of key columns only).
    pub(super) async fn row(
        &self,
        db: &Db,
        shape: &Shape,
        key: &[Cell],
        fixes: &[Fix],
        written: i64,
    ) -> Result<(), MigrationError> {
        if fixes.is_empty() {
            return self.insert(db, shape, key, &[], (written, 0)).await;
        }
        // By write time, TTL and whether they hold a value.
        let mut groups: Vec<(Group, Vec<&Fix>)> = Vec::new();
        for fix in fixes {
            let g = (fix.written, fix.ttl, fix.cell.is_some());
            match groups.iter_mut().find(|(k, _)| *k == g) {
                Some((_, v)) => v.push(fix),
                None => groups.push((g, vec![fix])),
            }
        }
        for ((written, ttl, value), group) in groups {
            if value {
                self.insert(db, shape, key, &group, (written, ttl)).await?;
            } else {
                let columns: Vec<usize> = group.iter().map(|f| f.column).collect();
                self.delete(db, shape, key, &columns, written).await?;
            }
        }
        Ok(())
    }

    async fn insert(
        &self,
        db: &Db,
        shape: &Shape,
        key: &[Cell],
        fixes: &[&Fix],
        (written, ttl): (i64, i32),
    ) -> Result<(), MigrationError> {
        let schema = shape.schema;
        let names: Vec<String> = schema
            .primary_key()
            .iter()
            .chain(fixes.iter().map(|f| &f.column))
            .map(|&i| quote_ident(schema.columns[i].name).into_owned())
            .collect();
        let marks = vec!["?"; names.len()].join(", ");
        let cql = format!(
            "INSERT INTO {} ({}) VALUES ({marks}) USING TTL ? AND TIMESTAMP ?",
            shape.from(),
            names.join(", ")
        );
        let ps = self.prepared(db, cql).await?;
        let mut cells: Vec<Cell> = key.to_vec();
        cells.extend(fixes.iter().map(|f| f.cell.clone()));
        let values = Values {
            head: None,
            cells: &cells,
            tail: Some((ttl, written)),
        };
        send::run(db, KIND, &ps, values).await?;
        Ok(())
    }

    /// Removes `columns` of the row of `key` (all of it with none) at write time `written`.
    pub(super) async fn delete(
        &self,
        db: &Db,
        shape: &Shape,
        key: &[Cell],
        columns: &[usize],
        written: i64,
    ) -> Result<(), MigrationError> {
        let schema = shape.schema;
        let which: Vec<String> = columns
            .iter()
            .map(|&i| quote_ident(schema.columns[i].name).into_owned())
            .collect();
        let key_names: Vec<String> = schema
            .primary_key()
            .iter()
            .map(|&i| format!("{} = ?", quote_ident(schema.columns[i].name)))
            .collect();
        let cql = format!(
            "DELETE {} FROM {} USING TIMESTAMP ? WHERE {}",
            which.join(", "),
            shape.from(),
            key_names.join(" AND ")
        );
        let ps = self.prepared(db, cql).await?;
        let values = Values {
            head: Some(written),
            cells: key,
            tail: None,
        };
        send::run(db, KIND, &ps, values).await?;
        Ok(())
    }
}

/// Bound values: a write time (a DELETE's `USING TIMESTAMP ?`), cells as they were sent,
/// then a TTL and a write time (an INSERT's `USING TTL ? AND TIMESTAMP ?`).
struct Values<'a> {
    head: Option<i64>,
    cells: &'a [Cell],
    tail: Option<(i32, i64)>,
}

impl SerializeRow for Values<'_> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let mut specs = ctx.columns().iter();
        let mut typed = |v: &dyn SerializeValue, writer: &mut RowWriter| match specs.next() {
            Some(spec) => v.serialize(spec.typ(), writer.make_cell_writer()).map(drop),
            None => Err(SerializationError::new(TooFew)),
        };
        if let Some(written) = self.head {
            typed(&written, writer)?;
        }
        for cell in self.cells {
            typed(&RawCell(cell.as_deref()), writer)?;
        }
        if let Some((ttl, written)) = self.tail {
            typed(&ttl, writer)?;
            typed(&written, writer)?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        false
    }
}
