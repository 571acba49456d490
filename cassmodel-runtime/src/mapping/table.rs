//! The traits `#[derive(CassTable)]` implements, and the generic row codec it delegates to.
//!
//! Generated code stays small: per field it emits one entry in a match or a call to a
//! generic function here, which carries the logic and the error messages.

use std::marker::PhantomData;

use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
use scylla::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
use scylla::frame::response::result::{ColumnSpec, ColumnType};
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::writers::RowWriter;

use super::cells::{CellStop, Cells, Walk, write_cells};
use super::erased::{ErasedValue, check_vector};
use super::reason::{describe_type, deserialize_reason, explained, type_check_reason};
use super::vector_index::VectorUse;
use crate::error::row::{
    RowError, table_of, table_of_specs, value_mismatch, value_refused, write_error,
};
use crate::schema::model::{ColumnDef, ColumnKind, TableSchema};

/// A Rust struct mapped to a CQL table. Implemented by `#[derive(CassTable)]`; not meant to
/// be implemented by hand.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a cassmodel table",
    label = "not a table",
    note = "add `#[derive(cassmodel::CassTable)]` to `{Self}` and mark its key fields with `#[partition_key]` / `#[clustering]`"
)]
pub trait Table: Sized + Send + Sync + 'static + for<'f, 'm> DeserializeRow<'f, 'm> {
    /// The table's description, built on first use.
    fn schema() -> &'static TableSchema;

    /// The field of column `index` (an index into [`TableSchema::columns`]), as a value to
    /// write; `None` past the last column.
    #[doc(hidden)]
    fn __value(&self, index: usize) -> Option<&dyn ErasedValue>;

    /// The fields, in column order, as a tuple of their cells (nested beyond
    /// [`CELLS_ARITY`](cassmodel_schema::CELLS_ARITY)): what an insert writes when each column is its field
    /// as it is ([`TableSchema`]'s `fields_as_written`).
    #[doc(hidden)]
    fn __cells(&self) -> impl Cells + '_;

    /// `(field, kind)` of each field: what a projection's computed field may select of it
    /// (`mapping::projection::field_kind`), checked at compile time.
    #[doc(hidden)]
    const __FIELD_KINDS: &'static [(&'static str, u8)] = &[];

    /// Whether it is a materialized view (`#[cass(view_of = ..)]`), checked at compile time
    /// by the views declared of it.
    #[doc(hidden)]
    const __IS_VIEW: bool = false;

    /// Its static fields, checked at compile time by a view of every column declared of it
    /// (Cassandra refuses `SELECT *` of a table with static columns).
    #[doc(hidden)]
    const __STATIC_FIELDS: &'static [&'static str] = &[];

    /// What a write of its rows may be: [`RegularTable`], [`CounterTable`] (whose rows cannot
    /// be inserted), or [`ViewOf`] its base (which is not written): what `Writable` and
    /// `Insertable` ask of it, and whose errors name the counter table or the view's base.
    #[doc(hidden)]
    type __Write;
}

/// [`Table::__Write`] of a table whose rows can be inserted and written.
pub struct RegularTable;

/// [`Table::__Write`] of a counter table: written, but its counters only move by increments.
pub struct CounterTable;

/// [`Table::__Write`] of a materialized view of `B`: read only, written through `B`.
pub struct ViewOf<B>(PhantomData<B>);

/// Where the cells of a row of a table come from: the table's own struct, or an entity
/// stored in the table (its fields of the same names, read in place: `save` copies nothing).
pub(crate) trait RowFields {
    /// The table written.
    fn table(&self) -> &'static TableSchema;
    /// The field of column `index`, as [`Table::__value`].
    fn field(&self, index: usize) -> Option<&dyn ErasedValue>;
    /// Writes the cells of the columns from `walk.from` on, as [`Cells::__write`]: only
    /// for a table whose fields are its columns as written.
    fn write_cells(&self, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop>;
}

impl<T: Table> RowFields for T {
    #[inline]
    fn table(&self) -> &'static TableSchema {
        T::schema()
    }

    #[inline]
    fn field(&self, index: usize) -> Option<&dyn ErasedValue> {
        self.__value(index)
    }

