//! How a model's definition compares with the live one: types, index targets and options,
//! functions and aggregates, and the live definitions as CQL for refusals.

use cassmodel_schema::{CqlType, quote_ident};

use crate::migrate::live::{
    LiveAggregate, LiveColumn, LiveFunction, LiveIndex, LiveTable, class_short_name,
};
use crate::schema::ddl::{self, qualified, string_literal};
use crate::schema::function::{AggregateSchema, FunctionSchema};
use crate::schema::model::{ColumnDef, ColumnKind, IndexDef, Order, TableOptions, TableSchema};

/// Whether two CQL types are the same (`varchar` and `text`, case, spaces).
pub(super) fn same_type(a: &CqlType, b: &CqlType) -> bool {
    a.canonical() == b.canonical()
}

/// `PRIMARY KEY (...)` of a live table.
pub(super) fn live_key_clause(l: &LiveTable) -> String {
    ddl::key_clause(
        l.partition_key().map(|c| c.name.as_str()),
        l.clustering().map(|c| c.name.as_str()),
    )
}

/// `CLUSTERING ORDER BY (...)` of a live table.
pub(super) fn live_order_clause(l: &LiveTable) -> String {
    ddl::order_clause(l.clustering().map(|c| {
        let o = match c.kind {
            ColumnKind::Clustering(o) => o,
            _ => Order::Asc,
        };
        (c.name.as_str(), o)
    }))
}

/// Whether live index `i` is an SAI index on `target` (CQL text, as stored).
pub(super) fn matches_target(i: &LiveIndex, target: &str) -> bool {
    i.is_sai() && i.target() == target
}

/// Whether live index `i` is model index `m`: SAI on the same target, ranking vectors by the
/// same similarity function (Cassandra's default, cosine, when either names none).
pub(super) fn matches_index(i: &LiveIndex, m: &IndexDef, target: &str) -> bool {
    matches_target(i, target) && i.similarity().unwrap_or_default() == m.similarity_function()
}

/// A live index as the statement that would create it.
pub(super) fn live_index_definition(ks: &str, table: &str, i: &LiveIndex) -> String {
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
pub(super) fn model_index_definition(
    ks: &str,
    t: &TableSchema,
    c: &ColumnDef,
    i: &IndexDef,
) -> String {
    format!("CREATE INDEX {}", ddl::index_definition(t, c, i, ks))
}

pub(super) fn live_definition(c: &LiveColumn) -> String {
    ddl::definition(&c.name, &c.type_text, c.kind == ColumnKind::Static)
}

/// `option = value` for every option the model sets that the table does not have.
pub(super) fn option_changes(o: &TableOptions, l: &LiveTable) -> Vec<String> {
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

/// Whether `live` has function `f` as the models declare it.
pub(super) fn same_function(l: &LiveFunction, f: &FunctionSchema) -> bool {
    l.params.len() == f.params.len()
        && l.params
            .iter()
            .zip(&f.params)
            .all(|((ln, lt, _), (n, t))| ln == n && same_type(lt, t))
        && same_type(&l.returns.0, &f.returns)
        && l.language.eq_ignore_ascii_case(f.language)
        && l.body == f.body
        && l.called_on_null_input == f.called_on_null_input
}

/// Whether `live` has aggregate `a` as the models declare it.
pub(super) fn same_aggregate(l: &LiveAggregate, a: &AggregateSchema) -> bool {
    let literal = |s: &str| -> String { s.chars().filter(|c| !c.is_whitespace()).collect() };
    l.state_function == a.state_function.name
        && l.final_function.as_deref() == a.final_function.map(|f| f.name)
        && same_type(&l.state_type.0, a.state_type())
        && l.initial.as_deref().map(literal) == a.initial.map(literal)
}
