//! [`Projection`]: the row type of a read, the whole table struct or a struct of some of its
//! columns (`#[derive(CassProjection)]`), and the column lists generated projections build.

use scylla::deserialize::row::DeserializeRow;

use super::table::Table;
use crate::schema::model::ColumnDef;

/// The rows a read returns: the whole table struct, or a projection of some of its columns
/// (`#[derive(CassProjection)]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a projection of table `{T}`",
    label = "cannot read rows of `{T}` as `{Self}`",
    note = "derive `CassProjection` on `{Self}` with `#[cass(table = {T})]`, with fields named and typed like columns of `{T}`"
)]
pub trait Projection<T: Table>:
    Sized + Send + 'static + for<'f, 'm> DeserializeRow<'f, 'm>
{
    /// Indices (into `T::schema().columns`) of the columns read, in field order.
    fn columns() -> &'static [usize];
}

impl<T: Table> Projection<T> for T {
    fn columns() -> &'static [usize] {
        T::schema().all_columns()
    }
}

/// The column indices (into `T`'s columns) of a projection's fields, by field name.
#[doc(hidden)]
pub fn projection_columns<T: Table>(fields: &[&str]) -> Vec<usize> {
    let cols = &T::schema().columns;
    fields
        .iter()
        .filter_map(|f| cols.iter().position(|c| c.field == *f))
        .collect()
}

/// The column descriptions of a projection: those of `T` at `indices`.
#[doc(hidden)]
pub fn projection_defs<T: Table>(indices: &[usize]) -> Vec<ColumnDef> {
    indices
        .iter()
        .filter_map(|&i| T::schema().columns.get(i).cloned())
        .collect()
}
