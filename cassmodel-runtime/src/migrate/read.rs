//! Reading the live schema from `system_schema` directly: the driver's metadata has neither
//! the clustering order nor the indexes nor the dropped columns. One function per table read,
//! each by keyspace (their partition key is `keyspace_name`): `keyspaces`, `tables`,
//! `columns`, `types`, `indexes`, `dropped_columns`, `column_masks`.

use std::collections::BTreeMap;

use cassmodel_schema::{CqlType, Mask};
use futures::TryStreamExt;
use scylla::deserialize::row::DeserializeRow;

use super::error::MigrationError;
use super::live::{
    DroppedColumn, LiveAggregate, LiveColumn, LiveFunction, LiveIndex, LiveKeyspace, LiveOptions,
    LiveSchema, LiveTable, LiveType, LiveView,
};
use crate::exec::send::{self, repeatable};
use crate::schema::model::{ColumnKind, Order};
use crate::session::db::Db;

type Map = BTreeMap<String, String>;

/// The kind of the live schema's reads, in their spans.
const KIND: &str = "schema";

impl LiveSchema {
    /// Reads `keyspaces` (those that exist) from `system_schema`.
    pub async fn read(db: &Db, keyspaces: &[&str]) -> Result<Self, MigrationError> {
        let mut out = LiveSchema {
            functions_enabled: functions_enabled(db).await,
            ..LiveSchema::default()
        };
        for &ks in keyspaces {
            if let Some(k) = read_keyspace(db, ks).await? {
                out.keyspaces.insert(ks.to_owned(), k);
            }
        }
        Ok(out)
    }
}

/// Keyspace `ks` with its tables (their columns, indexes and dropped columns) and types, or
/// `None` when it does not exist.
async fn read_keyspace(db: &Db, ks: &str) -> Result<Option<LiveKeyspace>, MigrationError> {
    let found: Vec<(String, Option<Map>)> = rows(
        db,
        "SELECT keyspace_name, replication FROM system_schema.keyspaces WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    let Some((_, replication)) = found.into_iter().next() else {
        return Ok(None);
    };
    let mut k = LiveKeyspace {
        name: ks.to_owned(),
        replication: replication.unwrap_or_default(),
        tables: read_tables(db, ks).await?,
        types: read_types(db, ks).await?,
        views: read_views(db, ks).await?,
        functions: read_functions(db, ks).await?,
        aggregates: read_aggregates(db, ks).await?,
    };
    read_columns(db, ks, &mut k).await?;
    read_indexes(db, ks, &mut k.tables).await?;
    read_dropped_columns(db, ks, &mut k.tables).await?;
    read_column_masks(db, ks, &mut k.tables).await?;
    Ok(Some(k))
}

