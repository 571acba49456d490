//! What a derive expands to when its input has errors, beside the errors: the trait impls
//! other code relies on, with bodies that never run (the crate does not compile). Without
//! them, every use of the struct as a table (`db.insert(&row)`, a projection of it) would add
//! an error of its own to the one real mistake.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// The crate path from `#[cass(crate = "...")]` if it parsed, else `::cassmodel`; `None` for
/// a generic struct or a non-struct, which gets no fallback (the error already says to write a
/// plain struct, and an impl without the generics would be an error of its own).
fn krate(input: &DeriveInput, krate: Option<&syn::Path>) -> Option<syn::Path> {
    let plain = input.generics.params.is_empty() && matches!(input.data, syn::Data::Struct(_));
    plain.then(|| {
        krate
            .cloned()
            .unwrap_or_else(|| syn::parse_quote!(::cassmodel))
    })
}

/// `impl Table`, the row traits and `Insertable` for a table struct with errors.
pub fn table(input: &DeriveInput, krate: Option<&syn::Path>) -> TokenStream {
    let Some(krate) = self::krate(input, krate) else {
        return TokenStream::new();
    };
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    quote! {
        const _: () = {
            impl #krate::Table for #ident {
                fn schema() -> &'static #krate::TableSchema {
                    ::core::unreachable!()
                }
                fn __value(
                    &self,
                    _: ::core::primitive::usize,
                ) -> #p::Option<&dyn #p::ErasedValue> {
                    ::core::unreachable!()
                }
            }
            impl #krate::Insertable for #ident {}
            impl<'__f, '__m> #p::DeserializeRow<'__f, '__m> for #ident {
                fn type_check(_: &[#p::ColumnSpec<'_>]) -> #p::Result<(), #p::TypeCheckError> {
                    ::core::unreachable!()
                }
                fn deserialize(
                    _: #p::ColumnIterator<'__f, '__m>,
                ) -> #p::Result<Self, #p::DeserializationError> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// `CqlMapping` and the value traits for a user-defined type with errors.
pub fn udt(input: &DeriveInput, krate: Option<&syn::Path>) -> TokenStream {
    let Some(krate) = self::krate(input, krate) else {
        return TokenStream::new();
    };
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    quote! {
        const _: () = {
            impl #krate::CqlMapping for #ident {
                fn cql_type() -> #p::CqlType {
                    ::core::unreachable!()
                }
            }
            impl #p::SerializeValue for #ident {
                fn serialize<'__b>(
                    &self,
                    _: &#p::ColumnType<'_>,
                    _: #p::CellWriter<'__b>,
                ) -> #p::Result<#p::WrittenCellProof<'__b>, #p::SerializationError> {
                    ::core::unreachable!()
                }
            }
            impl<'__f, '__m> #p::DeserializeValue<'__f, '__m> for #ident {
                fn type_check(_: &#p::ColumnType<'_>) -> #p::Result<(), #p::TypeCheckError> {
                    ::core::unreachable!()
                }
                fn deserialize(
                    _: &'__m #p::ColumnType<'__m>,
                    _: #p::Option<#p::FrameSlice<'__f>>,
                ) -> #p::Result<Self, #p::DeserializationError> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
