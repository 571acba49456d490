//! `#[derive(CassEntity)]`: one entity stored in several query tables (denormalised), with one
//! call that writes all of them and one that deletes all of them, each in a logged batch.
//!
//! Both sides declare the link: the entity lists its tables (`#[cass(tables(A, B))]`) and each
//! table names the entity it is built from (`#[cass(entity = Like)]`, which makes the table
//! derive write `impl FromEntity<Like> for A`, field by field). Each side checks the other
//! at compile time, so a query table cannot be added on one side and forgotten on the other.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::Entity;

pub fn generate(e: &Entity<'_>) -> TokenStream {
    let krate = &super::alias();
    let p = super::private();
    let ident = e.ident;
    let names: Vec<String> = e.tables.iter().map(super::struct_name).collect();
    let tables = &e.tables;
    let list = names.join(", ");
    let save_doc = format!(
        "Writes this `{ident}` to every table it is stored in ({list}) in one logged batch: all \
         of them, or none."
    );
    let delete_doc = format!(
        "Deletes this `{ident}` from every table it is stored in ({list}), by each table's \
         primary key, in one logged batch."
    );
    let body = quote! {

        impl #ident {
            #[doc(hidden)]
            pub const __CASS_TABLES: &'static [&'static str] = &[#(#names),*];

            #[doc = #save_doc]
            #[inline(always)] // the future built in place: the runtime's `session::trace::in_span`
            pub fn save<'d>(
                &'d self,
                db: &'d #krate::Db,
            ) -> impl ::core::future::Future<Output = #krate::Result<()>> + ::core::marker::Send + 'd {
                #p::query::save_entity(db, self, const {
                    &[#(<#tables as #krate::write::FromEntity<#ident>>::__TABLE),*]
                })
            }

            /// Adds the inserts of [`save`](Self::save) to `batch`.
            pub fn save_in<'b>(&self, batch: #krate::Batch<'b>) -> #krate::Batch<'b> {
                batch #(.insert_owned(<#tables as #krate::write::FromEntity<#ident>>::from_entity(self)))*
            }

            #[doc = #delete_doc]
            pub fn delete<'d>(&'d self, db: &'d #krate::Db) -> #krate::query::QueryFuture<'d, ()> {
                #p::query::run_entity_batch(db, self.delete_in(#krate::Batch::logged()))
            }

            /// Adds the deletes of [`delete`](Self::delete) to `batch`.
            pub fn delete_in<'b>(&self, batch: #krate::Batch<'b>) -> #krate::Batch<'b> {
                batch #(.delete_row(<#tables as #krate::write::FromEntity<#ident>>::from_entity(self)))*
            }
        }
    };
    super::wrap(&e.krate, body)
}
