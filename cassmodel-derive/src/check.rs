//! Cassandra's rules for a data model, checked at compile time. One function per rule; each
//! violation is reported on the field or attribute at fault, with the correct form.

use std::collections::HashMap;

use cassmodel_schema::{
    CqlType, IndexTarget, IndexViolation, KeyViolation, MAX_SCHEMA_NAME_LEN, NameError,
    validate_column_name, validate_index_name, validate_schema_name,
};

use crate::ctxt::Ctxt;
use crate::model::{
    Entity, Field, FieldIndex, Projection, Role, Routine, Sel, SelectorKind, Table, Udt,
};
use crate::types::{self, Shape};

pub fn table(cx: &mut Ctxt, t: &Table<'_>) {
    schema_names(cx, t);
    has_partition_key(cx, t);
    for f in &t.fields {
        frozen_or_cql_type(cx, f);
        float_keys(cx, f);
        column_name(cx, f);
        if f.role.is_key() {
            key_type(cx, f);
        }
        static_column(cx, t, f);
        mask(cx, f);
    }
    counter_table(cx, t);
    indexes(cx, t);
    unique_columns(cx, &t.fields);
    builder_method_names(cx, t);
    expectations(cx, t);
    bucket(cx, t);
    source(cx, t);
    view(cx, t);
    each(cx, t);
}

/// A column that takes each element of an entity's collection (`each = tags`): in a table
/// built from an entity, part of the primary key (else the elements' rows share one key),
/// one per table. (That the entity has the collection and that the column takes its
/// elements is checked in the generated code, where the entity's fields are known.)
fn each(cx: &mut Ctxt, t: &Table<'_>) {
    let mut seen: Option<&syn::Ident> = None;
    for f in &t.fields {
        let Some(each) = &f.attrs.each else {
            continue;
        };
        if let Some(first) = seen {
            cx.error(
                each,
                format_args!(
                    "one column of a table takes the elements of a collection, and `{first}` \
                     already does: a row per element of two collections would be a row per \
                     pair; store the second in a table of its own"
                ),
            );
        }
        seen = Some(f.ident);
        if t.attrs.entities.is_empty() {
            cx.error(
                each,
                format_args!(
                    "`each = {each}` takes the elements of a collection of the entity this \
                     table is built from: add `#[cass(entity = YourEntity)]` to `{}`",
                    t.ident
                ),
            );
        }
        if !f.role.is_key() {
            cx.error(
                each,
                format_args!(
                    "the column that takes each element of `{each}` is part of the primary \
                     key, else the rows of all elements share one key and overwrite each \
                     other: add `#[partition_key]` or `#[clustering]` to `{}`",
                    f.ident
                ),
            );
        }
    }
}

/// A materialized view (`view_of = Base`) is read, never written, and Cassandra builds it
/// from its base: it lives in the base's keyspace, takes none of a table's options, and has
/// no static column, counter, index, mask, bucket or source of its own; `all_columns` is a
/// view's. (Its key and fields against the base's are checked at compile time in the
/// generated code: the base's fields are not visible here.)
fn view(cx: &mut Ctxt, t: &Table<'_>) {
    let Some(base) = &t.attrs.view_of else {
        if let Some(at) = t.attrs.all_columns {
            cx.error_at(
                at,
                "`all_columns` declares a materialized view that selects every column of its \
                 base (`SELECT *`): write #[cass(view_of = BaseTableStruct, all_columns)], or \
                 remove `all_columns`",
            );
        }
        return;
    };
    view_base_and_options(cx, t, base);
    view_writes(cx, t);
    for f in &t.fields {
        view_field(cx, f);
    }
}

/// A view's base is another table, and the view takes no keyspace or table option of its own.
fn view_base_and_options(cx: &mut Ctxt, t: &Table<'_>, base: &syn::Path) {
    let a = &t.attrs;
    if base.is_ident(t.ident) || base.is_ident("Self") {
        cx.error(
            base,
            "a view is of another table: write #[cass(view_of = BaseTableStruct)] with the \
             struct of the table it is a view of",
        );
    }
    if let Some(k) = &a.keyspace {
        cx.error_at(
            k.span,
            "a materialized view lives in its base table's keyspace: remove `keyspace` (the \
             view takes its base's)",
        );
    }
    let options: Vec<&str> = [
        (a.default_ttl.is_some(), "default_ttl"),
        (a.gc_grace_seconds.is_some(), "gc_grace_seconds"),
        (a.comment.is_some(), "comment"),
        (a.compaction.is_some(), "compaction"),
    ]
    .into_iter()
    .filter_map(|(given, name)| given.then_some(name))
    .collect();
    if !options.is_empty() {
        cx.error(
            base,
            format_args!(
                "a materialized view takes none of a table's options here ({}): Cassandra \
                 refuses `default_time_to_live` on a view, and cassmodel does not manage a \
                 view's other options; remove them (set them with ALTER MATERIALIZED VIEW)",
                options.join(", ")
            ),
        );
    }
}

/// A view is not written: no entity writes it, and no key change copies rows into it.
fn view_writes(cx: &mut Ctxt, t: &Table<'_>) {
    let a = &t.attrs;
    for e in &a.entities {
        cx.error(
            e,
            "an entity writes its tables, and a materialized view is not written: remove \
             `entity = ..` from the view (the entity's table is the view's base)",
        );
    }
    if let Some(from) = &a.from {
        let span = match from {
            crate::attr::FromAttr::Table(name) => name.span,
            crate::attr::FromAttr::Model(path) => syn::spanned::Spanned::span(path),
        };
        cx.error_at(
            span,
            "a materialized view is built by the server from its base table, never copied \
             into: remove `from` (a key change copies into a new table; create a new view of \
             it instead)",
        );
    }
}

