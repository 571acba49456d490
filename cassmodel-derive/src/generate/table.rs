//! `#[derive(CassTable)]` output: the builder struct beside the user's struct, and in a
//! `const _` block the `Table` impl (schema data and the per-field codec), the driver's row
//! traits, registration for migrations, the entry points (`select()`, `get`, ...) and the
//! builder's methods from [`keys`](super::keys), [`query`](super::query) and
//! [`write`](super::write).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{
    Cx, bucket_rule, column_def, keys, list, query, readers, type_assertions, value_match, write,
};
use crate::model::{Field, Table};

pub fn generate(t: &Table<'_>) -> TokenStream {
    let alias = super::alias();
    let cx = Cx::new(t, &alias);
    let (krate, p, ident) = (cx.krate, &cx.p, cx.ident);
    let mut assertions = type_assertions(&t.fields);
    assertions.extend(bucket_assertion(&cx));
    let table_impl = table_impl(&cx);
    let rows = row_traits(&cx);
    let entry_points = entry_points(&cx);
    let keys = keys::generate(&cx);
    let reads = query::generate(&cx);
    let view = t.attrs.view_of.as_ref();
    // A view is read only: no write side, no copy, no entity (the checks refuse them).
    let writes = view.is_none().then(|| write::generate(&cx));
    let view_checks = view.map(|base| view_checks(&cx, base));
    let from_entities = t
        .attrs
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| from_entity(t, e, i));
    let copy = view.is_none().then(|| copy_from(&cx));
    let builder = builder_struct(&cx);
    let body = quote! {
        const _: () = { #assertions };

        // Registers the table for `cassmodel::migrate::registered_tables()`.
        #p::table::inventory::submit! {
            #p::table::TableEntry(<#ident as #krate::Table>::schema)
        }

        #table_impl
        #rows
        #view_checks
        #(#from_entities)*
        #copy
        #entry_points
        #keys
        #reads
        #writes
    };
    let wrapped = super::wrap(&t.krate, body);
    quote!(#builder #wrapped)
}

/// `PostQuery<'a, S, K, R>`: the typed builder, a wrapper of the runtime's generic query.
fn builder_struct(cx: &Cx<'_>) -> TokenStream {
    let (q, ident, table) = (cx.q, cx.ident, cx.table);
    // Outside the `const _` block: the full paths.
    let krate = &cx.t.krate;
    let (p, st, kd) = (
        quote!(#krate::__private),
        quote!(#krate::query::state),
        quote!(#krate::query::kind),
    );
    let vis = cx.t.vis;
    let doc = format!(
        "Typed query on [`{ident}`] (table `{table}`), from `{ident}::select()`, `delete()` or \
         `update()`. `S` tracks which key columns are restricted, `K` what the query does, `R` \
         the row type read."
    );
    quote! {
        #[doc = #doc]
        #[must_use = "a query does nothing until `fetch_all`, `fetch_first`, `fetch_stream`, `fetch_page` or `execute` runs it"]
        #vis struct #q<'a, S = #st::Key<0>, K = #kd::Select, R = #ident>(#p::query::Query<'a, #ident, S, K, R>);
    }
}

/// `impl Table`: the schema, built once, and the per-field writes of inserts.
fn table_impl(cx: &Cx<'_>) -> TokenStream {
    let (t, krate, p, ident) = (cx.t, cx.krate, &cx.p, cx.ident);
    let schema = schema_fn(cx);
    let values = value_match(krate, &t.fields);
    let cells = super::cells_tuple(
        t.fields
            .iter()
            .map(|f| {
                let (id, m) = (f.ident, super::mapping(krate, f));
                quote!(#m::__cell(&self.#id))
            })
            .collect(),
    );
    let is_view = t.attrs.view_of.as_ref().map(|_| {
        quote!(
            const __IS_VIEW: __bool = true;
        )
    });
    let write_types = write_types(cx);
    let statics = static_fields(cx);
    let kinds = field_kinds(cx);
    quote! {
        impl #krate::Table for #ident {
            const __FIELD_KINDS: &'static [(&'static ::core::primitive::str, ::core::primitive::u8)] = &[#(#kinds),*];
            #is_view
            #statics
            #write_types

            #schema

            fn __value(&self, index: ::core::primitive::usize) -> #p::std::Option<&dyn #p::table::ErasedValue> {
                #values
            }

            #[inline]
            fn __cells(&self) -> impl #p::table::Cells + '_ {
                #cells
            }
        }
    }
}

