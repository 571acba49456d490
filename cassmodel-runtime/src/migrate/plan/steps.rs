//! What a plan is made of: the steps it runs ([`Step`], each with the [`Change`] that tells
//! whether it is already applied), what it refuses ([`Refusal`]), what it leaves alone
//! ([`Unmanaged`]), the whole [`MigrationPlan`] as CQL, and the differences
//! [`Migrator::validate`](crate::migrate::Migrator::validate) reports ([`Mismatch`]).

use std::fmt;

use super::compare::{matches_target, option_changes};
use crate::migrate::copy::keyspace::RECORD_KEYSPACE;
use crate::migrate::live::LiveSchema;
use crate::schema::function::{AggregateSchema, FunctionSchema, signature};
use crate::schema::model::TableOptions;

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
    /// `ALTER TABLE ... ALTER column MASKED WITH ..` or `.. DROP MASKED`.
    AlterMask {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
        /// The column.
        column: String,
        /// The model's mask (`mask_inner(2, 1)`), `None` for none.
        mask: Option<String>,
        /// The cluster's mask when the plan was made, `None` for none.
        previous: Option<String>,
    },
    /// `CREATE MATERIALIZED VIEW` (only with [`Migrator::create_views`](crate::migrate::Migrator::create_views)).
    CreateView {
        /// The keyspace.
        keyspace: String,
        /// The view.
        view: String,
    },
    /// `DROP MATERIALIZED VIEW` (only with an explicit opt-in, by name).
    DropView {
        /// The keyspace.
        keyspace: String,
        /// The view.
        view: String,
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
    /// `CREATE FUNCTION` (or `CREATE OR REPLACE FUNCTION` for a changed definition).
    CreateFunction {
        /// The keyspace.
        keyspace: String,
        /// The function as the models declare it.
        function: FunctionSchema,
        /// Whether it replaces a function of the same signature.
        replace: bool,
    },
    /// `CREATE AGGREGATE` (or `CREATE OR REPLACE AGGREGATE` for a changed definition).
    CreateAggregate {
        /// The keyspace.
        keyspace: String,
        /// The aggregate as the models declare it.
        aggregate: AggregateSchema,
        /// Whether it replaces an aggregate of the same signature.
        replace: bool,
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
            | Change::AlterMask { keyspace, .. }
            | Change::CreateView { keyspace, .. }
            | Change::DropView { keyspace, .. }
            | Change::DropColumn { keyspace, .. }
            | Change::CreateFunction { keyspace, .. }
            | Change::CreateAggregate { keyspace, .. } => keyspace,
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
            Change::AlterMask {
                keyspace,
                table,
                column,
                mask,
                ..
            } => live
                .table(keyspace, table)
                .and_then(|t| t.column(column))
                .is_some_and(|c| c.mask.as_ref().map(ToString::to_string) == *mask),
            Change::CreateIndex {
                keyspace,
                table,
                index,
                target,
                ..
            } => live
                .index(keyspace, index)
                .is_some_and(|(t, i)| t.name == *table && matches_target(i, target)),
            Change::CreateView { keyspace, view } => live.view(keyspace, view).is_some(),
            Change::DropView { keyspace, view } => live.view(keyspace, view).is_none(),
            Change::DropColumn {
                keyspace,
                table,
                column,
            } => live
                .table(keyspace, table)
                .is_none_or(|t| t.column(column).is_none()),
            Change::CreateFunction {
                keyspace, function, ..
            } => live
                .function(
                    keyspace,
                    function.name,
                    function.params.iter().map(|(_, t)| t),
                )
                .is_some_and(|l| super::compare::same_function(l, function)),
            Change::CreateAggregate {
                keyspace,
                aggregate,
                ..
            } => live
                .aggregate(keyspace, aggregate.name, &aggregate.params)
                .is_some_and(|l| super::compare::same_aggregate(l, aggregate)),
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

impl Step {
    /// Whether the step drops a column's mask (`ALTER TABLE .. ALTER column DROP MASKED`):
    /// every role without the `UNMASK` permission then reads the column's values. A plan
    /// has such a step only when [`Migrator::allow_unmask`](crate::migrate::Migrator::allow_unmask)
    /// names the column; its text marks it.
    pub fn exposes_data(&self) -> bool {
        matches!(&self.change, Change::AlterMask { mask: None, .. })
    }
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
    /// A materialized view of a managed keyspace that no model declares.
    View {
        /// The keyspace.
        keyspace: String,
        /// The view.
        view: String,
        /// Its base table.
        base: String,
    },
    /// A user-defined function of a managed keyspace that no model declares.
    Function {
        /// The keyspace.
        keyspace: String,
        /// `name(int, bigint)`.
        signature: String,
    },
    /// A user-defined aggregate of a managed keyspace that no model declares.
    Aggregate {
        /// The keyspace.
        keyspace: String,
        /// `name(int)`.
        signature: String,
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
            Unmanaged::Function {
                keyspace,
                signature,
            } => write!(f, "function {keyspace}.{signature}"),
            Unmanaged::Aggregate {
                keyspace,
                signature,
            } => write!(f, "aggregate {keyspace}.{signature}"),
            Unmanaged::View {
                keyspace,
                view,
                base,
            } => write!(
                f,
                "materialized view {keyspace}.{view} of {base}; to drop it, allow it \
                 explicitly (--allow-drop-view {keyspace}.{view})"
            ),
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
    /// Tables whose rows are copied from another after a key change (`#[cass(from = ..)]`),
    /// with the steps of each copy.
    pub copies: Vec<KeyChange>,
}

/// A key change: a new table whose rows come from an old one, and the steps that move the
/// application over.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyChange {
    /// `keyspace.table` copied into.
    pub target: String,
    /// `keyspace.table` copied from.
    pub source: String,
    /// Whether a function converts the rows (else columns are copied by name).
    pub converted: bool,
    /// Whether the rows are copied with every writer of the source stopped (a counter table,
    /// `#[cass(from = .., offline)]`): no dual writes, one release at the end.
    pub offline: bool,
    /// Whether the source table still exists (after `drop-source` it does not, and the
    /// declaration can go).
    pub source_exists: bool,
}

impl fmt::Display for KeyChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.offline {
            "counters copied offline, by name"
        } else if self.converted {
            "rows converted by the model's function"
        } else {
            "columns copied by name"
        };
        let (t, s) = (&self.target, &self.source);
        if !self.source_exists {
            return write!(
                f,
                "{t} was copied from {s}, which no longer exists: remove #[cass(from = ..)] from \
                 its struct"
            );
        }
        if self.offline {
            return write!(
                f,
                "{t} <- {s} ({how}); the steps, in order:\n\
                 1. create {t}, and the record of the copy in {RECORD_KEYSPACE}: `apply` \
                 (above, if it is not there yet)\n\
                 2. stop every write to {s} (a release of the application, or a maintenance \
                 window): an increment made during the copy would be lost or counted twice\n\
                 3. copy the counts of {s}: `backfill` (resumable: a range interrupted half-way \
                 is repaired from the source, read at consistency ALL)\n\
                 4. check the copy: `verify` (its differences are copied again by `backfill`)\n\
                 5. release the application reading and writing {t}\n\
                 6. drop {s}: `drop-source {t}` (only after a clean verify)"
            );
        }
        write!(
            f,
            "{t} <- {s} ({how}); the steps, in order:\n\
             1. create {t}, and the record of the copy in {RECORD_KEYSPACE}: `apply` (above, if \
             it is not there yet)\n\
             2. release the application writing every change to both {s} and {t}\n\
             3. copy the rows of {s}: `backfill` (resumable; run it on several machines to share \
             it; `status` shows where it is)\n\
             4. check the copy: `verify` (rows missing, different, extra)\n\
             5. release the application reading {t} (writes still go to both)\n\
             6. release the application writing {t} alone\n\
             7. drop {s}: `drop-source {t}` (only after a clean verify)"
        )
    }
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

    /// The plan as differences for [`Migrator::validate`](crate::migrate::Migrator::validate): what is
    /// missing and what differs (option changes and allowed drops are not mismatches).
    pub fn mismatches(&self) -> Vec<Mismatch> {
        let steps = self.steps.iter().filter_map(step_mismatch);
        let refused = self.refused.iter().map(|r| Mismatch {
            object: r.table.clone(),
            column: r.column.clone(),
            expected: format!("`{}`", r.new),
            actual: format!("`{}` ({})", r.old, r.problem),
            fix: Some(r.advice.clone()),
        });
        steps.chain(refused).collect()
    }
}

