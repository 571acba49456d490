//! `#[derive(CassProjection)]` output: a row type that reads some columns of a table, and
//! computed fields (`#[cass(select = writetime(body))]`) after them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{fact_rule, private, readers};
use crate::model::{Computed, Projection, Sel, SelectorKind};

pub fn generate(pr: &Projection<'_>) -> TokenStream {
    let table_checks = table_checks(pr);
    let defs = defs_fn(pr);
    let projection = projection_impl(pr);
    let row_kind = row_kind(pr);
    let deserialize = deserialize_row(pr);
    let body = quote! {
        #table_checks

        #defs

        #projection
        #row_kind

        #deserialize
    };
    super::wrap(&pr.krate, body)
}

/// `__fields_of_table` and the computed fields' rules: what the projection reads is the table's.
fn table_checks(pr: &Projection<'_>) -> TokenStream {
    let table = &pr.table;
    // Each field must be a field of the table struct, of the same type: the compiler checks
    // it, pointing at the projection's field. A computed field's arguments must be fields
    // of the table too.
    let same_fields = pr.fields.iter().map(|f| {
        let (id, ty) = (f.ident, f.ty);
        quote_spanned!(ty.span()=> let _: &#ty = &row.#id;)
    });
    let arguments = pr
        .computed
        .iter()
        .flat_map(|c| &c.args)
        .map(|a| quote_spanned!(a.span()=> let _ = &row.#a;));
    let rules = pr.computed.iter().enumerate().map(|(i, c)| rules(pr, i, c));
    let calls = calls(pr);
    quote! {
        #[allow(dead_code, clippy::all)]
        fn __fields_of_table(row: &#table) {
            #(#same_fields)*
            #(#arguments)*
            #calls
        }
        #(#rules)*
    }
}

/// `__defs`: the definitions of the columns read, then of the computed fields.
fn defs_fn(pr: &Projection<'_>) -> TokenStream {
    let (krate, p, ident, table) = (&super::alias(), private(), pr.ident, &pr.table);
    let computed_defs = pr.computed.iter().map(|c| {
        let (ty, alias) = (c.ty, &c.alias);
        quote_spanned!(ty.span()=> <#ty as #krate::model::CqlMapping>::__column(
            #alias, #alias, #krate::schema::ColumnKind::Regular, #p::std::Option::None, false
        ))
    });
    quote! {
        fn __defs() -> &'static [#krate::schema::ColumnDef] {
            static DEFS: #p::std::OnceLock<#p::std::Vec<#krate::schema::ColumnDef>> = #p::std::OnceLock::new();
            DEFS.get_or_init(|| {
                let mut defs = #p::table::projection_defs::<#table>(<#ident as #krate::model::Projection<#table>>::columns());
                defs.extend([#(#computed_defs),*]);
                defs
            })
        }
    }
}

/// `impl Projection`: the columns read, by name, and the computed fields' selectors.
fn projection_impl(pr: &Projection<'_>) -> TokenStream {
    let (krate, p, ident, table) = (&super::alias(), private(), pr.ident, &pr.table);
    let names: Vec<String> = pr.fields.iter().map(|f| f.ident.to_string()).collect();
    let computed = pr.computed.iter().map(|c| {
        let (selector, alias) = (selector(&p, krate, &c.tree), &c.alias);
        quote!(#p::table::Computed { selector: #selector, alias: #alias })
    });
    let computed_fn = (!pr.computed.is_empty()).then(|| {
        quote! {
            fn computed() -> &'static [#p::table::Computed] {
                const COMPUTED: &[#p::table::Computed] = &[#(#computed),*];
                COMPUTED
            }
        }
    });
    quote! {
        impl #krate::model::Projection<#table> for #ident {
            fn columns() -> &'static [::core::primitive::usize] {
                static COLUMNS: #p::std::OnceLock<#p::std::Vec<::core::primitive::usize>> = #p::std::OnceLock::new();
                COLUMNS.get_or_init(|| #p::table::projection_columns::<#table>(&[#(#names),*]))
            }
            #computed_fn
        }
    }
}

/// The driver's `DeserializeRow`: the columns, then the computed fields.
fn deserialize_row(pr: &Projection<'_>) -> TokenStream {
    let (krate, p, ident) = (&super::alias(), private(), pr.ident);
    let rust_name = ident.to_string();
    let reads = readers(krate, &pr.fields);
    let field_idents = pr.fields.iter().map(|f| f.ident);
    let computed_idents = pr.computed.iter().map(|c| c.ident);
    let computed_reads = pr.computed.iter().map(|c| {
        let ty = c.ty;
        quote_spanned!(ty.span()=> <#ty as #krate::model::CqlMapping>::__read)
    });
    quote! {
        impl<'__f, '__m> #p::driver::DeserializeRow<'__f, '__m> for #ident {
            fn type_check(specs: &[#p::driver::ColumnSpec<'_>]) -> #p::std::Result<(), #p::driver::TypeCheckError> {
                #p::table::check_columns(#rust_name, __defs(), specs)
            }

            fn deserialize(
                row: #p::driver::ColumnIterator<'__f, '__m>,
            ) -> #p::std::Result<Self, #p::driver::DeserializationError> {
                let mut __row = #p::table::RowReader::with_columns(__defs, row);
                // The columns, then the computed fields: the order of the select list.
                #p::std::Result::Ok(Self {
                    #(#field_idents: __row.next(#reads)?,)*
                    #(#computed_idents: __row.next(#computed_reads)?,)*
                })
            }
        }
    }
}

/// The compile-time rules of a computed field that depend on the table: `writetime` and
/// `ttl` of a column with one cell (not a key column, a counter or a non-frozen
/// collection), read as its Rust type (`i64`, `Option<i32>`); `count` as `i64`. The
/// column's kind is the table's fact: each rule is a trait bound ([`fact_rule`]), whose error
/// opens with the rule, spanned on the argument. `nth` is the computed field's position.
fn rules(pr: &Projection<'_>, nth: usize, c: &Computed<'_>) -> TokenStream {
    let (krate, p, table, ty) = (&super::alias(), private(), &pr.table, c.ty);
    let field_type = match c.kind {
        Some(SelectorKind::WriteTime) => Some(quote!(assert_write_time)),
        Some(SelectorKind::Ttl) => Some(quote!(assert_ttl)),
        Some(SelectorKind::Count) => Some(quote!(assert_count)),
        _ => None,
    }
    .map(|check| quote_spanned!(ty.span()=> const _: () = #p::table::#check::<#ty>();));
    let timed = matches!(c.kind, Some(SelectorKind::WriteTime | SelectorKind::Ttl));
    let table_name = quote!(#table).to_string().replace(' ', "");
    let columns = c.args.iter().enumerate().filter(|_| timed).map(|(j, a)| {
        let (field, selector, function) = (a.to_string(), c.cql(), &c.function);
        let k = quote!(#p::table::field_kind);
        let kind = quote!(#k::of(<#table as #krate::Table>::__FIELD_KINDS, #field));
        let rule = |what: &str, holds: TokenStream, message: String, label: &str| {
            let name = format_ident!("__{}Of{}_{}", what, nth, j);
            fact_rule(&name, a.span(), holds, &message, label)
        };
        let key = rule(
            "Key",
            quote!(!#k::is_key(#kind)),
            format!(
                "`{selector}`: Cassandra keeps no {function} of a primary-key column, and `{field}` \
                 is part of the primary key of `{table_name}`: read the {function} of a regular \
                 column, e.g. `#[cass(select = {function}(<regular column>))]`"
            ),
            "a key column",
        );
        let counter = rule(
            "Counter",
            quote!(#kind != #k::COUNTER),
            format!(
                "`{selector}`: Cassandra keeps no {function} of a counter, and `{field}` is a \
                 counter column of `{table_name}`: read the counter's value instead"
            ),
            "a counter column",
        );
        let multi = rule(
            "Collection",
            quote!(#kind != #k::MULTI_CELL),
            format!(
                "`{selector}`: {function} reads a column of one cell, and `{field}` is a \
                 non-frozen collection of `{table_name}`, whose elements each have their own \
                 {function}: freeze the collection with `#[cass(frozen)]`, or read another column"
            ),
            "a non-frozen collection",
        );
        quote!(#key #counter #multi)
    });
    quote!(#field_type #(#columns)*)
}

/// A selector as the runtime's data: `Selector::Call("max", &[Selector::Field("score")])`.
fn selector(p: &syn::Ident, krate: &syn::Path, s: &Sel) -> TokenStream {
    let list = |args: &[Sel]| {
        let args = args.iter().map(|a| selector(p, krate, a));
        quote!(&[#(#args),*])
    };
    match s {
        Sel::Field(f) => {
            let name = f.to_string();
            quote!(#p::table::Selector::Field(#name))
        }
        Sel::Call {
            cast: Some((to, _)),
            args,
            ..
        } => {
            let of = args.first().map(|a| selector(p, krate, a));
            quote!(#p::table::Selector::Cast(&#of, #to))
        }
        Sel::Call { function, args, .. } => {
            let args = list(args);
            quote!(#p::table::Selector::Call(#function, #args))
        }
        Sel::User { path, args } => {
            let args = list(args);
            quote_spanned!(path.span()=> #p::table::Selector::UserCall(<#path as #krate::model::CqlFunction>::NAME, #args))
        }
        Sel::Op(l, op, r) => {
            let (l, r) = (selector(p, krate, l), selector(p, krate, r));
            quote!(#p::table::Selector::Op(&#l, #op, &#r))
        }
        Sel::Number(n) => quote!(#p::table::Selector::Number(#n)),
    }
}

/// Whether the projection reads one row per row or one of all rows: fixed by its columns and
/// native functions, else by the first function of the models it calls.
fn row_kind(pr: &Projection<'_>) -> TokenStream {
    let (krate, p, ident) = (&super::alias(), private(), pr.ident);
    let kind = match decided_by(pr) {
        Decided::Rows => quote!(#p::function::Rows),
        Decided::Aggregated => quote!(#p::function::Aggregated),
        Decided::Call(path) => quote!(<#path as #krate::model::CqlFunction>::Kind),
    };
    quote!(impl #p::function::RowKind for #ident { type Kind = #kind; })
}

enum Decided<'p> {
    Rows,
    Aggregated,
    Call(&'p syn::Path),
}

fn decided_by<'p>(pr: &'p Projection<'_>) -> Decided<'p> {
    if pr.computed.iter().any(Computed::is_aggregate) {
        return Decided::Aggregated;
    }
    let per_row =
        !pr.fields.is_empty() || pr.computed.iter().any(|c| c.tree.user_calls().is_empty());
    match pr.computed.iter().flat_map(|c| c.tree.user_calls()).next() {
        Some((path, _)) if !per_row => Decided::Call(path),
        _ => Decided::Rows,
    }
}

/// The checks of each call of a function of the models: its arguments are the fields' types,
/// a field that reads its result directly holds what it returns, and it reads rows as the
/// projection does (an aggregate beside aggregates, a function beside columns).
fn calls(pr: &Projection<'_>) -> TokenStream {
    let p = private();
    let decided = decided_by(pr);
    let mut out = TokenStream::new();
    for c in &pr.computed {
        for (path, args) in c.tree.user_calls() {
            let fields = args.iter().filter_map(|a| match a {
                Sel::Field(f) => Some(f),
                _ => None,
            });
            out.extend(quote_spanned! {path.span()=>
                #p::function::arguments::<#path, _>((#(&row.#fields,)*));
            });
            out.extend(match &decided {
                Decided::Rows => quote_spanned!(path.span()=> #p::function::per_row::<#path>();),
                Decided::Aggregated => {
                    quote_spanned!(path.span()=> #p::function::aggregate::<#path>();)
                }
                Decided::Call(first) => quote_spanned! {path.span()=>
                    #p::function::same_kind::<#first, #path>();
                },
            });
        }
        if let Sel::User { path, .. } = &c.tree {
            let ty = c.ty;
            out.extend(quote_spanned!(ty.span()=> #p::function::returns::<#path, #ty>();));
        }
    }
    out
}
