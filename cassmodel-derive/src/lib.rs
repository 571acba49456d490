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
mod expand;
mod generate;
mod model;
#[cfg(test)]
mod tests;
mod types;

use proc_macro::TokenStream;

/// Maps a struct to a CQL table. See the `cassmodel` crate for the attributes.
#[proc_macro_derive(CassTable, attributes(partition_key, clustering, cass))]
pub fn derive_cass_table(input: TokenStream) -> TokenStream {
    expand::table(input.into()).into()
}

/// Maps a struct to a CQL user-defined type. See the `cassmodel` crate for the attributes.
#[proc_macro_derive(CassUdt, attributes(cass, partition_key, clustering))]
pub fn derive_cass_udt(input: TokenStream) -> TokenStream {
    expand::udt(input.into()).into()
}

/// Reads some columns of a table into a smaller struct. See the `cassmodel` crate.
#[proc_macro_derive(CassProjection, attributes(cass))]
pub fn derive_cass_projection(input: TokenStream) -> TokenStream {
    expand::projection(input.into()).into()
}

/// Declares one entity stored in several query tables; see the `cassmodel` crate.
#[proc_macro_derive(CassEntity, attributes(cass))]
pub fn derive_cass_entity(input: TokenStream) -> TokenStream {
    expand::entity(input.into()).into()
}

/// Declares a user-defined function of the models; see the `cassmodel` crate.
#[proc_macro_derive(CassFunction, attributes(cass))]
pub fn derive_cass_function(input: TokenStream) -> TokenStream {
    expand::routine(input.into(), false).into()
}

/// Declares a user-defined aggregate of the models; see the `cassmodel` crate.
#[proc_macro_derive(CassAggregate, attributes(cass))]
pub fn derive_cass_aggregate(input: TokenStream) -> TokenStream {
    expand::routine(input.into(), true).into()
}
