//! What a derive expands to when its input has errors, beside the errors: the trait impls
//! other code relies on, with bodies that never run (the crate does not compile). Without
//! them, every use of the struct as a table (`db.insert(&row)`, a projection of it) would add
//! an error of its own to the one real mistake.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// `impls` of the struct, in the derive's `const _` block, with the crate path from
/// `#[cass(crate = "...")]` if it parsed (else `::cassmodel`). Nothing for a generic struct or a
/// non-struct: the error already says to write a plain struct, and an impl without the
/// generics would be an error of its own.
fn wrap(
    input: &DeriveInput,
    krate: Option<&syn::Path>,
    impls: impl FnOnce(&syn::Ident) -> TokenStream,
) -> TokenStream {
    if !input.generics.params.is_empty() || !matches!(input.data, syn::Data::Struct(_)) {
        return TokenStream::new();
    }
    let krate = krate
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(::cassmodel));
    super::wrap(&krate, impls(&input.ident))
}

/// `impl Table` (writable and insertable) and the row traits for a table struct with errors,
/// and its place among the tables of each entity it names (`entities`).
pub fn table(
    input: &DeriveInput,
    krate: Option<&syn::Path>,
    entities: &[syn::Path],
) -> TokenStream {
    wrap(input, krate, |ident| {
        let rows = row_trait(ident);
        let entity_tables = entities.iter().map(|e| {
            quote! {
                impl __p::query::EntityTableOf<#e> for #ident {
                    const __TABLE: __p::query::EntityTable<#e> =
                        __p::query::EntityTable::fallback::<Self>();
                }
            }
        });
        quote! {
            #(#entity_tables)*
            impl __cm::Table for #ident {
                fn schema() -> &'static __cm::schema::TableSchema {
                    ::core::unreachable!()
                }
                fn __value(
                    &self,
                    _: ::core::primitive::usize,
                ) -> __p::std::Option<&dyn __p::table::ErasedValue> {
                    ::core::unreachable!()
                }
                fn __cells(&self) -> impl __p::table::Cells + '_ {}
                type __Write = __p::table::RegularTable;
            }
            #rows
        }
    })
}

/// The driver's row trait, for a table or projection with errors.
fn row_trait(ident: &syn::Ident) -> TokenStream {
    quote! {
        impl<'__f, '__m> __p::driver::DeserializeRow<'__f, '__m> for #ident {
            fn type_check(_: &[__p::driver::ColumnSpec<'_>]) -> __p::std::Result<(), __p::driver::TypeCheckError> {
                ::core::unreachable!()
            }
            fn deserialize(
                _: __p::driver::ColumnIterator<'__f, '__m>,
            ) -> __p::std::Result<Self, __p::driver::DeserializationError> {
                ::core::unreachable!()
            }
        }
    }
}

/// `impl Projection` and the row trait for a projection with errors whose table is named
/// (without it there is nothing to implement).
pub fn projection(input: &DeriveInput, p: Option<&crate::model::Projection<'_>>) -> TokenStream {
    let Some(p) = p else {
        return TokenStream::new();
    };
    let table = &p.table;
    wrap(input, Some(&p.krate), |ident| {
        let rows = row_trait(ident);
        quote! {
            impl __cm::model::Projection<#table> for #ident {
                fn columns() -> &'static [::core::primitive::usize] {
                    ::core::unreachable!()
                }
            }
            impl __p::table::PerRow for #ident {}
            #rows
        }
    })
}

/// `CqlMapping` and the value traits for a user-defined type with errors.
pub fn udt(input: &DeriveInput, krate: Option<&syn::Path>) -> TokenStream {
    wrap(input, krate, |ident| {
        quote! {
            impl __cm::model::CqlMapping for #ident {
                fn cql_type() -> __p::table::CqlType {
                    ::core::unreachable!()
                }
            }
            impl __p::driver::SerializeValue for #ident {
                fn serialize<'__b>(
                    &self,
                    _: &__p::driver::ColumnType<'_>,
                    _: __p::driver::CellWriter<'__b>,
                ) -> __p::std::Result<__p::driver::WrittenCellProof<'__b>, __p::driver::SerializationError> {
                    ::core::unreachable!()
                }
            }
            impl<'__f, '__m> __p::driver::DeserializeValue<'__f, '__m> for #ident {
                fn type_check(_: &__p::driver::ColumnType<'_>) -> __p::std::Result<(), __p::driver::TypeCheckError> {
                    ::core::unreachable!()
                }
                fn deserialize(
                    _: &'__m __p::driver::ColumnType<'__m>,
                    _: __p::std::Option<__p::driver::FrameSlice<'__f>>,
                ) -> __p::std::Result<Self, __p::driver::DeserializationError> {
                    ::core::unreachable!()
                }
            }
        }
    })
}

/// The list of its tables for an entity with errors (each table's derive checks that it is
/// on it), when the list parsed.
pub fn entity(input: &DeriveInput, e: Option<&crate::model::Entity<'_>>) -> TokenStream {
    let Some(e) = e else {
        return TokenStream::new();
    };
    let names: Vec<String> = e.tables.iter().map(super::struct_name).collect();
    wrap(input, Some(&e.krate), |ident| {
        quote! {
            impl #ident {
                #[doc(hidden)]
                pub const __CASS_TABLES: &'static [&'static str] = &[#(#names),*];
            }
        }
    })
}
