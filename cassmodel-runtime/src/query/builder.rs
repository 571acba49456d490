//! The generic core of every generated query builder.
//!
//! A generated builder (e.g. `PostQuery`) is a thin wrapper around [`Query`]: it adds one
//! method per column restriction or change, each callable only in the type-level states
//! Cassandra accepts (see [`state`](crate::state)), with a message naming the column
//! otherwise. Everything else is here, written and type-checked once for every table: the
//! bound values, options, limits, and the terminals that run the query. The terminals return
//! [`QueryFuture`], whose type carries neither the builder's state nor the driver's futures,
//! so a user's crate never proves `Send` of a driver future again; `fetch_all` and
//! `fetch_first` return an unboxed `impl Future + Send` instead (see [`refused_read`] for how
//! a generated builder keeps their compile errors to one).

use std::future::Future;
use std::marker::PhantomData;

use cassmodel_schema::Similarity;
use scylla::response::PagingState;

use super::bucket::{BucketRange, BucketRead, LatestRange};
use crate::error::errors::{Error, Result};
use crate::exec::batch::{BatchEntry, query_entry};
use crate::exec::read::{count_rows, select_all, select_first, select_page, select_stream};
use crate::exec::result::{Outcome, Page, QueryFuture, RowStream};
use crate::exec::statement::traced;
use crate::exec::write::execute;
use crate::mapping::erased::Bound;
use crate::mapping::projection::Projection;
use crate::mapping::table::Table;
use crate::mapping::types::CqlMapping;
use crate::mapping::vector::Scored;
use crate::mapping::view::Writable;
use crate::schema::model::{BucketRule, ColumnDef, Order};
use crate::session::db::Db;
use crate::session::trace::{Returned, spans_enabled};
use crate::statement::cql;
use crate::statement::options::RowCount;
use crate::statement::spec::{Cmp, Op, SetOp};
use crate::statement::state::QueryState;
use crate::statement::typestate::kind::{Select, WriteKind};

/// The generic core of every generated builder: table `T`, WHERE state `S`, statement kind
/// `K`, row type `R`. Generated methods call these; they are not a stable API.
#[doc(hidden)]
pub struct Query<'a, T, S, K, R> {
    state: QueryState<'a>,
    _marker: Marker<T, S, K, R>,
}

/// The type parameters of a [`Query`], owned by nothing: it is `Send` and `Sync` whatever they
/// are.
type Marker<T, S, K, R> = PhantomData<fn() -> (T, S, K, R)>;

impl<'a, T, S, K, R> Query<'a, T, S, K, R> {
    /// An empty query.
    #[inline]
    pub fn new() -> Self {
        Self::from(QueryState::default())
    }

    /// An empty query with `ALLOW FILTERING`.
    #[inline]
    pub fn allow_filtering() -> Self {
        let mut state = QueryState::default();
        state.spec.allow_filtering = true;
        Self::from(state)
    }

    #[inline]
    fn from(state: QueryState<'a>) -> Self {
        Query {
            state,
            _marker: PhantomData,
        }
    }

