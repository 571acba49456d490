//! The plan: a pure function of the models and the live schema, so it is unit-tested
//! without a database and the same inputs always give the same text.

use std::collections::BTreeSet;
use std::fmt;

use cassmodel_schema::{CqlType, quote_ident};

use super::live::{LiveIndex, LiveSchema, LiveTable, class_short_name};
use super::{Settings, Target};
use crate::ddl::{self, qualified, string_literal};
use crate::schema::{ColumnDef, ColumnKind, IndexDef, Order, TableOptions, TableSchema, UdtSchema};

/// What one step changes; used to tell whether a step is already applied.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// `CREATE KEYSPACE`.
    CreateKeyspace {
        /// The keyspace.
        keyspace: String,
    },
    /// `CREATE TYPE`.
    CreateType {
        /// The keyspace.
        keyspace: String,
        /// The type.
        name: String,
    },
    /// `ALTER TYPE ... ADD`.
    AddField {
        /// The keyspace.
        keyspace: String,
        /// The type.
        name: String,
        /// The new field.
        field: String,
        /// `field type`.
        definition: String,
    },
    /// `CREATE TABLE`.
    CreateTable {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
    },
    /// `ALTER TABLE ... ADD`.
    AddColumn {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
        /// The new column.
        column: String,
        /// `column type [STATIC]`.
        definition: String,
    },
    /// `ALTER TABLE ... WITH`.
    AlterOptions {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
        /// The options the model sets.
        options: TableOptions,
    },
    /// `CREATE INDEX ... USING 'sai'`.
    CreateIndex {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
        /// The index.
        index: String,
        /// The indexed column.
        column: String,
        /// What it indexes, as CQL and as `system_schema.indexes` stores it (`values(tags)`).
        target: String,
    },
    /// `ALTER TABLE ... DROP` (only with an explicit opt-in).
    DropColumn {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
        /// The column.
        column: String,
    },
}

impl Change {
    /// The keyspace the change is in.
    pub fn keyspace(&self) -> &str {
        match self {
            Change::CreateKeyspace { keyspace }
            | Change::CreateType { keyspace, .. }
            | Change::AddField { keyspace, .. }
            | Change::CreateTable { keyspace, .. }
            | Change::AddColumn { keyspace, .. }
            | Change::AlterOptions { keyspace, .. }
            | Change::CreateIndex { keyspace, .. }
            | Change::DropColumn { keyspace, .. } => keyspace,
        }
    }

    /// Whether `live` already has this change.
    pub fn is_done(&self, live: &LiveSchema) -> bool {
        match self {
            Change::CreateKeyspace { keyspace } => live.keyspaces.contains_key(keyspace),
            Change::CreateType { keyspace, name } => live.udt(keyspace, name).is_some(),
            Change::AddField {
                keyspace,
                name,
                field,
                ..
            } => live
                .udt(keyspace, name)
                .is_some_and(|u| u.field(field).is_some()),
            Change::CreateTable { keyspace, table } => live.table(keyspace, table).is_some(),
            Change::AddColumn {
                keyspace,
                table,
                column,
                ..
            } => live
                .table(keyspace, table)
                .is_some_and(|t| t.column(column).is_some()),
            Change::AlterOptions {
                keyspace,
                table,
                options,
            } => live
                .table(keyspace, table)
                .is_some_and(|t| option_changes(options, t).is_empty()),
            Change::CreateIndex {
                keyspace,
                table,
                index,
                target,
                ..
            } => live
                .index(keyspace, index)
                .is_some_and(|(t, i)| t.name == *table && matches_target(i, target)),
            Change::DropColumn {
                keyspace,
                table,
                column,
            } => live
                .table(keyspace, table)
                .is_none_or(|t| t.column(column).is_none()),
        }
    }
}

/// One statement of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Step {
    /// The CQL statement (idempotent: `IF NOT EXISTS` / `IF EXISTS`, or an option change),
    /// without a trailing `;`.
    pub cql: String,
    /// What it does, e.g. `add column loyalty_points to customer.customers`.
    pub description: String,
    /// What it changes.
    pub change: Change,
}

