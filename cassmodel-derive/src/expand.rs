//! One function per derive, each the whole pipeline on a `proc_macro2::TokenStream` (so unit
//! tests and snapshot tests drive them without a compiler): parse the item, build the model
//! (attributes parsed, every fact resolved once), check Cassandra's rules, then generate; on
//! any error, every error at once and the minimal [`fallback`](crate::generate::fallback).

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::ctxt::Ctxt;
use crate::generate::{self, fallback};
use crate::{check, model};

fn parse(input: TokenStream) -> Result<DeriveInput, TokenStream> {
    syn::parse2(input).map_err(|e| e.to_compile_error())
}

/// `#[derive(CassTable)]`
pub fn table(input: TokenStream) -> TokenStream {
    let input = match parse(input) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let mut cx = Ctxt::default();
    let table = model::Table::from_input(&mut cx, &input);
    if let Some(t) = &table {
        check::table(&mut cx, t);
    }
    match (cx.finish(), table) {
        (Ok(()), Some(t)) => generate::table::generate(&t),
        (result, t) => {
            let mut out = result
                .err()
                .map(|e| e.to_compile_error())
                .unwrap_or_default();
            out.extend(fallback::table(&input, t.as_ref().map(|t| &t.krate)));
            out
        }
    }
}

/// `#[derive(CassUdt)]`
pub fn udt(input: TokenStream) -> TokenStream {
    let input = match parse(input) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let mut cx = Ctxt::default();
    let udt = model::Udt::from_input(&mut cx, &input);
    if let Some(u) = &udt {
        check::udt(&mut cx, u);
    }
    match (cx.finish(), udt) {
        (Ok(()), Some(u)) => generate::udt::generate(&u),
        (result, u) => {
            let mut out = result
                .err()
                .map(|e| e.to_compile_error())
                .unwrap_or_default();
            out.extend(fallback::udt(&input, u.as_ref().map(|u| &u.krate)));
            out
        }
    }
}

/// `#[derive(CassProjection)]`
pub fn projection(input: TokenStream) -> TokenStream {
    let input = match parse(input) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let mut cx = Ctxt::default();
    let projection = model::Projection::from_input(&mut cx, &input);
    match (cx.finish(), projection) {
        (Ok(()), Some(p)) => generate::projection::generate(&p),
        (result, _) => result
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default(),
    }
}

/// `#[derive(CassEntity)]`
pub fn entity(input: TokenStream) -> TokenStream {
    let input = match parse(input) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let mut cx = Ctxt::default();
    let entity = model::Entity::from_input(&mut cx, &input);
    match (cx.finish(), entity) {
        (Ok(()), Some(e)) => generate::entity::generate(&e),
        (result, _) => result
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default(),
    }
}
