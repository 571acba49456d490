//! `#[derive(CassFunction)]` and `#[derive(CassAggregate)]` output: the `CqlFunction` impl (the
//! Rust types of the arguments and result, the CQL name, the description migrations create),
//! the registration, and the compile-time checks of an aggregate's functions.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::private;
use crate::model::Routine;

pub fn generate(r: &Routine<'_>) -> TokenStream {
    let krate = &super::alias();
    let p = private();
    let ident = r.ident;
    let types: Vec<&syn::Type> = r.params.iter().map(|(_, t, _)| *t).collect();
    let fields: Vec<&syn::Ident> = r.params.iter().map(|(_, _, i)| *i).collect();
    let (impl_body, extra) = if r.aggregate {
        aggregate(r)
    } else {
        function(r)
    };
    let body = quote! {
        // Registers it for `cassmodel::migrate::Models::registered()`.
        #p::table::inventory::submit! {
            #p::function::FunctionEntry(<#ident as #krate::model::CqlFunction>::declaration)
        }

        impl #krate::model::CqlFunction for #ident {
            type Args = (#(#types,)*);
            #impl_body
        }

        #extra

        // The struct is a declaration: its fields are the parameters, never read.
        #[allow(dead_code, clippy::all)]
        fn __parameters(#(#fields: #types),*) -> #ident {
            let f = #ident { #(#fields),* };
            let _ = (#(&f.#fields,)*);
            f
        }
    };
    super::wrap(&r.krate, body)
}

/// A function: its result, its description.
fn function(r: &Routine<'_>) -> (TokenStream, TokenStream) {
    let (krate, p, ident) = (&super::alias(), private(), r.ident);
    let a = &r.attrs;
    let (rust_name, name) = (ident.to_string(), &r.name);
    let returns = a
        .returns
        .as_ref()
        .map_or_else(|| quote!(()), |t| quote!(#t));
    let body = a.body.as_ref().map(|b| b.value.clone()).unwrap_or_default();
    let params = r.params.iter().map(
        |(n, t, _)| quote_spanned!(t.span()=> (#n, <#t as #krate::model::CqlMapping>::cql_type())),
    );
    let keyspace = r.keyspace.as_ref().map(|k| quote!(.with_keyspace(#k)));
    let language = a.language.as_ref().map(|l| {
        let l = &l.value;
        quote!(.with_language(#l))
    });
    let called = a
        .called_on_null_input
        .map(|_| quote!(.called_on_null_input()));
    let impl_body = quote! {
        type Output = #returns;
        type Kind = #p::function::Rows;
        const NAME: &'static str = #name;
        fn declaration() -> #p::function::UserFunction {
            #p::function::UserFunction::Function(
                <Self as #p::function::ScalarFunction>::schema(),
            )
        }
    };
    let extra = quote! {
        impl #p::function::ScalarFunction for #ident {
            fn schema() -> &'static #p::function::FunctionSchema {
                static SCHEMA: #p::std::OnceLock<#p::function::FunctionSchema> =
                    #p::std::OnceLock::new();
                SCHEMA.get_or_init(|| {
                    #p::function::FunctionSchema::new(
                        #rust_name,
                        #name,
                        #p::std::Vec::from([#(#params),*]),
                        <#returns as #krate::model::CqlMapping>::cql_type(),
                        #body,
                    )
                    #keyspace #language #called
                })
            }
        }
    };
    (impl_body, extra)
}

/// An aggregate: its result (its final function's, else its state's), its description, and
/// the checks of its functions.
fn aggregate(r: &Routine<'_>) -> (TokenStream, TokenStream) {
    let (krate, p, ident) = (&super::alias(), private(), r.ident);
    let a = &r.attrs;
    let (rust_name, name) = (ident.to_string(), &r.name);
    let Some(state) = &a.state_function else {
        return (TokenStream::new(), TokenStream::new());
    };
    let types: Vec<&syn::Type> = r.params.iter().map(|(_, t, _)| *t).collect();
    let output = match &a.final_function {
        Some(f) => quote!(<#f as #krate::model::CqlFunction>::Output),
        None => quote!(<#state as #krate::model::CqlFunction>::Output),
    };
    let cql_types = types
        .iter()
        .map(|t| quote_spanned!(t.span()=> <#t as #krate::model::CqlMapping>::cql_type()));
    let with_final = a
        .final_function
        .as_ref()
        .map(|f| quote!(.with_final(<#f as #p::function::ScalarFunction>::schema())));
    let with_initial = a.initial.as_ref().map(|i| {
        let i = &i.value;
        quote!(.with_initial(#i))
    });
    let keyspace = r.keyspace.as_ref().map(|k| quote!(.with_keyspace(#k)));
    let state_check = quote_spanned! {state.span()=>
        #p::function::state_function::<#state, (#(#types,)*)>();
    };
    let final_check = a.final_function.as_ref().map(|f| {
        quote_spanned! {f.span()=>
            #p::function::final_function::<#f, <#state as #krate::model::CqlFunction>::Output>();
        }
    });
    let impl_body = quote! {
        type Output = #output;
        type Kind = #p::function::Aggregated;
        const NAME: &'static str = #name;
        fn declaration() -> #p::function::UserFunction {
            static SCHEMA: #p::std::OnceLock<#p::function::AggregateSchema> =
                #p::std::OnceLock::new();
            #p::function::UserFunction::Aggregate(SCHEMA.get_or_init(|| {
                #p::function::AggregateSchema::new(
                    #rust_name,
                    #name,
                    #p::std::Vec::from([#(#cql_types),*]),
                    <#state as #p::function::ScalarFunction>::schema(),
                )
                #with_final #with_initial #keyspace
            }))
        }
    };
    let extra = quote! {
        #[allow(dead_code, clippy::all)]
        fn __functions() {
            #state_check
            #final_check
        }
    };
    (impl_body, extra)
}
