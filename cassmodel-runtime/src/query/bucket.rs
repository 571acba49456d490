//! Buckets: a partition-key column computed from the first clustering column, so that a
//! partition that would grow without end is split by time (its day, week, month or year) or
//! by a width of a number.
//!
//! Declared on the field it is computed from, `#[cass(bucket(month))]` (or
//! `bucket(width = 1000)` on an integer), it is filled in on every write, so the struct has no
//! field for it and the user never sets it. Key reads and writes give the source column with
//! `=` and the bucket follows; a read over a range of the source,
//! `.submission_time_range(from..to)`, fans out over the buckets in range ([`BucketRead`]).
//!
//! ```
//! use cassmodel::CassTable;
//! use chrono::{DateTime, Utc};
//! use uuid::Uuid;
//!
//! #[derive(CassTable)]
//! #[cass(table = "orders_by_customer_month")]
//! struct OrderByMonth {
//!     #[partition_key]
//!     customer_id: Uuid,
//!     #[clustering(desc)]
//!     #[cass(bucket(month))] // adds `submission_time_month date` to the partition key
//!     submission_time: DateTime<Utc>,
//!     #[clustering]
//!     order_id: Uuid,
//!     total: f64,
//! }
//!
//! # async fn read(db: &cassmodel::Db, customer: Uuid, from: DateTime<Utc>, to: DateTime<Utc>)
//! # -> cassmodel::Result<()> {
//! // Every order of a customer between two instants, newest first, over the months in range.
//! let orders = OrderByMonth::select()
//!     .customer_id(&customer)
//!     .submission_time_range(from..to)
//!     .fetch_all(db)
//!     .await?;
//! // The latest 50 orders of a customer, whatever month they fell in: back from now, month
//! // by month, to a horizon a year ago (fewer if there are fewer since).
//! let horizon = Utc::now() - chrono::Duration::days(365);
//! let latest = OrderByMonth::select()
//!     .customer_id(&customer)
//!     .submission_time_latest(50, horizon..)
//!     .fetch_all(db)
//!     .await?;
//! # Ok(()) }
//! ```

use std::marker::PhantomData;
use std::ops::{Range, RangeInclusive};
use std::pin::Pin;
use std::sync::Arc;

use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::errors::{Error, Result};
use crate::exec::read::{collect_pages, row_stream};
use crate::exec::result::QueryFuture;
use crate::exec::send::{self, Cql};
use crate::exec::statement::Stmt;
use crate::exec::statement::traced;
use crate::mapping::bucket::BucketValue;
use crate::mapping::erased::{Bound, ErasedValue};
use crate::mapping::projection::{PerRow, Projection};
use crate::mapping::table::Table;
use crate::mapping::types::CqlMapping;
use crate::schema::model::{BucketRule, Order};
use crate::session::db::Db;
use crate::session::trace::record_current;
use crate::statement::cql;
use crate::statement::options::RowCount;
use crate::statement::spec::{Op, Statement};
use crate::statement::state::QueryState;
use crate::statement::values::QueryValues;

/// A range of a bucket's source with both ends: `from..to` or `from..=to`.
#[diagnostic::on_unimplemented(
    message = "a read over the buckets of a column needs both ends: write `from..to` or `from..=to`",
    label = "range without both ends",
    note = "each bucket in the range is one partition to read; an open range would have no last bucket"
)]
pub trait BucketRange<V> {
    /// `(from, to, to is included)`.
    #[doc(hidden)]
    fn into_bounds(self) -> (V, V, bool);
}

impl<V> BucketRange<V> for Range<V> {
    fn into_bounds(self) -> (V, V, bool) {
        (self.start, self.end, false)
    }
}

impl<V> BucketRange<V> for RangeInclusive<V> {
    fn into_bounds(self) -> (V, V, bool) {
        let (a, b) = self.into_inner();
        (a, b, true)
    }
}

/// Where a read of the latest rows of a bucketed table walks: back from a start to a
/// horizon, `horizon..` (back from now) or `horizon..=start`.
#[diagnostic::on_unimplemented(
    message = "the latest rows are read back from a start to a horizon: write `horizon..` (back from now) or `horizon..=start`",
    label = "not `horizon..` or `horizon..=start`",
    note = "the horizon is the oldest value to read back to: the walk stops there even when it found fewer rows"
)]
pub trait LatestRange<V> {
    /// `(horizon, start)`.
    #[doc(hidden)]
    fn into_bounds(self) -> (V, V);
}

