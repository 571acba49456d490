//! `#[derive(CassEntity)]`: one entity stored in several query tables (denormalised), with one
//! call that writes all of them and one that deletes all of them, each in a logged batch.
//!
//! Both sides declare the link: the entity lists its tables (`#[cass(tables(A, B))]`) and each
//! table names the entity it is built from (`#[cass(entity = Like)]`, which makes the table
//! derive write `impl FromEntity<Like> for A`, field by field). Each side checks the other
//! at compile time, so a query table cannot be added on one side and forgotten on the other.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

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
    let replace_doc = format!(
        "Writes this `{ident}` over `stored` (the `{ident}` as it was read), in one logged \
         batch: deletes the rows of each table whose key fields changed, writes the new ones \
         and overwrites the rest (a field now `None` is removed). Only the deletes a change \
         needs are written: a delete and an insert of the same key in one batch would lose \
         the row (they share one write time, and a delete wins a tie)."
    );
    let identity_methods = identity_methods(e);
    let identity_checks = identity_checks(e);
    let update_struct = update_struct(e);
    let update_impls = update_impls(e);
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
                #p::query::save_entity(db, self, Self::__CASS_ENTITY_TABLES)
            }

            /// Adds the inserts of [`save`](Self::save) to `batch`.
            pub fn save_in<'b>(&self, batch: #krate::Batch<'b>) -> #krate::Batch<'b> {
                #p::query::save_entity_in(self, batch, Self::__CASS_ENTITY_TABLES)
            }

            #[doc = #delete_doc]
            pub fn delete<'d>(&'d self, db: &'d #krate::Db) -> #krate::query::QueryFuture<'d, ()> {
                #p::query::run_entity_batch(db, self.delete_in(#krate::Batch::logged()))
            }

            /// Adds the deletes of [`delete`](Self::delete) to `batch`.
            pub fn delete_in<'b>(&self, batch: #krate::Batch<'b>) -> #krate::Batch<'b> {
                #p::query::delete_entity_in(self, batch, Self::__CASS_ENTITY_TABLES)
            }

            #[doc = #replace_doc]
            pub fn replace<'d>(
                &'d self,
                db: &'d #krate::Db,
                stored: &'d Self,
            ) -> #krate::query::QueryFuture<'d, ()> {
                #p::query::replace_entity(db, self, stored, Self::__CASS_ENTITY_TABLES)
            }

            #[doc(hidden)]
            const __CASS_ENTITY_TABLES: &'static [#p::query::EntityTable<Self>] =
                &[#(<#tables as #p::query::EntityTableOf<#ident>>::__TABLE),*];

            #identity_methods
        }

        #identity_checks
        #update_impls
    };
    let wrapped = super::wrap(&e.krate, body);
    quote!(#update_struct #wrapped)
}

/// The name of entity `e`'s update builder: `VideoUpdate` for `Video`.
fn update_name(e: &Entity<'_>) -> syn::Ident {
    quote::format_ident!("{}Update", e.ident)
}

/// The struct of the entity's partial update (`video.update().title(..).execute(&db)`),
/// outside the derive's `const _` block so that users can name it.
fn update_struct(e: &Entity<'_>) -> TokenStream {
    let (ident, vis, krate) = (e.ident, e.vis, &e.krate);
    let name = update_name(e);
    let (fields, types): (Vec<_>, Vec<_>) = e.fields.iter().copied().unzip();
    let doc = format!(
        "A partial update of a `{ident}`, built by [`{ident}::update`]: each field set is \
         written to every table that holds it, by each table's key, in one logged batch."
    );
    quote! {
        #[doc = #doc]
        #[must_use = "an update writes nothing until `execute`"]
        #vis struct #name<'s> {
            __stored: &'s #ident,
            #(#fields: ::core::option::Option<#types>,)*
            __options: #krate::__private::query::UpdateOptions,
        }
    }
}

/// `update()`, the setters of the update builder, its options and `execute`, and the rule
/// that each field is held by one of the tables (else its setter would write nothing),
/// spanned on the field.
fn update_impls(e: &Entity<'_>) -> TokenStream {
    let (ident, tables) = (e.ident, &e.tables);
    let name = update_name(e);
    let (fields, types): (Vec<_>, Vec<_>) = e.fields.iter().copied().unzip();
    let names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    let entity = ident.to_string();
    let update_doc = format!(
        "Starts a partial update of this `{ident}`: set fields with the update's methods of \
         their names, then `execute`. A table whose key a field set is part of (or that holds \
         a row per element of a collection set) is changed as [`replace`](Self::replace) \
         changes it; the others get an UPDATE of the columns set."
    );
    let setter_docs = names
        .iter()
        .map(|n| format!("Sets `{n}` in every table of `{ident}` that holds it."));
    let checks = fields.iter().zip(&names).map(|(f, n)| {
        quote::quote_spanned! {f.span()=>
            const _: () = __p::table::check_stored(
                #entity,
                #n,
                &[#(<#tables as __cm::Table>::__FIELD_KINDS),*],
                &[#(<#tables as __p::query::EntityTableOf<#ident>>::__EACH),*],
            );
        }
    });
    let execute = update_execute(e);
    quote! {
        impl #ident {
            #[doc = #update_doc]
            pub fn update(&self) -> #name<'_> {
                #name {
                    __stored: self,
                    #(#fields: __p::std::Option::None,)*
                    __options: ::core::default::Default::default(),
                }
            }
        }

        impl<'s> #name<'s> {
            #(
                #[doc = #setter_docs]
                pub fn #fields(mut self, value: #types) -> Self {
                    self.#fields = __p::std::Option::Some(value);
                    self
                }
            )*

            /// `USING TTL`: the cells set live `seconds` (refused for a table whose rows the
            /// update moves).
            pub fn using_ttl(mut self, seconds: i32) -> Self {
                self.__options.ttl = __p::std::Option::Some(seconds);
                self
            }

            /// `USING TIMESTAMP`: every statement's write time, in microseconds.
            pub fn using_timestamp(mut self, micros: i64) -> Self {
                self.__options.timestamp = __p::std::Option::Some(micros);
                self
            }

            #execute
        }

        #(#checks)*
    }
}

