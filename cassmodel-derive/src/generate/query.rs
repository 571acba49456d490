//! The typed query builder of a table: `Post::select()`, `Post::delete()`, `Post::update()`.
//!
//! Each column gets one-line methods (`user_id(..)`, `post_id_gt(..)`, `set_content(..)`, ...)
//! whose method-level `where S: Trait` bound admits exactly the states in which Cassandra
//! accepts that restriction. The traits are generated per column so that their
//! `#[diagnostic::on_unimplemented]` message names the column and what to give first. The
//! states themselves (`Key<N>`, `Range<N, LO, HI>`, `Filtering`) and all the work are
//! generic runtime code.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use crate::attr::Order;
use crate::model::{Field, Role, Table};

/// Method names the builder has whatever the columns; a column method may not reuse one.
pub const BUILDER_METHODS: &[&str] = &[
    "consistency",
    "serial_consistency",
    "timeout",
    "tracing",
    "idempotent",
    "limit",
    "per_partition_limit",
    "reversed",
    "page_size",
    "read_as",
    "fetch_all",
    "fetch_first",
    "fetch_stream",
    "fetch_page",
    "execute",
    "using_ttl",
    "using_timestamp",
    "if_exists",
];

/// The builder methods generated for one column.
pub fn column_methods(f: &Field<'_>) -> Vec<String> {
    let n = f.ident.to_string();
    let mut out = vec![n.clone(), format!("order_by_{n}")];
    if f.role.is_key() {
        out.extend(["in", "gt", "ge", "lt", "le"].map(|s| format!("{n}_{s}")));
    }
    out.extend(super::write::write_methods(f));
    out
}

/// Whether a column holds a non-frozen collection (as far as its type or override tells).
fn is_live_collection(f: &Field<'_>) -> bool {
    match (&f.attrs.cql_type, f.attrs.frozen) {
        (_, Some(_)) => false,
        (Some(t), None) => t.value.is_collection(),
        (None, None) => {
            matches!(
                crate::types::shape(f.ty),
                crate::types::Shape::List | crate::types::Shape::Set | crate::types::Shape::Map
            ) || matches!(crate::types::shape(f.ty), crate::types::Shape::Option)
                && crate::types::first_type_arg(f.ty).is_some_and(|t| {
                    matches!(
                        crate::types::shape(t),
                        crate::types::Shape::List
                            | crate::types::Shape::Set
                            | crate::types::Shape::Map
                    )
                })
        }
    }
}

