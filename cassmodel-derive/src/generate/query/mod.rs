//! The read side of a table's query builder: `Post::select()...`.
//!
//! Each column gets one-line methods (`user_id(..)`, `post_id_gt(..)`, `order_by_post_id(..)`)
//! whose method-level `where S: Trait` bound admits exactly the states in which Cassandra
//! accepts that restriction. The traits are generated per column so that their
//! `#[diagnostic::on_unimplemented]` message names the column and what to give first; the
//! states (`Key<N>`, `Range<N, LO, HI>`, `Filtering`), their transitions and all the work are
//! generic runtime code (`__private::query::Query`).
//!
//! Split by clause, as serde_derive splits `de/`: the key columns ([`key`]: `=` and `IN`),
//! ranges on clustering columns ([`range`]), a bucket's source ([`bucket`]), restrictions on
//! indexed columns ([`index`]), vector search ([`ann`]), ordering ([`order`]), options and the
//! reads ([`read`]), each over the key states a column's trait is implemented for
//! ([`states`]).

mod ann;
mod bucket;
mod index;
mod key;
mod order;
mod range;
mod read;
mod states;

use proc_macro2::TokenStream;
use quote::quote;

use crate::generate::Cx;

use ann::not_vector_columns;
use index::filter_column;
use key::key_column;
use order::order_by;
use read::{options, reads};

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
    let (not_vector, ann_refused) = not_vector_columns(cx);
    items.push(not_vector);
    filters.push(ann_refused);
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
