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
//! # Ok(()) }
//! ```

use std::marker::PhantomData;
use std::ops::{Range, RangeInclusive};
use std::pin::Pin;
use std::sync::Arc;

use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::{Error, Result};
use crate::exec::read::row_stream;
use crate::exec::result::{QueryFuture, RowStream};
use crate::exec::statement::Stmt;
use crate::mapping::bucket::BucketValue;
use crate::mapping::erased::{Bound, ErasedValue};
use crate::mapping::projection::Projection;
use crate::mapping::table::Table;
use crate::mapping::types::CqlMapping;
use crate::schema::model::{BucketRule, Order};
use crate::session::db::Db;
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

/// Rows read one bucket after another: memory stays constant however many rows and buckets.
pub type BucketStream<'d, R> = Pin<Box<dyn Stream<Item = Result<R>> + Send + 'd>>;

/// A read over a range of a bucket's source: one query per bucket in range, `concurrency` of
/// them in flight, their rows streamed in clustering order (the buckets are read in the order
/// of the source column, so their rows follow one another). From the generated
/// `<source>_range(from..to)`.
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
        let bucket = |v: &V| v.__bucket(rule).unwrap_or(BucketValue::Overflow);
        let buckets = [bucket(&from), bucket(&to)];
        BucketRead {
            state,
            bucket_column,
            source_column,
            rule,
            bounds: [Box::new(from), Box::new(to)],
            inclusive,
            buckets,
            concurrency: 2,
            _marker: PhantomData,
        }
    }

    fn with(mut self, f: impl FnOnce(&mut QueryState<'a>)) -> Self {
        f(&mut self.state);
        self
    }

    /// At most `n` rows in all.
    pub fn limit(self, n: i32) -> Self {
        self.with(|q| q.limit(n))
    }

    /// How many buckets are read at once (default 2, at least 1): more is faster on a
    /// cluster, at the cost of the rows of that many first pages held in memory.
    pub fn concurrency(mut self, buckets: usize) -> Self {
        self.concurrency = buckets.max(1);
        self
    }

    /// Reads in the reverse of the clustering order (the last bucket first).
    pub fn reversed(self) -> Self {
        self.with(|q| q.spec.reversed = true)
    }

    /// Rows per page of each bucket's query.
    pub fn page_size(self, rows: i32) -> Self {
        self.with(|q| q.options.page_size = Some(rows))
    }

    /// Consistency level of each bucket's query.
    pub fn consistency(self, consistency: scylla::statement::Consistency) -> Self {
        self.with(|q| q.options.consistency = Some(consistency))
    }

    /// Client-side timeout of each bucket's query.
    pub fn timeout(self, timeout: std::time::Duration) -> Self {
        self.with(|q| q.options.timeout = Some(timeout))
    }

    /// Reads only the columns of projection `P` (`#[derive(CassProjection)]`).
    pub fn read_as<P: Projection<T>>(self) -> BucketRead<'a, T, P> {
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
        QueryFuture::new(async move { self.stream(db).await?.try_collect().await })
    }

    /// Runs the read as a stream of rows, one bucket after another and one page at a time.
    pub fn fetch_stream<'d>(self, db: &'d Db) -> QueryFuture<'d, BucketStream<'d, R>>
    where
        'a: 'd,
    {
        QueryFuture::new(self.stream(db))
    }

    async fn stream<'d>(self, db: &'d Db) -> Result<BucketStream<'d, R>>
    where
        'a: 'd,
    {
        let BucketRead {
            mut state,
            bucket_column,
            source_column,
            rule,
            bounds,
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
        let st = Stmt::prepare::<T, R>(db, state.spec, Statement::Select, &state.options).await?;
        let limit = state.values.limit;
        let shared = Arc::new(Shared {
            st,
            where_: state.values.where_,
            bounds,
            limit,
        });
        let (start, end) = if forward {
            (first, last)
        } else {
            (last, first)
        };
        let order = futures::stream::unfold(Some(start), move |next| async move {
            let b = next?;
            let after = if b == end {
                None
            } else {
                b.step(rule, forward)
            };
            Some((b, after))
        });
        let rows = order
            .map(move |b| {
                let shared = Arc::clone(&shared);
                async move { shared.bucket::<R>(db, b).await }
            })
            .buffered(concurrency)
            .try_flatten();
        Ok(match limit {
            Some(n) => Box::pin(rows.take(usize::try_from(n).unwrap_or(0))),
            None => Box::pin(rows),
        })
    }
}

/// What every bucket's query shares.
struct Shared<'a> {
    st: Stmt,
    where_: Vec<Bound<'a>>,
    bounds: [Box<dyn ErasedValue + Send + 'static>; 2],
    limit: Option<i32>,
}

impl Shared<'_> {
    /// The stream of one bucket's rows.
    async fn bucket<R>(&self, db: &Db, bucket: BucketValue) -> Result<RowStream<R>>
    where
        R: for<'f, 'm> scylla::deserialize::row::DeserializeRow<'f, 'm> + Send + 'static,
    {
        let mut values = QueryValues {
            limit: self.limit,
            ..QueryValues::default()
        };
        values.where_ = self.where_.iter().map(Bound::reborrow).collect();
        values.where_.push(Bound::Bucket(bucket));
        values
            .where_
            .extend(self.bounds.iter().map(|b| Bound::Value(&**b)));
        let pager = db
            .session()
            .execute_iter(self.st.get().clone(), values)
            .await
            .map_err(|e| Error::execute(self.st.cql(), e))?;
        row_stream(pager)
    }
}
