//! Options of any statement; `limit`, `reversed`, `read_as` and the reads of a SELECT.

use proc_macro2::TokenStream;
use quote::quote;

use crate::generate::{Cx, keys};

use super::ann::similarity_methods;
use super::bucket::bucket_range;

/// Options of any statement.
pub(super) fn options(cx: &Cx<'_>) -> TokenStream {
    let krate = cx.krate;
    quote! {
        /// Consistency level of this query.
        pub fn consistency(self, consistency: #krate::Consistency) -> Self {
            Self(self.0.consistency(consistency))
        }

        /// Serial consistency level (lightweight transactions).
        pub fn serial_consistency(self, serial: ::core::option::Option<#krate::SerialConsistency>) -> Self {
            Self(self.0.serial_consistency(serial))
        }

        /// Client-side timeout of this query.
        pub fn timeout(self, timeout: ::core::time::Duration) -> Self {
            Self(self.0.timeout(timeout))
        }

        /// Traces this query on the server (`system_traces`).
        pub fn tracing(self, tracing: __bool) -> Self {
            Self(self.0.tracing(tracing))
        }

        /// Whether the driver may retry this query (reads and plain writes are idempotent by
        /// default).
        pub fn idempotent(self, idempotent: __bool) -> Self {
            Self(self.0.idempotent(idempotent))
        }
    }
}

/// `limit`, `reversed`, `read_as` and the reads, on a SELECT.
pub(super) fn reads(cx: &Cx<'_>) -> TokenStream {
    let (q, krate, kd, ident) = (cx.q, cx.krate, &cx.kd, cx.ident);
    let readable = keys::readable();
    let bucket_range = bucket_range(cx);
    let limits = limits(cx);
    let with_score = with_score(cx);
    let paged = paged_reads(cx);
    let collected = collected_reads(cx);
    let refused = unreadable(cx, &readable);
    quote! {
        impl<'a, S, R: #krate::model::Projection<#ident>> #q<'a, S, #kd::Select, R> {
            #bucket_range

            #limits

            #with_score

            /// Reads only the columns of projection `P` (`#[derive(CassProjection)]`).
            pub fn read_as<P: #krate::model::Projection<#ident>>(self) -> #q<'a, S, #kd::Select, P> {
                #q(self.0.read_as())
            }

            #paged
        }

        #collected

        #refused
    }
}

