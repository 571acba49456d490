//! `order_by_col(order)`: the first clustering column; on any other column it says why not.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::attr::Order;
use crate::generate::{Cx, keys, list, marker};
use crate::model::{Field, Role};

/// `order_by_col(order)`: the first clustering column with the partition key given; on any
/// other column it exists to say why not.
pub(super) fn order_by(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
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