/// A change the plan will not make, because Cassandra cannot make it in place (or would lose
/// data doing it), with what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// `keyspace`, `keyspace.table` or `keyspace.type`.
    pub table: String,
    /// The column (or field) concerned, if one.
    pub column: Option<String>,
    /// The definition on the cluster.
    pub old: String,
    /// The definition in the models.
    pub new: String,
    /// Why it cannot be done.
    pub problem: String,
    /// What the user can do instead.
    pub advice: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.table)?;
        if let Some(c) = &self.column {
            write!(f, ", `{c}`")?;
        }
        write!(
            f,
            ": {}\n  cluster: {}\n  models:  {}\n  instead: {}",
            self.problem, self.old, self.new, self.advice
        )
    }
}

/// Something on the cluster that the models do not describe. It is left alone: cassmodel
/// never drops a table, type or index, and drops a column only after an explicit opt-in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unmanaged {
    /// A table of a managed keyspace that no model describes.
    Table {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
    },
    /// A column that the table's model does not have.
    Column {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
        /// The column.
        column: String,
        /// Its type as the cluster has it.
        cql_type: String,
    },
    /// A user-defined type of a managed keyspace that no model uses.
    Type {
        /// The keyspace.
        keyspace: String,
        /// The type.
        name: String,
    },
    /// A secondary index on a managed table that the table's model does not declare.
    Index {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
        /// The index.
        index: String,
        /// What it indexes (its `target` option).
        target: String,
    },
}

impl fmt::Display for Unmanaged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unmanaged::Table { keyspace, table } => write!(f, "table {keyspace}.{table}"),
            Unmanaged::Column {
                keyspace,
                table,
                column,
                cql_type,
            } => write!(
                f,
                "column {keyspace}.{table}.{column} ({cql_type}); to drop it, allow it \
                 explicitly (--allow-drop {keyspace}.{table}.{column})"
            ),
            Unmanaged::Type { keyspace, name } => write!(f, "type {keyspace}.{name}"),
            Unmanaged::Index {
                keyspace,
                table,
                index,
                target,
            } => write!(f, "index {keyspace}.{index} on {table} ({target})"),
        }
    }
}

/// The difference between the models and the cluster, as statements to run, changes refused
/// and things left alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MigrationPlan {
    /// Statements to run, in order (keyspaces, types with dependencies first, tables, column
    /// and option changes, explicitly allowed drops), sorted by keyspace and name.
    pub steps: Vec<Step>,
    /// Changes that will not be made. While this is not empty, nothing is applied.
    pub refused: Vec<Refusal>,
    /// What the cluster has and the models do not; never dropped by default.
    pub unmanaged: Vec<Unmanaged>,
}

impl MigrationPlan {
    /// No statement to run and nothing refused (unmanaged items do not count).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty() && self.refused.is_empty()
    }

    /// The statements as a CQL script, each ending in `;` and a newline.
    pub fn cql(&self) -> String {
        self.steps.iter().map(|s| format!("{};\n", s.cql)).collect()
    }

    /// The statements alone.
    pub fn statements(&self) -> Vec<&str> {
        self.steps.iter().map(|s| s.cql.as_str()).collect()
    }

    /// The plan as differences for [`Migrator::validate`](super::Migrator::validate): what is
    /// missing and what differs (option changes and allowed drops are not mismatches).
    pub fn mismatches(&self) -> Vec<Mismatch> {
        let mut out = Vec::new();
        for s in &self.steps {
            let (object, column, expected, actual) = match &s.change {
                Change::CreateKeyspace { keyspace } => (
                    keyspace.clone(),
                    None,
                    "the keyspace",
                    "no such keyspace".to_owned(),
                ),
                Change::CreateType { keyspace, name } => (
                    format!("{keyspace}.{name}"),
                    None,
                    "the type",
                    "no such type".to_owned(),
                ),
                Change::AddField {
                    keyspace,
                    name,
                    field,
                    definition,
                } => (
                    format!("{keyspace}.{name}"),
                    Some(field.clone()),
                    "the field",
                    format!("no such field (the models have `{definition}`)"),
                ),
                Change::CreateTable { keyspace, table } => (
                    format!("{keyspace}.{table}"),
                    None,
                    "the table",
                    "no such table".to_owned(),
                ),
                Change::AddColumn {
                    keyspace,
                    table,
                    column,
                    definition,
                } => (
                    format!("{keyspace}.{table}"),
                    Some(column.clone()),
                    "the column",
                    format!("no such column (the models have `{definition}`)"),
                ),
                Change::CreateIndex {
                    keyspace,
                    table,
                    index,
                    column,
                    ..
                } => (
                    format!("{keyspace}.{table}"),
                    Some(column.clone()),
                    "the index",
                    format!("no index `{index}` (the models have `{}`)", s.cql),
                ),
                Change::AlterOptions { .. } | Change::DropColumn { .. } => continue,
            };
            out.push(Mismatch {
                object,
                column,
                expected: expected.to_owned(),
                actual,
            });
        }
        for r in &self.refused {
            out.push(Mismatch {
                object: r.table.clone(),
                column: r.column.clone(),
                expected: format!("`{}`", r.new),
                actual: format!("`{}` ({})", r.old, r.problem),
            });
        }
        out
    }
}

