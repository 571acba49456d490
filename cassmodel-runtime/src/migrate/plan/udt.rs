//! The plan of one user-defined type: create it, add its new fields, refuse what a type
//! cannot change (a field's type, a removed field).

use cassmodel_schema::quote_ident;

use super::compare::same_type;
use super::steps::{Change, MigrationPlan, Refusal, Step};
use crate::migrate::live::LiveSchema;
use crate::schema::ddl::{self, qualified};
use crate::schema::model::UdtSchema;

/// Plans type `u` in keyspace `ks` against `live`.
pub(super) fn plan_udt(ks: &str, u: &UdtSchema, live: &LiveSchema, p: &mut MigrationPlan) {
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
