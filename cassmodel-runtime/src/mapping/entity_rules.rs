//! The rules of entities checked when their crate compiles. Every field of an entity is held
//! by one of its tables (else `save` and `update` would write it nowhere).
//!
//! An entity's identity table (`#[derive(CassEntity)]` with `#[cass(identity = T)]`): the
//! table keyed by what never changes in the entity, from which `replace_current` reads the
//! stored entity before a change and on which `replace_if_unchanged` decides one. Its rule,
//! checked when the entity's crate compiles against the tables' `__FIELD_KINDS`: it holds
//! every key field of every table of the entity, so that the stored row of each table can be
//! found from it.

use super::const_message::{contains_str, message};
use super::projection::field_kind::{self, is_key};

/// The identity table `identity` of entity `entity` holds every key field of `table` (one of
/// the entity's tables); `identity_fields` and `table_fields` are their `(field, kind)` as
/// `__FIELD_KINDS` has them. For a table with one row per element (`each`: the field of the
/// column that takes each element, and the entity's collection), the identity holds the
/// collection instead of that column. Panics (a compile error in a `const`) with a message
/// that names the field and the fix.
pub const fn check_identity(
    entity: &str,
    identity: &str,
    table: &str,
    identity_fields: &[(&str, u8)],
    table_fields: &[(&str, u8)],
    each: Option<(&str, &str)>,
) {
    let mut i = 0;
    while i < table_fields.len() {
        let (mut name, kind) = table_fields[i];
        if let Some((column, collection)) = each
            && str_eq(column, name)
        {
            name = collection;
        }
        if is_key(kind) && field_kind::of(identity_fields, name) == field_kind::UNKNOWN {
            let m = message(&[
                "the identity table of an entity holds every key field of the entity's tables \
                 (a change reads the stored entity from it to find each table's row), and `",
                identity,
                "` (the identity table of `",
                entity,
                "`) lacks `",
                name,
                "`, which the key of `",
                table,
                "` is made from: add the field `",
                name,
                "` to `",
                identity,
                "`, or name another table with #[cass(identity = ..)]",
            ]);
            panic!("{}", m.as_str());
        }
        i += 1;
    }
}

/// Whether `a` and `b` are the same (usable in constants).
const fn str_eq(a: &str, b: &str) -> bool {
    contains_str(&[a], b)
}

/// Field `field` of entity `entity` is held by one of its tables: a column of one of
/// `tables` (their `__FIELD_KINDS`), or the collection whose elements one of them holds a
/// row each of (`each`, their `__EACH`). Panics (a compile error in a `const`) with a
/// message that names the field and the fix. A table whose fields are not known (none: the
/// derive's fallback, beside the errors of its struct) holds any.
pub const fn check_stored(
    entity: &str,
    field: &str,
    tables: &[&[(&str, u8)]],
    each: &[Option<(&str, &str)>],
) {
    let mut i = 0;
    while i < tables.len() {
        if tables[i].is_empty() || field_kind::of(tables[i], field) != field_kind::UNKNOWN {
            return;
        }
        i += 1;
    }
    let mut j = 0;
    while j < each.len() {
        if let Some((_, collection)) = each[j]
            && str_eq(collection, field)
        {
            return;
        }
        j += 1;
    }
    let m = message(&[
        "every field of an entity is held by one of its tables, and no table of `",
        entity,
        "` has `",
        field,
        "`: `save` and `update` would write it nowhere; add the field to one of its tables \
         (#[cass(tables(..))]), or remove it from `",
        entity,
        "`",
    ]);
    panic!("{}", m.as_str());
}
