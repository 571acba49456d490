//! Ranges on a clustering column (`_gt`, `_ge`, `_lt`, `_le`), and on a partition-key column
//! the methods that exist to say why not.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::generate::{Cx, keys, marker};
use crate::model::Field;

use super::states::{key_impls, range_ops};

/// Ranges on clustering column `i`: after the key columns before it, at most one lower and
/// one upper bound.
pub(super) fn ranges(cx: &Cx<'_>, key: &[&Field<'_>], i: usize) -> (TokenStream, TokenStream) {
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
    let (upper, flags) = (quote!(const UPPER: __bool,), keys::flags());
    let follower = format!("a range on `{col}`");
    let key = key_impls(cx, (&upper, &tr, &quote!(<UPPER>)), &follower, i, i);
    let items = quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #tr<const UPPER: __bool> {}
        #key
        impl<#flags> #tr<false> for #st::Range<#i, false, true, IN, REV> {}
        impl<#flags> #tr<true> for #st::Range<#i, true, false, IN, REV> {}
        impl<const UPPER: __bool> #tr<UPPER> for #st::Filtering {}
    };
    let (param, bound) = (
        cx.param(&format_ident!("value"), ty),
        cx.bound(&format_ident!("value")),
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
pub(super) fn refused_ranges(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
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
