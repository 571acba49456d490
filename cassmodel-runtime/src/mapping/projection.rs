//! [`Projection`]: the row type of a read, the whole table struct or a struct of some of its
//! columns (`#[derive(CassProjection)]`), and the column lists generated projections build.

use scylla::deserialize::row::DeserializeRow;

use super::function::{RowKind, Rows};
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

    /// The computed fields (`#[cass(select = writetime(body))]`), read after the columns,
    /// in field order.
    #[doc(hidden)]
    fn computed() -> &'static [Computed] {
        &[]
    }
}

/// A row type that reads rows one by one: every projection but one of aggregates (`min`,
/// `max`, `sum`, `avg`, `count`), which makes one row of all the rows a query selects.
#[diagnostic::on_unimplemented(
    message = "`{Self}` reads aggregates, and a read over a range of buckets runs one query per bucket: it would give one aggregate row per bucket",
    label = "a projection of aggregates over several buckets",
    note = "read the aggregate of each bucket with `select()` and the bucket column, and combine them"
)]
pub trait PerRow {}

#[diagnostic::do_not_recommend]
impl<T: RowKind<Kind = Rows>> PerRow for T {}

impl<T: Table> RowKind for T {
    type Kind = Rows;
}

/// A field of a projection read from a CQL selector over the table's columns, selected `AS`
/// the field's name. Written by the derive.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Computed {
    /// What it selects.
    pub selector: Selector,
    /// The projection's field (the selector's alias).
    pub alias: &'static str,
}

/// A CQL selector over a table's columns: a column, a function of selectors (`WRITETIME(c)`,
/// `toDate(c)`, an aggregate such as `max(c)`, a user-defined function or aggregate), a cast
/// (`CAST(c AS text)`), arithmetic between selectors, a number. Written by the derive.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// A field of the table, by its Rust name (the column's CQL name when written).
    Field(&'static str),
    /// A native function (lower case) of its arguments.
    Call(&'static str, &'static [Selector]),
    /// A user-defined function or aggregate, by its CQL name (quoted when written).
    UserCall(&'static str, &'static [Selector]),
    /// `CAST(selector AS type)`.
    Cast(&'static Selector, &'static str),
    /// `left op right`, `op` one of `+ - * / %`.
    Op(&'static Selector, &'static str, &'static Selector),
    /// A number, as written (`2`, `-0.5`).
    Number(&'static str),
}

impl Selector {
    /// The native function calls in it, depth first.
    pub(crate) fn native_calls<'s>(&'s self, out: &mut Vec<&'s Selector>) {
        match self {
            Selector::Call(_, args) => {
                out.push(self);
                args.iter().for_each(|a| a.native_calls(out));
            }
            Selector::UserCall(_, args) => args.iter().for_each(|a| a.native_calls(out)),
            Selector::Cast(of, _) => of.native_calls(out),
            Selector::Op(l, _, r) => {
                l.native_calls(out);
                r.native_calls(out);
            }
            Selector::Field(_) | Selector::Number(_) => {}
        }
    }

    /// The selector with the fields' Rust names, for messages: `collection_count(tags)`.
    pub(crate) fn describe(&self) -> String {
        let list = |args: &[Selector]| {
            let args: Vec<String> = args.iter().map(Selector::describe).collect();
            args.join(", ")
        };
        match self {
            Selector::Field(f) | Selector::Number(f) => (*f).to_owned(),
            Selector::Call(f, args) | Selector::UserCall(f, args) => format!("{f}({})", list(args)),
            Selector::Cast(of, to) => format!("CAST({} AS {to})", of.describe()),
            Selector::Op(l, op, r) => format!("{} {op} {}", l.describe(), r.describe()),
        }
    }
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

/// The table's columns by Rust field name, with what a selector may do with each
/// (`Table::__FIELD_KINDS`, written by the derive): `(field, kind)`.
#[doc(hidden)]
pub mod field_kind {
    /// A regular or static column of one cell.
    pub const CELL: u8 = 0;
    /// A partition-key column.
    pub const PARTITION_KEY: u8 = 1;
    /// A clustering column.
    pub const CLUSTERING: u8 = 2;
    /// A counter column.
    pub const COUNTER: u8 = 3;
    /// A non-frozen collection (a cell per element).
    pub const MULTI_CELL: u8 = 4;
    /// Not a field of the table.
    pub const UNKNOWN: u8 = u8::MAX;

    /// Whether `kind` is a primary-key column's.
    pub const fn is_key(kind: u8) -> bool {
        kind == PARTITION_KEY || kind == CLUSTERING
    }

    /// Whether `field`, a key column of a view of the table of `kinds`, is one the view adds
    /// to the table's key: a field of the table that is not a key column of it.
    pub const fn added_key(kinds: &[(&str, u8)], field: &str) -> bool {
        let kind = of(kinds, field);
        kind != UNKNOWN && !is_key(kind)
    }

    /// The kind of `field` in `kinds` ([`UNKNOWN`] if absent), at compile time.
    pub const fn of(kinds: &[(&str, u8)], field: &str) -> u8 {
        let mut i = 0;
        while i < kinds.len() {
            if eq(kinds[i].0, field) {
                return kinds[i].1;
            }
            i += 1;
        }
        UNKNOWN
    }

    const fn eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// A field that holds `WRITETIME(c)`: `i64` microseconds since the epoch.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a write time: `writetime(..)` reads a CQL `bigint` (microseconds since the Unix epoch)",
    label = "declare this field `i64`, or `Option<i64>` if the column can be null"
)]
pub trait WriteTimeField {}
impl WriteTimeField for i64 {}
impl WriteTimeField for Option<i64> {}

/// A field that holds `TTL(c)`: the seconds left, null for a cell without a TTL.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a TTL: `ttl(..)` reads a CQL `int` (seconds left), null when the cell has none",
    label = "declare this field `Option<i32>`"
)]
pub trait TtlField {}
impl TtlField for Option<i32> {}

/// A field that holds `count(c)`: a CQL `bigint`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a count: `count(..)` reads a CQL `bigint`",
    label = "declare this field `i64`"
)]
pub trait CountField {}
impl CountField for i64 {}

/// A rule of Cassandra's that a derive checks at compile time on facts of another type (a
/// table's field kinds, an entity's tables): `Rule<{ fact }>`, a `bool` computed in a
/// constant, must implement the trait the derive generates for the rule, implemented for
/// `Rule<true>` only, whose `#[diagnostic::on_unimplemented]` message states the rule and
/// the fix. So the error's first line is the rule (a `panic!` in a `const` would open with
/// "evaluation panicked").
#[doc(hidden)]
pub struct Rule<const HOLDS: bool>;

/// Compiles only for a field type that holds a write time ([`WriteTimeField`]).
#[doc(hidden)]
pub const fn assert_write_time<F: WriteTimeField>() {}

/// Compiles only for a field type that holds a TTL ([`TtlField`]).
#[doc(hidden)]
pub const fn assert_ttl<F: TtlField>() {}

/// Compiles only for a field type that holds a count ([`CountField`]).
#[doc(hidden)]
pub const fn assert_count<F: CountField>() {}
