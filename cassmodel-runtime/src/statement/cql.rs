//! CQL text of the statements cassmodel generates (the crate's own: users see statements through
//! their builders). Built once per statement shape (the
//! [`Spec`]) and prepared; values are always bind markers.

use std::fmt::Write;

use cassmodel_schema::quote_ident;

use super::spec::{Op, SetOp, Spec};
use crate::mapping::projection::{Computed, Selector};
use crate::schema::ddl::qualified;
use crate::schema::model::TableSchema;

fn name(schema: &TableSchema, index: usize) -> std::borrow::Cow<'_, str> {
    schema
        .columns
        .get(index)
        .map_or(std::borrow::Cow::Borrowed("?"), |c| quote_ident(c.name))
}

pub(crate) fn column_list(schema: &TableSchema, columns: &[usize]) -> String {
    columns
        .iter()
        .map(|&i| name(schema, i))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The select list of a read: `columns`, then each computed field's selector `AS` its name
/// (`WRITETIME(body) AS body_written`, `CAST(n AS text) AS n_text`).
pub(crate) fn selection(schema: &TableSchema, columns: &[usize], computed: &[Computed]) -> String {
    let mut s = column_list(schema, columns);
    for c in computed {
        if !s.is_empty() {
            s.push_str(", ");
        }
        write_selector(&mut s, schema, &c.selector);
        let _ = write!(s, " AS {}", quote_ident(c.alias));
    }
    s
}

/// One selector's CQL: fields by their columns' quoted names, user-defined functions by
/// their quoted names; arithmetic in parentheses, so that it reads as the derive parsed it.
fn write_selector(s: &mut String, schema: &TableSchema, selector: &Selector) {
    match *selector {
        Selector::Field(field) => {
            let column = schema.columns.iter().find(|col| col.field == field);
            s.push_str(&column.map_or(std::borrow::Cow::Borrowed(field), |col| {
                quote_ident(col.name)
            }));
        }
        Selector::Call(function, args) => write_call(s, schema, function, args),
        Selector::UserCall(function, args) => write_call(s, schema, &quote_ident(function), args),
        Selector::Cast(of, to) => {
            s.push_str("CAST(");
            write_selector(s, schema, of);
            let _ = write!(s, " AS {to})");
        }
        Selector::Op(left, op, right) => {
            // Parentheses only where CQL's precedence (Rust's) would group otherwise:
            // Cassandra takes a parenthesised selector for a term whose type it cannot infer.
            let grouped = |child: &Selector, right_side: bool| match child {
                Selector::Op(_, inner, _) => {
                    precedence(inner) < precedence(op)
                        || (right_side && precedence(inner) == precedence(op))
                }
                _ => false,
            };
            write_operand(s, schema, left, grouped(left, false));
            let _ = write!(s, " {op} ");
            write_operand(s, schema, right, grouped(right, true));
        }
        Selector::Number(n) => s.push_str(n),
    }
}

fn precedence(op: &str) -> u8 {
    if matches!(op, "*" | "/" | "%") { 2 } else { 1 }
}

fn write_operand(s: &mut String, schema: &TableSchema, operand: &Selector, grouped: bool) {
    if grouped {
        s.push('(');
    }
    write_selector(s, schema, operand);
    if grouped {
        s.push(')');
    }
}

fn write_call(s: &mut String, schema: &TableSchema, function: &str, args: &[Selector]) {
    s.push_str(function);
    s.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        write_selector(s, schema, a);
    }
    s.push(')');
}

/// `INSERT INTO ks.t (a, b, c) VALUES (?, ?, ?)`
#[cfg(feature = "testing")]
pub fn insert(schema: &TableSchema, keyspace: &str) -> String {
    insert_with(schema, keyspace, false, false, false)
}

/// `INSERT INTO ks.t (...) VALUES (...) [IF NOT EXISTS] [USING TTL ? [AND TIMESTAMP ?]]`
pub(crate) fn insert_with(
    schema: &TableSchema,
    keyspace: &str,
    if_not_exists: bool,
    ttl: bool,
    timestamp: bool,
) -> String {
    let marks = vec!["?"; schema.columns.len()].join(", ");
    let mut s = format!(
        "INSERT INTO {} ({}) VALUES ({marks})",
        qualified(keyspace, schema.name),
        column_list(schema, schema.written_columns())
    );
    if if_not_exists {
        s.push_str(" IF NOT EXISTS");
    }
    using(&mut s, ttl, timestamp);
    s
}

