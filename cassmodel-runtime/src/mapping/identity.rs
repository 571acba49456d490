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
