//! The read side of a table's query builder: `Post::select()...`.
//!
//! Each column gets one-line methods (`user_id(..)`, `post_id_gt(..)`, `order_by_post_id(..)`)
//! whose method-level `where S: Trait` bound admits exactly the states in which Cassandra
//! accepts that restriction. The traits are generated per column so that their
//! `#[diagnostic::on_unimplemented]` message names the column and what to give first; the
//! states (`Key<N>`, `Range<N, LO, HI>`, `Filtering`), their transitions and all the work are
//! generic runtime code (`__private::query::Query`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::{Cx, imp, keys, list, marker};
use crate::attr::Order;
use crate::model::{Collection, Field, Role};
use cassmodel_schema::{IndexOp, IndexTarget};

/// The builder's read side: per-column traits and methods, options, and the reads.
pub fn generate(cx: &Cx<'_>) -> TokenStream {
    let q = cx.q;
    let key = cx.t.primary_key();
    let mut items = Vec::new();
    let mut methods = Vec::new();
    for i in 0..key.len() {
        let (column_items, column_methods) = key_column(cx, &key, i);
        items.push(column_items);
        methods.push(column_methods);
    }
    let mut filters = Vec::new();
    for f in cx.t.fields.iter().filter(|f| !f.role.is_key()) {
        let (column_items, column_methods) = filter_column(cx, f);
        items.push(column_items);
        filters.push(column_methods);
    }
    for f in &cx.t.fields {
        let (column_items, column_methods) = order_by(cx, f);
        items.push(column_items);
        methods.push(column_methods);
    }
    let options = options(cx);
    let reads = reads(cx);
    let kd = &cx.kd;
    quote! {
        #(#items)*
        impl<'a, S, K, R> #q<'a, S, K, R> {
            #(#methods)*
            #options
        }

        #[allow(dead_code, clippy::wrong_self_convention)]
        impl<'a, S, R> #q<'a, S, #kd::Select, R> {
            #(#filters)*
        }

        #reads
    }
}