/// What the cluster has of a function or aggregate a step creates (`replace`: one of another
/// definition).
fn routine_actual(replace: bool, cql: &str) -> String {
    if replace {
        format!("another definition (the plan replaces it: `{cql}`)")
    } else {
        "none of that name and signature".to_owned()
    }
}

/// What the models and the cluster have of a column's mask, as a [`Mismatch`]'s `expected`
/// and `actual`: `mask` the model's, `previous` the cluster's.
fn mask_mismatch(mask: Option<&str>, previous: Option<&str>) -> (String, String) {
    let expected = match mask {
        Some(m) => format!("the column masked with `{m}`"),
        None => "the column without a mask (its field declares none)".to_owned(),
    };
    let actual = match (previous, mask) {
        (Some(l), None) => format!(
            "it masked with `{l}` (the plan drops the mask, allowed by name: every role \
             without UNMASK then reads the column)"
        ),
        (Some(l), Some(_)) => format!("it masked with `{l}`"),
        (None, _) => "it without a mask".to_owned(),
    };
    (expected, actual)
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
        let exposing: Vec<String> = (1..)
            .zip(&self.steps)
            .filter(|(_, s)| s.exposes_data())
            .map(|(i, _)| i.to_string())
            .collect();
        if !exposing.is_empty() {
            writeln!(
                f,
                "-- WARNING: step(s) {} drop a column's mask: every role without the UNMASK \
                 permission then reads its values",
                exposing.join(", ")
            )?;
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
        for c in &self.copies {
            writeln!(
                f,
                "-- KEY CHANGE {}",
                c.to_string().replace('\n', "\n--   ")
            )?;
        }
        Ok(())
    }
}