/// `INSERT INTO target (a, c) VALUES (?, ?) [USING TTL ?]`: columns `columns` of `schema`
/// into table `target` (`ks.t`, quoted), which names them the same.
pub(crate) fn insert_columns(
    schema: &TableSchema,
    target: &str,
    columns: &[usize],
    ttl: bool,
) -> String {
    let marks = vec!["?"; columns.len()].join(", ");
    let mut s = format!(
        "INSERT INTO {target} ({}) VALUES ({marks})",
        column_list(schema, columns)
    );
    using(&mut s, ttl, false);
    s
}

/// ` USING TTL ? AND TIMESTAMP ?` (either, both, or nothing).
fn using(out: &mut String, ttl: bool, timestamp: bool) {
    match (ttl, timestamp) {
        (true, true) => out.push_str(" USING TTL ? AND TIMESTAMP ?"),
        (true, false) => out.push_str(" USING TTL ?"),
        (false, true) => out.push_str(" USING TIMESTAMP ?"),
        (false, false) => {}
    }
}

/// ` IF EXISTS` or ` IF a = ? AND b < ?`, or nothing.
fn conditions(schema: &TableSchema, spec: &Spec, out: &mut String) {
    if spec.if_exists {
        out.push_str(" IF EXISTS");
    }
    for (i, &(col, op)) in spec.conditions.iter().enumerate() {
        out.push_str(if i == 0 && !spec.if_exists {
            " IF "
        } else {
            " AND "
        });
        let _ = write!(out, "{} {} ?", name(schema, usize::from(col)), op.cql());
    }
}

/// ` WHERE a = ? AND b IN ? AND c > ?`, or nothing.
fn where_clause(schema: &TableSchema, spec: &Spec, out: &mut String) {
    for (i, &(col, op)) in spec.restrictions.iter().enumerate() {
        out.push_str(if i == 0 { " WHERE " } else { " AND " });
        let col = name(schema, usize::from(col));
        let _ = match op {
            Op::Entry => write!(out, "{col}[?] = ?"),
            _ => write!(out, "{col} {} ?", op.cql()),
        };
    }
}

/// `SELECT COUNT(*) FROM ks.t WHERE ... [ALLOW FILTERING]`: the restrictions of `spec`
/// (its limits, order and vector search are refused before: `exec::read::count_rows`).
pub fn count(schema: &TableSchema, keyspace: &str, spec: &Spec) -> String {
    let mut s = format!("SELECT COUNT(*) FROM {}", qualified(keyspace, schema.name));
    where_clause(schema, spec, &mut s);
    if spec.allow_filtering {
        s.push_str(" ALLOW FILTERING");
    }
    s
}

/// `SELECT <columns> FROM ks.t WHERE ... [ORDER BY first_clustering <reversed>]
/// [PER PARTITION LIMIT ?] [LIMIT ?] [ALLOW FILTERING]`
///
/// A vector search (`spec.ann`) orders by `ORDER BY v ANN OF ?` instead; each of
/// `spec.scores` reads `similarity_<function>(v, ?)` before the columns.
pub fn select(
    schema: &TableSchema,
    keyspace: &str,
    (columns, computed): (&[usize], &[Computed]),
    spec: &Spec,
) -> String {
    let mut score = String::new();
    for &(c, function) in spec.scores.iter().rev() {
        let _ = write!(
            score,
            "{}({}, ?), ",
            function.function(),
            name(schema, usize::from(c))
        );
    }
    let mut s = format!(
        "SELECT {score}{} FROM {}",
        selection(schema, columns, computed),
        qualified(keyspace, schema.name)
    );
    where_clause(schema, spec, &mut s);
    select_tail(schema, spec, &mut s);
    s
}

/// What follows a SELECT's WHERE clause: ` ORDER BY .. ANN OF ?` or ` ORDER BY .. <order>`,
/// ` PER PARTITION LIMIT ?`, ` LIMIT ?`, ` ALLOW FILTERING`.
fn select_tail(schema: &TableSchema, spec: &Spec, out: &mut String) {
    if let Some(c) = spec.ann.map(usize::from) {
        let _ = write!(out, " ORDER BY {} ANN OF ?", name(schema, c));
    }
    if spec.reversed
        && let Some(&first) = schema.clustering.first()
    {
        let order = schema
            .order_of(first)
            .map_or("DESC", |o| o.reversed().cql());
        let _ = write!(out, " ORDER BY {} {order}", name(schema, first));
    }
    if spec.per_partition_limit {
        out.push_str(" PER PARTITION LIMIT ?");
    }
    if spec.limit {
        out.push_str(" LIMIT ?");
    }
    if spec.allow_filtering {
        out.push_str(" ALLOW FILTERING");
    }
}

