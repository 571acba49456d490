//! Reading an entity's tables for the drift check: each table's columns as the server sent
//! them (bytes: compared, and written back as they are), each cell that has one with its write
//! time and remaining TTL; a table's rows by token range, or one row by its primary key.

use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
use scylla::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
use scylla::frame::response::result::ColumnSpec;
use scylla::frame::response::result::ColumnType;
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, RowWriter, WrittenCellProof};
use scylla::statement::prepared::PreparedStatement;
use scylla::value::CqlValue;

use cassmodel_schema::{CqlType, quote_ident};

use crate::error::errors::Error;
use crate::exec::batch::KeyOf;
use crate::exec::send;
use crate::mapping::literal::cql_literal;
use crate::mapping::table::{RowFields, Table};
use crate::migrate::error::MigrationError;
use crate::schema::ddl::qualified;
use crate::schema::model::{ColumnDef, ColumnKind, TableSchema};
use crate::session::db::Db;
use crate::statement::cql;

/// The span kind of the check's statements.
pub(super) const KIND: &str = "drift";

/// A cell as the server sent it; `None` for null.
pub(super) type Cell = Option<Vec<u8>>;

/// A cell's write time (microseconds) and remaining TTL (seconds), each `None` when the
/// server gives none (a null cell, a cell that does not expire).
pub(super) type Time = (Option<i64>, Option<i32>);

/// One of the entity's tables as the check reads it.
pub(super) struct Shape {
    pub schema: &'static TableSchema,
    pub keyspace: String,
    /// `keyspace.table`.
    pub name: String,
    /// For each column, where its write time and TTL are among the row's times: regular and
    /// static columns of one cell (a collection or user-defined type that is not frozen is
    /// many cells, with no one write time; a counter has none).
    pub timed: Vec<Option<usize>>,
    /// Every row of a token range (`>= ?` and `<= ?`).
    pub scan: PreparedStatement,
    /// The row of a primary key (bound in key order).
    pub lookup: PreparedStatement,
}

impl Shape {
    pub(super) async fn new(db: &Db, schema: &'static TableSchema) -> Result<Self, MigrationError> {
        let keyspace = db
            .resolve_keyspace(schema.keyspace)
            .ok_or(Error::NoKeyspace { table: schema.name })?
            .to_owned();
        let mut timed = Vec::with_capacity(schema.columns.len());
        let mut n = 0;
        for c in &schema.columns {
            timed.push(has_write_time(c).then(|| {
                n += 1;
                n - 1
            }));
        }
        let select = select_list(schema, &timed);
        let from = qualified(&keyspace, schema.name);
        let token = cql::token_of(schema);
        let key: Vec<String> = schema
            .primary_key()
            .iter()
            .map(|&i| format!("{} = ?", quote_ident(schema.columns[i].name)))
            .collect();
        let scan = format!("SELECT {select} FROM {from} WHERE {token} >= ? AND {token} <= ?");
        let lookup = format!("SELECT {select} FROM {from} WHERE {}", key.join(" AND "));
        Ok(Shape {
            schema,
            name: format!("{keyspace}.{}", schema.name),
            keyspace,
            timed,
            scan: send::prepare(db, KIND, &scan, true).await?,
            lookup: send::prepare(db, KIND, &lookup, true).await?,
        })
    }

    /// `"keyspace"."table"`, for a statement.
    pub(super) fn from(&self) -> String {
        qualified(&self.keyspace, self.schema.name)
    }

    /// The column of this table that holds entity field `field` (not a bucket).
    pub(super) fn column_of(&self, field: &str) -> Option<usize> {
        self.schema
            .columns
            .iter()
            .position(|c| c.field == field && c.bucket.is_none())
    }

    /// The row of `key` (cells in primary-key order), if there is one.
    pub(super) async fn read(
        &self,
        db: &Db,
        key: &[Cell],
    ) -> Result<Option<RawRow>, MigrationError> {
        let row = send::first::<Flat>(db, KIND, &self.lookup, RawCells(key)).await?;
        Ok(row.map(|f| f.split(self)))
    }