/// A bucket source with a current value: what `horizon..` reads back from.
#[doc(hidden)]
pub trait Now: Sized {
    /// The current value (the current instant to the millisecond, today in UTC).
    fn now() -> Self;
}

impl Now for chrono::DateTime<chrono::Utc> {
    fn now() -> Self {
        use chrono::SubsecRound;
        // A timestamp holds milliseconds.
        chrono::Utc::now().trunc_subsecs(3)
    }
}

impl Now for chrono::NaiveDate {
    fn now() -> Self {
        chrono::Utc::now().date_naive()
    }
}

impl<V: Now> LatestRange<V> for std::ops::RangeFrom<V> {
    fn into_bounds(self) -> (V, V) {
        (self.start, V::now())
    }
}

impl<V> LatestRange<V> for RangeInclusive<V> {
    fn into_bounds(self) -> (V, V) {
        self.into_inner()
    }
}

/// Rows read one bucket after another: memory stays constant however many rows and buckets.
pub type BucketStream<'d, R> = Pin<Box<dyn Stream<Item = Result<R>> + Send + 'd>>;

/// A read over a range of a bucket's source: one query per bucket in range (`from..to` ends
/// in the bucket of the last value before `to`), [`concurrency`](Self::concurrency) of them
/// in flight, their rows in clustering order (the buckets are read in the order of the source
/// column, so their rows follow one another). From the generated `<source>_range(from..to)`.
#[must_use = "a query does nothing until `fetch_all` or `fetch_stream` runs it"]
pub struct BucketRead<'a, T, R> {
    state: QueryState<'a>,
    bucket_column: u16,
    source_column: u16,
    rule: BucketRule,
    bounds: [Box<dyn ErasedValue + Send + 'static>; 2],
    inclusive: bool,
    buckets: [BucketValue; 2],
    concurrency: usize,
    _marker: PhantomData<fn() -> (T, R)>,
}