    #[inline]
    fn write_cells(&self, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop> {
        write_cells(&self.__cells(), walk)
    }
}

/// Writes column `index` of `row` for the bind marker `spec`, with `keyspace.table` and the
/// column in any error; with `unset_nulls`, a `None` field is left unset (no tombstone). The
/// one step of every walk over a row's columns: an insert (every column, in order), a delete
/// by the row's key (the key's columns), the row on hand-written CQL (by bind-marker name).
#[inline]
pub(crate) fn write_column<R: RowFields + ?Sized>(
    row: &R,
    index: usize,
    spec: &ColumnSpec<'_>,
    unset_nulls: bool,
    writer: &mut RowWriter,
) -> Result<(), SerializationError> {
    let schema = row.table();
    // Most tables: column `index` is field `index`, written by one call through its `dyn`
    // (a `None` left unset inside it), with no look at the column's description.
    if schema.fields_as_written()
        && let Some(v) = row.field(index)
    {
        return match v.write_cell(spec.typ(), writer.make_cell_writer(), unset_nulls) {
            Ok(_) => Ok(()),
            Err(e) => Err(column_error(schema, index, spec, e)),
        };
    }
    write_described_column(row, index, spec, unset_nulls, writer)
}

/// [`write_column`] by the column's description: a bucket (from its source field), a vector
/// under a vector index (checked first), a field that is missing (an error). Out of line,
/// so that the common case above is inlined into the walks over a row's columns.
#[inline(never)]
fn write_described_column<R: RowFields + ?Sized>(
    row: &R,
    index: usize,
    spec: &ColumnSpec<'_>,
    unset_nulls: bool,
    writer: &mut RowWriter,
) -> Result<(), SerializationError> {
    let schema = row.table();
    let col = schema.column(index);
    let bucket = col.and_then(|c| c.bucket);
    // A bucket has no field: it is computed from its source's value.
    let Some(v) = row.field(bucket.map_or(index, |b| b.source)) else {
        let detail = format!("`{}` has no column #{index}", schema.rust_name);
        let rust_type = col.map_or(schema.rust_name, |c| c.rust_type);
        return Err(value_mismatch(spec, rust_type, detail));
    };
    let cell = writer.make_cell_writer();
    let written = match (bucket, col.and_then(ColumnDef::vector_index)) {
        (None, None) => v.write_cell(spec.typ(), cell, unset_nulls),
        _ if unset_nulls && v.is_none() => Ok(cell.set_unset()),
        (Some(b), _) => match v.source_bucket(b.rule) {
            Some(bucket) => bucket.write_to(spec.typ(), cell),
            None => Err(value_refused(
                "bucket",
                "its source column's type has no bucket".to_owned(),
            )),
        },
        (None, Some(similarity)) => check_vector(v, VectorUse::Index(similarity))
            .and_then(|()| v.write_to(spec.typ(), cell)),
    };
    match written {
        Ok(_) => Ok(()),
        Err(e) => Err(column_error(schema, index, spec, e)),
    }
}

/// The error of writing column `index` of a row of `schema` for the bind marker `spec`:
/// `keyspace.table`, the column and its Rust type, and why, in CQL's words.
#[cold]
#[inline(never)]
pub(crate) fn column_error(
    schema: &TableSchema,
    index: usize,
    spec: &ColumnSpec<'_>,
    e: SerializationError,
) -> SerializationError {
    let rust_type = schema
        .column(index)
        .map_or(schema.rust_name, |c| c.rust_type);
    write_error(spec, rust_type, explained(e))
}

/// `DeserializeRow::type_check` for a table struct: the result must hold the struct's
/// columns, by name, in field order, each of a type its field can read.
pub fn check_row<T: Table>(specs: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
    check_columns(T::schema().rust_name, T::schema().field_columns(), specs)
}

/// The row check shared by tables and projections: `columns[i]` is read from `specs[i]`.
pub fn check_columns(
    rust: &'static str,
    columns: &[ColumnDef],
    specs: &[ColumnSpec<'_>],
) -> Result<(), TypeCheckError> {
    let table = || table_of_specs(specs).unwrap_or_default();
    if specs.len() != columns.len() {
        return Err(TypeCheckError::new(RowError::ColumnCount {
            table: table(),
            rust,
            expected: columns.len(),
            actual: specs.len(),
        }));
    }
    for (position, (spec, col)) in specs.iter().zip(columns).enumerate() {
        if spec.name() != col.name {
            return Err(TypeCheckError::new(RowError::ColumnName {
                table: table(),
                rust,
                position,
                expected: col.name,
                actual: spec.name().to_owned(),
            }));
        }
        if let Err(e) = (col.type_check)(spec.typ()) {
            return Err(TypeCheckError::new(type_error(
                table(),
                col,
                spec.typ(),
                &e,
            )));
        }
    }
    Ok(())
}

/// The error of column `col`, whose field cannot read the server's type `actual`: the two
/// types ([`RowError::Type`]); or, when they are the same type (a `cql_type` the Rust type
/// does not fit, a user-defined type whose fields differ), why the Rust type cannot read it
/// ([`RowError::Unreadable`]), never two equal types shown as a mismatch.
#[cold]
fn type_error(
    table: String,
    col: &ColumnDef,
    actual: &ColumnType<'_>,
    e: &TypeCheckError,
) -> RowError {
    let (expected, actual) = (col.cql_type.to_string(), describe_type(actual));
    if expected == actual {
        return RowError::Unreadable {
            table,
            column: col.name.to_owned(),
            rust_type: col.rust_type,
            cql_type: expected,
            reason: type_check_reason(e),
        };
    }
    RowError::Type {
        table,
        column: col.name.to_owned(),
        expected,
        rust_type: col.rust_type,
        actual,
    }
}

/// Reads the fields of one row in order; the body of a generated `DeserializeRow::deserialize`.
///
/// The hot path per field is the driver's column iterator and the field type's own
/// deserializer; the column descriptions are looked up only to build an error.
pub struct RowReader<'f, 'm> {
    columns: fn() -> &'static [ColumnDef],
    iter: ColumnIterator<'f, 'm>,
    index: usize,
}

impl<'f, 'm> RowReader<'f, 'm> {
    /// A reader of the columns of table `T`, in declared order.
    #[inline]
    pub fn new<T: Table>(iter: ColumnIterator<'f, 'm>) -> Self {
        Self::with_columns(|| T::schema().field_columns(), iter)
    }

    /// A reader of `columns()` (a projection's columns), in order.
    #[inline]
    pub fn with_columns(
        columns: fn() -> &'static [ColumnDef],
        iter: ColumnIterator<'f, 'm>,
    ) -> Self {
        RowReader {
            columns,
            iter,
            index: 0,
        }
    }

    /// Reads the next field with `read` (generated code passes `<Ty as CqlMapping>::__read`).
    #[inline]
    pub fn next<V>(
        &mut self,
        read: fn(&'m ColumnType<'m>, Option<FrameSlice<'f>>) -> Result<V, DeserializationError>,
    ) -> Result<V, DeserializationError> {
        let index = self.index;
        self.index += 1;
        match self.iter.next() {
            Some(Ok(col)) => match read(col.spec.typ(), col.slice) {
                Ok(v) => Ok(v),
                Err(e) => Err(self.value_error(index, col.spec, col.slice.is_none(), e)),
            },
            Some(Err(e)) => Err(e),
            None => Err(self.missing(index)),
        }
    }

    /// Whether the row holds only a partition's static values: a clustering column is null
    /// (column `index`, whose read just failed on a null, or one after it). Cassandra returns
    /// such a row for a partition that has static values and no clustering rows.
    #[cold]
    fn static_only(&self, index: usize) -> bool {
        let columns = (self.columns)();
        let clustering_null = |i: usize, null: bool| {
            null && columns
                .get(i)
                .is_some_and(|c| matches!(c.kind, ColumnKind::Clustering(_)))
        };
        clustering_null(index, true)
            || self
                .iter
                .clone()
                .enumerate()
                .any(|(i, c)| c.is_ok_and(|c| clustering_null(index + 1 + i, c.slice.is_none())))
    }

    #[cold]
    #[inline(never)]
    fn missing(&self, index: usize) -> DeserializationError {
        DeserializationError::new(RowError::ColumnCount {
            table: String::new(),
            rust: "row",
            expected: (self.columns)().len(),
            actual: index,
        })
    }

    #[cold]
    #[inline(never)]
    fn value_error(
        &self,
        index: usize,
        spec: &ColumnSpec<'_>,
        null: bool,
        e: DeserializationError,
    ) -> DeserializationError {
        let table = table_of(spec);
        let column = spec.name().to_owned();
        let def = (self.columns)().get(index);
        if null && self.static_only(index) {
            return DeserializationError::new(StaticOnlyRow { table });
        }
        let rust_type = def.map_or("?", |d| d.rust_type);
        DeserializationError::new(if null {
            RowError::Null {
                table,
                column,
                expected: def.map_or_else(String::new, |d| d.cql_type.to_string()),
                rust_type,
            }
        } else {
            RowError::Value {
                table,
                column,
                rust_type,
                detail: deserialize_reason(&e),
            }
        })
    }
}

/// A row that holds only a partition's static values (its clustering columns are null):
/// the reads of rows skip it (see [`Rows`]).
#[derive(Debug, thiserror::Error)]
#[error(
    "table `{table}`: a partition with static values and no clustering rows; read its static \
     columns with a projection of the partition key and static columns"
)]
pub(crate) struct StaticOnlyRow {
    table: String,
}

/// A row as the reads of rows see it: `None` for a partition's static-only row (a partition
/// with static values and no clustering rows yet, which Cassandra returns as one row whose
/// clustering columns are null). A row type with clustering columns cannot hold it, and it
/// is not a row of the table: it is skipped.
pub(crate) struct Rows<R>(pub(crate) Option<R>);

impl<'f, 'm, R: DeserializeRow<'f, 'm>> DeserializeRow<'f, 'm> for Rows<R> {
    #[inline]
    fn type_check(specs: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
        R::type_check(specs)
    }

