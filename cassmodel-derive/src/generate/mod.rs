//! Code generation. Generated code is wrapped in `const _: () = { ... };`, names everything
//! through the runtime's hidden `__private` module (or the `crate = "..."` path), and keeps
//! per-field code to one line that calls generic runtime functions.

pub mod table;
pub mod udt;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{Field, Role};
use crate::types;

/// `::cassmodel::__private`, or the configured crate's.
pub fn private(krate: &syn::Path) -> TokenStream {
    quote!(#krate::__private)
}

/// `ColumnDef::new::<Ty>(...)` for one field.
pub fn column_def(krate: &syn::Path, f: &Field<'_>) -> TokenStream {
    let p = private(krate);
    let ty = f.ty;
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
    quote_spanned!(ty.span()=> #krate::ColumnDef::new::<#ty>(#column, #field, #kind, #cql_type, #frozen))
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
        let key = key.then(|| quote_spanned!(ty.span()=> #p::assert_key_column::<#ty>();));
        quote_spanned! {ty.span()=>
            #p::assert_mapped::<#ty>();
            #key
        }
    });
    quote!(const _: () = { #(#checks)* };)
}

/// `[type_check_of::<A>, type_check_of::<B>, ...]`
pub fn type_checks(krate: &syn::Path, fields: &[Field<'_>]) -> TokenStream {
    let p = private(krate);
    let checks = fields.iter().map(|f| {
        let ty = f.ty;
        quote_spanned!(ty.span()=> #p::type_check_of::<#ty>)
    });
    quote!([#(#checks),*])
}

/// `match index { 0 => SerializeValue::serialize(&self.a, typ, writer), ... }` arms.
pub fn write_arms(krate: &syn::Path, fields: &[Field<'_>]) -> Vec<TokenStream> {
    let p = private(krate);
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let ident = f.ident;
            quote!(#i => <_ as #p::SerializeValue>::serialize(&self.#ident, typ, writer),)
        })
        .collect()
}
