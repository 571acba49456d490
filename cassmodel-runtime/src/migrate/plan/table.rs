//! The plan of a table the cluster has: its key (refused when it differs), its columns
//! (added, or refused when they cannot change), its options, its indexes, and what the
//! cluster has that the model does not (dropped only when allowed, else left alone).

use cassmodel_schema::{CqlType, Mask, quote_ident};

use super::compare::{
    live_definition, live_key_clause, live_order_clause, option_changes, same_type,
};
use super::index::plan_indexes;
use super::steps::{Change, MigrationPlan, Refusal, Step, Unmanaged};
use crate::migrate::live::{LiveColumn, LiveSchema, LiveTable};
use crate::migrate::target::Settings;
use crate::schema::ddl::{self, qualified};
use crate::schema::model::{ColumnDef, ColumnKind, TableSchema};

const KEY_ADVICE: &str = "give the struct a new table with the new key and name the old one as \
    its source, #[cass(table = \"<table>_v2\", from = \"<table>\")]: the plan then lists the \
    steps (create it, dual writes, `backfill`, `verify`, switch reads and writes, \
    `drop-source`)";

/// What every part of one table's plan names: the table, its name as `ks.table` for messages
/// and quoted for statements, and the advice for a change of key.
struct Table<'a> {
    ks: &'a str,
    model: &'a TableSchema,
    live: &'a LiveTable,
    object: String,
    quoted: String,
    key_advice: String,
}

/// Plans table `t` of keyspace `ks`, which the cluster has as `l`.
pub(super) fn plan_table(
    ks: &str,
    t: &TableSchema,
    l: &LiveTable,
    live: &LiveSchema,
    settings: &Settings,
    p: &mut MigrationPlan,
) {
    let table = Table {
        ks,
        model: t,
        live: l,
        object: format!("{ks}.{}", t.name),
        quoted: qualified(ks, t.name),
        key_advice: KEY_ADVICE.replace("<table>", t.name),
    };
    plan_key(&table, p);
    plan_columns(&table, settings, p);
    plan_options(&table, p);
    // After the columns they index are added.
    plan_indexes(ks, t, live, p);
    plan_unmodelled(&table, settings, p);
}

/// The primary key: the same partition-key columns in the same order, the same clustering
/// columns in the same order and ASC/DESC; any difference is refused.
fn plan_key(table: &Table<'_>, p: &mut MigrationPlan) {
    let (t, l) = (table.model, table.live);
    let model_pk: Vec<&ColumnDef> = t.partition_key.iter().map(|&i| &t.columns[i]).collect();
    let live_pk: Vec<_> = l.partition_key().collect();
    let pk_names_equal = model_pk.len() == live_pk.len()
        && model_pk.iter().zip(&live_pk).all(|(m, l)| m.name == l.name);
    if !pk_names_equal {
        p.refused.push(Refusal {
            table: table.object.clone(),
            column: None,
            old: live_key_clause(l),
            new: ddl::primary_key_clause(t),
            problem: "the partition key differs; Cassandra cannot change a table's partition key"
                .into(),
            advice: table.key_advice.clone(),
        });
    }
    let model_ck: Vec<&ColumnDef> = t.clustering.iter().map(|&i| &t.columns[i]).collect();
    let live_ck: Vec<_> = l.clustering().collect();
    let ck_names_equal = model_ck.len() == live_ck.len()
        && model_ck.iter().zip(&live_ck).all(|(m, l)| m.name == l.name);
    if pk_names_equal && !ck_names_equal {
        p.refused.push(Refusal {
            table: table.object.clone(),
            column: None,
            old: live_key_clause(l),
            new: ddl::primary_key_clause(t),
            problem: "the clustering columns differ; Cassandra cannot change a table's \
                      clustering columns"
                .into(),
            advice: table.key_advice.clone(),
        });
    } else if ck_names_equal
        && let Some((m, _)) = model_ck
            .iter()
            .zip(&live_ck)
            .find(|(m, l)| m.kind != l.kind)
    {
        p.refused.push(Refusal {
            table: table.object.clone(),
            column: Some(m.name.to_owned()),
            old: live_order_clause(l),
            new: ddl::clustering_order(t),
            problem: "the clustering order differs; Cassandra cannot change a table's \
                          clustering order"
                .into(),
            advice: format!(
                "read in the other order instead (`reversed()`), or {}",
                table.key_advice
            ),
        });
    }
}

