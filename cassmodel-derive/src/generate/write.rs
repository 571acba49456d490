//! The write side of a table's query builder: `update()` setters (plain, collections,
//! counters), lightweight-transaction conditions, TTL and write time, `execute` of updates and
//! deletes, and batches, each bound by Cassandra's rules:
//!
//! - key columns cannot be set; counters are only incremented or decremented;
//! - an update that sets a regular column names the whole primary key; one that sets only
//!   static columns names the partition key (or the whole key); a delete names the partition
//!   key, a conditional one the whole key;
//! - a counter table takes no TTL, no write time and no condition.
//!
//! `execute` exists once per statement kind, each bound by the key marker that kind needs, so
//! that the error names what the statement lacks.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use super::{Cx, keys, marker};
use crate::model::{Collection, Field, Role};

/// The builder's write side.
pub fn generate(cx: &Cx<'_>) -> TokenStream {
    let counter = cx.t.counter_column().is_some();
    let markers = markers(cx);
    let mut items = Vec::new();
    let mut setters = Vec::new();
    let mut conditions = Vec::new();
    for f in &cx.t.fields {
        let (item, methods) = setters_of(cx, f);
        items.push(item);
        setters.push(methods);
        if !f.role.is_key() {
            conditions.push(condition(cx, f));
        }
    }
    let (q, p, kd) = (cx.q, &cx.p, &cx.kd);
    let no_ttl = counter.then(|| quote!(where S: __NoTtlOnCounter));
    let no_lwt = counter.then(|| quote!(where S: __NoLwtOnCounter));
    let executes = executes(cx);
    let batches = batch_entries(cx);
    quote! {
        #markers
        #(#items)*
        impl<'a, S, const W: ::core::primitive::u8, const L: __bool, R> #q<'a, S, #kd::Update<W, L>, R> {
            #(#setters)*

            /// `USING TTL seconds`: the written cells expire after that long.
            pub fn using_ttl(self, seconds: ::core::primitive::i32) -> Self #no_ttl {
                Self(self.0.using_ttl(seconds))
            }
        }
        impl<'a, S, K: #p::query::WriteKind, R> #q<'a, S, K, R> {
            #(#conditions)*

            /// `IF EXISTS`: a lightweight transaction that applies only if the row exists.
            pub fn if_exists(self) -> #q<'a, S, <K as #p::query::WriteKind>::Conditional, R> #no_lwt {
                #q(self.0.if_exists())
            }

            /// `USING TIMESTAMP micros`: the write time, in microseconds since the epoch.
            pub fn using_timestamp(self, micros: ::core::primitive::i64) -> Self #no_ttl {
                Self(self.0.using_timestamp(micros))
            }
        }

        #executes
        #batches
    }
}

