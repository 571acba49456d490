//! The plan of user-defined functions and aggregates: create the missing ones, replace those
//! whose definition changed (`CREATE OR REPLACE`), refuse a changed result type, and refuse
//! them all when the cluster does not run user-defined functions.

use super::compare::{same_aggregate, same_function};
use super::steps::{Change, MigrationPlan, Refusal, Step, Unmanaged};
use crate::migrate::live::LiveSchema;
use crate::migrate::target::{Placed, Target};
use crate::schema::function::{
    AggregateSchema, FunctionSchema, create_aggregate, create_function, signature,
};

/// The setting that lets a cluster run user-defined functions.
pub(crate) const SETTING: &str = "user_defined_functions_enabled";

/// Plans the functions and aggregates of keyspace `ks`: functions first (aggregates use them).
pub(super) fn plan_functions(ks: &str, placed: &Placed, live: &LiveSchema, p: &mut MigrationPlan) {
    for f in &placed.functions {
        let signature = function_signature(f);
        let types = f.params.iter().map(|(_, t)| t);
        let replace = match live.function(ks, f.name, types) {
            None => false,
            Some(l) if same_function(l, f) => continue,
            Some(l) if !super::compare::same_type(&l.returns.0, &f.returns) => {
                let new = f.returns.to_string();
                let refusal = changed_result(ks, &signature, &l.returns.1, &new, f.rust_name);
                p.refused.push(refusal);
                continue;
            }
            Some(_) => true,
        };
        let step = Step {
            cql: create_function(f, ks, replace),
            description: describe("function", ks, &signature, replace),
            change: Change::CreateFunction {
                keyspace: ks.to_owned(),
                function: (*f).clone(),
                replace,
            },
        };
        push_unless_disabled(step, ks, &signature, f.rust_name, live, p);
    }
    for a in &placed.aggregates {
        let signature = aggregate_signature(a);
        let replace = match live.aggregate(ks, a.name, &a.params) {
            None => false,
            Some(l) if same_aggregate(l, a) => continue,
            Some(_) => true,
        };
        let step = Step {
            cql: create_aggregate(a, ks, replace),
            description: describe("aggregate", ks, &signature, replace),
            change: Change::CreateAggregate {
                keyspace: ks.to_owned(),
                aggregate: (*a).clone(),
                replace,
            },
        };
        push_unless_disabled(step, ks, &signature, a.rust_name, live, p);
    }
}

/// The functions and aggregates of the models' keyspaces that no model declares.
pub(super) fn unmanaged_functions(target: &Target, live: &LiveSchema, p: &mut MigrationPlan) {
    for ks in target.keyspaces() {
        let Some(lk) = live.keyspaces.get(ks) else {
            continue;
        };
        let placed = target.functions.get(ks);
        for l in &lk.functions {
            let declared = placed.is_some_and(|pl| {
                pl.functions.iter().any(|f| {
                    f.name == l.name
                        && crate::migrate::live::same_types(
                            f.params.iter().map(|(_, t)| t),
                            l.params.iter().map(|(_, t, _)| t),
                        )
                })
            });
            if !declared {
                let types = l.params.iter().map(|(_, _, text)| text);
                p.unmanaged.push(Unmanaged::Function {
                    keyspace: ks.to_owned(),
                    signature: signature(&l.name, types),
                });
            }
        }
        for l in &lk.aggregates {
            let declared = placed.is_some_and(|pl| {
                pl.aggregates.iter().any(|a| {
                    a.name == l.name
                        && crate::migrate::live::same_types(
                            &a.params,
                            l.params.iter().map(|p| &p.0),
                        )
                })
            });
            if !declared {
                let types = l.params.iter().map(|(_, text)| text);
                p.unmanaged.push(Unmanaged::Aggregate {
                    keyspace: ks.to_owned(),
                    signature: signature(&l.name, types),
                });
            }
        }
    }
}

fn function_signature(f: &FunctionSchema) -> String {
    signature(f.name, f.params.iter().map(|(_, t)| t))
}

fn aggregate_signature(a: &AggregateSchema) -> String {
    signature(a.name, &a.params)
}

fn describe(what: &str, ks: &str, signature: &str, replace: bool) -> String {
    if replace {
        format!("replace {what} {ks}.{signature} (its definition changed)")
    } else {
        format!("create {what} {ks}.{signature}")
    }
}

/// `step`, or its refusal when `live` says the cluster runs no user-defined function.
fn push_unless_disabled(
    step: Step,
    ks: &str,
    signature: &str,
    rust_name: &str,
    live: &LiveSchema,
    p: &mut MigrationPlan,
) {
    if live.functions_enabled != Some(false) {
        p.steps.push(step);
        return;
    }
    p.refused.push(Refusal {
        table: format!("{ks}.{signature}"),
        column: None,
        old: format!("no such function; {SETTING}: false"),
        new: format!("{ks}.{signature} (struct `{rust_name}`)"),
        problem: format!(
            "the cluster does not run user-defined functions: `{SETTING}` is false in its \
             cassandra.yaml"
        ),
        advice: format!(
            "set `{SETTING}: true` in cassandra.yaml on every node and restart them, or take \
             `{rust_name}` and the projections that call it out of the models"
        ),
    });
}

fn changed_result(ks: &str, signature: &str, old: &str, new: &str, rust_name: &str) -> Refusal {
    Refusal {
        table: format!("{ks}.{signature}"),
        column: None,
        old: format!("returns {old}"),
        new: format!("returns {new}"),
        problem: "the function's result type differs; Cassandra cannot replace a function by \
                  one of another result type"
            .into(),
        advice: format!(
            "keep `{old}` as the result of `{rust_name}`, or declare a function of another \
             name and call it instead"
        ),
    }
}
