//! The plan of a table's indexes: create the declared ones the cluster lacks, refuse those
//! Cassandra would refuse or silently skip.

use super::compare::{
    live_index_definition, matches_index, matches_target, model_index_definition,
};
use super::steps::{Change, MigrationPlan, Refusal, Step};
use crate::migrate::live::{LiveIndex, LiveSchema};
use crate::schema::ddl::{self, qualified};
use crate::schema::model::{ColumnDef, TableSchema};

/// The declared indexes of `t` that the cluster lacks, in field order; refusals for those
/// Cassandra would refuse or silently skip (`IF NOT EXISTS` on a name or target taken by
/// another index).
pub(super) fn plan_indexes(ks: &str, t: &TableSchema, live: &LiveSchema, p: &mut MigrationPlan) {
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
            p.refused.push(refused_index(&object, c, new, &problem));
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
                    p.refused.push(same_target(ks, t, c, other, new, &target));
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

/// The refusal of a declared index Cassandra would refuse (`problem`).
fn refused_index(object: &str, c: &ColumnDef, new: String, problem: &str) -> Refusal {
    Refusal {
        table: object.to_owned(),
        column: Some(c.name.to_owned()),
        old: "no such index".into(),
        new,
        problem: format!("Cassandra refuses this index: {problem}"),
        advice: format!(
            "change or remove the `index` option of field `{}` (the crate docs list \
             which target each column type takes)",
            c.field
        ),
    }
}

/// The refusal of a declared index whose target the live index `other`, under another name,
/// already has: `CREATE INDEX IF NOT EXISTS` would create nothing.
fn same_target(
    ks: &str,
    t: &TableSchema,
    c: &ColumnDef,
    other: &LiveIndex,
    new: String,
    target: &str,
) -> Refusal {
    Refusal {
        table: format!("{ks}.{}", t.name),
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
    }
}