/// The statement kinds `execute` runs from, each with the key marker it needs: a delete the
/// partition key, an update of regular columns or any condition the whole key, an update of
/// static columns the partition key.
fn kinds(cx: &Cx<'_>) -> Vec<(TokenStream, TokenStream, syn::Ident, bool, &'static str)> {
    let kd = &cx.kd;
    let l = quote!(const L: __bool,);
    let (full, given) = (keys::full_key(), keys::partition_given());
    let mut out = vec![
        (
            quote!(),
            quote!(#kd::Update<2>),
            full.clone(),
            false,
            "Runs the update.",
        ),
        (
            quote!(),
            quote!(#kd::Update<2, true>),
            full.clone(),
            true,
            LWT_DOC,
        ),
        (
            l,
            quote!(#kd::Update<0, L>),
            format_ident!("__NothingSet"),
            false,
            "An update must set something first.",
        ),
        (
            quote!(),
            quote!(#kd::Delete),
            given,
            false,
            "Runs the delete.",
        ),
        (quote!(), quote!(#kd::Delete<true>), full, true, LWT_DOC),
    ];
    if cx.t.has_static() {
        let sk = format_ident!("__StaticKey");
        out.push((
            quote!(),
            quote!(#kd::Update<1>),
            sk.clone(),
            false,
            "Runs the update of static columns.",
        ));
        out.push((quote!(), quote!(#kd::Update<1, true>), sk, true, LWT_DOC));
    }
    out
}

const LWT_DOC: &str = "Runs the lightweight transaction: the outcome says whether it applied \
    and carries the current row when it did not.";

/// `execute` of each statement kind.
fn executes(cx: &Cx<'_>) -> TokenStream {
    let (q, krate, ident) = (cx.q, cx.krate, cx.ident);
    let blocks = kinds(cx)
        .into_iter()
        .map(|(generics, kind, bound, lwt, doc)| {
            let (out, run) = if lwt {
                (quote!(#krate::Outcome<#ident>), quote!(execute_lwt))
            } else {
                (quote!(()), quote!(execute))
            };
            quote! {
                impl<'a, S, #generics R> #q<'a, S, #kind, R> {
                    #[doc = #doc]
                    pub fn execute<'d>(self, db: &'d #krate::Db) -> #krate::query::QueryFuture<'d, #out>
                    where
                        S: #bound,
                        'a: 'd,
                    {
                        self.0.#run(db)
                    }
                }
            }
        });
    quote!(#(#blocks)*)
}

/// Complete updates and deletes go in batches: counter ones in counter batches.
fn batch_entries(cx: &Cx<'_>) -> TokenStream {
    let (q, krate, p, kd) = (cx.q, cx.krate, &cx.p, &cx.kd);
    let class = if cx.t.counter_column().is_some() {
        quote!(#krate::write::CounterStatement)
    } else {
        quote!(#krate::write::RegularStatement)
    };
    let mut kinds = vec![
        (quote!(#kd::Update<2, L>), keys::full_key()),
        (quote!(#kd::Delete<L>), keys::partition_given()),
    ];
    if cx.t.has_static() {
        kinds.push((quote!(#kd::Update<1, L>), format_ident!("__StaticKey")));
    }
    let impls = kinds.into_iter().map(|(kind, bound)| {
        quote! {
            impl<'a, S: #bound, const L: __bool, R> #class<'a> for #q<'a, S, #kind, R> {
                fn into_entry(self) -> #p::std::Box<dyn #p::query::BatchEntry + 'a> {
                    self.0.into_batch_entry()
                }
            }
        }
    });
    quote!(#(#impls)*)
}

/// The markers of what only the write side refuses.
fn markers(cx: &Cx<'_>) -> TokenStream {
    let table = cx.table;
    let mut out = vec![marker(
        &format_ident!("__NothingSet"),
        &format!("`{table}`: this update sets nothing: give at least one `set_<column>(..)`"),
        "nothing to update",
        "an UPDATE needs a SET clause; to remove a row, use `delete()`",
    )];
    if cx.t.has_static() {
        out.push(static_key(cx));
    }
    if cx.t.counter_column().is_some() {
        out.push(marker(
            &format_ident!("__NoLwtOnCounter"),
            &format!(
                "`{table}` is a counter table: counters take no condition (lightweight \
                 transaction)"
            ),
            "condition on a counter table",
            "Cassandra refuses IF on counter updates; a counter only moves by increments",
        ));
        out.push(marker(
            &format_ident!("__NoTtlOnCounter"),
            &format!("`{table}` is a counter table: counters take no TTL and no custom write time"),
            "TTL or write time on a counter table",
            "Cassandra refuses USING TTL and USING TIMESTAMP on counter updates",
        ));
    }
    quote!(#(#out)*)
}

/// An update that sets only static columns names the partition key, or the whole key.
fn static_key(cx: &Cx<'_>) -> TokenStream {
    let (np, nk) = (cx.t.partition_state(), cx.t.full_key_state());
    let tr = format_ident!("__StaticKey");
    let m = marker(
        &tr,
        &format!(
            "`{}`: an update of static columns names the partition key ({}), or the whole \
             primary key ({})",
            cx.table,
            cx.t.partition_key_names(),
            cx.t.key_names()
        ),
        "key incomplete",
        "a static column holds one value per partition, so the partition key identifies it",
    );
    let (flags, partition, full) = (
        keys::flags(),
        keys::key_state(cx, np),
        keys::key_state(cx, nk),
    );
    let whole = (nk != np).then(|| quote!(impl<#flags> #tr for #full {}));
    quote! {
        #m
        impl<#flags> #tr for #partition {}
        #whole
    }
}

/// One update method: `name(self, params) -> next` that adds `change` to the SET clause.
struct Setter {
    name: Ident,
    doc: String,
    params: TokenStream,
    change: TokenStream,
}

/// Every update method of a column: `set_x` (refused on keys and counters), counter moves,
/// collection changes; with the marker traits they need.
fn setters_of(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    if f.role.is_key() {
        return refused_set(
            cx,
            f,
            &format!(
                "`{}`: `{}` is part of the primary key and cannot be updated",
                cx.table, f.column
            ),
            "primary-key column",
            "a row's key is its identity: to move a row, insert it under the new key and delete \
             the old one",
        );
    }
    let p = &cx.p;
    let (col, name, idx) = (&f.column, f.ident, f.position);
    let value = format_ident!("value");
    let mut items = TokenStream::new();
    let mut methods = Vec::new();
    let mut setters = Vec::new();
    if f.counter {
        let (item, method) = refused_set(
            cx,
            f,
            &format!(
                "`{}`: `{col}` is a counter: it can only be incremented or decremented, not set",
                cx.table
            ),
            "set on a counter",
            &format!("use `.increment_{name}(n)` or `.decrement_{name}(n)`"),
        );
        items = item;
        methods.push(method);
        for (verb, op, sign) in [
            ("increment", "Increment", "+"),
            ("decrement", "Decrement", "-"),
        ] {
            let op = format_ident!("{op}");
            setters.push(Setter {
                name: format_ident!("{}_{}", verb, name),
                doc: format!("`{col} = {col} {sign} n` (not idempotent: a retry may count twice)"),
                params: quote!(n: ::core::primitive::i64),
                change: quote!(set(#idx, #p::query::SetOp::#op, #p::query::Bound::Counter(n))),
            });
        }
    } else {
        let bound = cx.bound(&value);
        setters.push(Setter {
            name: format_ident!("set_{}", name),
            doc: format!("`SET {col} = ?`"),
            params: cx.param(&value, f.ty),
            change: quote!(set(#idx, #p::query::SetOp::Assign, #bound)),
        });
    }
    if let Some(c) = f.collection {
        setters.extend(collection_setters(cx, f, c));
    }
    methods.extend(setters.iter().map(|s| setter(cx, f, s)));
    (items, quote!(#(#methods)*))
}

/// The changes of a list, set or map column.
fn collection_setters(cx: &Cx<'_>, f: &Field<'_>, c: Collection<'_>) -> Vec<Setter> {
    let (p, krate) = (&cx.p, cx.krate);
    let (col, name, idx) = (&f.column, f.ident, f.position);
    let (value, key) = (format_ident!("value"), format_ident!("key"));
    let whole = cx.bound(&value);
    let whole_param = cx.param(&value, f.value_ty);
    let op = |verb: &str, op: &str, doc: String| Setter {
        name: format_ident!("{}_{}", verb, name),
        doc,
        params: whole_param.clone(),
        change: {
            let op = format_ident!("{op}");
            quote!(set(#idx, #p::query::SetOp::#op, #whole))
        },
    };
    match c {
        Collection::List(elem) => {
            let (elem_param, elem_bound) = (cx.param(&value, elem), cx.bound(&value));
            vec![
                op(
                    "append",
                    "Append",
                    format!("`{col} = {col} + ?`: appends the elements (not idempotent)"),
                ),
                op(
                    "prepend",
                    "Prepend",
                    format!("`{col} = ? + {col}`: prepends the elements (not idempotent)"),
                ),
                op(
                    "remove",
                    "Remove",
                    format!("`{col} = {col} - ?`: removes every occurrence of the elements"),
                ),
                Setter {
                    name: format_ident!("set_{}_at", name),
                    doc: format!("`{col}[index] = ?`: replaces one element (the index must exist)"),
                    params: quote!(index: ::core::primitive::i32, #elem_param),
                    change: quote!(set_at(#idx, #p::query::Bound::Index(index), #elem_bound)),
                },
            ]
        }
        Collection::Set(_) => vec![
            op(
                "add",
                "Append",
                format!("`{col} = {col} + ?`: adds the elements"),
            ),
            op(
                "remove",
                "Remove",
                format!("`{col} = {col} - ?`: removes the elements"),
            ),
        ],
        Collection::Map(k, v) => {
            let (key_param, key_bound) = (cx.param(&key, k), cx.bound(&key));
            let (value_param, value_bound) = (cx.param(&value, v), cx.bound(&value));
            vec![
                Setter {
                    name: format_ident!("put_{}", name),
                    doc: format!("`{col}[key] = value`: puts one entry"),
                    params: quote!(#key_param, #value_param),
                    change: quote!(set_at(#idx, #key_bound, #value_bound)),
                },
                op(
                    "merge",
                    "Append",
                    format!("`{col} = {col} + ?`: puts every entry of the map"),
                ),
                Setter {
                    name: format_ident!("remove_{}_keys", name),
                    doc: format!("`{col} = {col} - ?`: removes the entries with these keys"),
                    params: quote!(keys: &'a [impl #krate::model::BindAs<#k> + ::core::marker::Send]),
                    change: quote!(set(#idx, #p::query::SetOp::Remove, #p::query::Bound::list(keys))),
                },
            ]
        }
    }
}

/// An update method: a static column keeps a static-only update, any other needs the whole
/// primary key.
fn setter(cx: &Cx<'_>, f: &Field<'_>, s: &Setter) -> TokenStream {
    let (q, p, kd) = (cx.q, &cx.p, &cx.kd);
    let Setter {
        name,
        doc,
        params,
        change,
    } = s;
    let (next, bound) = if f.role == Role::Static {
        (
            quote!(#q<'a, S, <#kd::Update<W, L> as #p::query::AfterStaticSet>::Next, R>),
            quote!(where #kd::Update<W, L>: #p::query::AfterStaticSet),
        )
    } else {
        (quote!(#q<'a, S, #kd::Update<2, L>, R>), quote!())
    };
    quote_spanned! {f.ident.span()=>
        #[doc = #doc]
        pub fn #name(self, #params) -> #next #bound {
            #q(self.0.#change)
        }
    }
}

/// A `set_<column>` that exists only to fail with a message (key columns, counters): the
/// marker trait (an item) and the method.
fn refused_set(
    cx: &Cx<'_>,
    f: &Field<'_>,
    message: &str,
    label: &str,
    note: &str,
) -> (TokenStream, TokenStream) {
    let (q, kd) = (cx.q, &cx.kd);
    let tr = format_ident!("__NoSet_{}", f.ident);
    let set = format_ident!("set_{}", f.ident);
    let param = cx.param(&format_ident!("value"), f.ty);
    // It returns what a set would, so that the rest of the statement adds no error.
    let method = quote_spanned! {f.ident.span()=>
        #[doc(hidden)]
        pub fn #set(self, #param) -> #q<'a, S, #kd::Update<2, L>, R>
        where
            S: #tr,
        {
            let _ = value;
            #q(self.0.to())
        }
    };
    (marker(&tr, message, label, note), method)
}

/// `IF col <cmp> ?`.
fn condition(cx: &Cx<'_>, f: &Field<'_>) -> TokenStream {
    let (q, p, krate) = (cx.q, &cx.p, cx.krate);
    let (col, idx) = (&f.column, f.position);
    let if_col = format_ident!("if_{}", f.ident);
    let value = format_ident!("value");
    let (param, bound) = (cx.param(&value, f.ty), cx.bound(&value));
    let no_lwt =
        cx.t.counter_column()
            .is_some()
            .then(|| quote!(where S: __NoLwtOnCounter));
    let doc = format!(
        "`IF {col} <cmp> ?`: a lightweight transaction that applies only if the condition holds"
    );
    quote_spanned! {f.ident.span()=>
        #[doc = #doc]
        pub fn #if_col(self, cmp: #krate::query::Cmp, #param) -> #q<'a, S, <K as #p::query::WriteKind>::Conditional, R> #no_lwt {
            #q(self.0.condition(#idx, cmp, #bound))
        }
    }
}
