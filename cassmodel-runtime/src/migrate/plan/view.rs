//! The plan of a materialized view (`#[cass(view_of = ..)]`): created only when the
//! migrator is told to (views are experimental in Cassandra and disabled unless the server
//! enables them), compared with the view the cluster has, and dropped (to be created again,
//! or because no model declares it any more) only when allowed by name.

use cassmodel_schema::quote_ident;

use super::compare::{live_key_clause, live_order_clause, same_type};
use super::steps::{Change, MigrationPlan, Refusal, Step, Unmanaged};
use crate::migrate::live::{LiveSchema, LiveTable, LiveView};
use crate::migrate::target::{Settings, Target};
use crate::schema::ddl;
use crate::schema::model::TableSchema;

/// What the server and cassmodel say about views, for the refusal of a view not created.
const VIEWS_ARE_OPT_IN: &str = "create it with `Migrator::create_views(true)` (CLI: \
    `--create-views`) on a cluster whose cassandra.yaml sets `materialized_views_enabled: \
    true`, or by hand. Cassandra calls materialized views experimental and disables them by \
    default; cassmodel's own alternative is an entity (#[derive(CassEntity)]) written to \
    several tables";

/// Plans view `t` of keyspace `ks`: created when missing (if allowed), refused or created
/// again when the cluster's differs.
pub(super) fn plan_view(
    ks: &str,
    t: &TableSchema,
    live: &LiveSchema,
    settings: &Settings,
    p: &mut MigrationPlan,
) {
    let object = format!("{ks}.{}", t.name);
    let create = Step {
        cql: ddl::create_view(t, ks),
        description: format!("create materialized view {object}"),
        change: Change::CreateView {
            keyspace: ks.to_owned(),
            view: t.name.to_owned(),
        },
    };
    let Some(l) = live.view(ks, t.name) else {
        if live.table(ks, t.name).is_some() {
            p.refused.push(Refusal {
                table: object,
                column: None,
                old: "a table".into(),
                new: model_definition(t, ks),
                problem: "the cluster has a table of this name, and the models a view".into(),
                advice: "give the view another name (#[cass(table = \"..\")])".into(),
            });
        } else if settings.create_views {
            p.steps.push(create);
        } else {
            p.refused.push(Refusal {
                table: object,
                column: None,
                old: "no such view".into(),
                new: model_definition(t, ks),
                problem: "the view does not exist, and creating views is not enabled".into(),
                advice: VIEWS_ARE_OPT_IN.into(),
            });
        }
        return;
    };
    let live_base = live.table(ks, ddl::view_base(t));
    let Some(Difference {
        problem,
        fix_in_models,
    }) = difference(t, l, live_base)
    else {
        return;
    };
    if settings
        .drop_views
        .contains(&(ks.to_owned(), t.name.to_owned()))
    {
        p.steps.push(drop_step(ks, t.name));
        p.steps.push(create);
    } else {
        p.refused.push(Refusal {
            table: object.clone(),
            column: None,
            old: live_definition(ks, l),
            new: model_definition(t, ks),
            problem: format!(
                "{problem}; Cassandra cannot alter a view's columns or key, only drop it and \
                 build it again from its base table"
            ),
            advice: format!(
                "{}allow the plan to drop the view and create it again: \
                 `Migrator::allow_drop_view(\"{ks}\", \"{}\")` (CLI: `--allow-drop-view \
                 {object}`); reads of it fail until the server has built it again",
                fix_in_models
                    .map(|f| format!("{f}; or "))
                    .unwrap_or_default(),
                t.name
            ),
        });
    }
}

/// The views of the models' keyspaces that no model declares: dropped when allowed by name,
/// else left alone and listed.
pub(super) fn unmanaged_views(
    target: &Target,
    live: &LiveSchema,
    settings: &Settings,
    p: &mut MigrationPlan,
) {
    for ks in target.keyspaces() {
        let Some(lk) = live.keyspaces.get(ks) else {
            continue;
        };
        for (name, v) in &lk.views {
            let declared = target
                .tables
                .iter()
                .any(|(k, t)| k == ks && t.name == name && t.view_of.is_some());
            if declared {
                continue;
            }
            if settings.drop_views.contains(&(ks.to_owned(), name.clone())) {
                p.steps.push(drop_step(ks, name));
            } else {
                p.unmanaged.push(Unmanaged::View {
                    keyspace: ks.to_owned(),
                    view: name.clone(),
                    base: v.base_table.clone(),
                });
            }
        }
    }
}

fn drop_step(ks: &str, view: &str) -> Step {
    Step {
        cql: ddl::drop_view(ks, view),
        description: format!("drop materialized view {ks}.{view} (allowed explicitly)"),
        change: Change::DropView {
            keyspace: ks.to_owned(),
            view: view.to_owned(),
        },
    }
}