    /// The same query with other type parameters: the state after a method, or the state a
    /// method that exists only to fail claims to reach (so that one mistake is one error).
    #[inline]
    pub fn to<S2, K2, R2>(self) -> Query<'a, T, S2, K2, R2> {
        Query::from(self.state)
    }

    #[inline]
    fn with(mut self, f: impl FnOnce(&mut QueryState<'a>)) -> Self {
        f(&mut self.state);
        self
    }

    /// Adds `column op ?` to the WHERE clause.
    #[inline]
    pub fn restrict<S2>(self, column: u16, op: Op, value: Bound<'a>) -> Query<'a, T, S2, K, R> {
        self.with(|q| q.restrict(column, op, value)).to()
    }

    /// Adds `column[?] = ?` (a map entry) to the WHERE clause.
    #[inline]
    pub fn restrict_entry<S2>(
        self,
        column: u16,
        key: Bound<'a>,
        value: Bound<'a>,
    ) -> Query<'a, T, S2, K, R> {
        self.with(|q| q.restrict_entry(column, key, value)).to()
    }

    /// `source = ?` and `bucket = ?` with the bucket of the same value: the source column of
    /// a bucketed table restricted by `=`.
    #[inline]
    pub fn restrict_bucketed<S2>(
        self,
        bucket: u16,
        bucket_value: Bound<'a>,
        source: u16,
        value: Bound<'a>,
    ) -> Query<'a, T, S2, K, R> {
        self.with(|q| {
            q.restrict(bucket, Op::Eq, bucket_value);
            q.restrict(source, Op::Eq, value);
        })
        .to()
    }

    /// `ORDER BY` the first clustering column in `order`, declared `declared`.
    #[inline]
    pub fn order_by(self, order: Order, declared: Order) -> Self {
        self.with(|q| q.spec.reversed = order != declared)
    }

    /// Reads in the reverse of the clustering order.
    #[inline]
    pub fn reversed(self) -> Self {
        self.with(|q| q.spec.reversed = true)
    }

    /// Consistency level of this query.
    #[inline]
    pub fn consistency(self, consistency: scylla::statement::Consistency) -> Self {
        self.with(|q| q.options.consistency = Some(consistency))
    }

    /// Serial consistency level.
    #[inline]
    pub fn serial_consistency(self, serial: Option<scylla::statement::SerialConsistency>) -> Self {
        self.with(|q| q.options.serial_consistency = Some(serial))
    }

    /// Client-side timeout.
    #[inline]
    pub fn timeout(self, timeout: std::time::Duration) -> Self {
        self.with(|q| q.options.timeout = Some(timeout))
    }

    /// Server-side tracing.
    #[inline]
    pub fn tracing(self, tracing: bool) -> Self {
        self.with(|q| q.options.tracing = tracing)
    }

    /// Whether the driver may retry the query.
    #[inline]
    pub fn idempotent(self, idempotent: bool) -> Self {
        self.with(|q| q.options.idempotent = Some(idempotent))
    }

    /// Rows per page.
    #[inline]
    pub fn page_size(self, rows: impl RowCount) -> Self {
        self.with(|q| q.options.page_size = Some(rows.rows()))
    }

    /// `LIMIT n` (bound, not spliced).
    #[inline]
    pub fn limit(self, n: impl RowCount) -> Self {
        self.with(|q| q.limit(n.rows()))
    }

    /// `ORDER BY column ANN OF ?`: the rows nearest `query` first.
    #[inline]
    pub fn ann<S2>(self, column: u16, query: Bound<'a>) -> Query<'a, T, S2, K, R>
    where
        T: Table,
    {
        let query = query.for_vector_index(vector_index::<T>(column));
        self.with(|q| q.ann(column, query)).to()
    }

    /// Reads each row with its similarity to the vector search's query vector (by the
    /// function of the column's index), as [`Scored`](crate::Scored).
    #[inline]
    pub fn with_score(self) -> Query<'a, T, S, K, Scored<R>>
    where
        T: Table,
    {
        self.with(|q| {
            if let Some(column) = q.spec.ann {
                let function = vector_index::<T>(column).unwrap_or_default();
                q.score(column, function, None);
            }
        })
        .to()
    }

    /// Reads each row with `function(column, query)` before its columns (and the scores read
    /// so far), as [`Scored`](crate::Scored) with a score of type `Sc` (`Option<f32>` when
    /// the column may be null).
    #[inline]
    pub fn similarity<Sc>(
        self,
        column: u16,
        function: Similarity,
        query: Bound<'a>,
    ) -> Query<'a, T, S, K, Scored<R, Sc>> {
        let query = query.for_similarity(function);
        self.with(|q| q.score(column, function, Some(query))).to()
    }

    /// `PER PARTITION LIMIT n`.
    #[inline]
    pub fn per_partition_limit(self, n: impl RowCount) -> Self {
        self.with(|q| q.per_partition_limit(n.rows()))
    }

    /// Reads rows as `R2`, without the scores read so far (`R2` has no place for them).
    #[inline]
    pub fn read_as<R2>(self) -> Query<'a, T, S, K, R2> {
        self.with(QueryState::no_scores).to()
    }

    /// A change of `column` in the SET clause.
    #[inline]
    pub fn set<K2>(self, column: u16, op: SetOp, value: Bound<'a>) -> Query<'a, T, S, K2, R>
    where
        T: Table,
    {
        let value = value.for_vector_index(vector_index::<T>(column));
        self.with(|q| q.set(column, op, [Some(value), None])).to()
    }

    /// `column[key] = value` in the SET clause.
    #[inline]
    pub fn set_at<K2>(
        self,
        column: u16,
        key: Bound<'a>,
        value: Bound<'a>,
    ) -> Query<'a, T, S, K2, R> {
        self.with(|q| q.set(column, SetOp::AtKey, [Some(key), Some(value)]))
            .to()
    }

    /// `IF column op ?`.
    #[inline]
    pub fn condition<K2>(self, column: u16, cmp: Cmp, value: Bound<'a>) -> Query<'a, T, S, K2, R> {
        self.with(|q| q.condition(column, Op::from(cmp), value))
            .to()
    }

    /// `IF EXISTS`.
    #[inline]
    pub fn if_exists<K2>(self) -> Query<'a, T, S, K2, R> {
        self.with(|q| q.spec.if_exists = true).to()
    }

    /// `USING TTL seconds`.
    #[inline]
    pub fn using_ttl(self, seconds: i32) -> Self {
        self.with(|q| q.ttl(seconds))
    }

    /// `USING TIMESTAMP micros`.
    #[inline]
    pub fn using_timestamp(self, micros: i64) -> Self {
        self.with(|q| q.timestamp(micros))
    }
}

