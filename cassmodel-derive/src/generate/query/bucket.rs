//! A bucket's source: `src(v)` restricts the bucket and the source at once, `src_range(..)`
//! reads a range over the buckets; the bucket column is never given by hand.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::generate::{Cx, keys, marker};
use crate::model::Field;

use super::states::{eq_impls, range_ops};

/// The bucket's source (the first clustering column): `src(v)` restricts the bucket and the
/// source at once, after the declared partition key; `src_range(from..to)` (on a SELECT, in
/// `reads`) reads a range over the buckets; `src_in` and the single-bound ranges exist to say
/// why not; the bucket column's own methods, to say it is never given by hand.
pub(super) fn bucket_source(
    cx: &Cx<'_>,
    key: &[&Field<'_>],
    i: usize,
) -> (TokenStream, TokenStream) {
    let (q, p, st, krate) = (cx.q, &cx.p, &cx.st, cx.krate);
    let f = key[i];
    let Some(b) = cx.t.bucket.as_ref() else {
        return (quote!(), quote!());
    };
    let (col, name, ty, idx) = (&f.column, f.ident, f.ty, f.position);
    let next = cx.t.state_after(i);
    let (bucket_idx, bucket) = (b.index, &b.column);
    let rule = b.rule.map(|r| crate::generate::bucket_rule(krate, r));
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
    let bound = cx.bound_as(ty, &format_ident!("value"));
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
                    #bound,
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
pub(super) fn bucket_markers(
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
        eq_impls(cx, &eq, &format!("`{col}`"), before),
        eq_impls(
            cx,
            &range_tr,
            &format!("a range of `{col}` over its buckets"),
            before,
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
pub(super) fn bucket_range(cx: &Cx<'_>) -> Option<TokenStream> {
    let (krate, ident) = (cx.krate, cx.ident);
    let b = cx.t.bucket.as_ref()?;
    let rule = crate::generate::bucket_rule(krate, b.rule?);
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
    let latest = format_ident!("{}_latest", name);
    let latest_doc = format!(
        "The latest `n` rows (newest `{col}` first) in `range`: `horizon..` reads back from \
         now, `horizon..=start` from `start`. The buckets `{}` are read one by one from the \
         start's back to the horizon's, each asked only for the rows still missing, until `n` \
         rows are read or the horizon is reached (then fewer).",
        b.column
    );
    Some(quote_spanned! {name.span()=>
        #[doc = #doc]
        pub fn #method(
            self,
            range: impl #krate::query::BucketRange<#ty>,
        ) -> #krate::query::BucketRead<'a, #ident, R>
        where
            S: #tr,
        {
            self.0.bucket_range(#bucket_idx, #idx, #rule, range)
        }

        #[doc = #latest_doc]
        pub fn #latest(
            self,
            n: impl #krate::query::RowCount,
            range: impl #krate::query::LatestRange<#ty>,
        ) -> #krate::query::BucketRead<'a, #ident, R>
        where
            S: #tr,
        {
            self.0.bucket_latest(#bucket_idx, #idx, #rule, n, range)
        }
    })
}
