//! [`CopyFrom`]: a table whose rows are copied from another after a key change, and the
//! conversion of a source row.

use crate::mapping::table::Table;

/// A table whose rows come from another table after a key change: implemented by
/// `#[derive(CassTable)]` for a struct with `#[cass(from = "old_table")]` or
/// `#[cass(from = OldModel)]` (with `with = convert_fn` when its rows are converted).
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares no table its rows are copied from",
    label = "no `#[cass(from = ..)]`",
    note = "add `#[cass(from = \"old_table\")]` (columns copied by name) or `#[cass(from = OldModel, with = convert_fn)]` to the struct `{Self}`"
)]
pub trait CopyFrom: Table {
    /// The row read from the source table: this struct itself, read from the source table's
    /// columns of the same names, or the source model.
    type Source: Table;

    /// The row of this table for one row of the source.
    fn convert(source: Self::Source) -> Result<Self, String>;
}

/// What a conversion function (`with = f`) may return: the new row, or a `Result` whose error
/// is the reason the row cannot be copied.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the conversion of `#[cass(with = ..)]` returns `{Self}`, not a row of `{T}`",
    label = "returns `{Self}`",
    note = "the function must return `{T}`, or `Result<{T}, E>` where `E: Display` (the error is reported with the row's key, and the row is not copied)"
)]
pub trait Converted<T> {
    /// The new row, or why not.
    fn into_row(self) -> Result<T, String>;
}

impl<T> Converted<T> for T {
    fn into_row(self) -> Result<T, String> {
        Ok(self)
    }
}

impl<T, E: std::fmt::Display> Converted<T> for Result<T, E> {
    fn into_row(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

/// Runs the conversion function `f` of `#[cass(with = f)]` on one source row: `f` takes the
/// source model's row by value and returns the new row or a `Result` of it. Not a public API.
#[doc(hidden)]
pub fn convert_with<S, T, R: Converted<T>>(f: fn(S) -> R, source: S) -> Result<T, String> {
    f(source).into_row()
}
