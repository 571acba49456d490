//! Whether the rows of a live table can be copied into a model's table: asked by `migrate
//! plan` (to refuse early) and by every backfill and verify.

use crate::migrate::live::LiveTable;
use crate::schema::model::{ColumnKind, SourceDef, TableSchema};

/// Why the rows of `source` cannot be copied into the table of `schema` as `declared`, if
/// they cannot: a counter table not copied `offline` (or a table copied `offline` that is not
/// a counter table); a static column; for a copy by name, a column of the target that the
/// source lacks or has with another type, or a key column of the source the target lacks
/// (rows would collapse).
pub(crate) fn copy_problem(
    schema: &TableSchema,
    declared: &SourceDef,
    source: &LiveTable,
) -> Option<String> {
    let counters =
        schema.is_counter_table() || source.columns.iter().any(|c| c.cql_type.is_counter());
    if counters && !declared.offline {
        return Some(
            "a counter table cannot be copied online: a counter takes no write time, and an \
             increment applied twice counts twice; copy it offline (every writer of the old \
             table stopped until the copy is verified): #[cass(from = .., offline)]"
                .into(),
        );
    }
    if declared.offline && !schema.is_counter_table() {
        return Some(
            "`offline` is for counter tables, and this is not one: remove `offline`, and the \
             rows are copied online"
                .into(),
        );
    }
    let statics = schema.columns.iter().any(|c| c.kind == ColumnKind::Static)
        || source.columns.iter().any(|c| c.kind == ColumnKind::Static);
    if statics {
        return Some(
            "tables with static columns are not copied yet: a partition's static values \
             would have to be written once per new partition"
                .into(),
        );
    }
    if declared.converted {
        return None;
    }
    for c in schema.field_columns() {
        match source.column(c.name) {
            None => {
                return Some(format!(
                    "the source has no column `{}`: declare how to fill it, \
                     #[cass(from = OldModel, with = convert_fn)]",
                    c.name
                ));
            }
            Some(s) if s.cql_type.canonical() != c.cql_type.canonical() => {
                return Some(format!(
                    "column `{}` is `{}` in the source and `{}` here: convert the rows, \
                     #[cass(from = OldModel, with = convert_fn)]",
                    c.name, s.type_text, c.cql_type
                ));
            }
            Some(_) => {}
        }
    }
    let key = source.partition_key().chain(source.clustering());
    for k in key {
        if schema.column_index(&k.name).is_none() {
            return Some(format!(
                "the source's key column `{}` has no column here: rows that differ only by it \
                 would become one; keep the column, or convert the rows, \
                 #[cass(from = OldModel, with = convert_fn)]",
                k.name
            ));
        }
    }
    None
}