/// A view's field is no static column, counter, index, mask or bucket: the base's are.
fn view_field(cx: &mut Ctxt, f: &Field<'_>) {
    if let Some(at) = f.attrs.is_static {
        cx.error_at(
            at,
            format_args!(
                "`{}`: Cassandra does not include static columns in materialized views; \
                 remove the field from the view",
                f.column
            ),
        );
    }
    if f.counter {
        cx.error(
            f.ty,
            format_args!(
                "`{}` is a counter: Cassandra builds no materialized view of a counter \
                 table; keep a second counter table, updated beside it",
                f.column
            ),
        );
    }
    if let Some(ix) = f.attrs.index.first() {
        cx.error(
            &ix.tokens,
            format_args!(
                "Cassandra builds no secondary index on a materialized view: index `{}` \
                 on the base table instead (#[cass(index)] on its field)",
                f.column
            ),
        );
    }
    if let Some(m) = &f.mask {
        cx.error_at(
            m.span,
            format_args!(
                "a view shows its base table's masks: declare the mask of `{}` on the base \
                 table's field",
                f.column
            ),
        );
    }
    if let Some(b) = &f.attrs.bucket {
        cx.error_at(
            b.span,
            "a bucket is a column written by cassmodel, and a materialized view is not \
             written: read the buckets of the base table (or key the view by the base's \
             bucket column)",
        );
    }
}

/// `from = ..` names another table (a key change copies into a new one), not on a table
/// whose rows cannot be copied; `with = f` converts rows of a source model; a counter table
/// is copied `offline` (its writers stopped), and only a counter table is.
fn source(cx: &mut Ctxt, t: &Table<'_>) {
    use crate::attr::FromAttr;
    let a = &t.attrs;
    if let Some(with) = &a.with
        && !matches!(a.from, Some(FromAttr::Model(_)))
    {
        cx.error(
            with,
            "`with` converts the rows of a source model: name the model, \
             `#[cass(from = OldModel, with = convert_fn)]`",
        );
    }
    if let Some(at) = a.dual_writes {
        dual_writes(cx, t, at);
    }
    let counters = t.counter_column().is_some();
    if let Some(at) = a.offline {
        offline(cx, t, at, counters);
    }
    let Some(from) = &a.from else { return };
    source_table(cx, t, from, counters);
}

/// `dual_writes` (at `at`) needs a `from`, and neither an `offline` copy nor a `with`.
fn dual_writes(cx: &mut Ctxt, t: &Table<'_>, at: proc_macro2::Span) {
    let a = &t.attrs;
    if a.from.is_none() {
        cx.error_at(
            at,
            "`dual_writes` writes every change to the table the rows come from too: name \
             it, `#[cass(from = \"old_table\", dual_writes)]`",
        );
    } else if a.offline.is_some() {
        cx.error_at(
            at,
            "an `offline` copy runs with every writer of the old table stopped: an \
             increment written to both tables would also be copied, and count twice; \
             remove `dual_writes`",
        );
    } else if a.with.is_some() {
        cx.error_at(
            at,
            "`dual_writes` maps columns by name, and rows converted by a function (`with`) \
             cannot be written back: remove `dual_writes` and write both tables in the \
             application while the copy runs",
        );
    }
}

/// `offline` (at `at`) needs a `from`, on a counter table (`counters`), copied without `with`.
fn offline(cx: &mut Ctxt, t: &Table<'_>, at: proc_macro2::Span, counters: bool) {
    let a = &t.attrs;
    if a.from.is_none() {
        cx.error_at(
            at,
            "`offline` says how the rows of the old table are copied: name it, \
             `#[cass(from = \"old_table\", offline)]`",
        );
    } else if !counters {
        cx.error_at(
            at,
            format_args!(
                "`offline` is for counter tables: the rows of `{}` are copied online, while \
                 the application writes both tables; remove `offline`",
                t.name
            ),
        );
    } else if let Some(with) = &a.with {
        cx.error(
            with,
            "a counter table is copied by name, one old row into one new row: a function \
             could add two old rows into one, and an interrupted copy could then not be \
             repaired; remove `with` (a bucket column is still computed from its source)",
        );
    }
}

/// The table of `from`: not this table itself; a counter table copied `offline`; no statics.
fn source_table(cx: &mut Ctxt, t: &Table<'_>, from: &crate::attr::FromAttr, counters: bool) {
    use crate::attr::FromAttr;
    let a = &t.attrs;
    let (span, old) = match from {
        FromAttr::Table(name) => {
            if name.value == t.name && a.keyspace.is_none() {
                cx.error_at(
                    name.span,
                    format_args!(
                        "the rows of `{0}` cannot come from `{0}` itself: a key change copies \
                         into a new table, so give this struct a new name, e.g. \
                         `#[cass(table = \"{0}_v2\", from = \"{0}\")]`",
                        t.name
                    ),
                );
            }
            (name.span, format!("\"{}\"", name.value))
        }
        FromAttr::Model(path) => (
            syn::spanned::Spanned::span(path),
            quote::ToTokens::to_token_stream(path).to_string(),
        ),
    };
    if counters && a.offline.is_none() {
        cx.error_at(
            span,
            format_args!(
                "a counter table cannot be copied online: a counter takes no write time, and an \
                 increment applied twice counts twice; copy it offline, with every writer of \
                 the old table stopped until the copy is verified: \
                 `#[cass(table = \"{}\", from = {old}, offline)]`",
                t.name
            ),
        );
    }
    if t.has_static() {
        cx.error_at(
            span,
            "a table with static columns cannot be copied yet: a partition's static values \
             would have to be written once per new partition",
        );
    }
}

