//! Code generation: data plus thin typed calls into the runtime.
//!
//! Generated code is wrapped in `const _: () = { ... };` (the builder struct of a table sits
//! beside the user's struct so that it can be named), names everything through the runtime's
//! hidden `__private` module (or the `crate = "..."` path), and holds no logic that does not
//! name a column: options, limits, terminals, execution and batching are generic runtime code,
//! type-checked once in `cassmodel-runtime`, and generated methods are one-line calls into it.
//!
//! - [`table`]: `#[derive(CassTable)]`: the `Table` impl, the row codec, registration, and the
//!   entry points (`select()`, `get`, ...); it puts together [`keys`], [`query`], [`write`].
//! - [`keys`]: the per-table marker traits about the primary key, shared by reads and writes.
//! - [`query`]: the read side of the builder (restrictions, ordering, reads).
//! - [`write`]: the write side (setters, conditions, `execute`, batches).
//! - [`fallback`]: what is expanded when the input has errors.
//! - [`udt`], [`projection`], [`entity`], [`function`]: the other derives.

pub mod entity;
pub mod fallback;
pub mod function;
pub mod keys;
pub mod projection;
pub mod query;
pub mod table;
pub mod udt;
pub mod write;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use crate::attr::Order;
use crate::model::{Field, Role, Table};
use crate::types;

/// `body` in the `const _: () = { ... };` block every derive expands into. The block names
/// `::cassmodel` (or the `crate = "..."` path) and its hidden `__private` module `__cm` and `__p`,
/// `::core::primitive::bool` `__bool` (in every key state's flags), and `BindAs` and `Sized` as
/// `__BindAs` and `__Sized` (in every value parameter, see [`Cx::param`]): still absolute paths,
/// like serde's `extern crate serde as _serde`, but half the text to expand and type-check. It allows, once: aliases that go unused, marker traits named after
/// columns (`__Eq_user_id`), and public methods bound by them though nothing outside can name
/// them, and methods named after a field that ends in `_` (`self_` gives `self__gt`).
pub fn wrap(krate: &syn::Path, body: TokenStream) -> TokenStream {
    quote! {
        #[allow(
            unused_imports,
            non_camel_case_types,
            non_snake_case,
            private_bounds,
            private_interfaces
        )]
        const _: () = {
            use #krate as __cm;
            use #krate::__private as __p;
            use ::core::primitive::bool as __bool;
            use #krate::model::BindAs as __BindAs;
            use ::core::marker::Sized as __Sized;
            #body
        };
    }
}

/// The crate's alias inside a `const _` block (see [`wrap`]).
pub fn alias() -> syn::Path {
    syn::parse_quote!(__cm)
}