/// With an identity table `I`: `replace_current` (reads the stored entity from `I`) and
/// `replace_if_unchanged` (a condition on `I`).
fn identity_methods(e: &Entity<'_>) -> TokenStream {
    let Some(identity) = &e.identity else {
        return TokenStream::new();
    };
    let krate = &super::alias();
    let p = super::private();
    let ident = e.ident;
    let i_name = super::struct_name(identity);
    let current_doc = format!(
        "Writes this `{ident}` over the one stored, read first from its identity table \
         `{i_name}` by its key: in one logged batch, deletes the rows whose keys changed, \
         writes the new ones and overwrites the rest (a field now `None` is removed). With \
         no stored `{ident}`, writes it as [`save`](Self::save) does. Not guarded against \
         a concurrent change: see [`replace_if_unchanged`](Self::replace_if_unchanged)."
    );
    let if_doc = format!(
        "[`replace`](Self::replace) of `stored`, decided by a lightweight transaction on \
         the identity table `{i_name}`: it applies only if `{i_name}`'s row still holds \
         `stored`'s values. When it applies, the other tables are written in one logged \
         batch at one write time; when it does not, nothing is written and the outcome \
         holds `{i_name}`'s current row. If the other tables' batch fails after the \
         condition held, the error is `Error::EntityChange`: run [`replace`](Self::replace) \
         of the same values again."
    );
    quote! {
        #[doc = #current_doc]
        pub fn replace_current<'d>(
            &'d self,
            db: &'d #krate::Db,
        ) -> #krate::query::QueryFuture<'d, ()> {
            #p::query::replace_current_entity::<Self, #identity>(
                db, self, Self::__CASS_ENTITY_TABLES,
            )
        }

        #[doc = #if_doc]
        pub fn replace_if_unchanged<'d>(
            &'d self,
            db: &'d #krate::Db,
            stored: &'d Self,
        ) -> #krate::query::QueryFuture<'d, #krate::Outcome<#identity>> {
            #p::query::replace_entity_if::<Self, #identity>(
                db, self, stored, Self::__CASS_ENTITY_TABLES,
            )
        }
    }
}

/// The identity table holds every key field of every table of the entity, checked when the
/// entity's crate compiles (each error on the table that needs the field).
fn identity_checks(e: &Entity<'_>) -> TokenStream {
    let Some(identity) = &e.identity else {
        return TokenStream::new();
    };
    let (entity, entity_ident) = (e.ident.to_string(), e.ident);
    let i_name = super::struct_name(identity);
    // Every token of the call spanned on the table's path, so that the error points there
    // (the aliases are the ones `wrap` declares).
    let others = e.tables.iter().filter(|t| super::struct_name(t) != i_name);
    let checks = others.map(|t| {
        let t_name = super::struct_name(t);
        quote::quote_spanned! {t.span()=>
            const _: () = __p::table::check_identity(
                #entity,
                #i_name,
                #t_name,
                <#identity as __cm::Table>::__FIELD_KINDS,
                <#t as __cm::Table>::__FIELD_KINDS,
                <#t as __p::query::EntityTableOf<#entity_ident>>::__EACH,
            );
        }
    });
    quote! {
        #(#checks)*

        impl __p::query::EntityWithIdentity for #entity_ident {
            type Identity = #identity;
            const __TABLES: &'static [__p::query::EntityTable<Self>] = Self::__CASS_ENTITY_TABLES;
        }

        // The drift check of its tables, for the migration command (`check-entity`).
        __p::query::register_entity!(#entity_ident);
    }
}

/// The update's `execute`: the entity as it becomes (each field set, or the stored one's),
/// the names of the fields set, and the runtime's update of every table.
fn update_execute(e: &Entity<'_>) -> TokenStream {
    let ident = e.ident;
    let fields: Vec<_> = e.fields.iter().map(|(f, _)| *f).collect();
    let names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    quote! {
            /// Writes the update, in one logged batch.
            pub fn execute<'d>(self, db: &'d __cm::Db) -> __cm::query::QueryFuture<'d, ()>
            where
                's: 'd,
            {
                let mut set = __p::std::Vec::new();
                #(
                    if self.#fields.is_some() {
                        set.push(#names);
                    }
                )*
                let new = #ident {
                    #(#fields: match self.#fields {
                        __p::std::Option::Some(value) => value,
                        __p::std::Option::None => ::core::clone::Clone::clone(&self.__stored.#fields),
                    },)*
                };
                __p::query::update_entity(
                    db, self.__stored, new, set, self.__options, #ident::__CASS_ENTITY_TABLES,
                )
            }
    }
}