/// A bucket goes on the first clustering column, once per table, under a free column name.
fn bucket(cx: &mut Ctxt, t: &Table<'_>) {
    let mut sources = t.fields.iter().filter(|f| f.attrs.bucket.is_some());
    let Some(b) = &t.bucket else { return };
    let _ = sources.next();
    for extra in sources {
        if let Some(a) = &extra.attrs.bucket {
            cx.error_at(
                a.span,
                format_args!(
                    "a table has at most one bucket, and `{}` already has it: remove this one",
                    t.fields[b.source].column
                ),
            );
        }
    }
    let source = &t.fields[b.source];
    let first = t.clustering.first().map(|&i| &t.fields[i]);
    if first.is_none_or(|f| f.position != source.position) {
        let fix = match first {
            Some(f) => format!(
                "make `{}` the first `#[clustering]` field (before `{}`), or bucket `{}` instead",
                source.column, f.column, f.column
            ),
            None => format!("make `{}` a `#[clustering]` column", source.column),
        };
        cx.error_at(
            b.span,
            format_args!(
                "a bucket is computed from the first clustering column, so that a read over a \
                 range of it is one slice of each bucket: {fix}"
            ),
        );
    }
    if let Err(e) = validate_column_name(&b.column) {
        cx.error_at(
            b.span,
            format_args!(
                "`{}` cannot be the bucket's column name: {e}; write e.g. \
                 `bucket(month, name = \"month\")`",
                b.column
            ),
        );
    }
    let vector = t.has_vector();
    let taken = t
        .fields
        .iter()
        .find(|f| f.column == b.column || f.builder_methods(vector).contains(&b.column));
    if let Some(f) = taken {
        cx.error_at(
            b.span,
            format_args!(
                "the bucket column `{}` clashes with field `{}`: name it with \
                 `bucket(.., name = \"...\")`",
                b.column, f.ident
            ),
        );
    }
}

/// `expect(...)` is a whole growth, and `avg_bytes` is given only where the type does not fix
/// the size.
fn expectations(cx: &mut Ctxt, t: &Table<'_>) {
    if let Some(e) = t.attrs.expect.as_ref().filter(|e| !e.broken) {
        match (&e.per, &e.horizon) {
            (None, Some(h)) => cx.error_at(
                h.span,
                "`horizon` goes with a rate: write `expect(rows = 1000, per = \"month\", \
                 horizon = \"5 years\")` (rows added per month, kept 5 years), or \
                 `expect(rows = 5000)` for partitions that do not grow",
            ),
            (Some(p), None) if t.attrs.default_ttl.is_none() => cx.error_at(
                p.span,
                format_args!(
                    "a rate needs a horizon, how long rows are kept: write \
                     `expect(rows = .., per = \"{}\", horizon = \"5 years\")`, or give the \
                     table a `default_ttl`",
                    p.value
                ),
            ),
            _ => {}
        }
    }
    for f in &t.fields {
        let (Some(avg), Some(ty)) = (&f.attrs.avg_bytes, &f.cql_type) else {
            continue;
        };
        if let Some(n) = cassmodel_schema::fixed_size(ty, &|_| None) {
            cx.error_at(
                avg.span,
                format_args!(
                    "`{}` is `{ty}`, always {n} bytes: remove `avg_bytes` (it is for types whose \
                     size varies: text, blob, varint, decimal, collections)",
                    f.column
                ),
            );
        }
    }
}

pub fn udt(cx: &mut Ctxt, u: &Udt<'_>) {
    if let Err(e) = validate_schema_name(&u.name) {
        cx.error_at(
            u.name_span,
            format_args!(
                "`{}` cannot be a type name: {e}; {}",
                u.name,
                name_fix(&u.name, "#[cass(name = \"", "\")]")
            ),
        );
    }
    if u.fields.is_empty() {
        cx.error(
            u.ident,
            format_args!(
                "user-defined type `{}` has no fields: add at least one, e.g. \
                 `struct {} {{ street: String }}`",
                u.name, u.ident
            ),
        );
    }
    for f in &u.fields {
        frozen_or_cql_type(cx, f);
        float_keys(cx, f);
        column_name(cx, f);
        if f.is_counter() {
            cx.error(
                f.ty,
                format_args!(
                    "field `{}` of a user-defined type cannot be a counter: use `i64` here, or \
                     keep the counter as a column of a counter table",
                    f.ident
                ),
            );
        }
    }
    unique_columns(cx, &u.fields);
}

/// Table and keyspace names: 1-48 ASCII letters, digits or `_`.
fn schema_names(cx: &mut Ctxt, t: &Table<'_>) {
    if let Err(e) = validate_schema_name(&t.name) {
        cx.error_at(
            t.name_span,
            format_args!(
                "`{}` cannot be a table name: {e}; {}",
                t.name,
                name_fix(&t.name, "#[cass(table = \"", "\")]")
            ),
        );
    }
    if let Some(ks) = &t.attrs.keyspace
        && let Err(e) = validate_schema_name(&ks.value)
    {
        cx.error_at(
            ks.span,
            format_args!(
                "`{}` cannot be a keyspace name: {e}; {}",
                ks.value,
                name_fix(&ks.value, "#[cass(keyspace = \"", "\")]")
            ),
        );
    }
    if let Some(c) = &t.attrs.compaction {
        let ok = !c.value.is_empty()
            && c.value
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.');
        if !ok {
            cx.error_at(
                c.span,
                format_args!(
                    "`{}` is not a compaction class: write e.g. \
                     `compaction = \"LeveledCompactionStrategy\"`",
                    c.value
                ),
            );
        }
    }
}

