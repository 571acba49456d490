//! `#[derive(CassTable)]` output.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{column_def, private, readers, type_assertions, type_checks, write_arms};
use crate::model::{Field, Role, Table};

pub fn generate(t: &Table<'_>) -> TokenStream {
    let krate = &t.krate;
    let p = private(krate);
    let ident = t.ident;
    let rust_name = ident.to_string();
    let name = &t.name;
    let keyspace = match &t.attrs.keyspace {
        Some(k) => {
            let k = &k.value;
            quote!(#p::Option::Some(#k))
        }
        None => quote!(#p::Option::None),
    };
    let opt_u32 = |v: Option<u32>| match v {
        Some(n) => quote!(#p::Option::Some(#n)),
        None => quote!(#p::Option::None),
    };
    let opt_str = |v: Option<&String>| match v {
        Some(s) => quote!(#p::Option::Some(#s)),
        None => quote!(#p::Option::None),
    };
    let default_ttl = opt_u32(t.attrs.default_ttl);
    let gc_grace = opt_u32(t.attrs.gc_grace_seconds);
    let comment = opt_str(t.attrs.comment.as_ref());
    let compaction = opt_str(t.attrs.compaction.as_ref().map(|c| &c.value));
    let columns = t.fields.iter().map(|f| column_def(krate, f));
    let assertions = type_assertions(krate, &t.fields);
    let checks = type_checks(krate, &t.fields);
    let arms = write_arms(krate, &t.fields);
    let field_idents = t.fields.iter().map(|f| f.ident);
    let reads = readers(krate, &t.fields);
    let none_arms = t.fields.iter().enumerate().map(|(i, f)| {
        let id = f.ident;
        let m = super::mapping(krate, f);
        quote!(#i => #m::__is_none(&self.#id),)
    });
    let counter_table = t.counter_column().is_some();
    let insertable = (!counter_table).then(|| quote!(impl #krate::Insertable for #ident {}));
    let from_entities: Vec<TokenStream> =
        t.attrs.entities.iter().map(|e| from_entity(t, e)).collect();
    let methods = key_methods(t);
    let query = super::query::generate(t);
    let query_item = query.item;
    let query_body = query.body;

    quote! {
        #query_item

        const _: () = {
            #assertions

            #query_body

            // Registers the table for `cassmodel::migrate::registered_tables()`.
            #p::inventory::submit! {
                #p::TableEntry(<#ident as #krate::Table>::schema)
            }

            impl #krate::Table for #ident {
                fn schema() -> &'static #krate::TableSchema {
                    static SCHEMA: #p::OnceLock<#krate::TableSchema> = #p::OnceLock::new();
                    SCHEMA.get_or_init(|| {
                        #krate::TableSchema::new(
                            #rust_name,
                            #name,
                            #keyspace,
                            #krate::TableOptions {
                                default_ttl: #default_ttl,
                                comment: #comment,
                                compaction: #compaction,
                                gc_grace_seconds: #gc_grace,
                            },
                            #p::Vec::from([#(#columns),*]),
                        )
                    })
                }

                fn column_is_none(&self, index: ::core::primitive::usize) -> ::core::primitive::bool {
                    match index {
                        #(#none_arms)*
                        _ => false,
                    }
                }

                fn write_column<'__b>(
                    &self,
                    index: ::core::primitive::usize,
                    typ: &#p::ColumnType<'_>,
                    writer: #p::CellWriter<'__b>,
                ) -> #p::Result<#p::WrittenCellProof<'__b>, #p::SerializationError> {
                    match index {
                        #(#arms)*
                        _ => #p::Result::Err(#p::no_such_column(
                            <Self as #krate::Table>::schema(),
                            index,
                        )),
                    }
                }
            }

            impl<'__f, '__m> #p::DeserializeRow<'__f, '__m> for #ident {
                fn type_check(specs: &[#p::ColumnSpec<'_>]) -> #p::Result<(), #p::TypeCheckError> {
                    #p::check_row::<Self>(specs, &#checks)
                }

                fn deserialize(
                    row: #p::ColumnIterator<'__f, '__m>,
                ) -> #p::Result<Self, #p::DeserializationError> {
                    let mut __row = #p::RowReader::new::<Self>(row);
                    #p::Result::Ok(Self { #(#field_idents: __row.next(#reads)?,)* })
                }
            }

            /// Binds the fields to the bind markers of the same names.
            impl #p::SerializeRow for #ident {
                fn serialize(
                    &self,
                    ctx: &#p::RowSerializationContext<'_>,
                    writer: &mut #p::RowWriter,
                ) -> #p::Result<(), #p::SerializationError> {
                    #p::serialize_by_name(self, ctx, writer)
                }

                fn is_empty(&self) -> ::core::primitive::bool {
                    false
                }
            }

            #insertable

            #(#from_entities)*

            #methods
        };
    }
}

