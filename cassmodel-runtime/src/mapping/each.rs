//! Rows per element: a table of an entity whose key column takes each element of one of the
//! entity's collections (`#[cass(each = tags)]` on the column), so that the entity is one row
//! per element there (a video by each of its tags). [`Each`] is what such a collection is;
//! [`ElementFits`] checks at compile time that the column takes its elements.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A collection whose elements an entity's table holds one row each of
/// (`#[cass(each = field)]`): a list, a set, or a map's keys; `None` of one holds none.
#[diagnostic::on_unimplemented(
    message = "`#[cass(each = ..)]` takes one row per element of a collection, and the entity's field is a `{Self}`",
    label = "not a collection of elements",
    note = "name a field of the entity that is a `Vec<T>`, a set (`BTreeSet<T>`, `HashSet<T>`) or a map (`BTreeMap<K, V>`, `HashMap<K, V>`, one row per key), or an `Option` of one"
)]
pub trait Each {
    /// The type of its elements (a map's keys).
    type Element;

    /// Its elements, in its own order.
    fn elements(&self) -> impl Iterator<Item = &Self::Element>;
}

impl<T> Each for Vec<T> {
    type Element = T;

    fn elements(&self) -> impl Iterator<Item = &T> {
        self.iter()
    }
}

impl<T> Each for BTreeSet<T> {
    type Element = T;

    fn elements(&self) -> impl Iterator<Item = &T> {
        self.iter()
    }
}

impl<T, S> Each for HashSet<T, S> {
    type Element = T;

    fn elements(&self) -> impl Iterator<Item = &T> {
        self.iter()
    }
}

impl<K, V> Each for BTreeMap<K, V> {
    type Element = K;

    fn elements(&self) -> impl Iterator<Item = &K> {
        self.keys()
    }
}

impl<K, V, S> Each for HashMap<K, V, S> {
    type Element = K;

    fn elements(&self) -> impl Iterator<Item = &K> {
        self.keys()
    }
}

impl<C: Each> Each for Option<C> {
    type Element = C::Element;

    fn elements(&self) -> impl Iterator<Item = &C::Element> {
        self.iter().flat_map(Each::elements)
    }
}

/// The element type of the collection a column takes each element of is the column's type.
#[diagnostic::on_unimplemented(
    message = "the column takes each element of the entity's collection, whose elements are `{Self}`, but the column's type is `{T}`",
    label = "the column's type, `{T}`",
    note = "declare the column as `{Self}`, the type of the collection's elements (a map's keys)"
)]
pub trait ElementFits<T> {
    /// The element, as the column's type.
    fn as_column(&self) -> &T;
}

impl<T> ElementFits<T> for T {
    fn as_column(&self) -> &T {
        self
    }
}

/// A row (`row`) of each element of `collection`, the element taken as column type `F`: the
/// rows of a table with `#[cass(each = ..)]`. One call, whose bounds are the two rules (a
/// collection; elements of the column's type), so that a mistake is one error.
#[doc(hidden)]
pub fn rows_of_each<C, F: 'static, R>(collection: &C, row: impl FnMut(&F) -> R) -> Vec<R>
where
    C: Each,
    C::Element: ElementFits<F>,
{
    collection
        .elements()
        .map(ElementFits::as_column)
        .map(row)
        .collect()
}