/// What to write instead of an invalid table, keyspace or type name: the name with each
/// other character turned into `_`, or a request for a shorter one.
fn name_fix(name: &str, before: &str, after: &str) -> String {
    let fixed: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if validate_schema_name(&fixed).is_ok() {
        format!("write e.g. `{before}{fixed}{after}`")
    } else {
        format!("write a name of at most {MAX_SCHEMA_NAME_LEN} characters in `{before}...{after}`")
    }
}

/// Every table needs a partition key: it decides which nodes hold a row.
fn has_partition_key(cx: &mut Ctxt, t: &Table<'_>) {
    if !t.fields.iter().any(|f| f.role == Role::PartitionKey) {
        let clustering = t
            .fields
            .iter()
            .find(|f| matches!(f.role, Role::Clustering(_)))
            .map(|f| {
                format!(
                    " (`{}` is a clustering column: it only orders the rows inside a partition)",
                    f.column
                )
            })
            .unwrap_or_default();
        cx.error(
            t.whole(),
            format_args!(
                "table `{}` has no partition key: mark the field(s) that decide which nodes hold \
                 a row with `#[partition_key]`, e.g. `#[partition_key] user_id: Uuid`{clustering}",
                t.name
            ),
        );
    }
}

/// A map or set keyed by floats: Rust's maps and sets need keys that are `Ord` (`BTreeMap`)
/// or `Hash` (`HashMap`), which `f32` and `f64` are not, and the compiler would say only
/// that. A CQL map or set of floats is a `Vec` with a `cql_type`.
fn float_keys(cx: &mut Ctxt, f: &Field<'_>) {
    let (kind, args) = (types::shape(f.value_ty), types::type_args(f.value_ty));
    let (Some(key), true) = (args.first(), matches!(kind, Shape::Map | Shape::Set)) else {
        return;
    };
    let Some(float) = types::float_in(key) else {
        return;
    };
    let container = types::last_ident(f.value_ty).unwrap_or_default();
    let cql = |t: &syn::Type| {
        types::syntactic_cql_type(t, None, false).map_or_else(
            || "<its CQL type>".to_owned(),
            |t| t.frozen_for_nesting().to_string(),
        )
    };
    let (key_text, key_cql) = (types::type_text(key), cql(key));
    let (what, vec, cql_type, order) = match (kind, args.get(1)) {
        (Shape::Map, Some(value)) => (
            "the key of a",
            format!("Vec<({key_text}, {})>", types::type_text(value)),
            format!("map<{key_cql}, {}>", cql(value)),
            "in the server's order of the keys, one entry per key",
        ),
        _ => (
            "an element of a",
            format!("Vec<{key_text}>"),
            format!("set<{key_cql}>"),
            "in the server's order, each value once",
        ),
    };
    cx.error(
        key,
        format_args!(
            "`{float}` cannot be {what} `{container}` (it is neither `Ord` nor `Hash`): for a \
             CQL `{cql_type}`, make the field's `{}` a `{vec}` and add \
             `#[cass(cql_type = \"{cql_type}\")]` (read back {order})",
            types::type_text(f.value_ty)
        ),
    );
}

/// `frozen` and `cql_type` both say the column's type; only one may.
fn frozen_or_cql_type(cx: &mut Ctxt, f: &Field<'_>) {
    if let (Some(frozen), Some(t)) = (f.attrs.frozen, &f.attrs.cql_type) {
        cx.error_at(
            frozen,
            format_args!(
                "give either `frozen` or `cql_type`, not both: remove `frozen` and write the \
                 frozen type in full, `cql_type = \"{}\"`",
                t.value.clone().frozen()
            ),
        );
    }
}

fn column_name(cx: &mut Ctxt, f: &Field<'_>) {
    let field = f.ident.to_string();
    let field = field.trim_start_matches("r#");
    match validate_column_name(&f.column) {
        Ok(()) => {}
        Err(NameError::Empty) => cx.error_at(
            f.column_span,
            format_args!(
                "the name of field `{field}` is empty: write one, e.g. `name = \"{field}\"`, \
                 or remove `name` to use the field's name"
            ),
        ),
        Err(e) => cx.error_at(
            f.column_span,
            format_args!(
                "{:?} cannot be the name of field `{field}`: {e}; write e.g. `name = \"{field}\"`",
                f.column
            ),
        ),
    }
}