impl fmt::Display for MigrationPlan {
    /// The CQL with a comment per step, then what is refused and what is left alone; every
    /// line that is not a statement is a `--` comment, so the text runs in `cqlsh -f`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            writeln!(
                f,
                "-- no statement to run: the cluster has everything the models need"
            )?;
        } else if self.steps.is_empty() {
            writeln!(f, "-- no statement to run")?;
        }
        for (i, s) in self.steps.iter().enumerate() {
            writeln!(f, "-- {}. {}", i + 1, s.description)?;
            writeln!(f, "{};", s.cql)?;
        }
        if !self.refused.is_empty() {
            writeln!(
                f,
                "-- REFUSED ({}): nothing is applied while a change is refused",
                self.refused.len()
            )?;
            for r in &self.refused {
                writeln!(f, "--   {}", r.to_string().replace('\n', "\n--   "))?;
            }
        }
        if !self.unmanaged.is_empty() {
            writeln!(
                f,
                "-- on the cluster but not in the models (left alone, never dropped by default):"
            )?;
            for u in &self.unmanaged {
                writeln!(f, "--   {u}")?;
            }
        }
        Ok(())
    }
}

const KEY_ADVICE: &str = "create a new table with the new key (e.g. `<table>_v2`), backfill it \
    from the old one (read every partition, write every row), move reads and writes to it, \
    then drop the old table by hand";

/// The plan that turns `live` into `target`.
pub(crate) fn plan_target(
    target: &Target,
    live: &LiveSchema,
    settings: &Settings,
) -> MigrationPlan {
    let mut p = MigrationPlan::default();
    for ks in target.keyspaces() {
        if live.keyspaces.contains_key(ks) {
            continue;
        }
        match settings.replication_of(ks) {
            Some(r) => p.steps.push(Step {
                cql: ddl::create_keyspace(ks, r),
                description: format!("create keyspace {ks}"),
                change: Change::CreateKeyspace {
                    keyspace: ks.to_owned(),
                },
            }),
            None => p.refused.push(Refusal {
                table: ks.to_owned(),
                column: None,
                old: "no such keyspace".into(),
                new: format!("keyspace {ks}"),
                problem: "the keyspace does not exist and no replication is configured for it"
                    .into(),
                advice:
                    "give its replication (CLI: `--replication NetworkTopologyStrategy:dc1=3`; \
                         code: `Migrator::replication` or `Migrator::keyspace_replication`), or \
                         create the keyspace by hand"
                        .into(),
            }),
        }
    }
    for (ks, udts) in &target.udts {
        for u in udts {
            plan_udt(ks, u, live, &mut p);
        }
    }
    for (ks, t) in &target.tables {
        match live.table(ks, t.name) {
            None => {
                p.steps.push(Step {
                    cql: ddl::create_table(t, ks),
                    description: format!("create table {ks}.{}", t.name),
                    change: Change::CreateTable {
                        keyspace: ks.clone(),
                        table: t.name.to_owned(),
                    },
                });
                plan_indexes(ks, t, live, &mut p);
            }
            Some(l) => plan_table(ks, t, l, live, settings, &mut p),
        }
    }
    for ks in target.keyspaces() {
        let Some(lk) = live.keyspaces.get(ks) else {
            continue;
        };
        let tables: BTreeSet<&str> = target
            .tables
            .iter()
            .filter(|(k, _)| k == ks)
            .map(|(_, t)| t.name)
            .collect();
        for name in lk.tables.keys() {
            if !tables.contains(name.as_str()) {
                p.unmanaged.push(Unmanaged::Table {
                    keyspace: ks.to_owned(),
                    table: name.clone(),
                });
            }
        }
        let types: BTreeSet<&str> = target
            .udts
            .get(ks)
            .map(|us| us.iter().map(|u| u.name).collect())
            .unwrap_or_default();
        for name in lk.types.keys() {
            if !types.contains(name.as_str()) {
                p.unmanaged.push(Unmanaged::Type {
                    keyspace: ks.to_owned(),
                    name: name.clone(),
                });
            }
        }
    }
    p
}