    /// The primary key of `row` (a row of this table built from an entity), as the lookup
    /// binds it: a cell per key column, in key order.
    pub(super) fn key_of(
        &self,
        row: &(dyn RowFields + Send + Sync),
    ) -> Result<Vec<Cell>, MigrationError> {
        let specs = self.lookup.get_variable_col_specs().as_slice();
        let ctx = RowSerializationContext::from_specs(specs);
        let mut buf = Vec::new();
        let mut writer = RowWriter::new(&mut buf);
        KeyOf(row)
            .serialize(&ctx, &mut writer)
            .map_err(|e| MigrationError::Copy(format!("the key of a row of {}: {e}", self.name)))?;
        Ok(cells_of(&buf))
    }

    /// `name = value, ..` of the cells `cells` of columns `columns`, for the report.
    pub(super) fn describe(&self, columns: &[usize], cells: &[&Cell]) -> String {
        let guard = self.scan.get_current_result_set_col_specs();
        let specs = guard.get();
        columns
            .iter()
            .zip(cells)
            .map(|(&i, cell)| {
                let name = self.schema.columns.get(i).map_or("?", |c| c.name);
                let value = match (specs.get_by_index(i), cell) {
                    (_, None) => "null".to_owned(),
                    (Some(spec), Some(bytes)) => literal(spec, bytes),
                    (None, Some(_)) => "?".to_owned(),
                };
                format!("{name} = {value}")
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The primary key of `row`, for the report.
    pub(super) fn describe_key(&self, key: &[Cell]) -> String {
        let cells: Vec<&Cell> = key.iter().collect();
        self.describe(self.schema.primary_key(), &cells)
    }
}

/// Whether column `c` has a write time the server reads (`WRITETIME(c)`).
fn has_write_time(c: &ColumnDef) -> bool {
    let one_cell = !matches!(
        c.cql_type,
        CqlType::List(_) | CqlType::Set(_) | CqlType::Map(..) | CqlType::Udt(_)
    );
    matches!(c.kind, ColumnKind::Regular | ColumnKind::Static)
        && one_cell
        && !c.cql_type.is_counter()
}

/// `"a", "b", .., WRITETIME("b"), TTL("b"), ..`: every column, then the write time and TTL
/// of each timed one.
fn select_list(schema: &TableSchema, timed: &[Option<usize>]) -> String {
    let mut out: Vec<String> = schema
        .columns
        .iter()
        .map(|c| quote_ident(c.name).into_owned())
        .collect();
    for (c, t) in schema.columns.iter().zip(timed) {
        if t.is_some() {
            let q = quote_ident(c.name);
            out.push(format!("WRITETIME({q}), TTL({q})"));
        }
    }
    out.join(", ")
}

/// `bytes` of a column of type `spec` as a CQL literal.
fn literal(spec: &ColumnSpec<'_>, bytes: &[u8]) -> String {
    let slice = FrameSlice::new_borrowed(bytes);
    <CqlValue as scylla::deserialize::value::DeserializeValue<'_, '_>>::deserialize(
        spec.typ(),
        Some(slice),
    )
    .map_or_else(|_| "?".to_owned(), |v| cql_literal(&v, Some(spec.typ())))
}

/// The cells of serialized values (each its length, then its bytes; a negative length for a
/// null).
fn cells_of(mut buf: &[u8]) -> Vec<Cell> {
    let mut out = Vec::new();
    while let Some((head, rest)) = buf.split_first_chunk::<4>() {
        let len = i32::from_be_bytes(*head);
        let Ok(n) = usize::try_from(len) else {
            out.push(None);
            buf = rest;
            continue;
        };
        let (value, rest) = rest.split_at(n.min(rest.len()));
        out.push(Some(value.to_vec()));
        buf = rest;
    }
    out
}

/// A row of one of the entity's tables: each column's cell, in the table's column order, and
/// each timed column's write time and TTL (in the order of [`Shape::timed`]).
#[derive(Debug, Clone)]
pub(super) struct RawRow {
    pub cells: Vec<Cell>,
    pub times: Vec<Time>,
}

impl RawRow {
    /// The write time and TTL of column `i` (none for a column without).
    pub(super) fn time(&self, shape: &Shape, i: usize) -> Time {
        shape
            .timed
            .get(i)
            .copied()
            .flatten()
            .and_then(|t| self.times.get(t).copied())
            .unwrap_or((None, None))
    }

    /// The cells of the primary key, in key order.
    pub(super) fn key(&self, shape: &Shape) -> Vec<Cell> {
        shape
            .schema
            .primary_key()
            .iter()
            .map(|&i| self.cells.get(i).cloned().flatten())
            .collect()
    }
}

/// Every cell of a result row, as sent.
pub(super) struct Flat(Vec<Cell>);

impl Flat {
    /// The row's columns, then its times: pairs of a write time and a TTL.
    pub(super) fn split(mut self, shape: &Shape) -> RawRow {
        let n = shape.schema.columns.len().min(self.0.len());
        let tail = self.0.split_off(n);
        let times = tail
            .chunks(2)
            .map(|pair| {
                let written = pair
                    .first()
                    .and_then(|c| c.as_deref())
                    .and_then(|b| <[u8; 8]>::try_from(b).ok().map(i64::from_be_bytes));
                let ttl = pair
                    .get(1)
                    .and_then(|c| c.as_deref())
                    .and_then(|b| <[u8; 4]>::try_from(b).ok().map(i32::from_be_bytes));
                (written, ttl)
            })
            .collect();
        RawRow {
            cells: self.0,
            times,
        }
    }
}

impl<'f, 'm> DeserializeRow<'f, 'm> for Flat {
    fn type_check(_: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
        Ok(())
    }

    fn deserialize(row: ColumnIterator<'f, 'm>) -> Result<Self, DeserializationError> {
        let mut cells = Vec::with_capacity(row.columns_remaining());
        for column in row {
            cells.push(column?.slice.map(|s| s.as_slice().to_vec()));
        }
        Ok(Flat(cells))
    }
}

/// A row of the identity table: the table's own type, and its cells as sent.
pub(super) struct IdentityRow<I> {
    pub row: I,
    pub flat: Flat,
}

impl<'f, 'm, I: Table> DeserializeRow<'f, 'm> for IdentityRow<I> {
    fn type_check(specs: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
        let n = I::schema().field_columns().len();
        I::type_check(&specs[..n.min(specs.len())])
    }

    fn deserialize(row: ColumnIterator<'f, 'm>) -> Result<Self, DeserializationError> {
        let flat = Flat::deserialize(row.clone())?;
        Ok(IdentityRow {
            row: I::deserialize(row)?,
            flat,
        })
    }
}

/// Cells bound as they are, one per bind marker.
pub(super) struct RawCells<'a>(pub &'a [Cell]);

impl SerializeRow for RawCells<'_> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        for (cell, spec) in self.0.iter().zip(ctx.columns()) {
            RawCell(cell.as_deref()).serialize(spec.typ(), writer.make_cell_writer())?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A cell written as it was sent (`None`: null), to a column of the type it was read from.
pub(super) struct RawCell<'a>(pub Option<&'a [u8]>);

impl SerializeValue for RawCell<'_> {
    fn serialize<'b>(
        &self,
        _: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match self.0 {
            Some(bytes) => writer.set_value(bytes).map_err(SerializationError::new),
            None => Ok(writer.set_null()),
        }
    }
}

/// A statement with more values than bind markers (a cassmodel bug, never a panic).
#[derive(Debug, thiserror::Error)]
#[error("the drift check's statement has fewer bind markers than values")]
pub(super) struct TooFew;

#[cfg(test)]
mod tests {
    use super::cells_of;

    #[test]
    fn serialized_values_give_their_cells_back() {
        let mut buf = Vec::new();
        buf.extend_from_slice(&2i32.to_be_bytes());
        buf.extend_from_slice(b"ab");
        buf.extend_from_slice(&(-1i32).to_be_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        assert_eq!(
            cells_of(&buf),
            vec![Some(b"ab".to_vec()), None, Some(Vec::new())]
        );
    }
}