/// The model's columns: those the table lacks are added (unless they were dropped with
/// another type); those it has with another kind or type are refused; masks are made the
/// model's ([`changed_mask`]). Key columns are the key's ([`plan_key`]).
fn plan_columns(table: &Table<'_>, settings: &Settings, p: &mut MigrationPlan) {
    let mut adds = Vec::new();
    for c in &table.model.columns {
        match table.live.column(c.name) {
            None if c.kind.is_key() => {} // reported with the key
            None => {
                if let Some(refusal) = dropped_with_another_type(table, c) {
                    p.refused.push(refusal);
                } else {
                    adds.push(add_column(table, c));
                }
            }
            Some(lc) => match changed_column(table, c, lc) {
                Some(refusal) => p.refused.push(refusal),
                None => match changed_mask(table, c, lc, settings) {
                    Some(Ok(step)) => adds.push(step),
                    Some(Err(refusal)) => p.refused.push(refusal),
                    None => {}
                },
            },
        }
    }
    p.steps.extend(adds);
}

/// `ALTER TABLE ... ALTER column MASKED WITH ..` when the column's mask differs from the
/// model's: a mask added, or replaced by another (the column stays masked). A mask the model
/// does not declare is dropped (`DROP MASKED`) only when allowed by name, else refused:
/// without it, every role without `UNMASK` reads the column's values in clear.
fn changed_mask(
    table: &Table<'_>,
    c: &ColumnDef,
    lc: &LiveColumn,
    settings: &Settings,
) -> Option<Result<Step, Refusal>> {
    let previous = lc.mask.as_ref().map(ToString::to_string);
    if previous.as_deref() == c.mask {
        return None;
    }
    let (name, object) = (c.name, &table.object);
    let (alter, description) = match (c.mask, &lc.mask) {
        (Some(m), None) => (
            format!("MASKED WITH {m}"),
            format!("mask column {name} of {object} with {m}"),
        ),
        (Some(m), Some(l)) => (
            format!("MASKED WITH {m}"),
            format!(
                "replace the mask of column {name} of {object}: {l} -> {m} (the column stays \
                 masked)"
            ),
        ),
        (None, Some(l)) => {
            let key = (
                table.ks.to_owned(),
                table.model.name.to_owned(),
                name.to_owned(),
            );
            if !settings.allow_unmask.contains(&key) {
                return Some(Err(unmask_refusal(table, c, lc, l)));
            }
            (
                "DROP MASKED".to_owned(),
                format!(
                    "EXPOSES DATA: drop the mask {l} of column {name} of {object} (allowed by \
                     name); every role without the UNMASK permission then reads its values"
                ),
            )
        }
        (None, None) => return None,
    };
    Some(Ok(Step {
        cql: format!(
            "ALTER TABLE {} ALTER {} {alter}",
            table.quoted,
            quote_ident(name)
        ),
        description,
        change: Change::AlterMask {
            keyspace: table.ks.to_owned(),
            table: table.model.name.to_owned(),
            column: name.to_owned(),
            mask: c.mask.map(str::to_owned),
            previous,
        },
    }))
}

/// The refusal of dropping mask `mask` of column `c` (`lc` on the cluster), which the model
/// does not declare and no setting allows to drop.
fn unmask_refusal(table: &Table<'_>, c: &ColumnDef, lc: &LiveColumn, mask: &Mask) -> Refusal {
    let (ks, t, name) = (table.ks, table.model.name, c.name);
    Refusal {
        table: table.object.clone(),
        column: Some(name.to_owned()),
        old: format!("{} MASKED WITH {mask}", live_definition(lc)),
        new: format!("{} (no mask)", ddl::column_definition(c)),
        problem: "dropping the mask would expose the column's values to every role without \
                  the UNMASK permission"
            .into(),
        advice: format!(
            "to keep the mask, declare it on the field: #[cass(masked = {})]; to expose the \
             column, drop the mask by name: `Migrator::allow_unmask(\"{ks}\", \"{t}\", \
             \"{name}\")` (CLI: `--allow-unmask {ks}.{t}.{name}`)",
            mask.rust_form()
        ),
    }
}

/// `ALTER TABLE ... ADD IF NOT EXISTS` of column `c`.
fn add_column(table: &Table<'_>, c: &ColumnDef) -> Step {
    let definition = ddl::column_definition(c);
    Step {
        cql: format!(
            "ALTER TABLE {} ADD IF NOT EXISTS {definition}",
            table.quoted
        ),
        description: format!("add column {} to {}", c.name, table.object),
        change: Change::AddColumn {
            keyspace: table.ks.to_owned(),
            table: table.model.name.to_owned(),
            column: c.name.to_owned(),
            definition,
        },
    }
}

