//! CQL text of the statements cassmodel generates (built once per statement shape).

use cassmodel_schema::quote_ident;

use crate::ddl::qualified;
use crate::schema::TableSchema;

fn column_list(schema: &TableSchema) -> String {
    schema
        .columns
        .iter()
        .map(|c| quote_ident(c.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `INSERT INTO ks.t (a, b, c) VALUES (?, ?, ?)`
pub fn insert(schema: &TableSchema, keyspace: &str) -> String {
    let marks = vec!["?"; schema.columns.len()].join(", ");
    format!(
        "INSERT INTO {} ({}) VALUES ({marks})",
        qualified(keyspace, schema.name),
        column_list(schema)
    )
}

/// `SELECT <all columns> FROM ks.t WHERE k1 = ? AND k2 = ? ...` over the first `n` columns
/// of the primary key (partition key first, then clustering columns).
pub fn select_eq_prefix(schema: &TableSchema, keyspace: &str, n: usize) -> String {
    let conds: Vec<String> = schema
        .primary_key()
        .take(n)
        .map(|i| format!("{} = ?", quote_ident(schema.columns[i].name)))
        .collect();
    format!(
        "SELECT {} FROM {} WHERE {}",
        column_list(schema),
        qualified(keyspace, schema.name),
        conds.join(" AND ")
    )
}
