//! The per-table marker traits about the primary key, used by reads and writes alike:
//! `__PartitionGiven` (the whole partition key is restricted: deletes, reversed reads,
//! ORDER BY), `__Readable` (the same, or `ALLOW FILTERING`, or an indexed column),
//! `__FullKey` (every key column by `=`: updates, conditional writes), `__IndexBase` (where an
//! indexed column may be restricted), and the traits that name what is missing:
//! `__Missing_<column>` (the first key column not given yet) and `__After_<range column>..`
//! (nothing may follow a range).
//!
//! Each key state (`Key<N, IN, REV>`, `Range<N, LO, HI, IN, REV>`) that cannot take a method
//! because a key column is missing implements the method's trait under a bound
//! `where Flags<IN, REV>: __Missing_<column>` that never holds (on another type than the
//! state, so that rustc reports it with its own message), so that the error names the first
//! column missing, whatever method was called.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::{Cx, imp, marker};
use crate::model::Field;

/// The names of the key markers.
pub fn partition_given() -> Ident {
    format_ident!("__PartitionGiven")
}

pub fn readable() -> Ident {
    format_ident!("__Readable")
}

pub fn full_key() -> Ident {
    format_ident!("__FullKey")
}

pub fn index_base() -> Ident {
    format_ident!("__IndexBase")
}

/// The trait that names `f` as the first key column missing.
pub fn missing(f: &Field<'_>) -> Ident {
    format_ident!("__Missing_{}", f.ident)
}

/// `<const IN: bool, const REV: bool>`: the flags every key state carries.
pub fn flags() -> TokenStream {
    quote!(const IN: __bool, const REV: __bool)
}

/// `Key<n, IN, REV>`.
pub fn key_state(cx: &Cx<'_>, n: usize) -> TokenStream {
    let st = &cx.st;
    quote!(#st::Key<#n, IN, REV>)
}

/// The order in which key columns are restricted, for notes.
pub fn order_note(cx: &Cx<'_>) -> String {
    format!(
        "key columns are restricted in this order, each by `=` or `IN`: {}; a range (`_gt`, \
         `_ge`, `_lt`, `_le`) may follow on the next clustering column, and nothing after it; \
         indexed columns (`#[cass(index)]`) come after the key columns. To filter on other \
         columns anyway (a scan), start from `{}::select_allow_filtering()`",
        cx.t.key_names(),
        cx.ident
    )
}

/// The key column restricted from key state `n` (`None` for the bucket column, given with
/// its source).
fn column_at_state<'t>(cx: &'t Cx<'_>, n: usize) -> Option<&'t Field<'t>> {
    let key = cx.t.primary_key();
    (0..key.len())
        .find(|&i| cx.t.state_before(i) == n)
        .map(|i| &cx.t.fields[usize::from(key[i].position)])
}