/// The refusal of re-adding column `c`, which the table dropped with another type.
fn dropped_with_another_type(table: &Table<'_>, c: &ColumnDef) -> Option<Refusal> {
    let d = table.live.dropped.iter().find(|d| d.name == c.name)?;
    let dropped: Option<CqlType> = d.type_text.parse().ok();
    // User-defined types are recorded as tuples once dropped: the server decides.
    let comparable = !d.type_text.contains("tuple<") || c.cql_type.udt_names().is_empty();
    let same = dropped.is_some_and(|dt| same_type(&dt, &c.cql_type));
    if !comparable || same {
        return None;
    }
    Some(Refusal {
        table: table.object.clone(),
        column: Some(c.name.to_owned()),
        old: format!("{} (dropped)", ddl::definition(c.name, &d.type_text, false)),
        new: ddl::column_definition(c),
        problem: "the column was dropped with another type; Cassandra refuses to re-add a \
                  dropped column with an incompatible type"
            .into(),
        advice: format!(
            "give the column another name (e.g. `{}_v2`, or #[cass(name = \"...\")] on the \
             field), or keep the type `{}`",
            c.name, d.type_text
        ),
    })
}

/// The refusal of model column `c` that the table has as `lc` with another kind (static or
/// regular) or type. A key column moved in or out of the key is the key's.
fn changed_column(table: &Table<'_>, c: &ColumnDef, lc: &LiveColumn) -> Option<Refusal> {
    let key_mismatch = c.kind.is_key() != lc.kind.is_key()
        || (c.kind == ColumnKind::PartitionKey) != (lc.kind == ColumnKind::PartitionKey);
    if key_mismatch {
        return None; // reported with the key
    }
    let (problem, advice) = if !c.kind.is_key() && c.kind != lc.kind {
        (
            "the column is static on one side and regular on the other; Cassandra cannot \
             change that",
            format!(
                "add a new column (e.g. `{}_v2`) of the wanted kind, backfill it, and read it \
                 instead",
                c.name
            ),
        )
    } else if !same_type(&lc.cql_type, &c.cql_type) {
        let advice = if c.kind.is_key() {
            table.key_advice.clone()
        } else {
            format!(
                "keep `{}` in the struct, or add a new column with the new type (e.g. `{}_v2 \
                 {}`), backfill it from `{}`, and read it instead",
                lc.type_text, c.name, c.cql_type, c.name
            )
        };
        (
            "the column's type differs; Cassandra cannot change a column's type",
            advice,
        )
    } else {
        return None;
    };
    Some(Refusal {
        table: table.object.clone(),
        column: Some(c.name.to_owned()),
        old: live_definition(lc),
        new: ddl::column_definition(c),
        problem: problem.into(),
        advice,
    })
}

/// `ALTER TABLE ... WITH` the options the model sets that the table does not have.
fn plan_options(table: &Table<'_>, p: &mut MigrationPlan) {
    let changes = option_changes(&table.model.options, table.live);
    if changes.is_empty() {
        return;
    }
    let names: Vec<&str> = changes.iter().filter_map(|c| c.split(' ').next()).collect();
    p.steps.push(Step {
        cql: format!(
            "ALTER TABLE {} WITH {}",
            table.quoted,
            changes.join(" AND ")
        ),
        description: format!("change {} of {}", names.join(", "), table.object),
        change: Change::AlterOptions {
            keyspace: table.ks.to_owned(),
            table: table.model.name.to_owned(),
            options: table.model.options.clone(),
        },
    });
}

/// The columns and indexes the table has and the model does not: a column is dropped when
/// the settings allow it, everything else is left alone and listed.
fn plan_unmodelled(table: &Table<'_>, settings: &Settings, p: &mut MigrationPlan) {
    let (ks, t, l) = (table.ks, table.model, table.live);
    for lc in &l.columns {
        if lc.kind.is_key() || t.column_index(&lc.name).is_some() {
            continue;
        }
        let allowed =
            settings
                .allow_drop
                .contains(&(ks.to_owned(), t.name.to_owned(), lc.name.clone()));
        if allowed {
            p.steps.push(Step {
                cql: format!(
                    "ALTER TABLE {} DROP IF EXISTS {}",
                    table.quoted,
                    quote_ident(&lc.name)
                ),
                description: format!("drop column {} from {}", lc.name, table.object),
                change: Change::DropColumn {
                    keyspace: ks.to_owned(),
                    table: t.name.to_owned(),
                    column: lc.name.clone(),
                },
            });
        } else {
            p.unmanaged.push(Unmanaged::Column {
                keyspace: ks.to_owned(),
                table: t.name.to_owned(),
                column: lc.name.clone(),
                cql_type: lc.type_text.clone(),
            });
        }
    }
    for i in &l.indexes {
        if t.indexes().any(|(_, d)| d.name == i.name) {
            continue; // declared: created, matched or refused by `plan_indexes`
        }
        p.unmanaged.push(Unmanaged::Index {
            keyspace: ks.to_owned(),
            table: t.name.to_owned(),
            index: i.name.clone(),
            target: i.target().to_owned(),
        });
    }
}