/// `system_schema.tables`: the tables of `ks` with the options cassmodel manages, without
/// their columns yet.
async fn read_tables(db: &Db, ks: &str) -> Result<BTreeMap<String, LiveTable>, MigrationError> {
    type TableRow = (
        String,
        Option<String>,
        Option<Map>,
        Option<i32>,
        Option<i32>,
        Option<Vec<String>>,
    );
    let tables: Vec<TableRow> = rows(
        db,
        "SELECT table_name, comment, compaction, default_time_to_live, gc_grace_seconds, flags \
         FROM system_schema.tables WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    let mut out = BTreeMap::new();
    for (name, comment, compaction, ttl, gc, flags) in tables {
        let flags = flags.unwrap_or_default();
        let flag = |f: &str| flags.iter().any(|g| g.eq_ignore_ascii_case(f));
        let compact_storage = !flag("compound") || flag("dense") || flag("super");
        let options = LiveOptions {
            default_ttl: ttl.unwrap_or(0),
            gc_grace_seconds: gc.unwrap_or(0),
            comment: comment.unwrap_or_default(),
            compaction_class: compaction
                .and_then(|mut c| c.remove("class"))
                .unwrap_or_default(),
        };
        out.insert(
            name.clone(),
            LiveTable {
                name,
                options,
                compact_storage,
                ..LiveTable::default()
            },
        );
    }
    Ok(out)
}

/// `system_schema.columns`: each table's columns, partition key first, then clustering
/// columns (each by position), then the others by name.
async fn read_columns(db: &Db, ks: &str, k: &mut LiveKeyspace) -> Result<(), MigrationError> {
    type ColumnRow = (
        String,
        String,
        Option<String>,
        Option<String>,
        Option<i32>,
        String,
    );
    let columns: Vec<ColumnRow> = rows(
        db,
        "SELECT table_name, column_name, clustering_order, kind, position, type \
         FROM system_schema.columns WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (table, name, order, kind, position, type_text) in columns {
        // Columns of materialized views are in this table too.
        let t = match k.tables.get_mut(&table) {
            Some(t) => t,
            None => match k.views.get_mut(&table) {
                Some(v) => &mut v.table,
                None => continue,
            },
        };
        let kind_text = kind.unwrap_or_default();
        let Some(kind) = kind_of(&kind_text, order.as_deref().unwrap_or("none")) else {
            return Err(MigrationError::LiveSchema(format!(
                "{ks}.{table}.{name}: unknown column kind `{kind_text}`"
            )));
        };
        let cql_type = parse_type(ks, &format!("column {table}.{name}"), &type_text)?;
        t.columns.push(LiveColumn {
            name,
            kind,
            position: position.unwrap_or(-1),
            cql_type,
            type_text,
            mask: None,
        });
    }
    for t in k
        .tables
        .values_mut()
        .chain(k.views.values_mut().map(|v| &mut v.table))
    {
        t.columns.sort_by(|a, b| {
            let rank = |c: &LiveColumn| match c.kind {
                ColumnKind::PartitionKey => 0,
                ColumnKind::Clustering(_) => 1,
                ColumnKind::Static | ColumnKind::Regular => 2,
            };
            (rank(a), a.position, &a.name).cmp(&(rank(b), b.position, &b.name))
        });
    }
    Ok(())
}

/// `system_schema.types`: the user-defined types of `ks`, their fields in order.
async fn read_types(db: &Db, ks: &str) -> Result<BTreeMap<String, LiveType>, MigrationError> {
    type TypeRow = (String, Option<Vec<String>>, Option<Vec<String>>);
    let types: Vec<TypeRow> = rows(
        db,
        "SELECT type_name, field_names, field_types FROM system_schema.types \
         WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    let mut out = BTreeMap::new();
    for (name, names, types) in types {
        let mut fields = Vec::new();
        for (f, text) in names
            .unwrap_or_default()
            .into_iter()
            .zip(types.unwrap_or_default())
        {
            let t = parse_type(ks, &format!("field {name}.{f}"), &text)?;
            fields.push((f, t, text));
        }
        out.insert(name.clone(), LiveType { name, fields });
    }
    Ok(out)
}

/// Whether the node read runs user-defined functions: `user_defined_functions_enabled` (or
/// its name before Cassandra 4.1, `enable_user_defined_functions`) in `system_views.settings`;
/// `None` when the server has no such table or setting.
async fn functions_enabled(db: &Db) -> Option<bool> {
    let cql = "SELECT name, value FROM system_views.settings WHERE name IN \
               ('user_defined_functions_enabled', 'enable_user_defined_functions')";
    let found: Vec<(String, Option<String>)> =
        send::rows(db, KIND, repeatable(cql), ()).await.ok()?;
    found
        .into_iter()
        .find_map(|(_, value)| value)
        .map(|v| v.eq_ignore_ascii_case("true"))
}

/// `system_schema.functions`: the user-defined functions of `ks`.
async fn read_functions(db: &Db, ks: &str) -> Result<Vec<LiveFunction>, MigrationError> {
    type FunctionRow = (
        String,
        Option<Vec<String>>,
        Option<Vec<String>>,
        Option<String>,
        Option<bool>,
        Option<String>,
        Option<String>,
    );
    let found: Vec<FunctionRow> = rows(
        db,
        "SELECT function_name, argument_names, argument_types, body, called_on_null_input, \
         language, return_type FROM system_schema.functions WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    let mut out = Vec::new();
    for (name, names, types, body, called, language, returns) in found {
        let mut params = Vec::new();
        for (n, text) in names
            .unwrap_or_default()
            .into_iter()
            .zip(types.unwrap_or_default())
        {
            let t = parse_type(ks, &format!("function {name}, parameter {n},"), &text)?;
            params.push((n, t, text));
        }
        let returns = returns.unwrap_or_default();
        out.push(LiveFunction {
            returns: (
                parse_type(ks, &format!("function {name}"), &returns)?,
                returns,
            ),
            name,
            params,
            language: language.unwrap_or_default(),
            body: body.unwrap_or_default(),
            called_on_null_input: called.unwrap_or(false),
        });
    }
    Ok(out)
}

/// `system_schema.aggregates`: the user-defined aggregates of `ks`.
async fn read_aggregates(db: &Db, ks: &str) -> Result<Vec<LiveAggregate>, MigrationError> {
    type AggregateRow = (
        String,
        Option<Vec<String>>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let found: Vec<AggregateRow> = rows(
        db,
        "SELECT aggregate_name, argument_types, final_func, initcond, state_func, state_type \
         FROM system_schema.aggregates WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    let mut out = Vec::new();
    for (name, types, final_function, initial, state_function, state_type) in found {
        let mut params = Vec::new();
        for text in types.unwrap_or_default() {
            params.push((parse_type(ks, &format!("aggregate {name}"), &text)?, text));
        }
        let state_type = state_type.unwrap_or_default();
        out.push(LiveAggregate {
            state_type: (
                parse_type(ks, &format!("aggregate {name}"), &state_type)?,
                state_type,
            ),
            name,
            params,
            state_function: state_function.unwrap_or_default(),
            final_function,
            initial,
        });
    }
    Ok(out)
}

/// `system_schema.views`: the materialized views of `ks`, with their base tables.
async fn read_views(db: &Db, ks: &str) -> Result<BTreeMap<String, LiveView>, MigrationError> {
    type ViewRow = (String, Option<String>, Option<String>, Option<bool>);
    let views: Vec<ViewRow> = rows(
        db,
        "SELECT view_name, base_table_name, where_clause, include_all_columns \
         FROM system_schema.views WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    Ok(views
        .into_iter()
        .map(|(name, base, where_clause, all)| {
            let view = LiveView {
                name: name.clone(),
                base_table: base.unwrap_or_default(),
                where_clause: where_clause.unwrap_or_default(),
                include_all_columns: all.unwrap_or(false),
                table: LiveTable {
                    name: name.clone(),
                    ..LiveTable::default()
                },
            };
            (name, view)
        })
        .collect())
}

/// `system_schema.indexes`: each table's secondary indexes.
async fn read_indexes(
    db: &Db,
    ks: &str,
    tables: &mut BTreeMap<String, LiveTable>,
) -> Result<(), MigrationError> {
    let indexes: Vec<(String, String, Option<String>, Option<Map>)> = rows(
        db,
        "SELECT table_name, index_name, kind, options FROM system_schema.indexes \
         WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (table, name, kind, options) in indexes {
        if let Some(t) = tables.get_mut(&table) {
            t.indexes.push(LiveIndex {
                name,
                kind: kind.unwrap_or_default(),
                options: options.unwrap_or_default(),
            });
        }
    }
    Ok(())
}

/// `system_schema.dropped_columns`: the columns each table dropped.
async fn read_dropped_columns(
    db: &Db,
    ks: &str,
    tables: &mut BTreeMap<String, LiveTable>,
) -> Result<(), MigrationError> {
    let dropped: Vec<(String, String, Option<String>, Option<String>)> = rows(
        db,
        "SELECT table_name, column_name, kind, type FROM system_schema.dropped_columns \
         WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (table, name, kind, type_text) in dropped {
        if let Some(t) = tables.get_mut(&table) {
            t.dropped.push(DroppedColumn {
                name,
                type_text: type_text.unwrap_or_default(),
                kind: kind.unwrap_or_default(),
            });
        }
    }
    Ok(())
}

/// `system_schema.column_masks` (Cassandra 5.0): the mask of each masked column. A server
/// without that table (before 5.0) masks nothing.
async fn read_column_masks(
    db: &Db,
    ks: &str,
    tables: &mut BTreeMap<String, LiveTable>,
) -> Result<(), MigrationError> {
    type MaskRow = (
        String,
        String,
        String,
        Option<Vec<String>>,
        Option<Vec<Option<String>>>,
    );
    let masks: Vec<MaskRow> = match rows(
        db,
        "SELECT table_name, column_name, function_name, function_argument_types, \
         function_argument_values FROM system_schema.column_masks WHERE keyspace_name = ?",
        ks,
    )
    .await
    {
        Ok(masks) => masks,
        Err(e) if table_missing(&e.to_string(), "column_masks") => return Ok(()),
        Err(e) => return Err(e),
    };
    for (table, column, function, types, values) in masks {
        let Some(c) = tables
            .get_mut(&table)
            .and_then(|t| t.columns.iter_mut().find(|c| c.name == column))
        else {
            continue;
        };
        let (types, values) = (types.unwrap_or_default(), values.unwrap_or_default());
        c.mask = Some(Mask::from_live(&function, &types, &values).ok_or_else(|| {
            MigrationError::LiveSchema(format!(
                "{ks}.{table}.{column} is masked with `{function}`, which is not a masking \
                 function cassmodel knows"
            ))
        })?);
    }
    Ok(())
}

/// Whether `message`, a server's error, says that the table `table` does not exist: a
/// `system_schema` table of a newer Cassandra than the server. Cassandra 4.1.10 says "table
/// column_masks does not exist"; older servers "unconfigured table column_masks".
fn table_missing(message: &str, table: &str) -> bool {
    message.contains(&format!("table {table} does not exist"))
        || message.contains(&format!("unconfigured table {table}"))
}

/// Runs `cql` with `keyspace` bound and collects every row (paged).
async fn rows<R>(db: &Db, cql: &str, keyspace: &str) -> Result<Vec<R>, MigrationError>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let err = |e: &dyn std::fmt::Display| MigrationError::LiveSchema(format!("`{cql}`: {e}"));
    // A read: the driver may try it on another node when one is overloaded or shutting down.
    send::pager(db, KIND, repeatable(cql), (keyspace,))
        .await
        .map_err(|e| err(&e))?
        .rows_stream::<R>()
        .map_err(|e| err(&e))?
        .try_collect::<Vec<R>>()
        .await
        .map_err(|e| err(&e))
}

fn parse_type(keyspace: &str, what: &str, text: &str) -> Result<CqlType, MigrationError> {
    text.parse::<CqlType>().map_err(|e| {
        MigrationError::LiveSchema(format!(
            "{keyspace}: {what} has the type `{text}`, which cassmodel cannot read: {e}"
        ))
    })
}

fn kind_of(kind: &str, order: &str) -> Option<ColumnKind> {
    Some(match (kind, order) {
        ("partition_key", _) => ColumnKind::PartitionKey,
        ("clustering", "desc") => ColumnKind::Clustering(Order::Desc),
        ("clustering", _) => ColumnKind::Clustering(Order::Asc),
        ("static", _) => ColumnKind::Static,
        ("regular", _) => ColumnKind::Regular,
        _ => return None,
    })
}

#[cfg(test)]
mod table_missing_tests {
    use super::table_missing;

    /// The words of the servers that lack `system_schema.column_masks`, as the driver reports
    /// them (the first seen on Cassandra 4.1.10).
    #[test]
    fn a_missing_system_table_is_told_apart() {
        let v41 = "Database returned an error: The query is syntactically correct but invalid, \
                   Error message: table column_masks does not exist";
        assert!(table_missing(v41, "column_masks"));
        assert!(table_missing(
            "Error message: unconfigured table column_masks",
            "column_masks"
        ));
        assert!(!table_missing(v41, "columns"));
        assert!(!table_missing(
            "Error message: Keyspace ks does not exist",
            "column_masks"
        ));
    }
}
