//! Restrictions on regular and static columns: through the column's index where it answers
//! them, else only with `ALLOW FILTERING`, with a message that names the way out.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::generate::{Cx, imp, keys, marker};
use crate::model::{Collection, Field};
use cassmodel_schema::{IndexOp, IndexTarget};

use super::ann::ann_column;
use super::states::range_ops;

/// A restriction method on a regular or static column: its name, its CQL for the docs, what
/// it asks of an index, its parameters and the call on the runtime builder (`restrict(..)`).
pub(super) struct Filter {
    name: syn::Ident,
    cql: String,
    op: IndexOp,
    params: TokenStream,
    body: TokenStream,
}

/// The restrictions a regular or static column offers: `col(v)` and the ranges on a value,
/// `col_contains(v)` on a list or set, and on a map also `col_contains_key(k)` and
/// `col_entry(k, v)`. Each is bound by a trait that admits the states Cassandra accepts: the
/// index's (`__Ix_col`, any state where an indexed column may come, see `keys`) when the
/// column's index answers it, else `ALLOW FILTERING` only, with a message that names the way
/// out. `col(v)` on a non-frozen collection exists only to say why not.
pub(super) fn filter_column(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    if f.is_vector() {
        return ann_column(cx, f);
    }
    let mut items = Vec::new();
    let mut refused = None;
    let filters = match f.collection {
        None => value_filters(cx, f),
        Some(c) => {
            let (tr, method) = collection_eq(cx, f);
            items.push(tr);
            refused = Some(method);
            collection_filters(cx, f, c)
        }
    };
    let mut traits = std::collections::BTreeMap::new();
    let methods: Vec<TokenStream> = filters
        .iter()
        .map(|m| filter_method(cx, f, m, &mut traits))
        .collect();
    items.extend(traits.into_values());
    (quote!(#(#items)*), quote!(#refused #(#methods)*))
}

/// The call `restrict(..)` on the runtime builder for operator `op` on `f`, with `bound`.
fn restrict(cx: &Cx<'_>, f: &Field<'_>, op: &str, bound: TokenStream) -> TokenStream {
    let (p, idx) = (&cx.p, f.position);
    let op = format_ident!("{op}");
    quote!(restrict(#idx, #p::query::Op::#op, #bound))
}

/// `col(v)` and the ranges on a column that is not a collection.
fn value_filters(cx: &Cx<'_>, f: &Field<'_>) -> Vec<Filter> {
    let (col, name) = (&f.column, f.ident);
    let value = format_ident!("value");
    let (param, bound) = (cx.param(&value, f.ty), cx.bound(&value));
    let mut filters = vec![Filter {
        name: name.clone(),
        cql: format!("`{col} = ?`"),
        op: IndexOp::Eq,
        params: param.clone(),
        body: restrict(cx, f, "Eq", bound.clone()),
    }];
    for (method, op, cql, _) in range_ops(f) {
        filters.push(Filter {
            name: method,
            cql: format!("`{col} {cql} ?`"),
            op: IndexOp::Range,
            params: param.clone(),
            body: restrict(cx, f, op, bound.clone()),
        });
    }
    filters
}

/// `col_contains(v)` on collection `c`, and `col_contains_key(k)` and `col_entry(k, v)` on a map.
fn collection_filters(cx: &Cx<'_>, f: &Field<'_>, c: Collection<'_>) -> Vec<Filter> {
    let p = &cx.p;
    let (col, name, idx) = (&f.column, f.ident, f.position);
    let value = format_ident!("value");
    let arg = |ty: &syn::Type, a: &syn::Ident| (cx.param(a, ty), cx.bound(a));
    let (elem, map_key) = match c {
        Collection::List(e) | Collection::Set(e) => (e, None),
        Collection::Map(k, v) => (v, Some(k)),
    };
    let (param, bound) = arg(elem, &value);
    let mut filters = vec![Filter {
        name: format_ident!("{}_contains", name),
        cql: format!("`{col} CONTAINS ?`"),
        op: IndexOp::Contains,
        params: param,
        body: restrict(cx, f, "Contains", bound),
    }];
    if let Some(k) = map_key {
        let key = format_ident!("key");
        let ((kp, kb), (vp, vb)) = (arg(k, &key), arg(elem, &value));
        filters.push(Filter {
            name: format_ident!("{}_contains_key", name),
            cql: format!("`{col} CONTAINS KEY ?`"),
            op: IndexOp::ContainsKey,
            params: kp.clone(),
            body: quote!(restrict(#idx, #p::query::Op::ContainsKey, #kb)),
        });
        filters.push(Filter {
            name: format_ident!("{}_entry", name),
            cql: format!("`{col}[?] = ?`: the entry `key` holds `value`"),
            op: IndexOp::Entry,
            params: quote!(#kp, #vp),
            body: quote!(restrict_entry(#idx, #kb, #vb)),
        });
    }
    filters
}

/// The method of restriction `m` on `f`; its trait's marker and impl go in `traits`, once each.
fn filter_method(
    cx: &Cx<'_>,
    f: &Field<'_>,
    m: &Filter,
    traits: &mut std::collections::BTreeMap<String, TokenStream>,
) -> TokenStream {
    let (q, p, st, kd, name) = (cx.q, &cx.p, &cx.st, &cx.kd, f.ident);
    let (tr, how) = filter_trait(cx, f, m.op);
    traits.entry(tr.to_string()).or_insert_with(|| {
        let (message, label, note) = filter_message(cx, f, m.op);
        let mark = marker(&tr, &message, &label, &note);
        let impls = if f.index_serves(m.op) {
            let base = keys::index_base();
            quote!(impl<X: #base> #tr for X {})
        } else {
            imp(&tr, quote!(#st::Filtering))
        };
        quote!(#mark #impls)
    });
    let (fname, params, body) = (&m.name, &m.params, &m.body);
    let doc = format!("{}{how}", m.cql);
    quote_spanned! {name.span()=>
        #[doc = #doc]
        pub fn #fname(self, #params) -> #q<'a, #p::query::IndexNext<S>, #kd::Select, R>
        where
            S: #tr + #p::query::Transitions,
        {
            #q(self.0.#body)
        }
    }
}

/// The trait that admits `op` on `f`, and how the method's doc says it runs: through the
/// column's index (`__Ix_col`), or only with `ALLOW FILTERING` (`__Filter_col` without an
/// index, `__NoRange_col`, `__NoContains_col`, ... when the index does not answer `op`).
pub(super) fn filter_trait(cx: &Cx<'_>, f: &Field<'_>, op: IndexOp) -> (syn::Ident, String) {
    let (name, ident) = (f.ident, cx.ident);
    match (f.index_for(op), f.indexes.first()) {
        (Some(ix), _) => (
            format_ident!("__Ix_{}", name),
            format!(
                ", through the SAI index `{}`: with no key column (across partitions), or \
                 after the whole partition key by `=`; other indexed columns may follow",
                ix.name
            ),
        ),
        (None, Some(_)) => (
            format_ident!("__No{}_{}", format!("{op:?}"), name),
            format!(
                " (only after `{ident}::select_allow_filtering()`: the column's index does not answer it)"
            ),
        ),
        (None, None) => (
            format_ident!("__Filter_{}", name),
            format!(
                " (only after `{ident}::select_allow_filtering()`, or with `#[cass(index)]` on the field)"
            ),
        ),
    }
}

/// The message, label and note of [`filter_trait`]'s trait.
pub(super) fn filter_message(cx: &Cx<'_>, f: &Field<'_>, op: IndexOp) -> (String, String, String) {
    let (table, ident, col, field) = (cx.table, cx.ident, &f.column, f.ident);
    let scan = format!("opt in to the scan with `{ident}::select_allow_filtering()`");
    let what = |op: IndexOp| match op {
        IndexOp::Eq => "`=`",
        IndexOp::Range => "a range",
        IndexOp::Contains => "`CONTAINS`",
        IndexOp::ContainsKey => "`CONTAINS KEY`",
        IndexOp::Entry => "a map entry (`m[k] = v`)",
        IndexOp::Ann => "a vector search",
    };
    if f.index_serves(op) {
        return (
            format!(
                "`{table}`: cannot restrict the indexed column `{col}` here: give no key column, \
                 or the whole partition key ({}) by `=`",
                cx.t.partition_key_names()
            ),
            format!("indexed column `{col}`"),
            keys::order_note(cx),
        );
    }
    let Some(target) = f.index_target() else {
        let index = match f.collection {
            None => format!("`#[cass(index)]` on `{field}`"),
            Some(Collection::Map(..)) => format!(
                "`#[cass(index)]` (values: `CONTAINS`), `#[cass(index(keys))]` (`CONTAINS KEY`) \
                 or `#[cass(index(entries))]` (`m[k] = v`) on `{field}`"
            ),
            Some(_) => format!("`#[cass(index)]` on `{field}` (its elements: `CONTAINS`)"),
        };
        return (
            format!(
                "`{table}`: `{col}` is not part of the primary key and has no index, so \
                 Cassandra cannot find rows by it without scanning"
            ),
            format!("`{col}` has no index"),
            format!(
                "two ways out: declare an SAI index, {index}; or {scan}. A table keyed by \
                 `{col}` (one table per query) is the third"
            ),
        );
    };
    let current = target.cql(col);
    let message = match IndexTarget::for_op(op) {
        Some(needed) => format!(
            "`{table}`: {} on `{col}` needs an index on its {}: add \
             `#[cass(index({}))]` on `{field}`",
            what(op),
            match needed {
                IndexTarget::Keys => "keys",
                IndexTarget::Entries => "entries",
                _ => "values",
            },
            needed.modifier().unwrap_or("values"),
        ),
        None => format!(
            "`{table}`: the index on `{col}` answers `=` only: SAI ranges work on numbers, \
             dates, times, timestamps, timeuuids and inet addresses{}",
            match &f.cql_type {
                Some(t) => format!(", not on `{t}`"),
                None =>
                    format!(" (cassmodel cannot tell the CQL type of `{col}` from its Rust type)"),
            }
        ),
    };
    (
        message,
        format!("{} on `{col}`", what(op)),
        format!("its index is `{current}`, one index per field; or {scan}"),
    )
}

/// `col(v)` on a non-frozen collection, which exists to say why not: its trait and method.
pub(super) fn collection_eq(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    let table = cx.table;
    let (col, name) = (&f.column, f.ident);
    let tr = format_ident!("__Whole_{}", name);
    let m = marker(
        &tr,
        &format!(
            "`{table}`: `{col}` is a non-frozen collection, which Cassandra cannot compare with \
             `=`"
        ),
        "`=` on a collection column",
        &format!(
            "search its elements with `.{name}_contains(..)`{}, or keep a table keyed by the \
             values of `{col}` (one table per query)",
            if matches!(f.collection, Some(Collection::Map(..))) {
                format!(", `.{name}_contains_key(..)` or `.{name}_entry(key, value)`")
            } else {
                String::new()
            }
        ),
    );
    let param = cx.param(&format_ident!("value"), f.ty);
    let method = quote_spanned! {name.span()=>
        #[doc(hidden)]
        pub fn #name(self, #param) -> Self
        where
            S: #tr,
        {
            let _ = value;
            self
        }
    };
    (m, method)
}