fn same_type(a: &CqlType, b: &CqlType) -> bool {
    a.canonical() == b.canonical()
}

fn plan_udt(ks: &str, u: &UdtSchema, live: &LiveSchema, p: &mut MigrationPlan) {
    let Some(l) = live.udt(ks, u.name) else {
        p.steps.push(Step {
            cql: ddl::create_type(u, ks),
            description: format!("create type {ks}.{}", u.name),
            change: Change::CreateType {
                keyspace: ks.to_owned(),
                name: u.name.to_owned(),
            },
        });
        return;
    };
    let object = format!("{ks}.{}", u.name);
    for f in &u.fields {
        let definition = ddl::definition(f.name, &f.cql_type, false);
        match l.field(f.name) {
            None => p.steps.push(Step {
                cql: format!(
                    "ALTER TYPE {} ADD IF NOT EXISTS {definition}",
                    qualified(ks, u.name)
                ),
                description: format!("add field {} to type {object}", f.name),
                change: Change::AddField {
                    keyspace: ks.to_owned(),
                    name: u.name.to_owned(),
                    field: f.name.to_owned(),
                    definition,
                },
            }),
            Some((t, text)) if !same_type(t, &f.cql_type) => p.refused.push(Refusal {
                table: object.clone(),
                column: Some(f.name.to_owned()),
                old: ddl::definition(f.name, text, false),
                new: definition,
                problem: "the field's type differs; Cassandra cannot change the type of a \
                          user-defined type's field"
                    .into(),
                advice: format!(
                    "keep `{text}` in the struct, or add a new field with the new type, \
                     backfill it and read it instead"
                ),
            }),
            Some(_) => {}
        }
    }
    for (name, _, text) in &l.fields {
        if !u.fields.iter().any(|f| f.name == name) {
            p.refused.push(Refusal {
                table: object.clone(),
                column: Some(name.clone()),
                old: format!("{} {text}", quote_ident(name)),
                new: "no such field".into(),
                problem: "the models removed the field; Cassandra cannot remove a field from a \
                          user-defined type"
                    .into(),
                advice: format!(
                    "keep the field in the struct `{}` (as an `Option` if new values leave it \
                     empty), or create a new type and a new column that uses it, backfill it, \
                     and switch",
                    u.rust_name
                ),
            });
        }
    }
}

/// `PRIMARY KEY (...)` of a live table.
fn live_key_clause(l: &LiveTable) -> String {
    ddl::key_clause(
        l.partition_key().map(|c| c.name.as_str()),
        l.clustering().map(|c| c.name.as_str()),
    )
}

/// `CLUSTERING ORDER BY (...)` of a live table.
fn live_order_clause(l: &LiveTable) -> String {
    ddl::order_clause(l.clustering().map(|c| {
        let o = match c.kind {
            ColumnKind::Clustering(o) => o,
            _ => Order::Asc,
        };
        (c.name.as_str(), o)
    }))
}