/// The model's view as the statement that creates it, without `IF NOT EXISTS` (to compare
/// with [`live_definition`]).
fn model_definition(t: &TableSchema, ks: &str) -> String {
    format!(
        "CREATE MATERIALIZED VIEW {}",
        ddl::model_view_definition(t, ks)
    )
}

/// The cluster's view as the statement that would create it.
fn live_definition(ks: &str, l: &LiveView) -> String {
    let select = if l.include_all_columns {
        "*".to_owned()
    } else {
        let cols: Vec<_> = l
            .table
            .columns
            .iter()
            .map(|c| quote_ident(&c.name))
            .collect();
        cols.join(", ")
    };
    let order = l
        .table
        .clustering()
        .next()
        .map(|_| live_order_clause(&l.table));
    format!(
        "CREATE MATERIALIZED VIEW {}",
        ddl::view_definition(
            ks,
            &l.name,
            &select,
            &l.base_table,
            &l.where_clause,
            &live_key_clause(&l.table),
            order,
        )
    )
}

/// How the cluster's view differs from the model's: the problem, and the change to the
/// models that would make them the cluster's instead of dropping the view, if one would.
struct Difference {
    problem: String,
    fix_in_models: Option<String>,
}

impl From<String> for Difference {
    fn from(problem: String) -> Self {
        Difference {
            problem,
            fix_in_models: None,
        }
    }
}

/// How the cluster's view `l` differs from model `t`, or `None`. `live_base` is the
/// cluster's base table, if it has it.
fn difference(t: &TableSchema, l: &LiveView, live_base: Option<&LiveTable>) -> Option<Difference> {
    let base = ddl::view_base(t);
    if l.base_table != base {
        return Some(
            format!(
                "the cluster's view is of table {}, the model's of {base}",
                l.base_table
            )
            .into(),
        );
    }
    if let Some(d) = selection_difference(t, l) {
        return Some(d);
    }
    let model_pk: Vec<&str> = t.partition_key.iter().map(|&i| t.columns[i].name).collect();
    let live_pk: Vec<&str> = l.table.partition_key().map(|c| c.name.as_str()).collect();
    let model_ck: Vec<_> = t
        .clustering
        .iter()
        .map(|&i| (t.columns[i].name, t.columns[i].kind))
        .collect();
    let live_ck: Vec<_> = l
        .table
        .clustering()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    if model_pk != live_pk || model_ck != live_ck {
        return Some(
            "the primary key or clustering order differs"
                .to_owned()
                .into(),
        );
    }
    if let Some(problem) = column_difference(t, l, live_base) {
        return Some(problem.into());
    }
    // The key columns are the model's (above).
    if !l.selects_rows_by_key_only() {
        return Some(
            format!(
                "the cluster's view selects rows `WHERE {}`, the model's every row whose key \
                 columns are not null",
                l.where_clause
            )
            .into(),
        );
    }
    None
}

/// `SELECT *` on one side and the columns listed on the other, with the change to the
/// view's struct that declares what the cluster has.
fn selection_difference(t: &TableSchema, l: &LiveView) -> Option<Difference> {
    let base = t.view_of.map_or(t.rust_name, |b| b.rust_name);
    match (t.view_selects_all, l.include_all_columns) {
        (false, true) => Some(Difference {
            problem: "the cluster's view selects every column of its base (`SELECT *`: it gains \
                      the columns added to the base), the model's lists its columns"
                .into(),
            fix_in_models: Some(format!(
                "declare a view of every column on `{}`: #[cass(view_of = {base}, \
                 all_columns)]",
                t.rust_name
            )),
        }),
        (true, false) => Some(Difference {
            problem: "the cluster's view lists its columns, the model's selects every column \
                      of its base (`SELECT *`, `all_columns`)"
                .into(),
            fix_in_models: Some(format!(
                "remove `all_columns` from `{}` and keep the fields of the columns the \
                 cluster's view lists",
                t.rust_name
            )),
        }),
        _ => None,
    }
}

/// How the view's columns differ. A view of every column has the columns of its base: a
/// column neither the view nor the base has yet is one the plan adds to the base (and the
/// view gains it), and the base's columns the models do not have are the view's too.
fn column_difference(
    t: &TableSchema,
    l: &LiveView,
    live_base: Option<&LiveTable>,
) -> Option<String> {
    if !t.view_selects_all && t.columns.len() != l.table.columns.len() {
        return Some("the columns differ".into());
    }
    for c in &t.columns {
        match l.table.column(c.name) {
            None if t.view_selects_all && live_base.is_none_or(|b| b.column(c.name).is_none()) => {}
            None => return Some(format!("the cluster's view has no column `{}`", c.name)),
            Some(lc) if !same_type(&c.cql_type, &lc.cql_type) => {
                return Some(format!(
                    "`{}` is {} in the cluster's view, {} in the model",
                    c.name, lc.type_text, c.cql_type
                ));
            }
            Some(_) => {}
        }
    }
    None
}