/// The name of the struct a path names: its last segment (`Reading` for `super::Reading`).
pub fn struct_name(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// The hidden module's alias inside a `const _` block.
///
/// An `Ident`, not a `TokenStream`: `quote!` appends an ident to its output in the macro's
/// own memory, while each interpolated `TokenStream` is a round trip to the compiler (one
/// of the derive's largest costs when it runs unoptimized, as in every debug build).
pub fn private() -> Ident {
    Ident::new("__p", proc_macro2::Span::call_site())
}

/// `<Ty as CqlMapping>`, spanned on the field's type: every use of a field type goes through
/// it, so a type without a mapping is reported once, on the field.
pub fn mapping(krate: &syn::Path, f: &Field<'_>) -> TokenStream {
    let ty = f.ty;
    quote_spanned!(ty.span()=> <#ty as #krate::model::CqlMapping>)
}

/// What every generator of a table needs: the paths and names, resolved once.
pub struct Cx<'t> {
    pub t: &'t Table<'t>,
    pub krate: &'t syn::Path,
    /// The runtime's hidden module.
    pub p: Ident,
    /// `::cassmodel::query::state` (a path, appended token by token: see [`private`])
    pub st: syn::Path,
    /// `::cassmodel::query::kind`
    pub kd: syn::Path,
    /// The builder struct, `PostQuery`.
    pub q: &'t Ident,
    /// The user's struct, `Post`.
    pub ident: &'t Ident,
    /// The table's CQL name, for messages.
    pub table: &'t str,
}

impl<'t> Cx<'t> {
    /// The context of code inside the table's `const _` block: `krate` is [`alias`].
    pub fn new(t: &'t Table<'t>, krate: &'t syn::Path) -> Self {
        Cx {
            t,
            krate,
            p: private(),
            st: syn::parse_quote!(#krate::query::state),
            kd: syn::parse_quote!(#krate::query::kind),
            q: &t.builder,
            ident: t.ident,
            table: &t.name,
        }
    }

    /// `value.__bound()`: an argument declared by [`param`](Self::param) as a bound value.
    /// The argument's type is a parameter with that one `BindAs` bound, so the call resolves
    /// through it (no import needed, and cheaper to check than the path form `BindAs::<Ty>::
    /// __bound(value)` by about 2% of a crate of derived tables, measured with callgrind).
    pub fn bound(&self, arg: &Ident) -> TokenStream {
        quote!(#arg.__bound())
    }

    /// `BindAs::<Ty>::__bound(value)`: an argument of a concrete type (`&str` may be bound
    /// as a `String` or an `Option<String>`, so the column's type is named).
    pub fn bound_as(&self, ty: &syn::Type, arg: &Ident) -> TokenStream {
        let krate = self.krate;
        quote!(#krate::model::BindAs::<#ty>::__bound(#arg))
    }

    /// `value: &'a (impl BindAs<Ty> + ?Sized)`: a method parameter for a value of `ty`,
    /// through the block's aliases (see [`wrap`]): the most frequent tokens a table expands to.
    pub fn param(&self, arg: &Ident, ty: &syn::Type) -> TokenStream {
        quote!(#arg: &'a (impl __BindAs<#ty> + ?__Sized))
    }
}

/// Column names as a readable list: `a, b, c`.
pub fn list(fields: &[&Field<'_>]) -> String {
    fields
        .iter()
        .map(|f| f.column.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `#[diagnostic::on_unimplemented]` marker trait: implemented for the states in which a
/// method may be called; its message is what a user sees otherwise. It lives in the table's
/// `const _` block (so nothing outside can name or implement it), whose [`wrap`] allows its
/// name and its use in public bounds.
pub fn marker(name: &Ident, message: &str, label: &str, note: &str) -> TokenStream {
    quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #name {}
    }
}

/// A rule checked on facts of another type (a table's field kinds, an entity's tables),
/// which the derive cannot see: `holds`, a `bool` constant expression, must be true, else
/// one error spanned at `span` whose first line is `message` (the rule and its fix). A trait
/// implemented for the runtime's `Rule<true>` only, asked of `Rule<{ holds }>` (a `panic!`
/// in a `const` would open with "evaluation panicked"). `name` is unique in its scope.
pub fn fact_rule(
    name: &Ident,
    span: proc_macro2::Span,
    holds: TokenStream,
    message: &str,
    label: &str,
) -> TokenStream {
    quote_spanned! {span=>
        #[diagnostic::on_unimplemented(message = #message, label = #label)]
        trait #name {}
        impl #name for __p::table::Rule<true> {}
        const _: () = {
            const fn holds<R: #name>() {}
            holds::<__p::table::Rule<{ #holds }>>()
        };
    }
}

/// `impl Trait for State {}`
pub fn imp(name: &Ident, state: TokenStream) -> TokenStream {
    quote!(impl #name for #state {})
}

/// The `ColumnDef` of one field.
pub fn column_def(krate: &syn::Path, f: &Field<'_>) -> TokenStream {
    let p = private();
    let m = mapping(krate, f);
    let column = &f.column;
    let field = f.ident.to_string();
    let kind = match f.role {
        Role::PartitionKey => quote!(#krate::schema::ColumnKind::PartitionKey),
        Role::Clustering(Order::Asc) => {
            quote!(#krate::schema::ColumnKind::Clustering(#krate::Order::Asc))
        }
        Role::Clustering(Order::Desc) => {
            quote!(#krate::schema::ColumnKind::Clustering(#krate::Order::Desc))
        }
        Role::Static => quote!(#krate::schema::ColumnKind::Static),
        Role::Regular => quote!(#krate::schema::ColumnKind::Regular),
    };
    let cql_type = match &f.attrs.cql_type {
        Some(t) => {
            let t = types::cql_type_tokens(&t.value, &p);
            quote!(#p::std::Option::Some(#t))
        }
        None => quote!(#p::std::Option::None),
    };
    let frozen = f.attrs.frozen.is_some();
    let index = f.indexes.iter().map(|ix| {
        let name = &ix.name;
        let target = match ix.target {
            Some((t, _)) => {
                // `IndexTarget` is a fieldless enum with derived `Debug`: the variant's name.
                let v = Ident::new(&format!("{t:?}"), proc_macro2::Span::call_site());
                quote!(#p::std::Option::Some(#krate::schema::IndexTarget::#v))
            }
            None => quote!(#p::std::Option::None),
        };
        let similarity = ix.similarity.map(|(s, _)| {
            let v = Ident::new(&format!("{s:?}"), proc_macro2::Span::call_site());
            quote!(.with_similarity(#krate::schema::Similarity::#v))
        });
        quote!(.with_index(#name, #target) #similarity)
    });
    let avg = f.attrs.avg_bytes.as_ref().map(|a| {
        let n = a.value;
        quote!(.with_avg_bytes(#n))
    });
    let mask = f.mask.as_ref().and_then(|m| m.mask()).map(|m| {
        let m = m.to_string();
        quote!(.with_mask(#m))
    });
    quote!(#m::__column(#column, #field, #kind, #cql_type, #frozen) #(#index)* #avg #mask)
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
/// `on_unimplemented` message points at the field: key types (without a `frozen`/`cql_type`
/// override) may be key columns. Every other field type is checked by its use in the
/// `ColumnDef` (`CqlMapping`).
pub fn type_assertions(fields: &[Field<'_>]) -> TokenStream {
    let p = private();
    let checks = fields.iter().filter_map(|f| {
        let ty = f.ty;
        let key = f.role.is_key()
            && f.attrs.frozen.is_none()
            && f.attrs.cql_type.is_none()
            && f.shape == types::Shape::Other;
        key.then(|| quote_spanned!(ty.span()=> #p::table::assert_key_column::<#ty>();))
    });
    quote!(#(#checks)*)
}

/// `match index { 0 => Some(<A as CqlMapping>::__erased(&self.a)), .., _ => None }`: each
/// field as a value to write, by position.
pub fn value_match(krate: &syn::Path, fields: &[Field<'_>]) -> TokenStream {
    let arms = fields.iter().enumerate().map(|(i, f)| {
        let ident = f.ident;
        let m = mapping(krate, f);
        quote!(#i => __p::std::Option::Some(#m::__erased(&self.#ident)),)
    });
    quote! {
        match index {
            #(#arms)*
            _ => __p::std::Option::None,
        }
    }
}

/// `(a, b, ..)`: a row's cells as the runtime writes them (`Table::__cells`), nested in tuples
/// of at most [`CELLS_ARITY`](cassmodel_schema::CELLS_ARITY) (the longest the runtime writes).
pub fn cells_tuple(cells: Vec<TokenStream>) -> TokenStream {
    if cells.len() <= cassmodel_schema::CELLS_ARITY {
        return quote!((#(#cells,)*));
    }
    let groups = cells
        .chunks(cassmodel_schema::CELLS_ARITY)
        .map(|c| cells_tuple(c.to_vec()))
        .collect();
    cells_tuple(groups)
}

/// `BucketRule::Period(Period::Month)` or `BucketRule::Width(n)`.
pub fn bucket_rule(krate: &syn::Path, rule: crate::attr::BucketRule) -> TokenStream {
    match rule {
        crate::attr::BucketRule::Period(p) => {
            let v = syn::Ident::new(&format!("{p:?}"), proc_macro2::Span::call_site());
            quote!(#krate::schema::BucketRule::Period(#krate::schema::Period::#v))
        }
        crate::attr::BucketRule::Width(w) => {
            let w = i64::try_from(w).unwrap_or(i64::MAX);
            quote!(#krate::schema::BucketRule::Width(#w))
        }
    }
}
