//! The plan: a pure function of the models and the live schema, so it is unit-tested
//! without a database and the same inputs always give the same text. Keyspaces and what no
//! model describes are planned here; each type ([`udt`]), table ([`table`]) and its indexes
//! ([`index`]) in their own file, from what a plan is made of ([`steps`]) and how model and
//! live definitions compare ([`compare`]).

mod compare;
mod function;
mod index;
mod steps;
mod table;
mod udt;
mod view;

use std::collections::BTreeSet;

pub use steps::{Change, KeyChange, MigrationPlan, Mismatch, Refusal, Step, Unmanaged};

use super::copy::problem::copy_problem;
use super::live::LiveSchema;
use super::target::{Settings, Target};
use crate::schema::ddl;

/// The plan that turns `live` into `target`.
pub(crate) fn plan_target(
    target: &Target,
    live: &LiveSchema,
    settings: &Settings,
) -> MigrationPlan {
    let mut p = MigrationPlan::default();
    plan_keyspaces(target, live, settings, &mut p);
    for (ks, udts) in &target.udts {
        for u in udts {
            udt::plan_udt(ks, u, live, &mut p);
        }
    }
    for (ks, placed) in &target.functions {
        function::plan_functions(ks, placed, live, &mut p);
    }
    for (ks, t) in target.tables.iter().filter(|(_, t)| t.view_of.is_none()) {
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
                index::plan_indexes(ks, t, live, &mut p);
            }
            Some(l) => table::plan_table(ks, t, l, live, settings, &mut p),
        }
    }
    // After their base tables.
    for (ks, t) in target.tables.iter().filter(|(_, t)| t.view_of.is_some()) {
        view::plan_view(ks, t, live, settings, &mut p);
    }
    unmanaged_in_keyspaces(target, live, &mut p);
    function::unmanaged_functions(target, live, &mut p);
    view::unmanaged_views(target, live, settings, &mut p);
    plan_copies(target, live, &mut p);
    p
}

/// The key changes of the models: a table declaring the table its rows come from
/// (`#[cass(from = ..)]`) gets its copy's steps; a source that is missing while the new table
/// is still to be created, or whose rows cannot be copied into it, is refused.
fn plan_copies(target: &Target, live: &LiveSchema, p: &mut MigrationPlan) {
    for (ks, t) in &target.tables {
        let Some(source) = t.source else { continue };
        let source_ks = source.keyspace.unwrap_or(ks);
        let object = format!("{ks}.{}", t.name);
        let from = format!("{source_ks}.{}", source.table);
        let source_live = live.table(source_ks, source.table);
        let target_exists = live.table(ks, t.name).is_some();
        let problem = match source_live {
            None if target_exists => None,
            None => Some(format!(
                "the table its rows come from, {from}, does not exist; check #[cass(from = ..)] \
                 on `{}`",
                t.rust_name
            )),
            Some(s) => copy_problem(t, &source, s),
        };
        if let Some(problem) = problem {
            p.refused.push(Refusal {
                table: object.clone(),
                column: None,
                old: from.clone(),
                new: format!("{object} copied from {from}"),
                problem,
                advice: "change the struct as the problem says, or remove #[cass(from = ..)] and \
                         copy the rows by hand"
                    .into(),
            });
            continue;
        }
        p.copies.push(KeyChange {
            target: object,
            source: from,
            converted: source.converted,
            offline: source.offline,
            source_exists: source_live.is_some(),
        });
    }
}

/// The keyspaces the models use that the cluster lacks: created with their replication, or
/// refused when none is configured.
fn plan_keyspaces(target: &Target, live: &LiveSchema, settings: &Settings, p: &mut MigrationPlan) {
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
}

/// The tables and types of the models' keyspaces that no model describes: left alone, listed.
fn unmanaged_in_keyspaces(target: &Target, live: &LiveSchema, p: &mut MigrationPlan) {
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
}

#[cfg(test)]
mod tests;
