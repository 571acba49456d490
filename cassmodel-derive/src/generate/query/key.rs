//! Key columns: `col(v)` and `col_in(vs)`, in key order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::generate::{Cx, imp, keys, marker};
use crate::model::{Field, Role};

use super::bucket::bucket_source;
use super::range::{ranges, refused_ranges};
use super::states::eq_impls;

/// Key column `i`: `col(v)` and `col_in(vs)` after the columns before it, then either ranges
/// (a clustering column) or range methods that exist only to say why not (partition key).
pub(super) fn key_column(cx: &Cx<'_>, key: &[&Field<'_>], i: usize) -> (TokenStream, TokenStream) {
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
        eq_impls(cx, &eq, &format!("`{col}`"), before),
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
        cx.bound(&format_ident!("value")),
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
            V: #krate::model::BindAs<#ty> + ::core::marker::Send,
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