impl<T, S, K, R> Default for Query<'_, T, S, K, R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, T: Table, S, R: Projection<T>> Query<'a, T, S, Select, R> {
    /// The read of a range of `source` over its buckets (`bucket`, computed by `rule`).
    pub fn bucket_range<V: CqlMapping + Sync + Send + 'static>(
        self,
        bucket: u16,
        source: u16,
        rule: BucketRule,
        range: impl BucketRange<V>,
    ) -> BucketRead<'a, T, R> {
        BucketRead::new(self.state, bucket, source, rule, range)
    }

    /// The latest `n` rows of `source` in a range back from a start to a horizon, over its
    /// buckets (`bucket`, computed by `rule`), newest first.
    pub fn bucket_latest<V: CqlMapping + Sync + Send + 'static>(
        self,
        bucket: u16,
        source: u16,
        rule: BucketRule,
        n: impl RowCount,
        range: impl LatestRange<V>,
    ) -> BucketRead<'a, T, R> {
        BucketRead::latest(self.state, bucket, source, rule, n.rows(), range)
    }

    /// Runs the query and collects every row. Unboxed, like `fetch_first`: these are the reads
    /// of a few rows, where allocating and copying the future is a measurable part of the cost.
    #[allow(clippy::manual_async_fn)]
    #[inline(always)] // built in place: see `session::trace::in_span`
    pub fn fetch_all<'d>(self, db: &'d Db) -> impl Future<Output = Result<Vec<R>>> + Send + 'd
    where
        'a: 'd,
    {
        run::<T, _, _, _>(self.state, db, "select", |state| {
            select_all::<T, R>(db, state)
        })
    }

    /// Runs the query for its first row.
    #[allow(clippy::manual_async_fn)]
    #[inline(always)] // built in place: see `session::trace::in_span`
    pub fn fetch_first<'d>(self, db: &'d Db) -> impl Future<Output = Result<Option<R>>> + Send + 'd
    where
        'a: 'd,
    {
        run::<T, _, _, _>(self.state, db, "select", |state| {
            select_first::<T, R>(db, state)
        })
    }

    /// `SELECT COUNT(*)` with the query's restrictions: the number of rows they select.
    pub fn count_rows<'d>(self, db: &'d Db) -> QueryFuture<'d, u64>
    where
        'a: 'd,
    {
        QueryFuture::new(run::<T, _, _, _>(self.state, db, "count", |state| {
            count_rows::<T>(db, state)
        }))
    }

    /// Runs the query as a stream of rows, one page at a time.
    pub fn fetch_stream<'d>(self, db: &'d Db) -> QueryFuture<'d, RowStream<R>>
    where
        'a: 'd,
    {
        QueryFuture::new(run::<T, _, _, _>(self.state, db, "select", |state| {
            select_stream::<T, R>(db, state)
        }))
    }

    /// Runs the query for one page from `from`.
    pub fn fetch_page<'d>(self, db: &'d Db, from: PagingState) -> QueryFuture<'d, Page<R>>
    where
        'a: 'd,
    {
        QueryFuture::new(run::<T, _, _, _>(self.state, db, "select", |state| {
            select_page::<T, R>(db, state, from)
        }))
    }
}

