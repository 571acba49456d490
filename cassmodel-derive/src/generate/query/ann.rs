//! Vector search: `ann_col(&query)` on a vector column with an index; the similarity of each
//! row to a query vector: `similarity_col(function, &query)` on any vector column.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::generate::{Cx, keys, marker};
use crate::model::Field;
use crate::types::Shape;
use cassmodel_schema::{CqlType, IndexOp};

/// A vector column: `ann_col(&query)`, a vector search (`ORDER BY col ANN OF ?`) in the
/// states an indexed column may be restricted in (`__IndexBase`), when the column has an
/// index; without one the method exists to say so. Vector columns take no `=` or range
/// ("Vector indexes only support ANN queries").
pub(super) fn ann_column(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    let (q, p, kd, st) = (cx.q, &cx.p, &cx.kd, &cx.st);
    let (table, col, name, idx) = (cx.table, &f.column, f.ident, f.position);
    let tr = format_ident!("__Ann_{}", name);
    let method = format_ident!("ann_{}", name);
    let (doc, items) = match f.index_for(IndexOp::Ann) {
        Some(ix) => {
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
    let (query_trait, query_items) = query_vector(cx, f);
    let method = quote_spanned! {name.span()=>
        #[doc = #doc]
        pub fn #method(
            self,
            query: &'a impl #query_trait,
        ) -> #q<'a, #st::Nearest<false>, #kd::Select, R>
        where
            S: #tr + #p::query::AnnBase,
        {
            #q(self.0.ann(#idx, #p::query::Bound::Value(query)))
        }
    };
    (quote!(#items #query_items), method)
}

/// In a read, `similarity_col(function, &query)` on each vector column: `SELECT
/// similarity_<function>(col, ?), ...`, each row with its similarity to `query`, with or
/// without a vector search or an index. The query is checked as `ann_col`'s is (the column's
/// `__AnnQuery_<field>`, which names the table, the column and its dimension).
pub(super) fn similarity_methods(cx: &Cx<'_>) -> TokenStream {
    let (q, p, krate, kd) = (cx.q, &cx.p, cx.krate, &cx.kd);
    let methods = cx.t.fields.iter().filter(|f| f.is_vector()).map(|f| {
        let (name, col, idx) = (f.ident, &f.column, f.position);
        let method = format_ident!("similarity_{}", name);
        let query_trait = format_ident!("__AnnQuery_{}", name);
        let (score, null) = if f.shape == Shape::Option {
            (
                quote!(::core::option::Option<::core::primitive::f32>),
                " (`None` for a row without one)",
            )
        } else {
            (quote!(::core::primitive::f32), "")
        };
        let doc = format!(
            "`SELECT similarity_<function>({col}, ?), ...`: reads each row with the \
             similarity of its `{col}` to `query` by `function` (`Similarity::Cosine`, \
             `DotProduct` or `Euclidean`), as `Scored {{ score, row }}`{null}. In any read: \
             with or without a vector search or an index on `{col}`; several scores read \
             as `Scored {{ score, row: Scored {{ .. }} }}`, the last one outside. For a \
             projection, call it after `read_as`."
        );
        quote_spanned! {name.span()=>
            #[doc = #doc]
            pub fn #method(
                self,
                function: #krate::schema::Similarity,
                query: &'a impl #query_trait,
            ) -> #q<'a, S, #kd::Select, #krate::query::Scored<R, #score>> {
                #q(self.0.similarity(#idx, function, #p::query::Bound::Value(query)))
            }
        }
    });
    quote!(#(#methods)*)
}

/// What `ann_col(&query)` takes: the runtime's `QueryVector` of the column's type, under a
/// trait of the column whose message names the table, the column and its dimension (the
/// runtime's own can only name Rust types).
fn query_vector(cx: &Cx<'_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    let (p, table, col, ty) = (&cx.p, cx.table, &f.column, f.ty);
    let tr = format_ident!("__AnnQuery_{}", f.ident);
    let (message, label, note) = match &f.cql_type {
        Some(CqlType::Vector(_, n)) => (
            format!(
                "`{{Self}}` is not a query vector for `{table}.{col}`, a `vector<float, {n}>`: \
                 give a `&Vector<{n}>` or a `&[f32; {n}]`"
            ),
            format!("not a vector of {n} floats"),
            format!(
                "a vector search or a similarity compares vectors of one dimension, and \
                 `{col}` holds {n} floats: the query's dimension is the `N` of its type"
            ),
        ),
        _ => (
            format!(
                "`{{Self}}` is not a query vector for `{table}.{col}`: give a `&Vector<N>` or a \
                 `&[f32; N]` with the `N` of the column's type"
            ),
            "a vector of another dimension, or not a vector".to_owned(),
            format!(
                "a vector search or a similarity compares vectors of one dimension: that of \
                 `{col}`"
            ),
        ),
    };
    let items = quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #tr: #p::query::QueryVector<#ty> {}
        #[diagnostic::do_not_recommend]
        impl<V: #p::query::QueryVector<#ty>> #tr for V {}
    };
    (quote!(#tr), items)
}

/// In a table with a vector column, `ann_col(..)` on each other column, to say that a vector
/// search needs a vector column and which columns are (one trait per such column, named in
/// its message; hidden methods; a table without vector columns has none of this).
pub(super) fn not_vector_columns(cx: &Cx<'_>) -> (TokenStream, TokenStream) {
    let t = cx.t;
    if !t.has_vector() {
        return (TokenStream::new(), TokenStream::new());
    }
    let (table, vectors) = (cx.table, t.vector_column_list());
    let (q, kd, st) = (cx.q, &cx.kd, &cx.st);
    let (marks, methods): (Vec<_>, Vec<_>) = t
        .fields
        .iter()
        .filter(|f| !f.is_vector())
        .map(|f| {
            let tr = format_ident!("__AnnNotVector_{}", f.ident);
            let mark = marker(
                &tr,
                &format!(
                    "`ann_{field}`: `{field}` is not a vector column of `{table}`: a vector search \
                     needs a `vector<float, n>` column with a vector index; the vector columns of \
                     `{table}`: {vectors}",
                    field = f.ident,
                ),
                "not a vector column",
                "search a vector column (`ann_<vector field>(&query)`), or declare the column as \
                 `Vector<N>` (`cassmodel::value::Vector`) with `#[cass(index)]`",
            );
            let method = format_ident!("ann_{}", f.ident);
            // The state of a vector search, so that nothing after it fails as well.
            let method = quote_spanned! {f.ident.span()=>
                #[doc(hidden)]
                pub fn #method<V>(self, _query: V) -> #q<'a, #st::Nearest<false>, #kd::Select, R>
                where
                    S: #tr,
                {
                    #q(self.0.to())
                }
            };
            (mark, method)
        })
        .unzip();
    (quote!(#(#marks)*), quote!(#(#methods)*))
}