impl<'a, T: Table, R: Projection<T>> BucketRead<'a, T, R> {
    /// The read of `from..to` (or `..=to`) of `source_column`, whose bucket is
    /// `bucket_column`, after the restrictions in `state`.
    pub(crate) fn new<V: CqlMapping + Sync + Send + 'static>(
        state: QueryState<'a>,
        bucket_column: u16,
        source_column: u16,
        rule: BucketRule,
        range: impl BucketRange<V>,
    ) -> Self {
        let (from, to, inclusive) = range.into_bounds();
        let first = from.__bucket(rule);
        // `from..to` ends in the bucket of the last value before `to`: a range that ends
        // where a bucket starts does not read that bucket.
        let last = if inclusive {
            to.__bucket(rule)
        } else {
            to.__bucket_before(rule)
        };
        let buckets = [first, last].map(|b| b.unwrap_or(BucketValue::Overflow));
        BucketRead {
            state,
            bucket_column,
            source_column,
            rule,
            bounds: [Box::new(from), Box::new(to)],
            inclusive,
            buckets,
            concurrency: 1,
            _marker: PhantomData,
        }
    }

    /// The latest `n` rows whose source is in `horizon..=start` (newest first, whatever the
    /// declared order): the buckets from `start`'s back to `horizon`'s, until `n` rows are
    /// read.
    pub(crate) fn latest<V: CqlMapping + Sync + Send + 'static>(
        state: QueryState<'a>,
        bucket_column: u16,
        source_column: u16,
        rule: BucketRule,
        n: i32,
        range: impl LatestRange<V>,
    ) -> Self {
        let (horizon, start) = range.into_bounds();
        let read = Self::new(state, bucket_column, source_column, rule, horizon..=start);
        let declared = T::schema()
            .order_of(usize::from(source_column))
            .unwrap_or(Order::Asc);
        let read = if declared == Order::Asc {
            read.reversed()
        } else {
            read
        };
        read.limit(n)
    }

    fn with(mut self, f: impl FnOnce(&mut QueryState<'a>)) -> Self {
        f(&mut self.state);
        self
    }

    /// At most `n` rows in all.
    pub fn limit(self, n: impl RowCount) -> Self {
        self.with(|q| q.limit(n.rows()))
    }

    /// How many buckets are read at once (default 1, at least 1). One: each bucket's query
    /// is sent when the previous bucket's rows are read, as a loop written by hand would.
    /// More: a read's latency falls when the cluster has capacity to spare (about a third
    /// for three buckets on an idle node), but each read costs more client CPU (about 10%
    /// more at 64 reads in flight; see BENCHMARKS.md), and the rows of that many first pages
    /// are held at once.
    pub fn concurrency(mut self, buckets: usize) -> Self {
        self.concurrency = buckets.max(1);
        self
    }

    /// Reads in the reverse of the clustering order (the last bucket first).
    pub fn reversed(self) -> Self {
        self.with(|q| q.spec.reversed = true)
    }

    /// Rows per page of each bucket's query.
    pub fn page_size(self, rows: impl RowCount) -> Self {
        self.with(|q| q.options.page_size = Some(rows.rows()))
    }

    /// Consistency level of each bucket's query.
    pub fn consistency(self, consistency: scylla::statement::Consistency) -> Self {
        self.with(|q| q.options.consistency = Some(consistency))
    }

    /// Client-side timeout of each bucket's query.
    pub fn timeout(self, timeout: std::time::Duration) -> Self {
        self.with(|q| q.options.timeout = Some(timeout))
    }

    /// Reads only the columns of projection `P` (`#[derive(CassProjection)]`). Not a
    /// projection of aggregates: each bucket is a query of its own, and their rows are
    /// merged, so each bucket would give its own aggregate row (a compile error says so).
    pub fn read_as<P: Projection<T> + PerRow>(self) -> BucketRead<'a, T, P> {
        BucketRead {
            state: self.state,
            bucket_column: self.bucket_column,
            source_column: self.source_column,
            rule: self.rule,
            bounds: self.bounds,
            inclusive: self.inclusive,
            buckets: self.buckets,
            concurrency: self.concurrency,
            _marker: PhantomData,
        }
    }

    /// Runs the read and collects every row.
    pub fn fetch_all<'d>(self, db: &'d Db) -> QueryFuture<'d, Vec<R>>
    where
        'a: 'd,
    {
        let consistency = self.state.options.consistency;
        QueryFuture::new(traced::<T, _, _>(
            db,
            "select buckets",
            consistency,
            None,
            move || async move { self.plan(db).await?.collect(db).await },
        ))
    }

    /// Runs the read as a stream of rows, one bucket after another and one page at a time.
    pub fn fetch_stream<'d>(self, db: &'d Db) -> QueryFuture<'d, BucketStream<'d, R>>
    where
        'a: 'd,
    {
        let consistency = self.state.options.consistency;
        QueryFuture::new(traced::<T, _, _>(
            db,
            "select buckets",
            consistency,
            None,
            move || async move { Ok(self.plan(db).await?.stream(db)) },
        ))
    }

    /// The statement and values of every bucket's query, and the buckets in reading order.
    async fn plan(self, db: &Db) -> Result<Plan<'a>> {
        let BucketRead {
            mut state,
            bucket_column,
            source_column,
            rule,
            bounds: [from, to],
            inclusive,
            buckets: [first, last],
            concurrency,
            ..
        } = self;
        let schema = T::schema();
        for (b, what) in [(first, "start"), (last, "end")] {
            if b == BucketValue::Overflow {
                return Err(Error::Invalid(format!(
                    "table `{}`: the {what} of the range has no bucket (too close to its \
                     type's limit)",
                    schema.name
                )));
            }
        }
        let spec = &mut state.spec;
        spec.restrictions.push((bucket_column, Op::Eq));
        spec.restrictions.push((source_column, Op::Ge));
        let upper = if inclusive { Op::Le } else { Op::Lt };
        spec.restrictions.push((source_column, upper));
        let declared = schema
            .order_of(usize::from(source_column))
            .unwrap_or(Order::Asc);
        let forward = (declared == Order::Asc) != state.spec.reversed;
        let (start, end) = if forward {
            (first, last)
        } else {
            (last, first)
        };
        let slot = state.values.where_.len();
        state.values.where_.reserve_exact(3);
        state.values.where_.push(Bound::Bucket(start));
        state.values.where_.push(Bound::Boxed(from));
        state.values.where_.push(Bound::Boxed(to));
        // A bound with digits below the millisecond, rounded to keep the same rows; a key
        // with them (`=`) matches none.
        let matches = state.exact_timestamps(true);
        record_current("shape", || cql::shape(schema, &state.spec));
        let st = Stmt::prepare::<T, R>(db, state.spec, Statement::Select, &state.options).await?;
        let values = state.values;
        Ok(Plan {
            st,
            values,
            slot,
            start,
            end,
            rule,
            forward,
            concurrency,
            matches,
        })
    }
}