/// What a query restricts, without its values, for its span: `WHERE a = ? AND b > ? LIMIT ?`
/// (and the `IF ...` of a conditional write).
pub(crate) fn shape(schema: &TableSchema, spec: &Spec) -> String {
    let mut s = String::new();
    where_clause(schema, spec, &mut s);
    select_tail(schema, spec, &mut s);
    conditions(schema, spec, &mut s);
    s.trim_start().to_owned()
}

/// `DELETE FROM ks.t [USING TIMESTAMP ?] WHERE ... [IF ...]`
pub fn delete(schema: &TableSchema, keyspace: &str, spec: &Spec) -> String {
    delete_from(schema, &qualified(keyspace, schema.name), spec)
}

/// [`delete`] of table `target` (`ks.t`, quoted), whose columns are named as `schema`'s.
pub(crate) fn delete_from(schema: &TableSchema, target: &str, spec: &Spec) -> String {
    let mut s = format!("DELETE FROM {target}");
    using(&mut s, false, spec.timestamp);
    where_clause(schema, spec, &mut s);
    conditions(schema, spec, &mut s);
    s
}

/// `UPDATE ks.t [USING TTL ? [AND TIMESTAMP ?]] SET a = ?, l = l + ?, m[?] = ? WHERE ... [IF ...]`
pub fn update(schema: &TableSchema, keyspace: &str, spec: &Spec) -> String {
    update_of(schema, &qualified(keyspace, schema.name), spec)
}

/// [`update`] of table `target` (`ks.t`, quoted), whose columns are named as `schema`'s.
pub(crate) fn update_of(schema: &TableSchema, target: &str, spec: &Spec) -> String {
    let sets: Vec<String> = spec
        .sets
        .iter()
        .map(|&(c, op)| {
            let n = name(schema, usize::from(c));
            match op {
                SetOp::Assign => format!("{n} = ?"),
                SetOp::Append | SetOp::Increment => format!("{n} = {n} + ?"),
                SetOp::Prepend => format!("{n} = ? + {n}"),
                SetOp::Remove | SetOp::Decrement => format!("{n} = {n} - ?"),
                SetOp::AtKey => format!("{n}[?] = ?"),
            }
        })
        .collect();
    let mut s = format!("UPDATE {target}");
    using(&mut s, spec.ttl, spec.timestamp);
    let _ = write!(s, " SET {}", sets.join(", "));
    where_clause(schema, spec, &mut s);
    conditions(schema, spec, &mut s);
    s
}

/// `token(pk...)`: the token of a row of `schema`'s table.
pub fn token_of(schema: &TableSchema) -> String {
    format!("token({})", column_list(schema, &schema.partition_key))
}