/// `impl<..> tr for Key<n, IN, REV> where Flags<IN, REV>: __Missing_<column at n> {}` for each key
/// state `n` in `states`: the error for `tr` in those states names the first column missing.
/// `generics` are the trait's own (`const UPPER: bool`), `tr` the trait with its arguments.
pub fn missing_impls(
    cx: &Cx<'_>,
    generics: &TokenStream,
    tr: &TokenStream,
    states: std::ops::Range<usize>,
) -> TokenStream {
    let (flags, p) = (flags(), &cx.p);
    let impls = states.filter_map(|n| {
        let f = column_at_state(cx, n)?;
        let (missing, state) = (missing(f), key_state(cx, n));
        Some(quote!(impl<#generics #flags> #tr for #state where #p::query::Flags<IN, REV>: #missing {}))
    });
    quote!(#(#impls)*)
}

/// `impl<..> tr for Range<n, LO, HI, IN, REV> where Flags<IN, REV>: __After_<column>_<tag> {}`
/// for each range state `n` in `states`, with that trait: nothing may follow a range, and the
/// message names the range's column and `follower` (what the method restricts: "`room`",
/// "a range on `room`"). `tag` (the method's trait, `__Eq_room`) keeps the trait's name apart
/// from the other methods' of the same column.
pub fn after_range_impls(
    cx: &Cx<'_>,
    generics: &TokenStream,
    tr: &TokenStream,
    tag: &Ident,
    follower: &str,
    states: std::ops::Range<usize>,
) -> TokenStream {
    let (st, p, flags, table) = (&cx.st, &cx.p, flags(), cx.table);
    let bools = quote!(const LO: __bool, const HI: __bool,);
    let impls = states.filter_map(|n| {
        let range = column_at_state(cx, n)?;
        let after = format_ident!("__After_{}{}", range.ident, tag);
        let mark = marker(
            &after,
            &format!(
                "`{table}`: {follower} cannot follow the range on `{}`: a range (`_gt`, `_ge`, \
                 `_lt`, `_le`) is the last key restriction of a query",
                range.column
            ),
            &format!("after the range on `{}`", range.column),
            &format!(
                "Cassandra reads a slice of a partition: `=` on the key columns before the \
                 slice, one range on the next clustering column; {}",
                order_note(cx)
            ),
        );
        Some(quote! {
            #mark
            impl<#generics #bools #flags> #tr for #st::Range<#n, LO, HI, IN, REV>
            where
                #p::query::Flags<IN, REV>: #after,
            {
            }
        })
    });
    quote!(#(#impls)*)
}

/// The states in which the whole partition key is given, each with the generics of its
/// impl: `Key<n>` for `n` from the number of partition-key columns to the whole key, and any
/// range after them.
fn partition_given_states(cx: &Cx<'_>) -> Vec<(TokenStream, TokenStream)> {
    let st = &cx.st;
    let (np, nk) = (cx.t.partition_state(), cx.t.full_key_state());
    let flags = flags();
    let bools = quote!(<const LO: __bool, const HI: __bool, #flags>);
    let keys = (np..=nk).map(|n| (quote!(<#flags>), key_state(cx, n)));
    let ranges = (np..nk).map(|n| (bools.clone(), quote!(#st::Range<#n, LO, HI, IN, REV>)));
    keys.chain(ranges).collect()
}

/// The markers and their impls.
pub fn generate(cx: &Cx<'_>) -> TokenStream {
    let traits = key_markers(cx);
    let missing_traits = missing_markers(cx);
    let impls = given_impls(cx);
    let index = index_states(cx);
    let nearest = nearest_states(cx);
    quote! {
        #traits
        #missing_traits
        #impls
        #index
        #nearest
    }
}

/// The markers `__Readable`, `__PartitionGiven` and `__FullKey`, with their messages.
fn key_markers(cx: &Cx<'_>) -> TokenStream {
    let (table, ident) = (cx.table, cx.ident);
    let pk_list = cx.t.partition_key_names();
    let key_order = cx.t.key_names();
    let range_note = cx
        .t
        .bucket
        .as_ref()
        .map(|b| {
            let src = &cx.t.fields[b.source].ident;
            format!("; to read a range of `{src}` over its buckets, call `.{src}_range(from..to)`")
        })
        .unwrap_or_default();
    let (given, readable, full) = (partition_given(), readable(), full_key());
    let traits = [
        marker(
            &readable,
            &format!("`{table}`: give the whole partition key before reading: {pk_list}"),
            "partition key incomplete",
            &format!(
                "a read without the whole partition key would visit every node; for a \
                 deliberate full scan use `{ident}::scan_full_table(..)` (or \
                 `{ident}::select_allow_filtering()`){range_note}"
            ),
        ),
        marker(
            &given,
            &format!("`{table}`: give the whole partition key first: {pk_list}"),
            "partition key incomplete",
            "deletes, reversed reads and ORDER BY work within one partition",
        ),
        marker(
            &full,
            &format!("`{table}`: give the whole primary key, each column by `=`: {key_order}"),
            "primary key incomplete",
            "an update of regular columns, and any conditional write (IF ...), works on one row",
        ),
    ];
    quote!(#(#traits)*)
}

/// The `__Missing_<column>` marker of each key column, naming it as the first one missing.
fn missing_markers(cx: &Cx<'_>) -> TokenStream {
    let table = cx.table;
    let missing_traits = cx.t.primary_key().into_iter().map(|f| {
        let how = if cx.t.is_bucket_source(f) {
            let b = cx.t.bucket.as_ref().map_or("", |b| b.column.as_str());
            format!("by `=` (it gives the bucket `{b}`)")
        } else {
            "by `=` or `IN`".to_owned()
        };
        marker(
            &missing(f),
            &format!("`{table}`: give `{}` first, {how}", f.column),
            &format!("`{}` missing", f.column),
            &order_note(cx),
        )
    });
    quote!(#(#missing_traits)*)
}

/// The impls of `__Readable`, `__PartitionGiven` and `__FullKey` on the states that give them.
fn given_impls(cx: &Cx<'_>) -> TokenStream {
    let st = &cx.st;
    let (np, nk) = (cx.t.partition_state(), cx.t.full_key_state());
    let (given, readable, full) = (partition_given(), readable(), full_key());
    let impls = partition_given_states(cx).into_iter().map(|(generics, s)| {
        quote! {
            impl #generics #readable for #s {}
            impl #generics #given for #s {}
        }
    });
    let none = quote!();
    let partial = [&readable, &given]
        .into_iter()
        .map(|tr| missing_impls(cx, &none, &quote!(#tr), 1..np));
    let full_missing = missing_impls(cx, &none, &quote!(#full), 1..nk);
    let filtering = imp(&readable, quote!(#st::Filtering));
    let (flags, full_state) = (flags(), key_state(cx, nk));
    // `Indexed` is reached through an indexed column, or a filter method that did not compile
    // (whose error is enough). `__PartitionGiven` too, so that `reversed()` after an indexed
    // column fails on `Orderable` alone, whose message says why.
    let indexed = [&readable, &given].map(|tr| imp(tr, quote!(#st::Indexed)));
    quote! {
        #(#impls)*
        #(#partial)*
        #full_missing
        #filtering
        impl<#flags> #full for #full_state {}
        #(#indexed)*
    }
}

/// Whether the table has a vector column with an index: its vector search states
/// (`Nearest<K>`) then get the table's markers.
pub fn has_ann(cx: &Cx<'_>) -> bool {
    cx.t.fields
        .iter()
        .any(|f| f.is_vector() && f.index_serves(cassmodel_schema::IndexOp::Ann))
}

/// `__Readable` (once it has a limit), `__PartitionGiven` (so that `reversed()` fails on
/// `Orderable` alone, whose message says why) and `__IndexBase` (indexed columns may follow)
/// for the vector search states.
fn nearest_states(cx: &Cx<'_>) -> TokenStream {
    if !has_ann(cx) {
        return quote!();
    }
    let (st, p) = (&cx.st, &cx.p);
    let (readable, given, base) = (readable(), partition_given(), index_base());
    quote! {
        impl<const K: __bool> #readable for #st::Nearest<K>
        where
            #p::query::Flags<K, false>: #p::query::HasLimit,
        {
        }
        impl<const K: __bool> #given for #st::Nearest<K> {}
        impl<const K: __bool> #base for #st::Nearest<K> {}
    }
}

/// Whether the table has an indexed column that is not a key column (the typed queries on
/// indexed columns are on those).
pub fn has_indexed_columns(cx: &Cx<'_>) -> bool {
    cx.t.fields
        .iter()
        .any(|f| !f.role.is_key() && !f.indexes.is_empty())
}

/// `__IndexBase`: the states from which an indexed column may be restricted: none of the key
/// (across partitions), the whole partition key by `=` (within a partition, clustering
/// columns after it allowed), another indexed column, or `ALLOW FILTERING`. In the other
/// states its impl's bound names the reason: the first key column missing, `IN` on the
/// partition key, a reversed read.
fn index_states(cx: &Cx<'_>) -> TokenStream {
    if !has_indexed_columns(cx) {
        return quote!();
    }
    let (st, p, table) = (&cx.st, &cx.p, cx.table);
    let (np, nk) = (cx.t.partition_state(), cx.t.full_key_state());
    let base = index_base();
    let m = marker(
        &base,
        &format!(
            "`{table}`: an indexed column is restricted with no key column, or after the whole \
             partition key ({}) by `=`",
            cx.t.partition_key_names()
        ),
        "indexed column",
        &order_note(cx),
    );
    let none = quote!();
    let partial = missing_impls(cx, &none, &quote!(#base), 1..np);
    let bools = quote!(const LO: __bool, const HI: __bool);
    let keys = (np..=nk).map(|n| {
        quote! {
            impl<const REV: __bool> #base for #st::Key<#n, false, REV>
            where
                #p::query::Flags<false, REV>: #p::query::Unordered,
            {
            }
            impl<const REV: __bool> #base for #st::Key<#n, true, REV>
            where
                #p::query::Flags<true, REV>: #p::query::NoInBeforeIndex,
            {
            }
        }
    });
    let ranges = (np..nk).map(|n| {
        quote! {
            impl<#bools, const REV: __bool> #base
                for #st::Range<#n, LO, HI, false, REV>
            where
                #p::query::Flags<false, REV>: #p::query::Unordered,
            {
            }
            impl<#bools, const REV: __bool> #base
                for #st::Range<#n, LO, HI, true, REV>
            where
                #p::query::Flags<true, REV>: #p::query::NoInBeforeIndex,
            {
            }
        }
    });
    quote! {
        #m
        impl #base for #st::Key<0> {}
        #partial
        #(#keys)*
        #(#ranges)*
        impl #base for #st::Indexed {}
        impl #base for #st::Filtering {}
    }
}