fn plan_table(
    ks: &str,
    t: &TableSchema,
    l: &LiveTable,
    live: &LiveSchema,
    settings: &Settings,
    p: &mut MigrationPlan,
) {
    let object = format!("{ks}.{}", t.name);
    let q = qualified(ks, t.name);
    let key_advice = KEY_ADVICE.replace("<table>", t.name);

    // Partition key: same columns in the same order.
    let model_pk: Vec<&ColumnDef> = t.partition_key.iter().map(|&i| &t.columns[i]).collect();
    let live_pk: Vec<_> = l.partition_key().collect();
    let pk_names_equal = model_pk.len() == live_pk.len()
        && model_pk.iter().zip(&live_pk).all(|(m, l)| m.name == l.name);
    if !pk_names_equal {
        p.refused.push(Refusal {
            table: object.clone(),
            column: None,
            old: live_key_clause(l),
            new: ddl::primary_key_clause(t),
            problem: "the partition key differs; Cassandra cannot change a table's partition key"
                .into(),
            advice: key_advice.clone(),
        });
    }

    // Clustering columns: same columns, same order, same ASC/DESC.
    let model_ck: Vec<&ColumnDef> = t.clustering.iter().map(|&i| &t.columns[i]).collect();
    let live_ck: Vec<_> = l.clustering().collect();
    let ck_names_equal = model_ck.len() == live_ck.len()
        && model_ck.iter().zip(&live_ck).all(|(m, l)| m.name == l.name);
    if pk_names_equal && !ck_names_equal {
        p.refused.push(Refusal {
            table: object.clone(),
            column: None,
            old: live_key_clause(l),
            new: ddl::primary_key_clause(t),
            problem: "the clustering columns differ; Cassandra cannot change a table's \
                      clustering columns"
                .into(),
            advice: key_advice.clone(),
        });
    } else if ck_names_equal
        && let Some((m, _)) = model_ck
            .iter()
            .zip(&live_ck)
            .find(|(m, l)| m.kind != l.kind)
    {
        p.refused.push(Refusal {
            table: object.clone(),
            column: Some(m.name.to_owned()),
            old: live_order_clause(l),
            new: ddl::clustering_order(t),
            problem: "the clustering order differs; Cassandra cannot change a table's \
                          clustering order"
                .into(),
            advice: format!("read in the other order instead (`reversed()`), or {key_advice}"),
        });
    }

    let mut adds = Vec::new();
    for c in &t.columns {
        let Some(lc) = l.column(c.name) else {
            if c.kind.is_key() {
                continue; // reported with the key
            }
            if let Some(d) = l.dropped.iter().find(|d| d.name == c.name) {
                let dropped: Option<CqlType> = d.type_text.parse().ok();
                // User-defined types are recorded as tuples once dropped: the server decides.
                let comparable =
                    !d.type_text.contains("tuple<") || c.cql_type.udt_names().is_empty();
                let same = dropped.is_some_and(|dt| same_type(&dt, &c.cql_type));
                if comparable && !same {
                    p.refused.push(Refusal {
                        table: object.clone(),
                        column: Some(c.name.to_owned()),
                        old: format!("{} (dropped)", ddl::definition(c.name, &d.type_text, false)),
                        new: ddl::column_definition(c),
                        problem: "the column was dropped with another type; Cassandra refuses \
                                  to re-add a dropped column with an incompatible type"
                            .into(),
                        advice: format!(
                            "give the column another name (e.g. `{}_v2`, or \
                             #[cass(name = \"...\")] on the field), or keep the type `{}`",
                            c.name, d.type_text
                        ),
                    });
                    continue;
                }
            }
            let definition = ddl::column_definition(c);
            adds.push(Step {
                cql: format!("ALTER TABLE {q} ADD IF NOT EXISTS {definition}"),
                description: format!("add column {} to {object}", c.name),
                change: Change::AddColumn {
                    keyspace: ks.to_owned(),
                    table: t.name.to_owned(),
                    column: c.name.to_owned(),
                    definition,
                },
            });
            continue;
        };
        let key_mismatch = c.kind.is_key() != lc.kind.is_key()
            || (c.kind == ColumnKind::PartitionKey) != (lc.kind == ColumnKind::PartitionKey);
        if key_mismatch {
            continue; // reported with the key
        }
        if !c.kind.is_key() && c.kind != lc.kind {
            p.refused.push(Refusal {
                table: object.clone(),
                column: Some(c.name.to_owned()),
                old: live_definition(lc),
                new: ddl::column_definition(c),
                problem: "the column is static on one side and regular on the other; \
                          Cassandra cannot change that"
                    .into(),
                advice: format!(
                    "add a new column (e.g. `{}_v2`) of the wanted kind, backfill it, and \
                     read it instead",
                    c.name
                ),
            });
        } else if !same_type(&lc.cql_type, &c.cql_type) {
            let advice = if c.kind.is_key() {
                key_advice.clone()
            } else {
                format!(
                    "keep `{}` in the struct, or add a new column with the new type (e.g. \
                     `{}_v2 {}`), backfill it from `{}`, and read it instead",
                    lc.type_text, c.name, c.cql_type, c.name
                )
            };
            p.refused.push(Refusal {
                table: object.clone(),
                column: Some(c.name.to_owned()),
                old: live_definition(lc),
                new: ddl::column_definition(c),
                problem: "the column's type differs; Cassandra cannot change a column's type"
                    .into(),
                advice,
            });
        }
    }
    p.steps.extend(adds);

    let changes = option_changes(&t.options, l);
    if !changes.is_empty() {
        let names: Vec<&str> = changes.iter().filter_map(|c| c.split(' ').next()).collect();
        p.steps.push(Step {
            cql: format!("ALTER TABLE {q} WITH {}", changes.join(" AND ")),
            description: format!("change {} of {object}", names.join(", ")),
            change: Change::AlterOptions {
                keyspace: ks.to_owned(),
                table: t.name.to_owned(),
                options: t.options.clone(),
            },
        });
    }

    // After the columns they index are added.
    plan_indexes(ks, t, live, p);

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
                cql: format!("ALTER TABLE {q} DROP IF EXISTS {}", quote_ident(&lc.name)),
                description: format!("drop column {} from {object}", lc.name),
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
            continue; // declared: created, matched or refused above
        }
        p.unmanaged.push(Unmanaged::Index {
            keyspace: ks.to_owned(),
            table: t.name.to_owned(),
            index: i.name.clone(),
            target: i.target().to_owned(),
        });
    }
}