/// Key columns are never null and cannot be counters, durations, or non-frozen
/// collections or user-defined types.
fn key_type(cx: &mut Ctxt, f: &Field<'_>) {
    let col = &f.column;
    if let Some(t) = &f.attrs.cql_type {
        if let Some(v) = t.value.key_violation() {
            let fix = match v {
                KeyViolation::NonFrozenCollection | KeyViolation::NonFrozenUdt => {
                    format!("write `cql_type = \"frozen<{}>\"`", t.value)
                }
                _ => "move it out of the primary key".to_owned(),
            };
            cx.error_at(
                t.span,
                format_args!("`{col}` is part of the primary key, and {v}: {fix}"),
            );
        }
        return;
    }
    let message = match f.shape {
        Shape::Option => Some(format!(
            "`{col}` is part of the primary key and cannot be an `Option`: key columns are never \
             null; use the inner type, or move the field out of the key"
        )),
        Shape::Counter => Some(format!(
            "`{col}` is part of the primary key and cannot be a counter: counters are only \
             regular columns of a counter table; key the table on what is counted and keep \
             `{col}` out of the key"
        )),
        Shape::Duration => Some(format!(
            "`{col}` is part of the primary key and cannot be a duration: Cassandra does not \
             order durations; store the length as an integer (e.g. milliseconds) instead"
        )),
        Shape::List | Shape::Set | Shape::Map if f.attrs.frozen.is_none() => Some(format!(
            "`{col}` is part of the primary key, so its collection must be frozen: add \
             `#[cass(frozen)]` to the field"
        )),
        _ => None,
    };
    if let Some(m) = message {
        cx.error(f.ty, m);
    }
}

/// Static columns: not on key columns, and only in tables with clustering columns.
fn static_column(cx: &mut Ctxt, t: &Table<'_>, f: &Field<'_>) {
    let Some(at) = f.attrs.is_static else { return };
    if f.attrs.partition_key.is_some() || f.attrs.clustering.is_some() {
        cx.error_at(
            at,
            format_args!(
                "`{}` is a key column and cannot be static: remove `static` (a static column is \
                 a regular column that holds one value per partition)",
                f.column
            ),
        );
    } else if !t
        .fields
        .iter()
        .any(|g| matches!(g.role, Role::Clustering(_)))
    {
        cx.error_at(
            at,
            format_args!(
                "`{}` cannot be static: table `{}` has no clustering column, so it has one row \
                 per partition and every column is already per partition; remove `static`",
                f.column, t.name
            ),
        );
    }
}

/// A table with a counter column holds only counters beside its primary key.
fn counter_table(cx: &mut Ctxt, t: &Table<'_>) {
    let Some(first) = t.counter_column() else {
        return;
    };
    for f in t
        .fields
        .iter()
        .filter(|f| !f.role.is_key() && !f.is_counter())
    {
        cx.error(
            f.ident,
            format_args!(
                "`{}` is a regular column in a counter table (`{}` is a counter): a table with \
                 counters can only have counter columns beside its primary key; move `{}` to \
                 another table",
                f.column, first.column, f.column
            ),
        );
    }
}

