//! The per-table marker traits about the primary key, used by reads and writes alike:
//! `__PartitionGiven` (the whole partition key is restricted: deletes, reversed reads,
//! ORDER BY), `__Readable` (the same, or `ALLOW FILTERING`) and `__FullKey` (every key
//! column by `=`: updates, conditional writes).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::{Cx, imp, marker};

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

/// The states in which the whole partition key is given, each with the generics of its
/// impl: `Key<n>` for `n` from the number of partition-key columns to the whole key, and any
/// range after them.
fn partition_given_states(cx: &Cx<'_>) -> Vec<(TokenStream, TokenStream)> {
    let st = &cx.st;
    let (np, nk) = (cx.t.partition_state(), cx.t.full_key_state());
    let bools = quote!(<const LO: ::core::primitive::bool, const HI: ::core::primitive::bool>);
    let keys = (np..=nk).map(|n| (quote!(), quote!(#st::Key<#n>)));
    let ranges = (np..nk).map(|n| (bools.clone(), quote!(#st::Range<#n, LO, HI>)));
    keys.chain(ranges).collect()
}

/// The three markers and their impls.
pub fn generate(cx: &Cx<'_>) -> TokenStream {
    let (table, ident, st) = (cx.table, cx.ident, &cx.st);
    let pk_list = cx.t.partition_key_names();
    let key_order = cx.t.key_names();
    let nk = cx.t.full_key_state();
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
    let impls = partition_given_states(cx).into_iter().map(|(generics, s)| {
        quote! {
            impl #generics #readable for #s {}
            impl #generics #given for #s {}
        }
    });
    let filtering = imp(&readable, quote!(#st::Filtering));
    let full_impl = imp(&full, quote!(#st::Key<#nk>));
    quote! {
        #(#traits)*
        #(#impls)*
        #filtering
        #full_impl
    }
}