/// `SELECT <columns> FROM ks.t WHERE token(pk...) >= ? AND token(pk...) <= ?`
pub fn token_range_scan(
    schema: &TableSchema,
    keyspace: &str,
    (columns, computed): (&[usize], &[Computed]),
) -> String {
    let token = token_of(schema);
    format!(
        "SELECT {} FROM {} WHERE {token} >= ? AND {token} <= ?",
        selection(schema, columns, computed),
        qualified(keyspace, schema.name)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::model::{ColumnDef, ColumnKind, Order, TableOptions};

    fn gyms() -> TableSchema {
        let c = |n: &'static str, k| ColumnDef::new::<String>(n, n, k, None, false);
        TableSchema::new(
            "GymsByCity",
            "gyms_by_city",
            None,
            TableOptions::default(),
            vec![
                c("country_code", ColumnKind::PartitionKey),
                c("state", ColumnKind::PartitionKey),
                c("city", ColumnKind::PartitionKey),
                c("opening_date", ColumnKind::Clustering(Order::Asc)),
                c("gym_name", ColumnKind::Clustering(Order::Asc)),
                c("order", ColumnKind::Regular),
            ],
        )
    }

    #[test]
    fn select_text() {
        let t = gyms();
        let spec = Spec {
            restrictions: vec![
                (0, Op::Eq),
                (1, Op::Eq),
                (2, Op::In),
                (3, Op::Ge),
                (3, Op::Lt),
            ],
            limit: true,
            per_partition_limit: true,
            reversed: true,
            ..Spec::default()
        };
        assert_eq!(
            select(&t, "ks", (&[4, 5], &[]), &spec),
            "SELECT gym_name, \"order\" FROM ks.gyms_by_city WHERE country_code = ? AND \
             state = ? AND city IN ? AND opening_date >= ? AND opening_date < ? ORDER BY \
             opening_date DESC PER PARTITION LIMIT ? LIMIT ?"
        );
    }

    #[test]
    fn computed_fields_follow_the_columns_by_their_column_names() {
        let t = gyms();
        let computed = [
            Computed {
                selector: Selector::Call("writetime", &[Selector::Field("order")]),
                alias: "order_written",
            },
            Computed {
                selector: Selector::Cast(&Selector::Field("gym_name"), "int"),
                alias: "type",
            },
            Computed {
                selector: Selector::Op(
                    &Selector::UserCall("Ratio", &[Selector::Field("order")]),
                    "/",
                    &Selector::Number("-2.5"),
                ),
                alias: "half",
            },
        ];
        assert_eq!(
            select(&t, "ks", (&[0], &computed[..2]), &Spec::default()),
            "SELECT country_code, writetime(\"order\") AS order_written, CAST(gym_name AS int) \
             AS type FROM ks.gyms_by_city"
        );
        assert_eq!(
            selection(&t, &[], &computed[..1]),
            "writetime(\"order\") AS order_written"
        );
        // A user-defined function's name is quoted as any identifier; arithmetic is
        // parenthesised only where precedence would group it otherwise.
        assert_eq!(
            selection(&t, &[], &computed[2..]),
            "\"Ratio\"(\"order\") / -2.5 AS half"
        );
        const SUM: Selector = Selector::Op(&Selector::Field("a"), "+", &Selector::Number("1"));
        const PRODUCT: Selector = Selector::Op(&Selector::Field("a"), "*", &Selector::Number("2"));
        let grouped = [
            Computed {
                selector: Selector::Op(&SUM, "*", &SUM),
                alias: "x",
            },
            Computed {
                selector: Selector::Op(&PRODUCT, "-", &SUM),
                alias: "y",
            },
        ];
        assert_eq!(
            selection(&t, &[], &grouped),
            "(a + 1) * (a + 1) AS x, a * 2 - (a + 1) AS y"
        );
    }

    #[test]
    fn delete_update_scan_text() {
        let t = gyms();
        let spec = Spec {
            restrictions: vec![(0, Op::Eq), (1, Op::Eq), (2, Op::Eq), (3, Op::Gt)],
            ..Spec::default()
        };
        assert_eq!(
            delete(&t, "ks", &spec),
            "DELETE FROM ks.gyms_by_city WHERE country_code = ? AND state = ? AND city = ? \
             AND opening_date > ?"
        );
        let spec = Spec {
            restrictions: vec![(0, Op::Eq)],
            sets: vec![(5, SetOp::Assign)],
            ..Spec::default()
        };
        assert_eq!(
            update(&t, "ks", &spec),
            "UPDATE ks.gyms_by_city SET \"order\" = ? WHERE country_code = ?"
        );
        let spec = Spec {
            restrictions: vec![(0, Op::Eq)],
            sets: vec![(5, SetOp::Append), (4, SetOp::AtKey), (3, SetOp::Prepend)],
            conditions: vec![(5, Op::Ne), (4, Op::Eq)],
            ttl: true,
            ..Spec::default()
        };
        assert_eq!(
            update(&t, "ks", &spec),
            "UPDATE ks.gyms_by_city USING TTL ? SET \"order\" = \"order\" + ?, gym_name[?] = ?, \
             opening_date = ? + opening_date WHERE country_code = ? IF \"order\" != ? AND gym_name = ?"
        );
        let spec = Spec {
            restrictions: vec![(0, Op::Eq)],
            if_exists: true,
            timestamp: true,
            ..Spec::default()
        };
        assert_eq!(
            delete(&t, "ks", &spec),
            "DELETE FROM ks.gyms_by_city USING TIMESTAMP ? WHERE country_code = ? IF EXISTS"
        );
        assert_eq!(
            insert_with(&t, "ks", true, true, true),
            "INSERT INTO ks.gyms_by_city (country_code, state, city, opening_date, gym_name, \
             \"order\") VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ? AND TIMESTAMP ?"
        );
        assert_eq!(
            token_range_scan(&t, "ks", (&[0], &[])),
            "SELECT country_code FROM ks.gyms_by_city WHERE token(country_code, state, city) \
             >= ? AND token(country_code, state, city) <= ?"
        );
    }
}
