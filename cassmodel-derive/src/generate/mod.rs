//! Code generation. Generated code is wrapped in `const _: () = { ... };`, names everything
//! through the runtime's hidden `__private` module (or the `crate = "..."` path), and keeps
//! per-field code to one line that calls generic runtime functions.

pub mod entity;
pub mod projection;
pub mod query;
pub mod table;
pub mod udt;
pub mod write;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{Field, Role};
use crate::types;

/// `::cassmodel::__private`, or the configured crate's.
pub fn private(krate: &syn::Path) -> TokenStream {
    quote!(#krate::__private)
}

/// `<Ty as CqlMapping>`, spanned on the field's type: every use of a field type goes through
/// it, so a type without a mapping is reported once, on the field.
pub fn mapping(krate: &syn::Path, f: &Field<'_>) -> TokenStream {
    let ty = f.ty;
    quote_spanned!(ty.span()=> <#ty as #krate::CqlMapping>)
}

/// The `ColumnDef` of one field.
pub fn column_def(krate: &syn::Path, f: &Field<'_>) -> TokenStream {
    let p = private(krate);
    let m = mapping(krate, f);
    let column = &f.column;
    let field = f.ident.to_string();
    let kind = match f.role {
        Role::PartitionKey => quote!(#krate::ColumnKind::PartitionKey),
        Role::Clustering(crate::attr::Order::Asc) => {
            quote!(#krate::ColumnKind::Clustering(#krate::Order::Asc))
        }
        Role::Clustering(crate::attr::Order::Desc) => {
            quote!(#krate::ColumnKind::Clustering(#krate::Order::Desc))
        }
        Role::Static => quote!(#krate::ColumnKind::Static),
        Role::Regular => quote!(#krate::ColumnKind::Regular),
    };
    let cql_type = match &f.attrs.cql_type {
        Some(t) => {
            let t = types::cql_type_tokens(&t.value, &p);
            quote!(#p::Option::Some(#t))
        }
        None => quote!(#p::Option::None),
    };
    let frozen = f.attrs.frozen.is_some();
    let index = f.index.as_ref().map(|ix| {
        let name = &ix.name;
        let target = match ix.target {
            Some((t, _)) => {
                // `IndexTarget` is a fieldless enum with derived `Debug`: the variant's name.
                let v = syn::Ident::new(&format!("{t:?}"), proc_macro2::Span::call_site());
                quote!(#p::Option::Some(#krate::IndexTarget::#v))
            }
            None => quote!(#p::Option::None),
        };
        quote!(.with_index(#name, #target))
    });
    quote!(#m::__column(#column, #field, #kind, #cql_type, #frozen) #index)
}

/// `read` functions for `RowReader::next` / `UdtReader::field`, one per field.
pub fn readers(krate: &syn::Path, fields: &[Field<'_>]) -> Vec<TokenStream> {
    fields
        .iter()
        .map(|f| {
            let m = mapping(krate, f);
            quote!(#m::__read)
        })
        .collect()
}

/// Compile-time checks on the field types, spanned on each type so that the trait's
/// `on_unimplemented` message points at the field: every type has a CQL mapping, and key
/// types (without a `frozen`/`cql_type` override) may be key columns.
pub fn type_assertions(krate: &syn::Path, fields: &[Field<'_>]) -> TokenStream {
    let p = private(krate);
    let checks = fields.iter().map(|f| {
        let ty = f.ty;
        let key = f.role.is_key()
            && f.attrs.frozen.is_none()
            && f.attrs.cql_type.is_none()
            && types::shape(ty) == types::Shape::Other;
        key.then(|| quote_spanned!(ty.span()=> #p::assert_key_column::<#ty>();))
    });
    quote!(const _: () = { #(#checks)* };)
}

/// `[<A as CqlMapping>::__type_check, ...]`
pub fn type_checks(krate: &syn::Path, fields: &[Field<'_>]) -> TokenStream {
    let checks = fields.iter().map(|f| {
        let m = mapping(krate, f);
        quote!(#m::__type_check)
    });
    quote!([#(#checks),*])
}

/// `match index { 0 => <A as CqlMapping>::__write(&self.a, typ, writer), ... }` arms.
pub fn write_arms(krate: &syn::Path, fields: &[Field<'_>]) -> Vec<TokenStream> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let ident = f.ident;
            let m = mapping(krate, f);
            quote!(#i => #m::__write(&self.#ident, typ, writer),)
        })
        .collect()
}