/// `Table::schema`: the table's description, with only the options the struct sets.
fn schema_fn(cx: &Cx<'_>) -> TokenStream {
    let (t, krate, p, ident) = (cx.t, cx.krate, &cx.p, cx.ident);
    let (rust_name, name) = (ident.to_string(), &t.name);
    let keyspace = match &t.attrs.keyspace {
        Some(k) => {
            let k = &k.value;
            quote!(#p::std::Option::Some(#k))
        }
        None => quote!(#p::std::Option::None),
    };
    // Only the options the struct sets.
    let a = &t.attrs;
    let options = [
        a.default_ttl.map(|n| quote!(.with_default_ttl(#n))),
        a.comment.as_ref().map(|c| quote!(.with_comment(#c))),
        a.compaction.as_ref().map(|c| {
            let c = &c.value;
            quote!(.with_compaction(#c))
        }),
        a.gc_grace_seconds
            .map(|n| quote!(.with_gc_grace_seconds(#n))),
    ];
    let columns = t.fields.iter().map(|f| column_def(krate, f));
    let additions = schema_additions(cx);
    quote! {
        fn schema() -> &'static #krate::schema::TableSchema {
            static SCHEMA: #p::std::OnceLock<#krate::schema::TableSchema> = #p::std::OnceLock::new();
            SCHEMA.get_or_init(|| {
                #krate::schema::TableSchema::new(
                    #rust_name,
                    #name,
                    #keyspace,
                    #krate::schema::TableOptions::new() #(#options)*,
                    #p::std::Vec::from([#(#columns),*]),
                ) #additions
            })
        }
    }
}

/// The calls after `TableSchema::new`: growth, bucket, source of the rows and view's base.
fn schema_additions(cx: &Cx<'_>) -> TokenStream {
    let (t, krate, p) = (cx.t, cx.krate, &cx.p);
    let a = &t.attrs;
    let growth = a.expect.as_ref().and_then(|e| growth(krate, p, e));
    let bucket = t.bucket.as_ref().and_then(|b| {
        let rule = bucket_rule(krate, b.rule?);
        let (name, source) = (&b.column, b.source);
        Some(quote!(.with_bucket(#name, #source, #rule)))
    });
    let copy_options = [
        a.dual_writes.map(|_| quote!(.with_dual_writes())),
        a.offline.map(|_| quote!(.offline())),
    ];
    let all = a.all_columns.map(|_| quote!(.view_selecting_all()));
    let view_of = a
        .view_of
        .as_ref()
        .map(|base| quote!(.with_view_of(<#base as #krate::Table>::schema()) #all));
    let source = a.from.as_ref().map(|from| match from {
        crate::attr::FromAttr::Table(name) => {
            let name = &name.value;
            quote!(.with_source(#krate::schema::SourceDef::table(#name) #(#copy_options)*))
        }
        crate::attr::FromAttr::Model(model) => {
            let converted = a.with.is_some();
            quote!(.with_source(#krate::schema::SourceDef::model(<#model as #krate::Table>::schema(), #converted) #(#copy_options)*))
        }
    });
    quote!(#growth #bucket #source #view_of)
}

/// `Table::__STATIC_FIELDS`, the names of the static fields, when there are any.
fn static_fields(cx: &Cx<'_>) -> Option<TokenStream> {
    let statics: Vec<String> =
        cx.t.fields
            .iter()
            .filter(|f| matches!(f.role, crate::model::Role::Static))
            .map(|f| f.ident.to_string())
            .collect();
    (!statics.is_empty()).then(|| {
        quote!(
            const __STATIC_FIELDS: &'static [&'static ::core::primitive::str] = &[#(#statics),*];
        )
    })
}

/// Each field's name and kind (key, counter, one cell or many), for `Table::__FIELD_KINDS`.
fn field_kinds(cx: &Cx<'_>) -> Vec<TokenStream> {
    let p = &cx.p;
    cx.t.fields
        .iter()
        .map(|f| {
            let field = f.ident.to_string();
            let kind = match f.role {
                crate::model::Role::PartitionKey => quote!(PARTITION_KEY),
                crate::model::Role::Clustering(_) => quote!(CLUSTERING),
                _ if f.counter => quote!(COUNTER),
                _ if f.collection.is_some() => quote!(MULTI_CELL),
                _ => quote!(CELL),
            };
            quote!((#field, #p::table::field_kind::#kind))
        })
        .collect()
}

/// `Table::__Write`: a regular table, a counter table (whose rows cannot be inserted) or a
/// view of its base (not written): what `Writable` and `Insertable` ask of it, whose errors
/// name the counter table or the view's base.
fn write_types(cx: &Cx<'_>) -> TokenStream {
    let p = &cx.p;
    let write = match (&cx.t.attrs.view_of, cx.t.counter_column()) {
        (Some(base), _) => quote!(#p::table::ViewOf<#base>),
        (None, Some(_)) => quote!(#p::table::CounterTable),
        (None, None) => quote!(#p::table::RegularTable),
    };
    quote!(type __Write = #write;)
}

/// For a view of `base`: Cassandra's rules for its key against the base's (and, for a view
/// of every column, its fields), checked in a `const` (an error names the column and the
/// fix, spanned on `view_of = ..` or `all_columns`), and the trait
/// whose message refuses `update()` and `delete()` and names the table to write instead.
fn view_checks(cx: &Cx<'_>, base: &syn::Path) -> TokenStream {
    let (ident, table) = (cx.ident, cx.table);
    let view_name = ident.to_string();
    let base_name = super::struct_name(base);
    let message = format!(
        "`{view_name}` (the view `{table}`) is a materialized view of `{base_name}`: Cassandra \
         refuses writes to a view"
    );
    let note = format!(
        "write `{base_name}` instead (`{base_name}::update()`, `{base_name}::delete()`, \
         `db.insert(&row)`): the server updates the view `{view_name}` from it"
    );
    // Every token of the call spanned on the base's path, so that the error points there
    // (the aliases are the ones `wrap` declares).
    let check = quote_spanned! {base.span()=>
        const _: () = __p::table::check_view(
            #view_name,
            #base_name,
            <#base as __cm::Table>::__IS_VIEW,
            <#base as __cm::Table>::__FIELD_KINDS,
            <#ident as __cm::Table>::__FIELD_KINDS,
        );
    };
    // A view of every column: spanned on `all_columns`.
    let all = cx.t.attrs.all_columns.map(|at| {
        quote_spanned! {at=>
            const _: () = __p::table::check_view_of_all(
                #view_name,
                #base_name,
                <#base as __cm::Table>::__STATIC_FIELDS,
                <#base as __cm::Table>::__FIELD_KINDS,
                <#ident as __cm::Table>::__FIELD_KINDS,
            );
        }
    });
    let rules = view_rules(cx, base);
    quote! {
        #check
        #all
        #rules
        #[diagnostic::on_unimplemented(message = #message, label = "a write to a view", note = #note)]
        pub trait __WriteTheBase {}
    }
}

/// The rules of a view whose message names only the view's own fields and its base, as trait
/// bounds ([`fact_rule`](super::fact_rule)): its base is a table, each of its fields is a
/// field of the base, and at most one of its key fields is not a key column of the base
/// (refused at the second). The rules that name a column of the base (which the derive
/// cannot see) stay in `check_view`'s `const`.
fn view_rules(cx: &Cx<'_>, base: &syn::Path) -> TokenStream {
    let (view, base_name) = (cx.ident.to_string(), super::struct_name(base));
    let kinds = quote!(<#base as __cm::Table>::__FIELD_KINDS);
    let table = super::fact_rule(
        &format_ident!("__BaseIsATable"),
        base.span(),
        quote!(!<#base as __cm::Table>::__IS_VIEW),
        &format!(
            "Cassandra builds a materialized view only on a table, and `{base_name}` is a view \
             itself: write #[cass(view_of = <the table of `{base_name}`>)] on `{view}`"
        ),
        "a view",
    );
    let fields = cx.t.fields.iter().map(|f| {
        let name = f.ident.to_string();
        super::fact_rule(
            &format_ident!("__InBase_{}", f.ident),
            f.ident.span(),
            quote!(__p::table::field_kind::of(#kinds, #name) != __p::table::field_kind::UNKNOWN),
            &format!(
                "a view's fields are fields of its base table (of the same names and types), \
                 and `{name}` is not a field of `{base_name}`: remove it from `{view}`, or add it \
                 to `{base_name}`"
            ),
            "not a field of the base table",
        )
    });
    let keys: Vec<_> = cx.t.fields.iter().filter(|f| f.role.is_key()).collect();
    let added = |f: &Field<'_>| {
        let name = f.ident.to_string();
        quote!(__p::table::field_kind::added_key(#kinds, #name))
    };
    let second = keys.iter().enumerate().skip(1).map(|(j, f)| {
        let (this, before) = (added(f), keys[..j].iter().map(|f| added(f)));
        super::fact_rule(
            &format_ident!("__OneAddedKey_{}", f.ident),
            f.ident.span(),
            quote!(!(#this && 0 #(+ #before as ::core::primitive::u8)* == 1)),
            &format!(
                "Cassandra allows a view's primary key at most one column that is not in its \
                 base table's primary key, and `{view}` adds `{}` to the key of `{base_name}` \
                 beside another: keep one of them in the key and make the other a regular field",
                f.ident
            ),
            "a second column added to the base's key",
        )
    });
    quote!(#table #(#fields)* #(#second)*)
}

/// The check that the bucket's source type takes its rule (on the field's type).
fn bucket_assertion(cx: &Cx<'_>) -> Option<TokenStream> {
    let b = cx.t.bucket.as_ref()?;
    let ty = cx.t.fields[b.source].ty;
    let p = &cx.p;
    let check = match b.rule? {
        crate::attr::BucketRule::Period(_) => quote!(assert_time_bucket),
        crate::attr::BucketRule::Width(_) => quote!(assert_width_bucket),
    };
    Some(quote_spanned!(syn::spanned::Spanned::span(ty)=> #p::bucket::#check::<#ty>();))
}

/// `.with_growth(..)` from `expect(...)` (nothing after an error in it).
fn growth(krate: &syn::Path, p: &syn::Ident, e: &crate::attr::ExpectAttr) -> Option<TokenStream> {
    let rows = e.rows?;
    let period = |p: cassmodel_schema::Period| {
        let v = syn::Ident::new(&format!("{p:?}"), proc_macro2::Span::call_site());
        quote!(#krate::schema::Period::#v)
    };
    Some(match &e.per {
        None => quote!(.with_growth(#krate::schema::Growth::Rows(#rows))),
        Some(per) => {
            let per = period(per.value);
            let horizon = match &e.horizon {
                Some(h) => {
                    let (amount, unit) = (h.value.amount, period(h.value.period));
                    quote!(#p::std::Option::Some(#krate::schema::Span { amount: #amount, period: #unit }))
                }
                None => quote!(#p::std::Option::None),
            };
            quote!(.with_growth(#krate::schema::Growth::Rate { rows: #rows, per: #per, horizon: #horizon }))
        }
    })
}

/// The driver's `DeserializeRow` (by position, names checked once per result) and
/// `SerializeRow` (by bind-marker name), so the struct also works with hand-written CQL.
fn row_traits(cx: &Cx<'_>) -> TokenStream {
    let (t, krate, p, ident) = (cx.t, cx.krate, &cx.p, cx.ident);
    let field_idents = t.fields.iter().map(|f| f.ident);
    let reads = readers(krate, &t.fields);
    quote! {
        impl<'__f, '__m> #p::driver::DeserializeRow<'__f, '__m> for #ident {
            fn type_check(specs: &[#p::driver::ColumnSpec<'_>]) -> #p::std::Result<(), #p::driver::TypeCheckError> {
                #p::table::check_row::<Self>(specs)
            }

            fn deserialize(
                row: #p::driver::ColumnIterator<'__f, '__m>,
            ) -> #p::std::Result<Self, #p::driver::DeserializationError> {
                let mut __row = #p::table::RowReader::new::<Self>(row);
                #p::std::Result::Ok(Self { #(#field_idents: __row.next(#reads)?,)* })
            }
        }

        /// Binds the fields to the bind markers of the same names.
        impl #p::driver::SerializeRow for #ident {
            fn serialize(
                &self,
                ctx: &#p::driver::RowSerializationContext<'_>,
                writer: &mut #p::driver::RowWriter,
            ) -> #p::std::Result<(), #p::driver::SerializationError> {
                #p::table::serialize_by_name(self, ctx, writer)
            }

            fn is_empty(&self) -> __bool {
                false
            }
        }
    }
}

/// `select()`, `select_allow_filtering()`, `delete()`, `update()`, `scan_full_table(..)`, and
/// the shorthands `get` (full primary key) and `partition` (partition key).
fn entry_points(cx: &Cx<'_>) -> TokenStream {
    let (t, krate, p, st, kd, q, ident, table) = (
        cx.t, cx.krate, &cx.p, &cx.st, &cx.kd, cx.q, cx.ident, cx.table,
    );
    let key_order = list(&t.primary_key());
    let select_doc = format!(
        "Starts a read of `{table}`: restrict the key columns in order ({key_order}), then run \
         it with `fetch_all`, `fetch_first`, `fetch_stream` or `fetch_page`."
    );
    let shorthands = key_shorthands(cx);
    // A view's are refused where they are called, with the base to write instead (the bound
    // names a lifetime of the call, so it is checked there and not here).
    let (delete_doc, update_doc, refused) = match &t.attrs.view_of {
        None => (
            quote! {
                /// Starts a delete: give the partition key, then optionally a clustering prefix and a
                /// range (a range delete), then `execute`.
            },
            quote! {
                /// Starts an update: `set_<column>(..)` for regular columns, the whole primary key,
                /// then `execute`.
            },
            None,
        ),
        Some(_) => (
            quote! {
                /// Not available: a materialized view is not written (Cassandra refuses writes
                /// to a view). Delete from its base table.
            },
            quote! {
                /// Not available: a materialized view is not written (Cassandra refuses writes
                /// to a view). Update its base table.
            },
            Some(quote!(where ::core::marker::PhantomData<&'a ()>: __WriteTheBase,)),
        ),
    };
    let writes = quote! {
        #delete_doc
        pub fn delete<'a>() -> #q<'a, #st::Key<0>, #kd::Delete> #refused {
            #q(#p::query::Query::new())
        }

        #update_doc
        pub fn update<'a>() -> #q<'a, #st::Key<0>, #kd::Update<0>> #refused {
            #q(#p::query::Query::new())
        }
    };
    quote! {
        impl #ident {
            #[doc = #select_doc]
            pub fn select<'a>() -> #q<'a> {
                #q(#p::query::Query::new())
            }

            /// Starts a read that may restrict any column, with `ALLOW FILTERING`: Cassandra
            /// reads and discards every row that does not match, across the whole table unless
            /// the partition key is given. Only for small tables or one-off jobs.
            pub fn select_allow_filtering<'a>() -> #q<'a, #st::Filtering> {
                #q(#p::query::Query::allow_filtering())
            }

            #writes

            /// Reads every row of the table, token range by token range (`splits` ranges, one
            /// after the other, each paged): a full scan of every node, for batch jobs only.
            pub fn scan_full_table(
                db: &#krate::Db,
                splits: ::core::primitive::u32,
            ) -> #krate::query::QueryFuture<'_, #krate::query::RowStream<Self>> {
                #p::query::scan::<Self>(db, splits)
            }

            #shorthands
        }
    }
}

/// `get` and, for tables with clustering columns, `partition`: one argument per key column,
/// of the column's own type (`&str` for a `String`), so a wrong argument is one E0308.
fn key_shorthands(cx: &Cx<'_>) -> TokenStream {
    let (krate, p) = (cx.krate, &cx.p);
    let (pk, all) = (cx.t.partition_key(), cx.t.primary_key());
    let params = |fs: &[&Field<'_>]| -> Vec<TokenStream> {
        fs.iter()
            .map(|f| {
                let (arg, ty) = (f.ident, f.ty);
                if f.is_string && !cx.t.is_bucket_source(f) {
                    quote!(#arg: &'d ::core::primitive::str)
                } else {
                    quote!(#arg: &'d #ty)
                }
            })
            .collect()
    };
    let bounds = |fs: &[&Field<'_>]| -> Vec<TokenStream> {
        fs.iter().map(|f| cx.bound_as(f.ty, f.ident)).collect()
    };
    let names = |fs: &[&Field<'_>]| {
        fs.iter()
            .map(|f| format!("`{}`", f.column))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (get_params, mut get_values, mut n) = (params(&all), bounds(&all), all.len());
    if let Some(b) = &cx.t.bucket
        && let Some(rule) = b.rule
    {
        // The bucket follows the declared partition key; it is computed from its source.
        let source = cx.t.fields[b.source].ident;
        let rule = bucket_rule(krate, rule);
        get_values.insert(pk.len(), quote!(#p::bucket::bucket_of(#source, #rule)));
        n += 1;
    }
    let get_doc = format!(
        "The row with primary key ({}), if it exists: the same as `select()` with every key \
         column, then `fetch_first`.",
        names(&all)
    );
    let fut = |out: TokenStream| quote!(impl ::core::future::Future<Output = #krate::Result<#out>> + ::core::marker::Send + 'd);
    let get_out = fut(quote!(::core::option::Option<Self>));
    // A bucketed table's partition is one bucket: read it with `<source>_range(..)`.
    let partition = (!cx.t.clustering.is_empty() && cx.t.bucket.is_none()).then(|| {
        let (part_params, part_values, np) = (params(&pk), bounds(&pk), pk.len());
        let doc = format!(
            "Every row of the partition ({}), in clustering order: the same as `select()` with \
             the partition key, then `fetch_all`. For large partitions use \
             `select()...fetch_stream(..)`.",
            names(&pk)
        );
        let out = fut(quote!(::std::vec::Vec<Self>));
        quote! {
            #[doc = #doc]
            #[inline(always)] // the future built in place: the runtime's `session::trace::in_span`
            pub fn partition<'d>(db: &'d #krate::Db, #(#part_params),*) -> #out {
                #p::query::partition::<Self, #np>(db, [#(#part_values),*])
            }
        }
    });
    quote! {
        #[doc = #get_doc]
        #[inline(always)] // the future built in place: the runtime's `session::trace::in_span`
        pub fn get<'d>(db: &'d #krate::Db, #(#get_params),*) -> #get_out {
            #p::query::get_by_key::<Self, #n>(db, [#(#get_values),*])
        }

        #partition
    }
}

/// For a table with a source (`#[cass(from = ..)]`): its copy, `impl CopyFrom` (the source
/// row type and the conversion, spanned on `with`) and its registration for the migration
/// command.
fn copy_from(cx: &Cx<'_>) -> Option<TokenStream> {
    let (t, krate, p, ident) = (cx.t, cx.krate, &cx.p, cx.ident);
    let from = t.attrs.from.as_ref()?;
    let (source, convert) = match (from, &t.attrs.with) {
        (crate::attr::FromAttr::Model(model), Some(with)) => (
            quote!(#model),
            quote_spanned!(syn::spanned::Spanned::span(with)=>
                #p::copy::convert_with::<#model, Self, _>(#with, source)
            ),
        ),
        _ => (quote!(Self), quote!(#p::std::Result::Ok(source))),
    };
    Some(quote! {
        impl #krate::migrate::copy::CopyFrom for #ident {
            type Source = #source;
            fn convert(source: Self::Source) -> #p::std::Result<Self, #p::std::String> {
                #convert
            }
        }

        // Registers the copy for the migration command (`backfill`, `verify`).
        #p::table::inventory::submit! {
            #p::copy::CopyEntry(#p::copy::copier::<#ident>)
        }
    })
}

/// `impl FromEntity<E> for Table` (or `FromEntityEach<E>`, for a table with a column that
/// takes each element of one of the entity's collections) and `EntityTableOf<E>`: each field
/// taken from the entity's field of the same name (the compiler points at the table's field
/// when the entity lacks it or has another type), and a check that the entity lists this
/// table. The entity's fields are named once, in one function, so that a missing or
/// mistyped field is one error.
fn from_entity(t: &Table<'_>, entity: &syn::Path, nth: usize) -> TokenStream {
    let ident = t.ident;
    let name = ident.to_string();
    let entity_name = super::struct_name(entity);
    let each = t.fields.iter().find(|f| f.attrs.each.is_some());
    let fields = format_ident!("__cass_entity_fields_{}", nth);
    let copied: Vec<&Field<'_>> = t.fields.iter().filter(|f| f.attrs.each.is_none()).collect();
    let types = copied.iter().map(|f| f.ty);
    let refs = copied.iter().map(|f| {
        let id = f.ident;
        quote_spanned!(id.span()=> &entity.#id)
    });
    let vars: Vec<_> = (0..copied.len())
        .map(|i| format_ident!("__f{}", i))
        .collect();
    let impls = match each {
        Some(f) => rows_per_element(ident, entity, f, &copied, &vars, &fields),
        None => row_per_entity(t, entity, &fields, &vars),
    };
    let message = format!(
        "an entity lists each table that declares it, and `{entity_name}` does not list \
         `{name}`, which declares #[cass(entity = {entity_name})]: add `{name}` to the \
         #[cass(tables(...))] of `{entity_name}` so that its save() and delete() write this \
         table too"
    );
    let listed = super::fact_rule(
        &format_ident!("__ListedBy{}", nth),
        entity.span(),
        quote!(__p::query::contains_str(<#entity>::__CASS_TABLES, #name)),
        &message,
        "an entity that does not list this table",
    );
    quote_spanned! {entity.span()=>
        #[allow(clippy::type_complexity)]
        fn #fields(entity: &#entity) -> (#(&#types,)*) {
            (#(#refs,)*)
        }
        #impls
        #listed
    }
}

/// `FromEntity<E>`: one row per entity, copied by `from_entity` and read in place by `__cell`
/// and `__cells` (what `save` writes).
fn row_per_entity(
    t: &Table<'_>,
    entity: &syn::Path,
    fields: &syn::Ident,
    vars: &[syn::Ident],
) -> TokenStream {
    let (krate, ident) = (super::alias(), t.ident);
    let copies = t.fields.iter().zip(vars).map(|(f, v)| {
        let id = f.ident;
        quote!(#id: ::core::clone::Clone::clone(#v))
    });
    let cells = t.fields.iter().zip(vars).enumerate().map(|(i, (f, v))| {
        let m = super::mapping(&krate, f);
        quote!(#i => __p::std::Option::Some(#m::__erased(#v)),)
    });
    let tuple = super::cells_tuple(
        t.fields
            .iter()
            .zip(vars)
            .map(|(f, v)| {
                let m = super::mapping(&krate, f);
                quote!(#m::__cell(#v))
            })
            .collect(),
    );
    quote_spanned! {entity.span()=>
        impl #krate::write::FromEntity<#entity> for #ident {
            fn from_entity(entity: &#entity) -> Self {
                let (#(#vars,)*) = #fields(entity);
                Self { #(#copies),* }
            }
            fn __cell(
                entity: &#entity,
                index: ::core::primitive::usize,
            ) -> __p::std::Option<&dyn __p::table::ErasedValue> {
                let (#(#vars,)*) = #fields(entity);
                match index {
                    #(#cells)*
                    _ => __p::std::Option::None,
                }
            }
            #[inline]
            fn __cells(entity: &#entity) -> impl __p::table::Cells + '_ {
                let (#(#vars,)*) = #fields(entity);
                #tuple
            }
        }
        impl __p::query::EntityTableOf<#entity> for #ident {
            const __TABLE: __p::query::EntityTable<#entity> =
                __p::query::EntityTable::of::<Self>();
        }
    }
}

/// `FromEntityEach<E>`: a row per element of the entity's collection (`each = tags` on field
/// `f`), the element taken by `f`'s column, the other fields (`copied`, read into `vars`)
/// copied into each row. The call that takes the elements is spanned on the collection's
/// name, where its errors point (not a collection; elements of another type).
fn rows_per_element(
    ident: &syn::Ident,
    entity: &syn::Path,
    f: &Field<'_>,
    copied: &[&Field<'_>],
    vars: &[syn::Ident],
    fields: &syn::Ident,
) -> TokenStream {
    let krate = super::alias();
    let Some(collection) = &f.attrs.each else {
        return TokenStream::new();
    };
    let (column, ty) = (f.ident, f.ty);
    let copies = copied.iter().zip(vars).map(|(f, v)| {
        let id = f.ident;
        quote!(#id: ::core::clone::Clone::clone(#v))
    });
    let copy = quote!(Self {
        #column: ::core::clone::Clone::clone(__element),
        #(#copies),*
    });
    let rows = quote_spanned! {collection.span()=>
        __p::query::rows_of_each::<_, #ty, Self>(&entity.#collection, |__element| #copy)
    };
    let (column_name, collection_name) = (column.to_string(), collection.to_string());
    quote_spanned! {entity.span()=>
        impl #krate::write::FromEntityEach<#entity> for #ident {
            fn rows(entity: &#entity) -> __p::std::Vec<Self> {
                let (#(#vars,)*) = #fields(entity);
                #rows
            }
            const __EACH: (&'static str, &'static str) = (#column_name, #collection_name);
        }
        impl __p::query::EntityTableOf<#entity> for #ident {
            const __TABLE: __p::query::EntityTable<#entity> =
                __p::query::EntityTable::each::<Self>();
            const __EACH: __p::std::Option<(&'static str, &'static str)> =
                __p::std::Option::Some((#column_name, #collection_name));
        }
    }
}