/// Column names as a readable list: `a, b, c`.
fn list(fields: &[&Field<'_>]) -> String {
    fields
        .iter()
        .map(|f| f.column.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `#[diagnostic::on_unimplemented]` marker trait: implemented for the states in which a
/// method may be called; its message is what a user sees otherwise.
pub(crate) fn marker(name: &Ident, message: &str, label: &str, note: &str) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #name {}
    }
}

/// `impl Trait for State {}`
pub(crate) fn imp(name: &Ident, state: TokenStream) -> TokenStream {
    quote!(impl #name for #state {})
}

pub struct Generated {
    /// The builder struct, emitted next to the user's struct (nameable).
    pub item: TokenStream,
    /// Traits and impls, emitted inside the derive's `const _: () = { ... };`.
    pub body: TokenStream,
}

pub fn generate(t: &Table<'_>) -> Generated {
    let krate = &t.krate;
    let p = super::private(krate);
    let ident = t.ident;
    let vis = t.vis;
    let q = format_ident!("{}Query", ident);
    let table = &t.name;
    let st = quote!(#krate::state);
    let kd = quote!(#krate::kind);

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
    let key: Vec<&Field<'_>> = pk.iter().chain(&ck).copied().collect();
    // The column index of each key field, in `key`'s order (partition key, then clustering).
    let key_index: Vec<u16> = {
        let of_role = |pred: fn(Role) -> bool| {
            t.fields
                .iter()
                .enumerate()
                .filter(move |(_, f)| pred(f.role))
                .map(|(i, _)| i as u16)
        };
        of_role(|r| r == Role::PartitionKey)
            .chain(of_role(|r| matches!(r, Role::Clustering(_))))
            .collect()
    };
    let (np, nk) = (pk.len(), key.len());
    let key_order = list(&key);
    let pk_list = list(&pk);

    // The states in which the whole partition key is given.
    let mut pk_given: Vec<TokenStream> = (np..=nk).map(|n| quote!(#st::Key<#n>)).collect();
    for n in np..nk {
        for (lo, hi) in [(true, false), (false, true), (true, true)] {
            pk_given.push(quote!(#st::Range<#n, #lo, #hi>));
        }
    }

    let mut traits = Vec::new();
    let mut impls = Vec::new();
    let mut methods = Vec::new();

    let order_note = format!(
        "key columns are restricted in this order, each by `=` or `IN`: {key_order}; a range \
         (`_gt`, `_ge`, `_lt`, `_le`) may follow on the next clustering column, and nothing after \
         it. To filter on other columns anyway (a scan), start from `{ident}::select_allow_filtering()`"
    );

    for (i, f) in key.iter().enumerate() {
        let col = &f.column;
        let name = f.ident;
        let ty = f.ty;
        let idx = key_index[i];
        let eq = format_ident!("__Eq_{}", name);
        let message = match i {
            0 => format!(
                "`{table}`: `{col}` is restricted already: it is the first key column and takes one `=` or `IN`"
            ),
            _ => format!(
                "`{table}`: cannot restrict `{col}` yet: give `{}` first, by `=` or `IN`",
                key[i - 1].column
            ),
        };
        traits.push(marker(
            &eq,
            &message,
            &format!("`{col}` restricted here"),
            &order_note,
        ));
        let next = i + 1;
        impls.push(imp(&eq, quote!(#st::Key<#i>)));
        impls.push(imp(&eq, quote!(#st::Filtering)));
        let doc_eq = format!("`{col} = ?`");
        let doc_in = format!("`{col} IN ?`: any of `values`.");
        let in_name = format_ident!("{}_in", name);
        methods.push(quote_spanned! {f.ident.span()=>
            #[doc = #doc_eq]
            pub fn #name(self, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized))
                -> #q<'a, <S as #p::AfterEq<#st::Key<#next>>>::Next, K, R>
            where
                S: #eq + #p::AfterEq<#st::Key<#next>>,
            {
                self.__map(|q| q.restrict(#idx, #p::Op::Eq, #krate::BindAs::<#ty>::__bound(value)))
            }

            #[doc = #doc_in]
            pub fn #in_name<V>(self, values: &'a [V]) -> #q<'a, <S as #p::AfterEq<#st::Key<#next>>>::Next, K, R>
            where
                S: #eq + #p::AfterEq<#st::Key<#next>>,
                V: #krate::BindAs<#ty> + ::core::marker::Send,
            {
                self.__map(|q| q.restrict(#idx, #p::Op::In, #p::bound_list(values)))
            }
        });
        let range_methods = |lower: &Ident, upper: &Ident, next_lo: bool| {
            let (gt, ge, lt, le) = (
                format_ident!("{}_gt", name),
                format_ident!("{}_ge", name),
                format_ident!("{}_lt", name),
                format_ident!("{}_le", name),
            );
            let docs = [">", ">=", "<", "<="].map(|op| format!("`{col} {op} ?`"));
            let [d_gt, d_ge, d_lt, d_le] = docs;
            let (lo_bound, hi_bound) = if next_lo {
                (
                    quote!(#lower + #p::AfterLower<#i>),
                    quote!(#upper + #p::AfterUpper<#i>),
                )
            } else {
                (quote!(#lower), quote!(#upper))
            };
            let (lo_out, hi_out) = if next_lo {
                (
                    quote!(#q<'a, <S as #p::AfterLower<#i>>::Next, K, R>),
                    quote!(#q<'a, <S as #p::AfterUpper<#i>>::Next, K, R>),
                )
            } else {
                (quote!(Self), quote!(Self))
            };
            quote_spanned! {f.ident.span()=>
                #[doc = #d_gt]
                pub fn #gt(self, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized)) -> #lo_out
                where S: #lo_bound,
                { self.__map(|q| q.restrict(#idx, #p::Op::Gt, #krate::BindAs::<#ty>::__bound(value))) }
                #[doc = #d_ge]
                pub fn #ge(self, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized)) -> #lo_out
                where S: #lo_bound,
                { self.__map(|q| q.restrict(#idx, #p::Op::Ge, #krate::BindAs::<#ty>::__bound(value))) }
                #[doc = #d_lt]
                pub fn #lt(self, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized)) -> #hi_out
                where S: #hi_bound,
                { self.__map(|q| q.restrict(#idx, #p::Op::Lt, #krate::BindAs::<#ty>::__bound(value))) }
                #[doc = #d_le]
                pub fn #le(self, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized)) -> #hi_out
                where S: #hi_bound,
                { self.__map(|q| q.restrict(#idx, #p::Op::Le, #krate::BindAs::<#ty>::__bound(value))) }
            }
        };
        if f.role == Role::PartitionKey {
            let no = format_ident!("__NoRange_{}", name);
            traits.push(marker(
                &no,
                &format!(
                    "`{table}`: `{col}` is part of the partition key: restrict it with `=` \
                     (`.{name}(..)`) or `IN` (`.{name}_in(..)`), never with a range"
                ),
                "range on a partition-key column",
                "the partition key is hashed to pick the nodes that hold a partition, so only whole values can be looked up; ranges work on clustering columns",
            ));
            methods.push(range_methods(&no, &no, false));
        } else {
            let (lower, upper) = (
                format_ident!("__Lower_{}", name),
                format_ident!("__Upper_{}", name),
            );
            let prev = &key[i - 1].column;
            let message = format!(
                "`{table}`: cannot put a range on `{col}` here: give `{prev}` first, by `=`, and \
                 at most one lower and one upper bound"
            );
            let label = format!("range on `{col}`");
            traits.push(marker(&lower, &message, &label, &order_note));
            traits.push(marker(&upper, &message, &label, &order_note));
            impls.push(imp(&lower, quote!(#st::Key<#i>)));
            impls.push(imp(&lower, quote!(#st::Range<#i, false, true>)));
            impls.push(imp(&lower, quote!(#st::Filtering)));
            impls.push(imp(&upper, quote!(#st::Key<#i>)));
            impls.push(imp(&upper, quote!(#st::Range<#i, true, false>)));
            impls.push(imp(&upper, quote!(#st::Filtering)));
            methods.push(range_methods(&lower, &upper, true));
        }
    }

    // Regular and static columns: filtering only after an explicit opt-in; SET in updates.
    for (idx, f) in t
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.role.is_key())
    {
        let idx = idx as u16;
        let col = &f.column;
        let name = f.ident;
        let ty = f.ty;
        let filter = format_ident!("__Filter_{}", name);
        if is_live_collection(f) {
            // Cassandra refuses `=` on a non-frozen collection, even with ALLOW FILTERING.
            traits.push(marker(
                &filter,
                &format!(
                    "`{table}`: `{col}` is a non-frozen collection, which Cassandra cannot compare \
                     with `=`"
                ),
                "filter on a collection column",
                &format!(
                    "keep a table keyed by the values of `{col}` instead (one table per query)"
                ),
            ));
        } else {
            traits.push(marker(
                &filter,
                &format!(
                    "`{table}`: `{col}` is not part of the primary key, so Cassandra cannot look \
                     rows up by it without scanning"
                ),
                "filter on a regular column",
                &format!(
                    "query a table keyed by `{col}` instead (one table per query), or opt in to \
                     the scan with `{ident}::select_allow_filtering()`"
                ),
            ));
            impls.push(imp(&filter, quote!(#st::Filtering)));
        }
        let doc = format!("`{col} = ?` (only after `{ident}::select_allow_filtering()`).");
        methods.push(quote_spanned! {f.ident.span()=>
            #[doc = #doc]
            pub fn #name(self, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized))
                -> Self
            where
                S: #filter,
            {
                self.__map(|q| q.restrict(#idx, #p::Op::Eq, #krate::BindAs::<#ty>::__bound(value)))
            }
        });
    }

    // ORDER BY: only the first clustering column, with the partition key given.
    let first_ck = ck.first().copied();
    for f in &t.fields {
        let col = &f.column;
        let name = f.ident;
        let tr = format_ident!("__OrderBy_{}", name);
        let order_by = format_ident!("order_by_{}", name);
        let is_first_ck = first_ck.is_some_and(|c| std::ptr::eq(c, f));
        let (message, note) = if is_first_ck {
            (
                format!("`{table}`: ordering needs the whole partition key first: {pk_list}"),
                "rows are ordered within a partition; across partitions there is no order"
                    .to_owned(),
            )
        } else {
            match first_ck {
                Some(c) => (
                    format!(
                        "`{table}`: rows are stored in clustering order ({}), so Cassandra cannot \
                         sort them by `{col}`",
                        list(&ck)
                    ),
                    format!(
                        "to read in the reverse order, call `.reversed()` or `.order_by_{}(..)`; \
                         to sort by `{col}`, sort in your code or keep a table clustered by it",
                        c.ident
                    ),
                ),
                None => (
                    format!("`{table}` has no clustering column, so Cassandra cannot sort its rows by `{col}`"),
                    "each partition holds one row; sort in your code or keep a table clustered by it".to_owned(),
                ),
            }
        };
        traits.push(marker(&tr, &message, "ORDER BY", &note));
        let declared_desc = matches!(f.role, Role::Clustering(Order::Desc));
        if is_first_ck {
            for s in &pk_given {
                impls.push(imp(&tr, s.clone()));
            }
        }
        let doc = format!(
            "`ORDER BY {col} <order>`: the declared order, or its reverse (a reverse scan)."
        );
        methods.push(quote_spanned! {f.ident.span()=>
            #[doc = #doc]
            pub fn #order_by(self, order: #krate::Order) -> Self
            where
                S: #tr,
            {
                let reversed = (order == #krate::Order::Desc) != #declared_desc;
                self.__map(|q| q.reversed(reversed))
            }
        });
    }

    // Terminal bounds.
    let readable = format_ident!("__Readable");
    let pk_given_tr = format_ident!("__PartitionGiven");
    let full_key = format_ident!("__FullKey");
    traits.push(marker(
        &readable,
        &format!("`{table}`: give the whole partition key before reading: {pk_list}"),
        "partition key incomplete",
        &format!(
            "a read without the whole partition key would visit every node; for a deliberate \
             full scan use `{ident}::scan_full_table(..)` (or `{ident}::select_allow_filtering()`)"
        ),
    ));
    traits.push(marker(
        &pk_given_tr,
        &format!("`{table}`: give the whole partition key first: {pk_list}"),
        "partition key incomplete",
        "deletes, reversed reads and ORDER BY work within one partition",
    ));
    traits.push(marker(
        &full_key,
        &format!("`{table}`: give the whole primary key, each column by `=`: {key_order}"),
        "primary key incomplete",
        "an update of regular columns, and any conditional write (IF ...), works on one row",
    ));
    for s in &pk_given {
        impls.push(imp(&readable, s.clone()));
        impls.push(imp(&pk_given_tr, s.clone()));
    }
    impls.push(imp(&readable, quote!(#st::Filtering)));
    impls.push(imp(&full_key, quote!(#st::Key<#nk>)));

    let write = super::write::generate(
        t,
        &super::write::Ctx {
            krate,
            q: &q,
            table,
            np,
            nk,
            key_order: &key_order,
            pk_list: &pk_list,
            full_key: &full_key,
            partition_given: &pk_given_tr,
        },
    );
    traits.extend(write.traits);
    impls.extend(write.impls);
    let write_items = write.items;

    let doc = format!(
        "Typed query on [`{ident}`] (table `{table}`), from `{ident}::select()`, `delete()` or \
         `update()`. `S` tracks which key columns are restricted, `K` what the query does, `R` \
         the row type read."
    );
    let item = quote! {
        #[doc = #doc]
        #[must_use = "a query does nothing until `fetch_all`, `fetch_first`, `fetch_stream`, `fetch_page` or `execute` runs it"]
        #vis struct #q<'a, S = #st::Key<0>, K = #kd::Select, R = #ident> {
            inner: #p::QueryState<'a>,
            _state: #p::PhantomData<fn() -> (S, K, R)>,
        }
    };

    let select_doc = format!(
        "Starts a read of `{table}`: restrict the key columns in order ({key_order}), then run \
         it with `fetch_all`, `fetch_first`, `fetch_stream` or `fetch_page`."
    );
    let body = quote! {
        #(#traits)*
        #(#impls)*

        impl #ident {
            #[doc = #select_doc]
            pub fn select<'a>() -> #q<'a> {
                #q { inner: #p::QueryState::new(), _state: #p::PhantomData }
            }

            /// Starts a read that may restrict any column, with `ALLOW FILTERING`: Cassandra
            /// reads and discards every row that does not match, across the whole table unless
            /// the partition key is given. Only for small tables or one-off jobs.
            pub fn select_allow_filtering<'a>() -> #q<'a, #st::Filtering> {
                #q { inner: #p::QueryState::new().allow_filtering(), _state: #p::PhantomData }
            }

            /// Starts a delete: give the partition key, then optionally a clustering prefix and a
            /// range (a range delete), then `execute`.
            pub fn delete<'a>() -> #q<'a, #st::Key<0>, #kd::Delete> {
                #q { inner: #p::QueryState::new(), _state: #p::PhantomData }
            }

            /// Starts an update: `set_<column>(..)` for regular columns, the whole primary key,
            /// then `execute`.
            pub fn update<'a>() -> #q<'a, #st::Key<0>, #kd::Update<0>> {
                #q { inner: #p::QueryState::new(), _state: #p::PhantomData }
            }

            /// Reads every row of the table, token range by token range (`splits` ranges, one
            /// after the other, each paged): a full scan of every node, for batch jobs only.
            pub async fn scan_full_table(
                db: &#krate::Db,
                splits: ::core::primitive::u32,
            ) -> #krate::Result<#krate::RowStream<Self>> {
                #p::scan_full_table::<Self, Self>(db, splits).await
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, K, R> #q<'a, S, K, R> {
            fn __map<S2>(self, f: impl ::core::ops::FnOnce(#p::QueryState<'a>) -> #p::QueryState<'a>) -> #q<'a, S2, K, R> {
                #q { inner: f(self.inner), _state: #p::PhantomData }
            }

            #(#methods)*

            /// Consistency level of this query.
            pub fn consistency(self, consistency: #krate::Consistency) -> Self {
                self.__map(|q| q.with_options(|o| o.consistency = ::core::option::Option::Some(consistency)))
            }

            /// Serial consistency level (lightweight transactions).
            pub fn serial_consistency(self, serial: ::core::option::Option<#krate::SerialConsistency>) -> Self {
                self.__map(|q| q.with_options(|o| o.serial_consistency = ::core::option::Option::Some(serial)))
            }

            /// Client-side timeout of this query.
            pub fn timeout(self, timeout: ::core::time::Duration) -> Self {
                self.__map(|q| q.with_options(|o| o.timeout = ::core::option::Option::Some(timeout)))
            }

            /// Traces this query on the server (`system_traces`).
            pub fn tracing(self, tracing: ::core::primitive::bool) -> Self {
                self.__map(|q| q.with_options(|o| o.tracing = tracing))
            }

            /// Whether the driver may retry this query (reads and plain writes are idempotent
            /// by default).
            pub fn idempotent(self, idempotent: ::core::primitive::bool) -> Self {
                self.__map(|q| q.with_options(|o| o.idempotent = ::core::option::Option::Some(idempotent)))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, R: #krate::Projection<#ident>> #q<'a, S, #kd::Select, R> {
            /// `LIMIT n`: at most `n` rows.
            pub fn limit(self, n: ::core::primitive::i32) -> Self {
                self.__map(|q| q.limit(n))
            }

            /// `PER PARTITION LIMIT n`: at most `n` rows from each partition.
            pub fn per_partition_limit(self, n: ::core::primitive::i32) -> Self {
                self.__map(|q| q.per_partition_limit(n))
            }

            /// Reads in the reverse of the clustering order: a reverse scan, slower than the
            /// declared order. Needs the whole partition key.
            pub fn reversed(self) -> Self
            where
                S: #pk_given_tr,
            {
                self.__map(|q| q.reversed(true))
            }

            /// Rows per page when paging (`fetch_stream`, `fetch_page`, `fetch_all`).
            pub fn page_size(self, rows: ::core::primitive::i32) -> Self {
                self.__map(|q| q.with_options(|o| o.page_size = ::core::option::Option::Some(rows)))
            }

            /// Reads only the columns of projection `P` (`#[derive(CassProjection)]`).
            pub fn read_as<P: #krate::Projection<#ident>>(self) -> #q<'a, S, #kd::Select, P> {
                #q { inner: self.inner, _state: #p::PhantomData }
            }

            /// Runs the query and collects every row (paging through them).
            pub fn fetch_all<'d>(self, db: &'d #krate::Db) -> #p::QueryFuture<'d, ::std::vec::Vec<R>>
            where
                S: #readable,
                'a: 'd,
            {
                #p::Box::pin(#p::select_all::<#ident, R>(db, self.inner))
            }

            /// Runs the query for its first row (`LIMIT 1` unless a limit is set).
            pub fn fetch_first<'d>(self, db: &'d #krate::Db) -> #p::QueryFuture<'d, ::core::option::Option<R>>
            where
                S: #readable,
                'a: 'd,
            {
                #p::Box::pin(#p::select_first::<#ident, R>(db, self.inner))
            }

            /// Runs the query as a stream that fetches one page at a time: constant memory
            /// whatever the number of rows.
            pub fn fetch_stream<'d>(self, db: &'d #krate::Db) -> #p::QueryFuture<'d, #krate::RowStream<R>>
            where
                S: #readable,
                'a: 'd,
            {
                #p::Box::pin(#p::select_stream::<#ident, R>(db, self.inner))
            }

            /// Runs the query for one page, from `from` (`PagingState::start()` first, then the
            /// previous page's `next`).
            pub fn fetch_page<'d>(self, db: &'d #krate::Db, from: #krate::PagingState) -> #p::QueryFuture<'d, #krate::Page<R>>
            where
                S: #readable,
                'a: 'd,
            {
                #p::Box::pin(#p::select_page::<#ident, R>(db, self.inner, from))
            }
        }

        #write_items
    };
    Generated { item, body }
}
