//! The key states in which a column's method is implemented, and the ranges' operators.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::generate::{Cx, keys};
use crate::model::Field;

/// `_gt`, `_ge`, `_lt`, `_le` names with their operators and whether each is an upper bound.
pub(super) fn range_ops(f: &Field<'_>) -> [(syn::Ident, &'static str, &'static str, bool); 4] {
    let n = f.ident;
    [
        (format_ident!("{}_gt", n), "Gt", ">", false),
        (format_ident!("{}_ge", n), "Ge", ">=", false),
        (format_ident!("{}_lt", n), "Lt", "<", true),
        (format_ident!("{}_le", n), "Le", "<=", true),
    ]
}

/// The impls of a key column's trait `tag<args>` (with the trait's own `generics`): in key
/// state `n` (where the column is restricted); in the states before it, under the bound that
/// names the first column missing; after a range on an earlier clustering column (or this
/// one), under the bound that says `follower` may not follow that range (range states up to
/// `ranges_end`, excluded).
pub(super) fn key_impls(
    cx: &Cx<'_>,
    (generics, tag, args): (&TokenStream, &Ident, &TokenStream),
    follower: &str,
    n: usize,
    ranges_end: usize,
) -> TokenStream {
    let tr = &quote!(#tag #args);
    let (flags, state) = (keys::flags(), keys::key_state(cx, n));
    let ranges = cx.t.partition_state()..ranges_end;
    let missing = keys::missing_impls(cx, generics, tr, 0..n);
    let after = keys::after_range_impls(cx, generics, tr, tag, follower, ranges);
    quote! {
        impl<#generics #flags> #tr for #state {}
        #missing
        #after
    }
}

/// [`key_impls`] of a trait without parameters of a column restricted by `=` from key state
/// `n`: after a range on an earlier column or on this one, `follower` may not follow.
pub(super) fn eq_impls(cx: &Cx<'_>, tag: &Ident, follower: &str, n: usize) -> TokenStream {
    let none = quote!();
    key_impls(cx, (&none, tag, &none), follower, n, after_eq(cx, n))
}

/// The end of the range states in which `=` on the key column restricted from state `n` says
/// that nothing may follow a range: ranges on earlier columns, and on this one.
fn after_eq(cx: &Cx<'_>, n: usize) -> usize {
    (n + 1).min(cx.t.full_key_state())
}