/// Whether live index `i` is an SAI index on `target` (CQL text, as stored).
fn matches_target(i: &LiveIndex, target: &str) -> bool {
    i.is_sai() && i.target() == target
}

/// Whether live index `i` is model index `m`: SAI on the same target, ranking vectors by the
/// same similarity function (Cassandra's default, cosine, when either names none).
fn matches_index(i: &LiveIndex, m: &IndexDef, target: &str) -> bool {
    matches_target(i, target) && i.similarity().unwrap_or_default() == m.similarity_function()
}

/// A live index as the statement that would create it.
fn live_index_definition(ks: &str, table: &str, i: &LiveIndex) -> String {
    let using = match i.options.get("class_name") {
        Some(class) => format!(" USING {}", string_literal(class)),
        None => String::new(),
    };
    let with = match i.options.get(ddl::SIMILARITY_OPTION) {
        Some(f) => format!(
            " WITH OPTIONS = {{{}: {}}}",
            string_literal(ddl::SIMILARITY_OPTION),
            string_literal(f)
        ),
        None => String::new(),
    };
    format!(
        "CREATE INDEX {} ON {} ({}){using}{with}",
        quote_ident(&i.name),
        qualified(ks, table),
        i.target()
    )
}

/// The model's index as the statement that creates it, without `IF NOT EXISTS` (to compare
/// with [`live_index_definition`]).
fn model_index_definition(ks: &str, t: &TableSchema, c: &ColumnDef, i: &IndexDef) -> String {
    format!("CREATE INDEX {}", ddl::index_definition(t, c, i, ks))
}

