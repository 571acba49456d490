//! [`BindAs`]: what a typed builder method or key argument accepts for a column of Rust type
//! `F` (the field's type, or `&str` for a `String`), turned into a [`Bound`] value.

use scylla::serialize::value::SerializeValue;

use super::erased::{Bound, ListElement};
use super::types::CqlMapping;

/// A value that can be bound where a column of Rust type `F` is expected.
///
/// Query methods take key values through this trait so that, for a `String` column, both
/// `&String` and `&str` are accepted, while a value of the wrong type is a compile error that
/// points at the argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be bound to a column of Rust type `{F}`",
    label = "expected a `{F}` value here",
    note = "a key or column value must have the Rust type of its field (`&str` is also accepted for `String` and `Option<String>`)"
)]
pub trait BindAs<F: ?Sized>: SerializeValue + Sync + ListElement {
    #[doc(hidden)]
    fn __bound(&self) -> Bound<'_>;
}

impl<T: CqlMapping + Sync> BindAs<T> for T {
    fn __bound(&self) -> Bound<'_> {
        Bound::Value(self)
    }
}
#[diagnostic::do_not_recommend]
impl BindAs<String> for str {
    fn __bound(&self) -> Bound<'_> {
        Bound::Str(self)
    }
}
#[diagnostic::do_not_recommend]
impl BindAs<String> for &str {
    fn __bound(&self) -> Bound<'_> {
        Bound::Str(self)
    }
}
#[diagnostic::do_not_recommend]
impl BindAs<Option<String>> for str {
    fn __bound(&self) -> Bound<'_> {
        Bound::Str(self)
    }
}
#[diagnostic::do_not_recommend]
impl BindAs<Option<String>> for &str {
    fn __bound(&self) -> Bound<'_> {
        Bound::Str(self)
    }
}
impl<T: CqlMapping + Sync> BindAs<Option<T>> for T {
    fn __bound(&self) -> Bound<'_> {
        Bound::Value(self)
    }
}