/// Key column `i`: `col(v)` and `col_in(vs)` after the columns before it, then either ranges
/// (a clustering column) or range methods that exist only to say why not (partition key).
fn key_column(cx: &Cx<'_>, key: &[&Field<'_>], i: usize) -> (TokenStream, TokenStream) {
    let (q, p, st, krate) = (cx.q, &cx.p, &cx.st, cx.krate);
    let f = key[i];
    let (col, name, ty, idx) = (&f.column, f.ident, f.ty, f.position);
    let eq = format_ident!("__Eq_{}", name);
    let before = cx.t.state_before(i);
    if cx.t.is_bucket_source(f) {
        return bucket_source(cx, key, i);
    }
    let message = format!(
        "`{}`: `{col}` cannot be restricted here: it is restricted already, or an indexed column \
         came before it (key columns come first, each once, in key order)",
        cx.table
    );
    let mut items = vec![
        marker(
            &eq,
            &message,
            &format!("`{col}` restricted here"),
            &keys::order_note(cx),
        ),
        key_impls(cx, &quote!(), &quote!(#eq), before, after_eq(cx, before)),
        imp(&eq, quote!(#st::Filtering)),
    ];
    let next = cx.t.state_after(i);
    let to = quote!(#q<'a, #p::query::EqNext<S, #next>, K, R>);
    // `IN` on a partition-key column is carried in the state: a reverse read cannot be paged
    // with it, and an indexed column cannot follow it.
    let (to_in, in_state) = if f.role == Role::PartitionKey {
        (
            quote!(#q<'a, #p::query::InNext<S, #next>, K, R>),
            quote!(#st::Key<#next, true>),
        )
    } else {
        (to.clone(), quote!(#st::Key<#next>))
    };
    let in_name = format_ident!("{}_in", name);
    let (param, bound) = (
        cx.param(&format_ident!("value"), ty),
        cx.bound(ty, &format_ident!("value")),
    );
    let (doc_eq, doc_in) = (
        format!("`{col} = ?`"),
        format!("`{col} IN ?`: any of `values`."),
    );
    let mut methods = quote_spanned! {name.span()=>
        #[doc = #doc_eq]
        pub fn #name(self, #param) -> #to
        where
            S: #eq + #p::query::AfterEq<#st::Key<#next>>,
        {
            #q(self.0.restrict(#idx, #p::query::Op::Eq, #bound))
        }

        #[doc = #doc_in]
        pub fn #in_name<V>(self, values: &'a [V]) -> #to_in
        where
            S: #eq + #p::query::AfterEq<#in_state>,
            V: #krate::BindAs<#ty> + ::core::marker::Send,
        {
            #q(self.0.restrict(#idx, #p::query::Op::In, #p::query::Bound::list(values)))
        }
    };
    let (range_items, range_methods) = if f.role == Role::PartitionKey {
        refused_ranges(cx, f)
    } else {
        ranges(cx, key, i)
    };
    items.push(range_items);
    methods.extend(range_methods);
    (quote!(#(#items)*), methods)
}

/// The bucket's source (the first clustering column): `src(v)` restricts the bucket and the
/// source at once, after the declared partition key; `src_range(from..to)` (on a SELECT, in
/// `reads`) reads a range over the buckets; `src_in` and the single-bound ranges exist to say
/// why not; the bucket column's own methods, to say it is never given by hand.
fn bucket_source(cx: &Cx<'_>, key: &[&Field<'_>], i: usize) -> (TokenStream, TokenStream) {
    let (q, p, st, krate) = (cx.q, &cx.p, &cx.st, cx.krate);
    let f = key[i];
    let Some(b) = cx.t.bucket.as_ref() else {
        return (quote!(), quote!());
    };
    let (col, name, ty, idx) = (&f.column, f.ident, f.ty, f.position);
    let next = cx.t.state_after(i);
    let (bucket_idx, bucket) = (b.index, &b.column);
    let rule = b.rule.map(|r| super::bucket_rule(krate, r));
    let eq = format_ident!("__Eq_{}", name);
    let no = format_ident!("__NoBound_{}", name);
    let by_hand = format_ident!("__ByHand_{}", bucket);
    let items = bucket_markers(cx, key, i, b);
    let doc_eq = format!("`{col} = ?` and `{bucket} = ?` with its bucket.");
    let refused = range_ops(f)
        .into_iter()
        .map(|(method, ..)| method)
        .chain([format_ident!("{}_in", name)]);
    let bucket_methods = [format_ident!("{}", bucket), format_ident!("set_{}", bucket)];
    let eq_method = rule.map(|rule| {
        quote_spanned! {name.span()=>
            #[doc = #doc_eq]
            pub fn #name(self, value: &'a #ty) -> #q<'a, #p::query::EqNext<S, #next>, K, R>
            where
                S: #eq + #p::query::AfterEq<#st::Key<#next>>,
            {
                #q(self.0.restrict_bucketed(
                    #bucket_idx,
                    #p::bucket::bucket_of(value, #rule),
                    #idx,
                    #krate::BindAs::<#ty>::__bound(value),
                ))
            }
        }
    });
    let methods = quote! {
        #eq_method
        #(
            #[doc(hidden)]
            pub fn #refused<V>(self, value: V) -> #q<'a, #p::query::EqNext<S, #next>, K, R>
            where
                S: #no + #p::query::AfterEq<#st::Key<#next>>,
            {
                let _ = value;
                #q(self.0.to())
            }
        )*
        #(
            #[doc(hidden)]
            pub fn #bucket_methods<V>(self, value: V) -> Self
            where
                S: #by_hand,
            {
                let _ = value;
                self
            }
        )*
    };
    (items, methods)
}

/// The marker traits of a bucket's source (see [`bucket_source`]), with their impls.
fn bucket_markers(
    cx: &Cx<'_>,
    key: &[&Field<'_>],
    i: usize,
    b: &crate::model::TableBucket,
) -> TokenStream {
    let st = &cx.st;
    let f = key[i];
    let (col, name) = (&f.column, f.ident);
    let before = cx.t.state_before(i);
    let (table, bucket) = (cx.table, &b.column);
    let eq = format_ident!("__Eq_{}", name);
    let no = format_ident!("__NoBound_{}", name);
    let by_hand = format_ident!("__ByHand_{}", bucket);
    let eq_marker = marker(
        &eq,
        &format!("`{table}`: `{col}` cannot be restricted here: it is restricted already"),
        &format!("`{col}` restricted here"),
        &keys::order_note(cx),
    );
    let range_tr = format_ident!("__BucketRange_{}", name);
    let range_marker = marker(
        &range_tr,
        &format!(
            "`{table}`: a range of `{col}` over its buckets needs the rest of the partition key \
             first: {}",
            cx.t.partition_key()
                .iter()
                .map(|f| format!("`{}`", f.column))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "partition key incomplete",
        &keys::order_note(cx),
    );
    let no_marker = marker(
        &no,
        &format!(
            "`{table}`: `{col}` gives the bucket `{bucket}`, so it is restricted by `=` \
             (`.{name}(..)`) or by a range with both ends (`.{name}_range(from..to)`)"
        ),
        "one bound or `IN` on a bucket's source",
        "a bucket is a partition: a range is read bucket by bucket, so it needs its first and \
         last bucket; each `IN` value would be a partition of its own",
    );
    let by_hand_marker = marker(
        &by_hand,
        &format!(
            "`{table}`: `{bucket}` is a bucket computed from `{col}` on every write: it is never \
             given by hand"
        ),
        "bucket column",
        &format!(
            "give `{col}` instead: `.{name}(..)` for one value, `.{name}_range(from..to)` for a \
             range over its buckets; a write fills `{bucket}` from the row's `{col}`"
        ),
    );
    let (eq_impls, range_impls) = (
        key_impls(cx, &quote!(), &quote!(#eq), before, after_eq(cx, before)),
        key_impls(
            cx,
            &quote!(),
            &quote!(#range_tr),
            before,
            after_eq(cx, before),
        ),
    );
    quote! {
        #eq_marker
        #eq_impls
        impl #eq for #st::Filtering {}
        #range_marker
        #range_impls
        #no_marker
        #by_hand_marker
    }
}

/// `<source>_range(from..to)` of a bucketed table, on a SELECT.
fn bucket_range(cx: &Cx<'_>) -> Option<TokenStream> {
    let (krate, ident) = (cx.krate, cx.ident);
    let b = cx.t.bucket.as_ref()?;
    let rule = super::bucket_rule(krate, b.rule?);
    let f = &cx.t.fields[b.source];
    let (name, ty, idx, col) = (f.ident, f.ty, f.position, &f.column);
    let method = format_ident!("{}_range", name);
    let tr = format_ident!("__BucketRange_{}", name);
    let bucket_idx = b.index;
    let doc = format!(
        "The rows whose `{col}` is in `range` (`from..to` or `from..=to`), read over the \
         buckets `{}` in range, one query per bucket, in clustering order.",
        b.column
    );
    Some(quote_spanned! {name.span()=>
        #[doc = #doc]
        pub fn #method(
            self,
            range: impl #krate::BucketRange<#ty>,
        ) -> #krate::BucketRead<'a, #ident, R>
        where
            S: #tr,
        {
            self.0.bucket_range(#bucket_idx, #idx, #rule, range)
        }
    })
}

/// `_gt`, `_ge`, `_lt`, `_le` names with their operators and whether each is an upper bound.
fn range_ops(f: &Field<'_>) -> [(syn::Ident, &'static str, &'static str, bool); 4] {
    let n = f.ident;
    [
        (format_ident!("{}_gt", n), "Gt", ">", false),
        (format_ident!("{}_ge", n), "Ge", ">=", false),
        (format_ident!("{}_lt", n), "Lt", "<", true),
        (format_ident!("{}_le", n), "Le", "<=", true),
    ]
}

/// The impls of a key column's trait `tr` (with the trait's own `generics`): in key state
/// `n` (where the column is restricted); in the states before it, under the bound that names
/// the first column missing; after a range on an earlier clustering column (or this one),
/// under the bound that says nothing may follow a range (range states up to `ranges_end`,
/// excluded).
fn key_impls(
    cx: &Cx<'_>,
    generics: &TokenStream,
    tr: &TokenStream,
    n: usize,
    ranges_end: usize,
) -> TokenStream {
    let (flags, state) = (keys::flags(), keys::key_state(cx, n));
    let ranges = cx.t.partition_state()..ranges_end;
    let missing = keys::missing_impls(cx, generics, tr, 0..n);
    let after = keys::after_range_impls(cx, generics, tr, ranges);
    quote! {
        impl<#generics #flags> #tr for #state {}
        #missing
        #after
    }
}

/// The end of the range states in which `=` on the key column restricted from state `n` says
/// that nothing may follow a range: ranges on earlier columns, and on this one.
fn after_eq(cx: &Cx<'_>, n: usize) -> usize {
    (n + 1).min(cx.t.full_key_state())
}

/// Ranges on clustering column `i`: after the key columns before it, at most one lower and
/// one upper bound.
fn ranges(cx: &Cx<'_>, key: &[&Field<'_>], i: usize) -> (TokenStream, TokenStream) {
    let (q, p, st) = (cx.q, &cx.p, &cx.st);
    let f = key[i];
    let (col, ty, idx) = (&f.column, f.ty, f.position);
    let tr = format_ident!("__Range_{}", f.ident);
    let message = format!(
        "`{}`: cannot put a range on `{col}` here: it is restricted already (at most one \
         lower and one upper bound), or an indexed column came before it",
        cx.table,
    );
    let i = cx.t.state_before(i);
    let (label, note) = (format!("range on `{col}`"), keys::order_note(cx));
    let bool_ = quote!(::core::primitive::bool);
    let (upper, flags) = (quote!(const UPPER: #bool_,), keys::flags());
    let key = key_impls(cx, &upper, &quote!(#tr<UPPER>), i, i);
    let items = quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #tr<const UPPER: #bool_> {}
        #key
        impl<#flags> #tr<false> for #st::Range<#i, false, true, IN, REV> {}
        impl<#flags> #tr<true> for #st::Range<#i, true, false, IN, REV> {}
        impl<const UPPER: #bool_> #tr<UPPER> for #st::Filtering {}
    };
    let (param, bound) = (
        cx.param(&format_ident!("value"), ty),
        cx.bound(ty, &format_ident!("value")),
    );
    let methods = range_ops(f).into_iter().map(|(method, op, cql, upper)| {
        let (doc, op) = (format!("`{col} {cql} ?`"), format_ident!("{op}"));
        quote_spanned! {f.ident.span()=>
            #[doc = #doc]
            pub fn #method(self, #param) -> #q<'a, #p::query::RangeNext<S, #i, #upper>, K, R>
            where
                S: #tr<#upper> + #p::query::AfterRange<#i, #upper>,
            {
                #q(self.0.restrict(#idx, #p::query::Op::#op, #bound))
            }
        }
    });
    (items, quote!(#(#methods)*))
}

/// Range methods on a partition-key column, which exist to say why not.
fn refused_ranges(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    let (col, name) = (&f.column, f.ident);
    let no = format_ident!("__NoRange_{}", name);
    let items = marker(
        &no,
        &format!(
            "`{}`: `{col}` is part of the partition key: restrict it with `=` (`.{name}(..)`) or \
             `IN` (`.{name}_in(..)`), never with a range",
            cx.table
        ),
        "range on a partition-key column",
        "the partition key is hashed to pick the nodes that hold a partition, so only whole \
         values can be looked up; ranges work on clustering columns",
    );
    let param = cx.param(&format_ident!("value"), f.ty);
    let methods = range_ops(f).into_iter().map(|(method, _, _, _)| {
        quote_spanned! {name.span()=>
            #[doc(hidden)]
            pub fn #method(self, #param) -> Self
            where
                S: #no,
            {
                let _ = value;
                self
            }
        }
    });
    (items, quote!(#(#methods)*))
}

/// A restriction method on a regular or static column: its name, its CQL for the docs, what
/// it asks of an index, its parameters and the call on the runtime builder (`restrict(..)`).
struct Filter {
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
fn filter_column(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    if f.is_vector() {
        return ann_column(cx, f);
    }
    let (q, p, st) = (cx.q, &cx.p, &cx.st);
    let (col, name, idx) = (&f.column, f.ident, f.position);
    let value = format_ident!("value");
    let arg = |ty: &syn::Type, a: &syn::Ident| (cx.param(a, ty), cx.bound(ty, a));
    let restrict = |op: &str, bound: TokenStream| {
        let op = format_ident!("{op}");
        quote!(restrict(#idx, #p::query::Op::#op, #bound))
    };
    let mut filters = Vec::new();
    let mut items = Vec::new();
    let mut refused = None;
    match f.collection {
        None => {
            let (param, bound) = arg(f.ty, &value);
            filters.push(Filter {
                name: name.clone(),
                cql: format!("`{col} = ?`"),
                op: IndexOp::Eq,
                params: param.clone(),
                body: restrict("Eq", bound.clone()),
            });
            for (method, op, cql, _) in range_ops(f) {
                filters.push(Filter {
                    name: method,
                    cql: format!("`{col} {cql} ?`"),
                    op: IndexOp::Range,
                    params: param.clone(),
                    body: restrict(op, bound.clone()),
                });
            }
        }
        Some(c) => {
            let (tr, method) = collection_eq(cx, f);
            items.push(tr);
            refused = Some(method);
            let (elem, map_key) = match c {
                Collection::List(e) | Collection::Set(e) => (e, None),
                Collection::Map(k, v) => (v, Some(k)),
            };
            let (param, bound) = arg(elem, &value);
            filters.push(Filter {
                name: format_ident!("{}_contains", name),
                cql: format!("`{col} CONTAINS ?`"),
                op: IndexOp::Contains,
                params: param,
                body: restrict("Contains", bound),
            });
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
        }
    }
    let kd = &cx.kd;
    let mut traits = std::collections::BTreeMap::new();
    let methods: Vec<TokenStream> = filters
        .iter()
        .map(|m| {
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
        })
        .collect();
    items.extend(traits.into_values());
    (quote!(#(#items)*), quote!(#refused #(#methods)*))
}

/// A vector column: `ann_col(&query)`, a vector search (`ORDER BY col ANN OF ?`) in the
/// states an indexed column may be restricted in (`__IndexBase`), when the column has an
/// index; without one the method exists to say so. Vector columns take no `=` or range
/// ("Vector indexes only support ANN queries").
fn ann_column(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    let (q, p, kd, st) = (cx.q, &cx.p, &cx.kd, &cx.st);
    let (table, col, name, idx, ty) = (cx.table, &f.column, f.ident, f.position, f.ty);
    let tr = format_ident!("__Ann_{}", name);
    let method = format_ident!("ann_{}", name);
    let (doc, items) = match &f.index {
        Some(ix) if f.index_serves(IndexOp::Ann) => {
            let base = keys::index_base();
            let mark = marker(
                &tr,
                &format!(
                    "`{table}`: a vector search on `{col}` comes with no key column, or after the \
                     whole partition key ({}) by `=`",
                    cx.t.partition_key_names()
                ),
                &format!("vector search on `{col}`"),
                &keys::order_note(cx),
            );
            (
                format!(
                    "`ORDER BY {col} ANN OF ?`: the rows whose `{col}` is nearest `query` first \
                     (by the similarity function of the SAI index `{}`). Needs `.limit(k)` \
                     (at most 1000) before it is read, in one request; `.with_score()` reads \
                     each row's similarity too. With no key column (across partitions) or \
                     after the whole partition key by `=`; indexed columns may restrict it \
                     further.",
                    ix.name
                ),
                quote!(#mark impl<X: #base> #tr for X {}),
            )
        }
        _ => {
            let mark = marker(
                &tr,
                &format!(
                    "`{table}`: a vector search on `{col}` needs an SAI index: write \
                     `#[cass(index)]` on `{name}`"
                ),
                &format!("`{col}` has no index"),
                "Cassandra: \"ANN ordering by vector requires the column to be indexed\"; the \
                 index's similarity function is `cosine` unless given, e.g. \
                 `#[cass(index(similarity = \"dot_product\"))]`",
            );
            (
                format!("`ORDER BY {col} ANN OF ?` needs `#[cass(index)]` on `{name}`."),
                mark,
            )
        }
    };
    let method = quote_spanned! {name.span()=>
        #[doc = #doc]
        pub fn #method(
            self,
            query: &'a impl #p::query::QueryVector<#ty>,
        ) -> #q<'a, #st::Nearest<false>, #kd::Select, R>
        where
            S: #tr + #p::query::AnnBase,
        {
            #q(self.0.ann(#idx, #p::query::Bound::Value(query)))
        }
    };
    (items, method)
}

/// The trait that admits `op` on `f`, and how the method's doc says it runs: through the
/// column's index (`__Ix_col`), or only with `ALLOW FILTERING` (`__Filter_col` without an
/// index, `__NoRange_col`, `__NoContains_col`, ... when the index does not answer `op`).
fn filter_trait(cx: &Cx<'_>, f: &Field<'_>, op: IndexOp) -> (syn::Ident, String) {
    let (name, ident) = (f.ident, cx.ident);
    match &f.index {
        Some(ix) if f.index_serves(op) => (
            format_ident!("__Ix_{}", name),
            format!(
                ", through the SAI index `{}`: with no key column (across partitions), or \
                 after the whole partition key by `=`; other indexed columns may follow",
                ix.name
            ),
        ),
        Some(_) => (
            format_ident!("__No{}_{}", format!("{op:?}"), name),
            format!(
                " (only after `{ident}::select_allow_filtering()`: the column's index does not answer it)"
            ),
        ),
        None => (
            format_ident!("__Filter_{}", name),
            format!(
                " (only after `{ident}::select_allow_filtering()`, or with `#[cass(index)]` on the field)"
            ),
        ),
    }
}

/// The message, label and note of [`filter_trait`]'s trait.
fn filter_message(cx: &Cx<'_>, f: &Field<'_>, op: IndexOp) -> (String, String, String) {
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
            "`{table}`: {} on `{col}` needs an index on its {}: write \
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
fn collection_eq(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
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

/// `order_by_col(order)`: the first clustering column with the partition key given; on any
/// other column it exists to say why not.
fn order_by(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    let (krate, table, col, q, p) = (cx.krate, cx.table, &f.column, cx.q, &cx.p);
    let ck = cx.t.clustering();
    let first = ck.first().copied();
    let method = format_ident!("order_by_{}", f.ident);
    let (items, bound) = if first.is_some_and(|c| c.position == f.position) {
        (quote!(), keys::partition_given())
    } else {
        let tr = format_ident!("__OrderBy_{}", f.ident);
        let (message, note) = match first {
            Some(c) => (
                format!(
                    "`{table}`: rows are stored in clustering order ({}), so Cassandra cannot \
                     sort them by `{col}`",
                    list(&ck)
                ),
                format!(
                    "to read in the reverse order, call `.reversed()` or `.order_by_{}(..)`; to \
                     sort by `{col}`, sort in your code or keep a table clustered by it",
                    c.ident
                ),
            ),
            None => (
                format!(
                    "`{table}` has no clustering column, so Cassandra cannot sort its rows by \
                     `{col}`"
                ),
                "each partition holds one row; sort in your code or keep a table clustered by \
                 it"
                .to_owned(),
            ),
        };
        (marker(&tr, &message, "ORDER BY", &note), tr)
    };
    let declared = match first.map(|c| c.role) {
        Some(Role::Clustering(Order::Desc)) => quote!(#krate::Order::Desc),
        _ => quote!(#krate::Order::Asc),
    };
    let doc =
        format!("`ORDER BY {col} <order>`: the declared order, or its reverse (a reverse scan).");
    let methods = if items.is_empty() {
        quote_spanned! {f.ident.span()=>
            #[doc = #doc]
            pub fn #method(self, order: #krate::Order) -> #q<'a, #p::query::Reversed<S>, K, R>
            where
                S: #bound + #p::query::Orderable + #p::query::Transitions,
            {
                #q(self.0.order_by(order, #declared).to())
            }
        }
    } else {
        quote_spanned! {f.ident.span()=>
            #[doc(hidden)]
            pub fn #method(self, order: #krate::Order) -> Self
            where
                S: #bound,
            {
                let _ = order;
                self
            }
        }
    };
    (items, methods)
}

/// Options of any statement.
fn options(cx: &Cx<'_>) -> TokenStream {
    let krate = cx.krate;
    quote! {
        /// Consistency level of this query.
        pub fn consistency(self, consistency: #krate::Consistency) -> Self {
            Self(self.0.consistency(consistency))
        }

        /// Serial consistency level (lightweight transactions).
        pub fn serial_consistency(self, serial: ::core::option::Option<#krate::SerialConsistency>) -> Self {
            Self(self.0.serial_consistency(serial))
        }

        /// Client-side timeout of this query.
        pub fn timeout(self, timeout: ::core::time::Duration) -> Self {
            Self(self.0.timeout(timeout))
        }

        /// Traces this query on the server (`system_traces`).
        pub fn tracing(self, tracing: ::core::primitive::bool) -> Self {
            Self(self.0.tracing(tracing))
        }

        /// Whether the driver may retry this query (reads and plain writes are idempotent by
        /// default).
        pub fn idempotent(self, idempotent: ::core::primitive::bool) -> Self {
            Self(self.0.idempotent(idempotent))
        }
    }
}

/// `limit`, `reversed`, `read_as` and the reads, on a SELECT.
fn reads(cx: &Cx<'_>) -> TokenStream {
    let (q, p, krate, kd, ident) = (cx.q, &cx.p, cx.krate, &cx.kd, cx.ident);
    let (readable, given) = (keys::readable(), keys::partition_given());
    let bucket_range = bucket_range(cx);
    let with_score = {
        quote! {
            /// Reads each row of the vector search with its similarity to the query vector,
            /// as `Scored { score, row }` (a projection too: call it after `read_as`).
            pub fn with_score(self) -> #q<'a, S, #kd::Select, #krate::Scored<R>>
            where
                S: #p::query::AnnGiven,
            {
                #q(self.0.with_score())
            }
        }
    };
    let db = quote!(db: &'d #krate::Db);
    let fut = |t: TokenStream| quote!(#krate::QueryFuture<'d, #t>);
    let (stream, page) = (
        fut(quote!(#krate::RowStream<R>)),
        fut(quote!(#krate::Page<R>)),
    );
    // The reads of a few rows return an unboxed future: defined where `S` may be read (a bound
    // on the impl), and otherwise found on the `Deref` target, whose bound on the method fails
    // once with the state's message (`__private::query::refused_read`).
    let ret = |t: TokenStream| quote!(impl ::core::future::Future<Output = #krate::Result<#t>> + ::core::marker::Send + 'd);
    let (all, first) = (
        ret(quote!(::std::vec::Vec<R>)),
        ret(quote!(::core::option::Option<R>)),
    );
    let refused = quote! {
        /// What a builder dereferences to: `fetch_all` and `fetch_first` in the states that
        /// cannot be read, there to say why.
        pub struct __Unreadable<S, K, R>(::core::marker::PhantomData<fn() -> (S, K, R)>);

        #[doc(hidden)]
        impl<'a, S, K, R> ::core::ops::Deref for #q<'a, S, K, R> {
            type Target = __Unreadable<S, K, R>;
            fn deref(&self) -> &__Unreadable<S, K, R> {
                &__Unreadable(::core::marker::PhantomData)
            }
        }

        impl<S, R> __Unreadable<S, #kd::Select, R> {
            pub fn fetch_all(&self, _: &#krate::Db) -> ::core::future::Ready<#krate::Result<::std::vec::Vec<R>>> where S: #readable {
                #p::query::refused_read()
            }

            pub fn fetch_first(&self, _: &#krate::Db) -> ::core::future::Ready<#krate::Result<::core::option::Option<R>>> where S: #readable {
                #p::query::refused_read()
            }
        }
    };
    quote! {
        impl<'a, S, R: #krate::Projection<#ident>> #q<'a, S, #kd::Select, R> {
            #bucket_range

            /// `LIMIT n`: at most `n` rows (for a vector search, the `n` nearest).
            pub fn limit(self, n: ::core::primitive::i32) -> #q<'a, #p::query::Limited<S>, #kd::Select, R>
            where
                S: #p::query::Transitions,
            {
                #q(self.0.limit(n).to())
            }

            /// `PER PARTITION LIMIT n`: at most `n` rows from each partition.
            pub fn per_partition_limit(self, n: ::core::primitive::i32) -> Self {
                Self(self.0.per_partition_limit(n))
            }

            /// Reads in the reverse of the clustering order: a reverse scan, slower than the
            /// declared order. Needs the whole partition key.
            pub fn reversed(self) -> #q<'a, #p::query::Reversed<S>, #kd::Select, R>
            where
                S: #given + #p::query::Orderable + #p::query::Transitions,
            {
                #q(self.0.reversed().to())
            }

            /// Rows per page when paging (`fetch_stream`, `fetch_page`, `fetch_all`).
            pub fn page_size(self, rows: ::core::primitive::i32) -> Self {
                Self(self.0.page_size(rows))
            }

            #with_score

            /// Reads only the columns of projection `P` (`#[derive(CassProjection)]`).
            pub fn read_as<P: #krate::Projection<#ident>>(self) -> #q<'a, S, #kd::Select, P> {
                #q(self.0.read_as())
            }

            /// Runs the query as a stream that fetches one page at a time: constant memory
            /// whatever the number of rows.
            pub fn fetch_stream<'d>(self, #db) -> #stream where S: #readable + #p::query::Pageable, 'a: 'd {
                self.0.fetch_stream(db)
            }

            /// Runs the query for one page, from `from` (`PagingState::start()` first, then
            /// the previous page's `next`).
            pub fn fetch_page<'d>(self, #db, from: #krate::PagingState) -> #page where S: #readable + #p::query::Pageable, 'a: 'd {
                self.0.fetch_page(db, from)
            }
        }

        impl<'a, S: #readable, R: #krate::Projection<#ident>> #q<'a, S, #kd::Select, R> {
            /// Runs the query and collects every row (paging through them; one request when a
            /// limit fits in a page).
            pub fn fetch_all<'d>(self, #db) -> #all where 'a: 'd {
                self.0.fetch_all(db)
            }

            /// Runs the query for its first row (`LIMIT 1` unless a limit is set).
            pub fn fetch_first<'d>(self, #db) -> #first where 'a: 'd {
                self.0.fetch_first(db)
            }
        }

        #refused
    }
}