/// `get` (full primary key) and `partition` (partition key) methods with one typed argument
/// per key column, in key order: shorthands for the builder.
fn key_methods(t: &Table<'_>) -> TokenStream {
    let krate = &t.krate;
    let p = private(krate);
    let ident = t.ident;
    let pk: Vec<&Field<'_>> = t
        .fields
        .iter()
        .filter(|f| f.role == Role::PartitionKey)
        .collect();
    let ck: Vec<&Field<'_>> = t
        .fields
        .iter()
        .filter(|f| matches!(f.role, Role::Clustering(_)))
        .collect();
    // Concrete parameter types (`&str` for a `String` column): a generic argument would be
    // captured by the returned `impl Future`, and a wrong argument type would then be reported
    // three times instead of once.
    let params = |fs: &[&Field<'_>]| -> Vec<TokenStream> {
        fs.iter()
            .map(|f| {
                let arg = f.ident;
                let ty = f.ty;
                if crate::types::is_string(ty) {
                    quote!(#arg: &'d ::core::primitive::str)
                } else {
                    quote!(#arg: &'d #ty)
                }
            })
            .collect()
    };
    // The key arguments as one row of bound values: an array, no allocation per call.
    let bounds = |fs: &[&Field<'_>]| -> TokenStream {
        let values = fs.iter().map(|f| {
            let arg = f.ident;
            let ty = f.ty;
            quote!(#krate::BindAs::<#ty>::__bound(#arg))
        });
        quote!(#p::Bounds([#(#values),*]))
    };
    let names = |fs: &[&Field<'_>]| {
        fs.iter()
            .map(|f| format!("`{}`", f.column))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let all: Vec<&Field<'_>> = pk.iter().chain(&ck).copied().collect();
    let (get_params, get_values) = (params(&all), bounds(&all));
    let (part_params, part_values) = (params(&pk), bounds(&pk));
    let get_doc = format!(
        "The row with primary key ({}), if it exists: the same as `select()` with every key column, then `fetch_first`.",
        names(&all)
    );
    let part_doc = format!(
        "Every row of the partition ({}), in clustering order: the same as `select()` with the \
         partition key, then `fetch_all`. For large partitions use `select()...fetch_stream(..)`.",
        names(&pk)
    );
    let partition = (!ck.is_empty()).then(|| {
        quote! {
            #[doc = #part_doc]
            pub fn partition<'d>(
                db: &'d #krate::Db,
                #(#part_params),*
            ) -> impl ::core::future::Future<Output = #krate::Result<::std::vec::Vec<Self>>>
                   + ::core::marker::Send + 'd {
                db.partition::<Self>(#part_values)
            }
        }
    });
    quote! {
        impl #ident {
            #[doc = #get_doc]
            pub fn get<'d>(
                db: &'d #krate::Db,
                #(#get_params),*
            ) -> impl ::core::future::Future<Output = #krate::Result<::core::option::Option<Self>>>
                   + ::core::marker::Send + 'd {
                db.get_by_key::<Self>(#get_values)
            }

            #partition
        }
    }
}

/// `impl FromEntity<E> for Table`: each field copied from the entity's field of the same name
/// (the compiler points at the table's field when the entity lacks it or has another type),
/// and a check that the entity lists this table.
fn from_entity(t: &Table<'_>, entity: &syn::Path) -> TokenStream {
    let krate = &t.krate;
    let ident = t.ident;
    let name = ident.to_string();
    let entity_name = entity
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let fields = t.fields.iter().map(|f| {
        let id = f.ident;
        quote_spanned!(id.span()=> #id: ::core::clone::Clone::clone(&entity.#id))
    });
    let message = format!(
        "`{name}` declares #[cass(entity = {entity_name})], but `{entity_name}` does not list it: \
         add `{name}` to the #[cass(tables(...))] of `{entity_name}` so that its save() and \
         delete() write this table too"
    );
    quote_spanned! {entity.span()=>
        impl #krate::FromEntity<#entity> for #ident {
            fn from_entity(entity: &#entity) -> Self {
                Self { #(#fields),* }
            }
        }
        const _: () = ::core::assert!(
            #krate::__private::contains_str(<#entity>::__CASS_TABLES, #name),
            #message
        );
    }
}
