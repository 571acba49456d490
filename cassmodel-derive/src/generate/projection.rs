//! `#[derive(CassProjection)]` output: a row type that reads some columns of a table.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{private, readers};
use crate::model::Projection;

pub fn generate(pr: &Projection<'_>) -> TokenStream {
    let krate = &super::alias();
    let p = private();
    let ident = pr.ident;
    let table = &pr.table;
    let rust_name = ident.to_string();
    let names: Vec<String> = pr.fields.iter().map(|f| f.ident.to_string()).collect();
    // Each field must be a field of the table struct, of the same type: the compiler checks
    // it, pointing at the projection's field.
    let same_fields = pr.fields.iter().map(|f| {
        let (id, ty) = (f.ident, f.ty);
        quote_spanned!(ty.span()=> let _: &#ty = &row.#id;)
    });
    let reads = readers(krate, &pr.fields);
    let field_idents = pr.fields.iter().map(|f| f.ident);

    let body = quote! {
        #[allow(dead_code, clippy::all)]
        fn __fields_of_table(row: &#table) {
            #(#same_fields)*
        }

        fn __defs() -> &'static [#krate::ColumnDef] {
            static DEFS: #p::std::OnceLock<#p::std::Vec<#krate::ColumnDef>> = #p::std::OnceLock::new();
            DEFS.get_or_init(|| {
                #p::table::projection_defs::<#table>(<#ident as #krate::Projection<#table>>::columns())
            })
        }

        impl #krate::Projection<#table> for #ident {
            fn columns() -> &'static [::core::primitive::usize] {
                static COLUMNS: #p::std::OnceLock<#p::std::Vec<::core::primitive::usize>> = #p::std::OnceLock::new();
                COLUMNS.get_or_init(|| #p::table::projection_columns::<#table>(&[#(#names),*]))
            }
        }

        impl<'__f, '__m> #p::driver::DeserializeRow<'__f, '__m> for #ident {
            fn type_check(specs: &[#p::driver::ColumnSpec<'_>]) -> #p::std::Result<(), #p::driver::TypeCheckError> {
                #p::table::check_columns(#rust_name, __defs(), specs)
            }

            fn deserialize(
                row: #p::driver::ColumnIterator<'__f, '__m>,
            ) -> #p::std::Result<Self, #p::driver::DeserializationError> {
                let mut __row = #p::table::RowReader::with_columns(__defs, row);
                #p::std::Result::Ok(Self { #(#field_idents: __row.next(#reads)?,)* })
            }
        }
    };
    super::wrap(&pr.krate, body)
}