/// A bucket read ready to run: one statement, its values with the bucket's at `slot`, and
/// the buckets from `start` to `end` in reading order.
struct Plan<'a> {
    st: Stmt,
    values: QueryValues<'a>,
    slot: usize,
    start: BucketValue,
    end: BucketValue,
    rule: BucketRule,
    forward: bool,
    concurrency: usize,
    /// False when a restriction matches no row (`QueryState::exact_timestamps`): no bucket
    /// is read.
    matches: bool,
}

impl<'a> Plan<'a> {
    /// The buckets in reading order: none when the range is empty (its last bucket before
    /// its first).
    fn buckets(&self) -> impl Iterator<Item = BucketValue> + Send + 'static {
        let (end, rule, forward) = (self.end, self.rule, self.forward);
        let empty = if forward {
            end < self.start
        } else {
            end > self.start
        };
        let start = (!empty && self.matches).then_some(self.start);
        std::iter::successors(start, move |&b| {
            if b == end {
                None
            } else {
                b.step(rule, forward)
            }
        })
    }

    /// At most the query's limit of rows.
    fn limit(&self) -> Option<usize> {
        self.values.limit.map(|n| usize::try_from(n).unwrap_or(0))
    }

    /// Every row, bucket after bucket. One bucket at a time: a single statement and values
    /// with the bucket's changed, pages collected into one vector. More: `concurrency`
    /// buckets in flight, each collected apart, appended in order.
    async fn collect<R>(mut self, db: &Db) -> Result<Vec<R>>
    where
        R: for<'f, 'm> scylla::deserialize::row::DeserializeRow<'f, 'm> + Send,
    {
        let limit = self.limit();
        let full = |rows: &Vec<R>| limit.is_some_and(|n| rows.len() >= n);
        let mut out = Vec::new();
        let mut read = 0;
        if self.concurrency <= 1 {
            for b in self.buckets() {
                read += 1;
                self.values.where_[self.slot] = Bound::Bucket(b);
                // Each bucket's query asks only for the rows still missing.
                if let Some(n) = limit {
                    let missing = n.saturating_sub(out.len());
                    self.values.limit = Some(i32::try_from(missing).unwrap_or(i32::MAX));
                }
                collect_pages(db, self.st.get(), &self.values, &mut out).await?;
                if full(&out) {
                    break;
                }
            }
        } else {
            let this = &self;
            let mut reads = futures::stream::iter(self.buckets())
                .inspect(|_| read += 1)
                .map(|b| async move {
                    let values = this.values_for(b);
                    let mut rows = Vec::new();
                    collect_pages(db, this.st.get(), &values, &mut rows).await?;
                    Ok::<_, Error>(rows)
                })
                .buffered(self.concurrency);
            while let Some(rows) = reads.try_next().await? {
                if out.is_empty() {
                    out = rows;
                } else {
                    out.extend(rows);
                }
                if full(&out) {
                    break;
                }
            }
        }
        if let Some(n) = limit {
            out.truncate(n);
        }
        record_current("buckets", || read);
        Ok(out)
    }

    /// The values of bucket `b`'s query.
    fn values_for(&self, b: BucketValue) -> QueryValues<'_> {
        let mut values = self.values.reborrow();
        values.where_[self.slot] = Bound::Bucket(b);
        values
    }

    /// Every row as a stream, one bucket after another, `concurrency` of them in flight, a
    /// page at a time.
    fn stream<'d, R>(self, db: &'d Db) -> BucketStream<'d, R>
    where
        'a: 'd,
        R: for<'f, 'm> scylla::deserialize::row::DeserializeRow<'f, 'm> + Send + 'static,
    {
        let limit = self.limit();
        let concurrency = self.concurrency;
        // The stream's span ends when the stream is returned: the buckets it will read.
        record_current("buckets", || self.buckets().count());
        let order = self.buckets();
        let plan = Arc::new(self);
        let rows = futures::stream::iter(order)
            .map(move |b| {
                let plan = Arc::clone(&plan);
                async move {
                    let st = Cql::Prepared(plan.st.get());
                    let pager = send::pager_in(db, &st, plan.values_for(b)).await?;
                    row_stream::<R>(pager)
                }
            })
            .buffered(concurrency)
            .try_flatten();
        match limit {
            Some(n) => Box::pin(rows.take(n)),
            None => Box::pin(rows),
        }
    }
}
