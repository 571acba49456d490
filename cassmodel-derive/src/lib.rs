//! Derive macros of [cassmodel](https://docs.rs/cassmodel). Use them through the `cassmodel`
//! crate, which documents the attributes: `#[derive(cassmodel::CassTable)]` and
//! `#[derive(cassmodel::CassUdt)]`.
//!
//! The pipeline: `attr` parses attributes, `model` builds a description of the table or
//! type, `check` applies Cassandra's rules (every violation is reported, each spanned on
//! the offending field or attribute), and `generate` emits small code that calls generic runtime
//! functions.

mod attr;
mod check;
mod ctxt;
mod generate;
mod model;
mod types;

use proc_macro::TokenStream;

/// Maps a struct to a CQL table. See the `cassmodel` crate for the attributes.
#[proc_macro_derive(CassTable, attributes(partition_key, clustering, cass))]
pub fn derive_cass_table(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand_table(&input).into()
}

/// Maps a struct to a CQL user-defined type. See the `cassmodel` crate for the attributes.
#[proc_macro_derive(CassUdt, attributes(cass, partition_key, clustering))]
pub fn derive_cass_udt(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand_udt(&input).into()
}

/// Reads some columns of a table into a smaller struct. See the `cassmodel` crate.
#[proc_macro_derive(CassProjection, attributes(cass))]
pub fn derive_cass_projection(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let mut cx = ctxt::Ctxt::default();
    let projection = model::Projection::from_input(&mut cx, &input);
    match (cx.finish(), projection) {
        (Ok(()), Some(p)) => generate::projection::generate(&p),
        (Err(e), _) => e.to_compile_error(),
        (Ok(()), None) => proc_macro2::TokenStream::new(),
    }
    .into()
}

/// Declares one entity stored in several query tables; see the `cassmodel` crate.
#[proc_macro_derive(CassEntity, attributes(cass))]
pub fn derive_cass_entity(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let mut cx = ctxt::Ctxt::default();
    let entity = model::Entity::from_input(&mut cx, &input);
    match (cx.finish(), entity) {
        (Ok(()), Some(e)) => generate::entity::generate(&e),
        (Err(e), _) => e.to_compile_error(),
        (Ok(()), None) => proc_macro2::TokenStream::new(),
    }
    .into()
}

/// `#[derive(CassTable)]` on a parsed item: generated code, or every error found.
fn expand_table(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let mut cx = ctxt::Ctxt::default();
    let table = model::Table::from_input(&mut cx, input);
    if let Some(t) = &table {
        check::table(&mut cx, t);
    }
    match (cx.finish(), table) {
        (Ok(()), Some(t)) => generate::table::generate(&t),
        (Err(e), _) => e.to_compile_error(),
        (Ok(()), None) => proc_macro2::TokenStream::new(),
    }
}

/// `#[derive(CassUdt)]` on a parsed item.
fn expand_udt(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let mut cx = ctxt::Ctxt::default();
    let udt = model::Udt::from_input(&mut cx, input);
    if let Some(u) = &udt {
        check::udt(&mut cx, u);
    }
    match (cx.finish(), udt) {
        (Ok(()), Some(u)) => generate::udt::generate(&u),
        (Err(e), _) => e.to_compile_error(),
        (Ok(()), None) => proc_macro2::TokenStream::new(),
    }
}