impl<'a, T: Table + Writable, S, K: WriteKind, R> Query<'a, T, S, K, R> {
    /// Runs the update or delete.
    pub fn execute<'d>(self, db: &'d Db) -> QueryFuture<'d, ()>
    where
        'a: 'd,
    {
        QueryFuture::new(run::<T, _, _, _>(
            self.state,
            db,
            K::STATEMENT.kind(),
            move |state| async move { execute::<T>(db, state, K::STATEMENT).await.map(drop) },
        ))
    }

    /// Runs the lightweight transaction: the [`Outcome`] carries the current row when it did
    /// not apply.
    pub fn execute_lwt<'d>(self, db: &'d Db) -> QueryFuture<'d, Outcome<T>>
    where
        'a: 'd,
    {
        QueryFuture::new(run::<T, _, _, _>(
            self.state,
            db,
            K::STATEMENT.kind(),
            |state| execute::<T>(db, state, K::STATEMENT),
        ))
    }

    /// The update or delete as a statement of a batch.
    pub fn into_batch_entry(self) -> Box<dyn BatchEntry + 'a> {
        query_entry::<T>(self.state, K::STATEMENT)
    }
}

/// The similarity function of column `column`'s vector index, if it has one.
#[inline]
fn vector_index<T: Table>(column: u16) -> Option<Similarity> {
    T::schema()
        .column(usize::from(column))
        .and_then(ColumnDef::vector_index)
}

/// The result of `fetch_all` or `fetch_first` called on what a generated builder dereferences
/// to, instead of on the builder: an error, never a panic.
///
/// A generated builder has the unboxed `fetch_all` and `fetch_first` only in the states that
/// may be read (a bound on the `impl`). In the other states, method lookup goes on to the
/// builder's `Deref` target, whose `fetch_all` and `fetch_first` carry the same bound on the
/// method: that bound fails, once, with the state's message. (The bound on the method of the
/// unboxed one would fail three times: at the call, on its `impl Future` type, at `.await`.)
/// That target holds no query, so this is all it can return when called on purpose.
pub fn refused_read<V>() -> std::future::Ready<Result<V>> {
    std::future::ready(Err(Error::Invalid(
        "`fetch_all` and `fetch_first` run on the query builder, not on what it dereferences to"
            .to_owned(),
    )))
}

/// The future `run` makes of a query's state, a statement of `kind` on `T`'s table, inside
/// its span at the query's consistency. A function, not a method of [`Query`]: the future
/// does not depend on the builder's type-level state.
#[inline(always)] // built in place: see `session::trace::in_span`
fn run<'a, 'd, T, F, X, M>(
    state: QueryState<'a>,
    db: &'d Db,
    kind: &'static str,
    run: M,
) -> impl Future<Output = Result<X>> + use<'a, 'd, T, F, X, M>
where
    T: Table,
    F: Future<Output = Result<X>>,
    X: Returned,
    M: FnOnce(QueryState<'a>) -> F,
{
    let consistency = state.options.consistency;
    let shape = spans_enabled().then(|| cql::shape(T::schema(), &state.spec));
    traced::<T, _, _>(db, kind, consistency, shape, move || run(state))
}
