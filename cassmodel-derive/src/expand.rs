//! One function per derive, each the whole pipeline on a `proc_macro2::TokenStream` (so unit
//! tests and snapshot tests drive them without a compiler): parse the item, build the model
//! (attributes parsed, every fact resolved once), check Cassandra's rules, then generate; on
//! any error, every error at once and the minimal [`fallback`](crate::generate::fallback).

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::ctxt::Ctxt;
use crate::generate::{self, fallback};
use crate::{check, model};

/// `#[derive(CassTable)]`
pub fn table(input: TokenStream) -> TokenStream {
    parse(input, |input| {
        pipeline(
            input,
            model::Table::from_input,
            check::table,
            |t| generate::table::generate(t),
            |t| {
                let entities = t.map_or(&[][..], |t| &t.attrs.entities[..]);
                fallback::table(input, t.map(|t| &t.krate), entities)
            },
        )
    })
}

/// `#[derive(CassUdt)]`
pub fn udt(input: TokenStream) -> TokenStream {
    parse(input, |input| {
        pipeline(
            input,
            model::Udt::from_input,
            check::udt,
            |u| generate::udt::generate(u),
            |u| fallback::udt(input, u.map(|u| &u.krate)),
        )
    })
}

/// `#[derive(CassProjection)]`
pub fn projection(input: TokenStream) -> TokenStream {
    parse(input, |input| {
        pipeline(
            input,
            model::Projection::from_input,
            check::projection,
            |p| generate::projection::generate(p),
            |p| fallback::projection(input, p),
        )
    })
}

/// `#[derive(CassEntity)]`
pub fn entity(input: TokenStream) -> TokenStream {
    parse(input, |input| {
        pipeline(
            input,
            model::Entity::from_input,
            check::entity,
            |e| generate::entity::generate(e),
            |e| fallback::entity(input, e),
        )
    })
}

/// `#[derive(CassFunction)]` (`aggregate`: `#[derive(CassAggregate)]`)
pub fn routine(input: TokenStream, aggregate: bool) -> TokenStream {
    parse(input, |input| {
        pipeline(
            input,
            |cx, input| model::Routine::from_input(cx, input, aggregate),
            check::routine,
            |r| generate::function::generate(r),
            |_| TokenStream::new(),
        )
    })
}

/// The item, handed to `expand`, or the parse error.
fn parse(input: TokenStream, expand: impl FnOnce(&DeriveInput) -> TokenStream) -> TokenStream {
    match syn::parse2::<DeriveInput>(input) {
        Ok(input) => expand(&input),
        Err(e) => e.to_compile_error(),
    }
}

/// Model, check, then the generated code, or every error and the fallback.
fn pipeline<'i, M>(
    input: &'i DeriveInput,
    model: impl FnOnce(&mut Ctxt, &'i DeriveInput) -> Option<M>,
    check: impl FnOnce(&mut Ctxt, &M),
    generate: impl FnOnce(&M) -> TokenStream,
    fallback: impl FnOnce(Option<&M>) -> TokenStream,
) -> TokenStream {
    let mut cx = Ctxt::default();
    let model = model(&mut cx, input);
    if let Some(m) = &model {
        check(&mut cx, m);
    }
    match (cx.finish(), model) {
        (Ok(()), Some(m)) => generate(&m),
        (result, m) => {
            let mut out = result
                .err()
                .map(|e| e.to_compile_error())
                .unwrap_or_default();
            out.extend(fallback(m.as_ref()));
            out
        }
    }
}