/// `limit`, `per_partition_limit`, `reversed` and `page_size`.
fn limits(cx: &Cx<'_>) -> TokenStream {
    let (q, p, krate, kd) = (cx.q, &cx.p, cx.krate, &cx.kd);
    let given = keys::partition_given();
    quote! {
        /// `LIMIT n`: at most `n` rows (for a vector search, the `n` nearest).
        pub fn limit(self, n: impl #krate::query::RowCount) -> #q<'a, #p::query::Limited<S>, #kd::Select, R>
        where
            S: #p::query::Transitions,
        {
            #q(self.0.limit(n).to())
        }

        /// `PER PARTITION LIMIT n`: at most `n` rows from each partition.
        pub fn per_partition_limit(self, n: impl #krate::query::RowCount) -> Self {
            Self(self.0.per_partition_limit(n))
        }

        /// Reads in the reverse of the clustering order: a reverse scan, slower than the
        /// declared order. Needs the whole partition key.
        pub fn reversed(self) -> #q<'a, #p::query::Reversed<S>, #kd::Select, R>
        where
            S: #given + #p::query::Orderable + #p::query::Transitions,
        {
            #q(self.0.reversed().to())
        }

        /// Rows per page when paging (`fetch_stream`, `fetch_page`, `fetch_all`).
        pub fn page_size(self, rows: impl #krate::query::RowCount) -> Self {
            Self(self.0.page_size(rows))
        }
    }
}

/// `with_score`, and the similarity methods, where a column is a vector; else hidden.
fn with_score(cx: &Cx<'_>) -> TokenStream {
    let (q, p, krate, kd, ident) = (cx.q, &cx.p, cx.krate, &cx.kd, cx.ident);
    // Only where a column is a vector: elsewhere there is no score to read, and the method is
    // there to say so (hidden).
    if !cx.t.has_vector() {
        quote! {
            #[doc(hidden)]
            pub fn with_score(self) -> Self
            where
                S: #p::query::ScoreNeedsVector<#ident>,
            {
                self
            }
        }
    } else {
        let similarity = similarity_methods(cx);
        quote! {
            /// Reads each row of the vector search with its similarity to the query vector,
            /// as `Scored { score, row }` (a projection too: call it after `read_as`).
            pub fn with_score(self) -> #q<'a, S, #kd::Select, #krate::query::Scored<R>>
            where
                S: #p::query::AnnGiven,
            {
                #q(self.0.with_score())
            }

            #similarity
        }
    }
}

/// `count_rows`, `fetch_stream` and `fetch_page`.
fn paged_reads(cx: &Cx<'_>) -> TokenStream {
    let (p, krate) = (&cx.p, cx.krate);
    let readable = keys::readable();
    let db = quote!(db: &'d #krate::Db);
    let fut = |t: TokenStream| quote!(#krate::query::QueryFuture<'d, #t>);
    let (stream, page) = (
        fut(quote!(#krate::query::RowStream<R>)),
        fut(quote!(#krate::Page<R>)),
    );
    quote! {
        /// `SELECT COUNT(*)` with these restrictions: how many rows they select, counted
        /// by the server in one request (without a limit, an order or a vector search).
        pub fn count_rows<'d>(self, #db) -> #krate::query::QueryFuture<'d, ::core::primitive::u64> where S: #readable, 'a: 'd {
            self.0.count_rows(db)
        }

        /// Runs the query as a stream that fetches one page at a time: constant memory
        /// whatever the number of rows.
        pub fn fetch_stream<'d>(self, #db) -> #stream where S: #readable + #p::query::Pageable, 'a: 'd {
            self.0.fetch_stream(db)
        }

        /// Runs the query for one page, from `from` (`PagingState::start()` first, then
        /// the previous page's `next`).
        pub fn fetch_page<'d>(self, #db, from: #krate::PagingState) -> #page where S: #readable + #p::query::Pageable, 'a: 'd {
            self.0.fetch_page(db, from)
        }
    }
}

/// `fetch_all` and `fetch_first`, on the states that may be read.
fn collected_reads(cx: &Cx<'_>) -> TokenStream {
    let (q, krate, kd, ident) = (cx.q, cx.krate, &cx.kd, cx.ident);
    let readable = keys::readable();
    let db = quote!(db: &'d #krate::Db);
    // The reads of a few rows return an unboxed future: defined where `S` may be read (a bound
    // on the impl), and otherwise found on the `Deref` target, whose bound on the method fails
    // once with the state's message (`__private::query::refused_read`).
    let ret = |t: TokenStream| quote!(impl ::core::future::Future<Output = #krate::Result<#t>> + ::core::marker::Send + 'd);
    let (all, first) = (
        ret(quote!(::std::vec::Vec<R>)),
        ret(quote!(::core::option::Option<R>)),
    );
    quote! {
        impl<'a, S: #readable, R: #krate::model::Projection<#ident>> #q<'a, S, #kd::Select, R> {
            /// Runs the query and collects every row (paging through them; one request when a
            /// limit fits in a page).
            #[inline(always)] // the future built in place: the runtime's `session::trace::in_span`
            pub fn fetch_all<'d>(self, #db) -> #all where 'a: 'd {
                self.0.fetch_all(db)
            }

            /// Runs the query for its first row (`LIMIT 1` unless a limit is set).
            #[inline(always)] // the future built in place: the runtime's `session::trace::in_span`
            pub fn fetch_first<'d>(self, #db) -> #first where 'a: 'd {
                self.0.fetch_first(db)
            }
        }
    }
}

/// The builder's `Deref` target, `__Unreadable`, whose reads say why a state cannot be read.
fn unreadable(cx: &Cx<'_>, readable: &syn::Ident) -> TokenStream {
    let (q, p, krate, kd) = (cx.q, &cx.p, cx.krate, &cx.kd);
    quote! {
        /// What a builder dereferences to: `fetch_all` and `fetch_first` in the states that
        /// cannot be read, there to say why.
        pub struct __Unreadable<S, K, R>(::core::marker::PhantomData<fn() -> (S, K, R)>);

        #[doc(hidden)]
        impl<'a, S, K, R> ::core::ops::Deref for #q<'a, S, K, R> {
            type Target = __Unreadable<S, K, R>;
            fn deref(&self) -> &__Unreadable<S, K, R> {
                &__Unreadable(::core::marker::PhantomData)
            }
        }

        impl<S, R> __Unreadable<S, #kd::Select, R> {
            pub fn fetch_all(&self, _: &#krate::Db) -> ::core::future::Ready<#krate::Result<::std::vec::Vec<R>>> where S: #readable {
                #p::query::refused_read()
            }

            pub fn fetch_first(&self, _: &#krate::Db) -> ::core::future::Ready<#krate::Result<::core::option::Option<R>>> where S: #readable {
                #p::query::refused_read()
            }
        }
    }
}