/// The declared indexes of `t` that the cluster lacks, in field order; refusals for those
/// Cassandra would refuse or silently skip (`IF NOT EXISTS` on a name or target taken by
/// another index).
fn plan_indexes(ks: &str, t: &TableSchema, live: &LiveSchema, p: &mut MigrationPlan) {
    let object = format!("{ks}.{}", t.name);
    let live_table = live.table(ks, t.name);
    for (c, i) in t.indexes() {
        let target = i.target.cql(c.name);
        let new = model_index_definition(ks, t, c, i);
        let rename = format!(
            "give the model's index another name: #[cass(index(name = \"...\"))] on field `{}`",
            c.field
        );
        if let Some(problem) = t.index_problem(c, i) {
            p.refused.push(Refusal {
                table: object.clone(),
                column: Some(c.name.to_owned()),
                old: "no such index".into(),
                new,
                problem: format!("Cassandra refuses this index: {problem}"),
                advice: format!(
                    "change or remove the `index` option of field `{}` (the crate docs list \
                     which target each column type takes)",
                    c.field
                ),
            });
            continue;
        }
        match live.index(ks, i.name) {
            Some((lt, li)) if lt.name == t.name && matches_index(li, i, &target) => {}
            Some((lt, li)) => p.refused.push(Refusal {
                table: object.clone(),
                column: Some(c.name.to_owned()),
                old: live_index_definition(ks, &lt.name, li),
                new,
                problem: format!(
                    "keyspace `{ks}` already has an index named `{}` with another definition \
                     (Cassandra cannot change an index; `CREATE INDEX IF NOT EXISTS` would keep \
                     the old one)",
                    i.name
                ),
                advice: format!(
                    "drop the old index by hand (`DROP INDEX {}`) once nothing uses it, then \
                     apply again; or {rename}",
                    qualified(ks, &li.name)
                ),
            }),
            None => {
                let same = live_table
                    .and_then(|l| l.indexes.iter().find(|li| matches_target(li, &target)));
                if let Some(other) = same {
                    p.refused.push(Refusal {
                        table: object.clone(),
                        column: Some(c.name.to_owned()),
                        old: live_index_definition(ks, t.name, other),
                        new,
                        problem: format!(
                            "the table already has an SAI index on `{target}` under another \
                             name; Cassandra keeps one per target, so `CREATE INDEX IF NOT \
                             EXISTS` would create nothing"
                        ),
                        advice: format!(
                            "name the model's index after it: #[cass(index(name = \"{}\"))] on \
                             field `{}`; or drop `{}` by hand (`DROP INDEX {}`) and apply again",
                            other.name,
                            c.field,
                            other.name,
                            qualified(ks, &other.name)
                        ),
                    });
                } else {
                    p.steps.push(Step {
                        cql: ddl::create_index(t, c, i, ks),
                        description: format!("create index {} on {object} ({target})", i.name),
                        change: Change::CreateIndex {
                            keyspace: ks.to_owned(),
                            table: t.name.to_owned(),
                            index: i.name.to_owned(),
                            column: c.name.to_owned(),
                            target,
                        },
                    });
                }
            }
        }
    }
}

fn live_definition(c: &super::live::LiveColumn) -> String {
    ddl::definition(&c.name, &c.type_text, c.kind == ColumnKind::Static)
}

/// `option = value` for every option the model sets that the table does not have.
fn option_changes(o: &TableOptions, l: &LiveTable) -> Vec<String> {
    let lo = &l.options;
    let mut out = Vec::new();
    if let Some(ttl) = o.default_ttl
        && i64::from(ttl) != i64::from(lo.default_ttl)
    {
        out.push(format!("default_time_to_live = {ttl}"));
    }
    if let Some(g) = o.gc_grace_seconds
        && i64::from(g) != i64::from(lo.gc_grace_seconds)
    {
        out.push(format!("gc_grace_seconds = {g}"));
    }
    if let Some(c) = o.comment
        && c != lo.comment
    {
        out.push(format!("comment = {}", string_literal(c)));
    }
    if let Some(c) = o.compaction
        && class_short_name(c) != class_short_name(&lo.compaction_class)
    {
        out.push(format!("compaction = {{'class': {}}}", string_literal(c)));
    }
    out
}

/// One difference between the models and the cluster, found by
/// [`Migrator::validate`](super::Migrator::validate).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mismatch {
    /// `keyspace`, `keyspace.table` or `keyspace.type`.
    pub object: String,
    /// The column or field, if the mismatch is about one.
    pub column: Option<String>,
    /// What the models expect.
    pub expected: String,
    /// What the cluster has.
    pub actual: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.object)?;
        if let Some(c) = &self.column {
            write!(f, ", `{c}`")?;
        }
        write!(
            f,
            ": the models expect {}, the cluster has {}",
            self.expected, self.actual
        )
    }
}

#[cfg(test)]
mod tests;