/// Two fields cannot map to one column.
fn unique_columns(cx: &mut Ctxt, fields: &[Field<'_>]) {
    let mut seen: HashMap<&str, &Field<'_>> = HashMap::new();
    for f in fields {
        if let Some(first) = seen.get(f.column.as_str()) {
            cx.error_at(
                f.column_span,
                format_args!(
                    "fields `{}` and `{}` both map to the column `{}`: rename one with \
                     #[cass(name = \"...\")]",
                    first.ident, f.ident, f.column
                ),
            );
        } else {
            seen.insert(&f.column, f);
        }
    }
}

/// Each column gets query-builder methods named after its field (`user_id`, `user_id_in`,
/// `set_user_id`, ...); they must not collide with each other or with the builder's own.
fn builder_method_names(cx: &mut Ctxt, t: &Table<'_>) {
    use crate::model::BUILDER_METHODS;
    let mut seen: HashMap<String, &Field<'_>> = HashMap::new();
    let vector = t.has_vector();
    for f in &t.fields {
        for m in f.builder_methods(vector) {
            if BUILDER_METHODS.contains(&m.as_str()) {
                cx.error(
                    f.ident,
                    format_args!(
                        "field `{}` would give the query builder a second method `{m}`: rename the \
                         field and keep the column name with #[cass(name = \"{}\")]",
                        f.ident, f.column
                    ),
                );
            } else if let Some(other) = seen.get(&m) {
                cx.error(
                    f.ident,
                    format_args!(
                        "fields `{}` and `{}` would both give the query builder a method `{m}`: \
                         rename one and keep its column name with #[cass(name = \"...\")]",
                        other.ident, f.ident
                    ),
                );
            } else {
                seen.insert(m, f);
            }
        }
    }
}

/// `#[cass(index)]`: a legal name, unique in the struct, and an index Cassandra accepts on
/// the column (checked against Cassandra 5.0; each message quotes the server's reason).
fn indexes(cx: &mut Ctxt, t: &Table<'_>) {
    let counter = t.counter_column();
    let partition_keys = t
        .fields
        .iter()
        .filter(|f| f.role == Role::PartitionKey)
        .count();
    let mut names: HashMap<&str, &Field<'_>> = HashMap::new();
    for (f, n, ix) in t
        .fields
        .iter()
        .flat_map(|f| f.indexes.iter().enumerate().map(move |(n, ix)| (f, n, ix)))
    {
        if duplicate_index(cx, f, n, ix) {
            continue;
        }
        index_name(cx, t, ix, &f.column);
        unique_index_name(cx, t, f, ix, &mut names);
        if index_refused(cx, t, f, ix, counter, partition_keys) {
            continue;
        }
        index_type(cx, f, ix);
    }
}

/// Reports `ix`, the `n`th index of `f`, if an earlier one has its target; `true` if so.
fn duplicate_index(cx: &mut Ctxt, f: &Field<'_>, n: usize, ix: &FieldIndex) -> bool {
    let col = &f.column;
    let target = f.target_of(ix);
    let Some(first) = f.indexes[..n]
        .iter()
        .find(|other| f.target_of(other) == target)
    else {
        return false;
    };
    let others = match f.collection {
        Some(crate::model::Collection::Map(..)) => {
            ": a map takes one index on each of its keys (`index(keys)`), values \
             (`index(values)`) and entries (`index(entries)`)"
        }
        _ => "",
    };
    cx.error(
        &ix.tokens,
        format_args!(
            "remove this index: `{col}` already has one on `{}` (`{}`), and Cassandra \
             takes one index per target (\"Index {} is a duplicate of existing index \
             {}\"){others}",
            target.cql(col),
            first.name,
            ix.name,
            first.name
        ),
    );
    true
}

/// A name given to an index (of column `col`) holds only the characters Cassandra allows.
fn index_name(cx: &mut Ctxt, t: &Table<'_>, ix: &FieldIndex, col: &str) {
    if ix.named
        && let Err(server) = validate_index_name(&ix.name)
    {
        let fixed: String = ix
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let fixed = if fixed.is_empty() {
            format!("{}_{col}_idx", t.name)
        } else {
            fixed
        };
        cx.error_at(
            ix.name_span,
            format_args!(
                "write e.g. `index(name = \"{fixed}\")`: an index name holds only ASCII \
                 letters, digits and `_` (Cassandra: \"{server}\")"
            ),
        );
    }
}

/// An index's name is not one of the `names` taken before it; else it is added to them.
fn unique_index_name<'a, 'f>(
    cx: &mut Ctxt,
    t: &Table<'_>,
    f: &'a Field<'f>,
    ix: &'a FieldIndex,
    names: &mut HashMap<&'a str, &'a Field<'f>>,
) {
    let col = &f.column;
    match names.get(ix.name.as_str()) {
        Some(first) => {
            let default = cassmodel_schema::default_index_name(&t.name, col);
            let other = if default == ix.name {
                format!("{default}_2")
            } else {
                default
            };
            cx.error_at(
                ix.name_span,
                format_args!(
                    "give this index another name, e.g. `index(name = \"{other}\")`: the \
                     index on `{}` is already named `{}`, and index names are unique in a \
                     keyspace (Cassandra: \"Index '{}' already exists\")",
                    first.column, ix.name, ix.name
                ),
            )
        }
        None => {
            names.insert(&ix.name, f);
        }
    }
}

/// Reports an index on a counter table or on the only partition-key column; `true` if so.
fn index_refused(
    cx: &mut Ctxt,
    t: &Table<'_>,
    f: &Field<'_>,
    ix: &FieldIndex,
    counter: Option<&Field<'_>>,
    partition_keys: usize,
) -> bool {
    let col = &f.column;
    if let Some(c) = counter {
        cx.error(
            &ix.tokens,
            format_args!(
                "remove `index`: `{}` is a counter table (`{}` is a counter), and Cassandra \
                 indexes no column of a counter table (\"Secondary indexes on counter tables \
                 aren't supported\"); to search by `{col}`, keep it in a regular table too",
                t.name, c.column
            ),
        );
        return true;
    }
    if f.role == Role::PartitionKey && partition_keys == 1 {
        cx.error(
            &ix.tokens,
            format_args!(
                "remove `index`: `{col}` is the only partition-key column, so \
                 `WHERE {col} = ?` already reads one partition without an index (Cassandra: \
                 \"Cannot create secondary index on the only partition key column {col}\")"
            ),
        );
        return true;
    }
    false
}

/// The index target against the field's type, where the syntax tells the type.
fn index_type(cx: &mut Ctxt, f: &Field<'_>, ix: &FieldIndex) {
    if similarity_not_vector(cx, f, ix) {
        return;
    }
    let Some(ty) = &f.cql_type else {
        return;
    };
    let target = IndexTarget::resolve(ix.target.map(|(t, _)| t), ty);
    let Some(v) = ty.index_violation(target) else {
        return;
    };
    let server = v.server_message(&f.column);
    let message = format!("{} (Cassandra: \"{server}\")", index_fix(&f.column, ty, v));
    match ix.target {
        Some((_, span)) => cx.error_at(span, message),
        None => cx.error(&ix.tokens, message),
    }
}

/// Reports `similarity` on the index of a field that is not a vector; `true` if so.
fn similarity_not_vector(cx: &mut Ctxt, f: &Field<'_>, ix: &FieldIndex) -> bool {
    let Some((_, span)) = ix.similarity else {
        return false;
    };
    if f.is_vector() {
        return false;
    }
    let ty = f.cql_type.as_ref().map_or_else(
        || {
            let t = f.ty;
            quote::quote!(#t).to_string()
        },
        ToString::to_string,
    );
    cx.error_at(
        span,
        format!(
            "remove `similarity`: it is the similarity function of a vector index, and \
             `{}` is `{ty}`, not a vector (`cassmodel::value::Vector<N>`) (Cassandra: \"{}\")",
            f.column,
            IndexViolation::SimilarityNotVector.server_message(&f.column)
        ),
    );
    true
}

/// What to write instead of an index Cassandra refuses on column `col` of type `ty`.
fn index_fix(col: &str, ty: &CqlType, v: IndexViolation) -> String {
    let frozen_collection = matches!(&ty, CqlType::Frozen(inner) if inner.is_collection());
    let kind = match &ty {
        CqlType::List(_) => "a list",
        CqlType::Set(_) => "a set",
        CqlType::Map(..) => "a map",
        _ if frozen_collection => "a frozen collection",
        _ => "not a collection",
    };
    match v {
        IndexViolation::NotMap(t) => format!(
            "write `#[cass(index)]` to index the elements (`values`): `{col}` is {kind}, and \
             `{t}` is for maps"
        ),
        IndexViolation::NotCollection(t) => format!(
            "write `#[cass(index)]`: `{col}` is {kind}, so the index is on its value; `{t}` is \
             for collections"
        ),
        IndexViolation::FrozenCollection(t) => format!(
            "write `#[cass(index)]` (for a frozen collection that is `index(full)`): `{col}` is \
             frozen, so it is indexed as a whole and `{t}` cannot pick a part of it"
        ),
        IndexViolation::FullNotFrozen if ty.is_collection() => format!(
            "write `#[cass(index)]` to index the elements of `{col}`, or make it \
             `#[cass(frozen)]` to index it as a whole: `full` is for frozen collections, and \
             `{col}` is {kind}"
        ),
        IndexViolation::FullNotFrozen => format!(
            "write `#[cass(index)]`: `full` is for frozen collections, and `{col}` is {kind}"
        ),
        IndexViolation::NonFrozenUdt => format!(
            "freeze the type to index it (`cql_type = \"{}\"`): Cassandra indexes a \
             user-defined type only as a whole",
            ty.clone().frozen()
        ),
        IndexViolation::Duration
        | IndexViolation::CollectionWithDuration
        | IndexViolation::TupleWithDuration => format!(
            "remove `index`: Cassandra cannot index durations; to search by `{col}`, store the \
             length as an integer (e.g. milliseconds)"
        ),
        IndexViolation::SimilarityNotVector => {
            format!("remove `similarity`: `{col}` is `{ty}`, not a vector")
        }
        IndexViolation::VectorNotFloat => format!(
            "make `{col}` a `vector<float, N>` (`cassmodel::value::Vector<N>`) to index it: \
             vector search compares vectors of `float`"
        ),
        IndexViolation::Blob => format!(
            "remove `index`: SAI does not index `blob` values, and `{col}` is `{ty}`; store a \
             searchable form (e.g. hex `text`) beside it to search by it"
        ),
    }
}

/// A projection's computed fields: functions cassmodel knows, each of one argument, casts to
/// a native type, functions of the models of fields; and, once one field is a native
/// aggregate, every field one (an aggregate reads one row of all the rows selected: another
/// field would read only the first row's value). Functions of the models follow the same
/// rule by their types (generated checks).
pub fn projection(cx: &mut Ctxt, p: &Projection<'_>) {
    for c in &p.computed {
        let mut nodes = Vec::new();
        c.tree.walk(&mut nodes);
        for n in nodes {
            selector(cx, n);
        }
    }
    let Some(aggregate) = p.computed.iter().find(|c| c.is_aggregate()) else {
        return;
    };
    let others = p
        .fields
        .iter()
        .map(|f| {
            let hint = format!(
                "read it with an aggregate too (e.g. `#[cass(select = max({}))]`) or in another \
                 projection",
                f.ident
            );
            (f.ident, format!("the column `{}`", f.ident), hint)
        })
        .chain(
            p.computed
                .iter()
                .filter(|c| !c.is_aggregate() && c.tree.user_calls().is_empty())
                .map(|c| {
                    let hint = "read it in another projection".to_owned();
                    (c.ident, format!("`{}`", c.cql()), hint)
                }),
        );
    for (ident, what, hint) in others {
        cx.error(
            ident,
            format_args!(
                "`{ident}` reads {what} beside the aggregate `{}`: an aggregate makes one row \
                 of all the rows the read selects, so `{ident}` would hold only the first \
                 row's value; {hint}",
                aggregate.cql()
            ),
        );
    }
}

/// One node of a selector: a known function with one argument; a cast to a native type; a
/// function of the models of fields.
fn selector(cx: &mut Ctxt, s: &Sel) {
    match s {
        Sel::Call {
            function,
            span,
            args,
            cast,
        } => native_call(cx, function, *span, args.len(), cast.as_ref()),
        Sel::User { path, args } => {
            for a in args.iter().filter(|a| !matches!(a, Sel::Field(_))) {
                cx.error(
                    path,
                    format_args!(
                        "`{}` is a function of the models, whose arguments are fields of the \
                         table (their types are checked against its struct's fields): pass \
                         fields, e.g. `{}(column)`, not `{}`",
                        quote::quote!(#path).to_string().replace(' ', ""),
                        quote::quote!(#path).to_string().replace(' ', ""),
                        a.cql()
                    ),
                );
            }
        }
        Sel::Field(_) | Sel::Op(..) | Sel::Number(_) => {}
    }
}

fn native_call(
    cx: &mut Ctxt,
    function: &str,
    span: proc_macro2::Span,
    arity: usize,
    cast: Option<&(String, proc_macro2::Span)>,
) {
    let Some(kind) = SelectorKind::of(function) else {
        let hint = if function.starts_with("similarity_") {
            "a similarity to a query vector is read by the query, not the projection: \
             `.read_as::<Projection>().similarity_<field>(Similarity::Cosine, &query)` \
             gives `Scored { score, row }` (after a vector search, `.with_score()`); "
        } else {
            "a user-defined function or aggregate is declared in the models with \
             `#[derive(CassFunction)]` or `#[derive(CassAggregate)]` and called by its struct's \
             name (`AvgRating(stars)`); "
        };
        cx.error_at(
            span,
            format_args!(
                "`{function}` is not a CQL function a projection can read: {hint}write \
                 `writetime`, `ttl`, `cast(column as type)`, an aggregate (`min`, `max`, \
                 `sum`, `avg`, `count`) or one of {}",
                crate::model::SCALAR_FUNCTIONS.join(", ")
            ),
        );
        return;
    };
    if arity != 1 {
        cx.error_at(
            span,
            format_args!("`{function}` takes one field of the table: write `{function}(column)`"),
        );
    }
    if kind == SelectorKind::Cast
        && let Some((to, span)) = cast
        && cassmodel_schema::NativeType::from_name(to).is_none()
    {
        cx.error_at(
            *span,
            format_args!(
                "`{to}` is not a CQL native type: cast to one, e.g. `cast(column as text)`, \
                 `as bigint`, `as double`, `as timestamp`"
            ),
        );
    }
}

/// A column's mask: one of the six masking functions, with the arguments it takes.
fn mask(cx: &mut Ctxt, f: &Field<'_>) {
    let Some(m) = &f.mask else { return };
    let Some(function) = m.function else {
        let known: Vec<&str> = cassmodel_schema::MASK_FUNCTIONS
            .iter()
            .map(|f| f.name())
            .collect();
        cx.error_at(
            m.span,
            format_args!(
                "`{}` is not a masking function of Cassandra: mask `{}` with one of {}",
                m.name,
                f.column,
                known.join(", ")
            ),
        );
        return;
    };
    if let Some(problem) = cassmodel_schema::Mask::problem(function, &m.args) {
        cx.error_at(
            m.span,
            format_args!("`{}` of `{}`: {problem}", function.name(), f.column),
        );
    }
    // The server takes a mask only when the function returns the column's type.
    let returns = match function {
        cassmodel_schema::MaskFunction::Inner | cassmodel_schema::MaskFunction::Outer => {
            Some(cassmodel_schema::NativeType::Text)
        }
        cassmodel_schema::MaskFunction::Hash => Some(cassmodel_schema::NativeType::Blob),
        _ => None,
    };
    if let (Some(returns), Some(t)) = (returns, &f.cql_type)
        && *t != CqlType::Native(returns)
    {
        cx.error_at(
            m.span,
            format_args!(
                "`{}` gives a `{}`, and `{}` is of type `{t}`: Cassandra masks a column only with a \
                 function of its own type; mask it with `mask_default()`, `mask_null()` or \
                 `mask_replace(<value>)`",
                function.name(),
                CqlType::Native(returns),
                f.column
            ),
        );
    }
    if function == cassmodel_schema::MaskFunction::Null && f.shape != Shape::Option {
        cx.error_at(
            m.span,
            format_args!(
                "`mask_null()` shows `{}` as null to every role without UNMASK, and `{}` cannot \
                 hold a null: declare the field `Option<..>`, or mask with `mask_default()`",
                f.column, f.ident
            ),
        );
    }
}

/// An entity's identity table is one of its tables (its key fields are checked against the
/// other tables' by the generated code, where their fields are known).
pub fn entity(cx: &mut Ctxt, e: &Entity<'_>) {
    let Some(identity) = &e.identity else {
        return;
    };
    let name = |p: &syn::Path| {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        segments.join("::")
    };
    if !e.tables.iter().any(|t| name(t) == name(identity)) {
        let listed = e.tables.iter().map(name).collect::<Vec<_>>().join(", ");
        cx.error(
            identity,
            format_args!(
                "the identity table of `{}` is one of its tables ({listed}): name one of them, \
                 or add `{}` to #[cass(tables(..))]",
                e.ident,
                name(identity)
            ),
        );
    }
}

/// A function's or aggregate's struct: what it needs (a result type and a body; a state
/// function), the language Cassandra runs, and at most six parameters (the arity the
/// runtime's checks of calls cover).
pub fn routine(cx: &mut Ctxt, r: &Routine<'_>) {
    let a = &r.attrs;
    if r.params.len() > 6 {
        cx.error(
            r.ident,
            "a function of the models takes at most six parameters: pass fewer columns, or \
             a user-defined type or tuple holding them",
        );
    }
    if r.aggregate {
        if a.state_function.is_none() {
            cx.error(
                r.ident,
                format_args!(
                    "name the aggregate's state function: `#[cass(state_function = StateFn)]` \
                     above `struct {}` (a `#[derive(CassFunction)]` struct whose first field \
                     is the state, then one field per field of `{}`)",
                    r.ident, r.ident
                ),
            );
        }
        if r.params.is_empty() {
            cx.error(
                r.ident,
                "an aggregate reads at least one column: give the struct one field per argument",
            );
        }
        return;
    }
    if a.returns.is_none() {
        cx.error(
            r.ident,
            format_args!(
                "a function returns a value: write `#[cass(returns = f64)]` above `struct {}` \
                 with the Rust type of its result",
                r.ident
            ),
        );
    }
    if a.body.is_none() {
        cx.error(
            r.ident,
            format_args!(
                "a function needs its body: write `#[cass(body = \"return a / b;\")]` above \
                 `struct {}` (Java; its parameters are the struct's fields)",
                r.ident
            ),
        );
    }
    if let Some(l) = &a.language
        && !["java", "javascript"].contains(&l.value.as_str())
    {
        cx.error_at(
            l.span,
            format_args!(
                "Cassandra runs user-defined functions in `java` (and `javascript` before 5.0), \
                 not `{}`: write `language = \"java\"` or leave it out",
                l.value
            ),
        );
    }
}