    #[inline]
    fn deserialize(row: ColumnIterator<'f, 'm>) -> Result<Self, DeserializationError> {
        match R::deserialize(row) {
            Ok(r) => Ok(Rows(Some(r))),
            Err(e) if e.downcast_ref::<StaticOnlyRow>().is_some() => Ok(Rows(None)),
            Err(e) => Err(e),
        }
    }
}

/// Binds chosen columns of a row, in the order of `indices`: the bound values of cassmodel's
/// own statements, whose markers are known to be in this order.
pub struct Columns<'a, T> {
    row: &'a T,
    indices: &'a [usize],
}

impl<'a, T: Table> Columns<'a, T> {
    /// The columns `indices` of `row`.
    pub fn new(row: &'a T, indices: &'a [usize]) -> Self {
        Columns { row, indices }
    }
}

impl<T: Table> SerializeRow for Columns<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let schema = T::schema();
        let specs = ctx.columns();
        if specs.len() != self.indices.len() {
            return Err(SerializationError::new(RowError::ColumnCount {
                table: table_of_specs(specs).unwrap_or_default(),
                rust: schema.rust_name,
                expected: self.indices.len(),
                actual: specs.len(),
            }));
        }
        for (spec, &i) in specs.iter().zip(self.indices) {
            write_column(self.row, i, spec, false, writer)?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

/// `SerializeRow` for a table struct used with hand-written CQL: each bind marker is matched
/// to the field of the column with its name.
pub fn serialize_by_name<T: Table>(
    row: &T,
    ctx: &RowSerializationContext<'_>,
    writer: &mut RowWriter,
) -> Result<(), SerializationError> {
    let schema = T::schema();
    for spec in ctx.columns() {
        let i = schema.column_index(spec.name()).ok_or_else(|| {
            let detail = format!("`{}` has no field for this bind marker", schema.rust_name);
            value_mismatch(spec, schema.rust_name, detail)
        })?;
        write_column(row, i, spec, false, writer)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use scylla::frame::response::result::{CollectionType, NativeType, TableSpec};

    use super::*;

    fn spec(typ: ColumnType<'static>) -> ColumnSpec<'static> {
        let table = TableSpec::owned("ks".into(), "t".into());
        ColumnSpec::owned("scores".into(), typ, table)
    }

    /// The error of reading column `col` from a column of type `typ`.
    fn read_error(col: ColumnDef, typ: ColumnType<'static>) -> RowError {
        let e = check_columns("Row", &[col], &[spec(typ)]).expect_err("refused");
        e.downcast_ref::<RowError>().cloned().expect("a RowError")
    }

    /// Two equal type texts are never a mismatch: when the column has the struct's type and
    /// the field's Rust type still cannot read it (a `cql_type` it does not fit), the error
    /// says why, in CQL's words.
    #[test]
    fn equal_types_say_why_not_a_mismatch() {
        let map = ColumnType::Collection {
            frozen: false,
            typ: CollectionType::Map(
                Box::new(ColumnType::Native(NativeType::Float)),
                Box::new(ColumnType::Native(NativeType::Int)),
            ),
        };
        let column = |cql_type: Option<&str>| {
            let cql_type = cql_type.map(|t| t.parse().expect("a CQL type"));
            ColumnDef::new::<Option<Vec<String>>>(
                "scores",
                "scores",
                ColumnKind::Regular,
                cql_type,
                false,
            )
        };
        let e = read_error(column(Some("map<float, int>")), map.clone());
        assert_eq!(
            e,
            RowError::Unreadable {
                table: "ks.t".into(),
                column: "scores".into(),
                rust_type: std::any::type_name::<Option<Vec<String>>>(),
                cql_type: "map<float, int>".into(),
                reason: "Rust `Vec<String>` cannot read CQL `map<float, int>`: a `Vec` reads a \
                         list, a set or a vector"
                    .into(),
            }
        );
        assert_eq!(
            e.to_string(),
            "table `ks.t`, column `scores` (Rust `Option<Vec<String>>`, CQL `map<float, int>`): \
             Rust `Vec<String>` cannot read CQL `map<float, int>`: a `Vec` reads a list, a set \
             or a vector"
        );
        // Two different types: both, as before.
        let e = read_error(column(None), map);
        assert_eq!(
            e.to_string(),
            "table `ks.t`, column `scores`: the struct expects CQL type `list<text>` (Rust \
             `Option<Vec<String>>`), but the table has `map<float, int>`"
        );
    }
}