/// One difference between the models and the cluster, found by
/// [`Migrator::validate`](crate::migrate::Migrator::validate).
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
    /// What to do about it, when the plan cannot make the change by itself (a refusal's
    /// advice).
    pub fix: Option<String>,
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
        )?;
        if let Some(fix) = &self.fix {
            write!(f, "\n  fix: {fix}")?;
        }
        Ok(())
    }
}

/// The difference one step of a plan stands for, as `validate` reports it; `None` for the
/// steps that report none (options, dropped columns and views: a view created again differs
/// by its `CREATE` step).
fn step_mismatch(s: &Step) -> Option<Mismatch> {
    let (object, column, expected, actual) = match &s.change {
        Change::AlterMask {
            keyspace,
            table,
            column,
            mask,
            previous,
        } => {
            let (expected, actual) = mask_mismatch(mask.as_deref(), previous.as_deref());
            return Some(Mismatch {
                object: format!("{keyspace}.{table}"),
                column: Some(column.clone()),
                expected,
                actual,
                fix: None,
            });
        }
        Change::CreateFunction {
            keyspace,
            function: f,
            replace,
        } => (
            format!(
                "{keyspace}.{}",
                signature(f.name, f.params.iter().map(|(_, t)| t))
            ),
            None,
            "the function as its struct declares it",
            routine_actual(*replace, &s.cql),
        ),
        Change::CreateAggregate {
            keyspace,
            aggregate: a,
            replace,
        } => (
            format!("{keyspace}.{}", signature(a.name, &a.params)),
            None,
            "the aggregate as its struct declares it",
            routine_actual(*replace, &s.cql),
        ),
        Change::AlterOptions { .. } | Change::DropColumn { .. } | Change::DropView { .. } => {
            return None;
        }
        other => missing_object(other, &s.cql)?,
    };
    Some(Mismatch {
        object,
        column,
        expected: expected.to_owned(),
        actual,
        fix: None,
    })
}

/// What a step that creates an object the cluster lacks reports: the object, its column,
/// what the models expect and what the cluster has.
fn missing_object(
    change: &Change,
    cql: &str,
) -> Option<(String, Option<String>, &'static str, String)> {
    Some(match change {
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
            format!("no index `{index}` (the models have `{cql}`)"),
        ),
        Change::CreateView { keyspace, view } => (
            format!("{keyspace}.{view}"),
            None,
            "the materialized view",
            "no such view".to_owned(),
        ),
        // Reported by `step_mismatch` itself, or not at all (listed so that a new kind of
        // change must be placed).
        Change::AlterMask { .. }
        | Change::CreateFunction { .. }
        | Change::CreateAggregate { .. }
        | Change::AlterOptions { .. }
        | Change::DropColumn { .. }
        | Change::DropView { .. } => return None,
    })
}
