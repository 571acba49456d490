//! `#[derive(CassUdt)]` output.

use proc_macro2::TokenStream;
use quote::quote;

use super::{column_def, private, readers, type_assertions, value_match};
use crate::model::Udt;

pub fn generate(u: &Udt<'_>) -> TokenStream {
    let krate = &super::alias();
    let p = private();
    let ident = u.ident;
    let rust_name = ident.to_string();
    let name = &u.name;
    let fields = u.fields.iter().map(|f| column_def(krate, f));
    let assertions = type_assertions(&u.fields);
    let values = value_match(krate, &u.fields);
    let n = u.fields.len();
    let reads = readers(krate, &u.fields)
        .into_iter()
        .zip(&u.fields)
        .enumerate()
        .map(|(i, (read, f))| {
            let id = f.ident;
            quote!(#id: __udt.field(#i, #read)?,)
        });

    let body = quote! {
        const _: () = { #assertions };

        // Registers the type for `cassmodel::migrate::registered_udts()`.
        #p::table::inventory::submit! {
            #p::udt::UdtEntry(<#ident as #krate::model::Udt>::udt_schema)
        }

        impl #krate::model::Udt for #ident {
            fn udt_schema() -> &'static #krate::schema::UdtSchema {
                static SCHEMA: #p::std::OnceLock<#krate::schema::UdtSchema> = #p::std::OnceLock::new();
                SCHEMA.get_or_init(|| {
                    #krate::schema::UdtSchema::new(#rust_name, #name, #p::std::Vec::from([#(#fields),*]))
                })
            }

            fn __field(&self, index: ::core::primitive::usize) -> #p::std::Option<&dyn #p::table::ErasedValue> {
                #values
            }
        }

        impl #krate::model::CqlMapping for #ident {
            fn cql_type() -> #p::table::CqlType {
                #p::table::CqlType::Udt(#p::std::String::from(#name))
            }

            fn collect_udts(out: &mut #p::std::Vec<&'static #krate::schema::UdtSchema>) {
                <Self as #krate::model::Udt>::udt_schema().collect(out)
            }
        }

        impl #p::driver::SerializeValue for #ident {
            fn serialize<'__b>(
                &self,
                typ: &#p::driver::ColumnType<'_>,
                writer: #p::driver::CellWriter<'__b>,
            ) -> #p::std::Result<#p::driver::WrittenCellProof<'__b>, #p::driver::SerializationError> {
                #p::udt::serialize_udt(self, typ, writer)
            }
        }

        impl<'__f, '__m> #p::driver::DeserializeValue<'__f, '__m> for #ident {
            fn type_check(typ: &#p::driver::ColumnType<'_>) -> #p::std::Result<(), #p::driver::TypeCheckError> {
                #p::udt::type_check_udt::<Self>(typ)
            }

            fn deserialize(
                typ: &'__m #p::driver::ColumnType<'__m>,
                v: #p::std::Option<#p::driver::FrameSlice<'__f>>,
            ) -> #p::std::Result<Self, #p::driver::DeserializationError> {
                let __udt = #p::udt::UdtReader::<'__f, '__m, #n>::new::<Self>(typ, v)?;
                #p::std::Result::Ok(Self { #(#reads)* })
            }
        }
    };
    super::wrap(&u.krate, body)
}
