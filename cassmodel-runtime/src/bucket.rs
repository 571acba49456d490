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

use chrono::{Datelike, Days, Months, NaiveDate};
use futures::{Stream, StreamExt, TryStreamExt};
use scylla::frame::response::result::ColumnType;
use scylla::serialize::SerializationError;
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, WrittenCellProof};

use cassmodel_schema::Period;

use crate::db::Db;
use crate::error::{Error, Result};
use crate::exec::{Projection, Stmt};
use crate::mapping::CqlMapping;
use crate::query::{Bound, ErasedValue, Op, QueryFuture, QueryState, QueryValues, Statement};
use crate::schema::Order;
use crate::table::Table;

/// How a bucket is computed from its source column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BucketRule {
    /// The first day of the source's day, week (Monday), month or year, in UTC: a `date`.
    Period(Period),
    /// `floor(source / width) * width`: a `bigint`.
    Width(i64),
}

/// The bucket column of a table: which column it is computed from, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BucketDef {
    /// The index of the source column (the first clustering column).
    pub source: usize,
    /// The rule.
    pub rule: BucketRule,
}

/// A bucket's value, as bound to the bucket column.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BucketValue {
    /// A `date` bucket.
    Date(NaiveDate),
    /// A `bigint` bucket.
    BigInt(i64),
    /// The source value has no bucket (an integer too close to its type's limit).
    Overflow,
}

/// The most bytes a bucket writes: a `date` (4) or a `bigint` (8).
pub(crate) const BUCKET_SIZE_BOUND: usize = 8;

impl ErasedValue for BucketValue {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match self {
            BucketValue::Date(d) => SerializeValue::serialize(d, typ, writer),
            BucketValue::BigInt(n) => SerializeValue::serialize(n, typ, writer),
            BucketValue::Overflow => Err(crate::table::value_refused(
                "bucket",
                "the value is too close to its type's limit to have a bucket of this width"
                    .to_owned(),
            )),
        }
    }

    fn rust_type(&self) -> &'static str {
        "bucket"
    }
}

fn period_start(d: NaiveDate, p: Period) -> Option<NaiveDate> {
    match p {
        Period::Day => Some(d),
        Period::Week => {
            d.checked_sub_days(Days::new(u64::from(d.weekday().num_days_from_monday())))
        }
        Period::Month => NaiveDate::from_ymd_opt(d.year(), d.month(), 1),
        Period::Year => NaiveDate::from_ymd_opt(d.year(), 1, 1),
    }
}

impl BucketValue {
    fn of_date(d: NaiveDate, rule: BucketRule) -> BucketValue {
        match rule {
            BucketRule::Period(p) => {
                period_start(d, p).map_or(BucketValue::Overflow, BucketValue::Date)
            }
            BucketRule::Width(_) => BucketValue::Overflow,
        }
    }

    fn of_int(v: i64, rule: BucketRule) -> BucketValue {
        match rule {
            BucketRule::Width(w) if w > 0 => v
                .div_euclid(w)
                .checked_mul(w)
                .map_or(BucketValue::Overflow, BucketValue::BigInt),
            _ => BucketValue::Overflow,
        }
    }

    /// The next bucket (`forward`) or the previous one.
    fn step(self, rule: BucketRule, forward: bool) -> Option<BucketValue> {
        match (self, rule) {
            (BucketValue::Date(d), BucketRule::Period(p)) => {
                let d = match (p, forward) {
                    (Period::Day, true) => d.checked_add_days(Days::new(1)),
                    (Period::Day, false) => d.checked_sub_days(Days::new(1)),
                    (Period::Week, true) => d.checked_add_days(Days::new(7)),
                    (Period::Week, false) => d.checked_sub_days(Days::new(7)),
                    (Period::Month, true) => d.checked_add_months(Months::new(1)),
                    (Period::Month, false) => d.checked_sub_months(Months::new(1)),
                    (Period::Year, true) => d.checked_add_months(Months::new(12)),
                    (Period::Year, false) => d.checked_sub_months(Months::new(12)),
                };
                d.map(BucketValue::Date)
            }
            (BucketValue::BigInt(n), BucketRule::Width(w)) => {
                let n = if forward {
                    n.checked_add(w)
                } else {
                    n.checked_sub(w)
                };
                n.map(BucketValue::BigInt)
            }
            _ => None,
        }
    }
}

/// A type a bucket can be computed from. Implemented for `DateTime<Utc>` and `NaiveDate`
/// (time buckets) and `i32` and `i64` (width buckets).
#[diagnostic::on_unimplemented(
    message = "a bucket cannot be computed from `{Self}`",
    label = "bucket source",
    note = "`bucket(day|week|month|year)` takes a `chrono::DateTime<Utc>` or `chrono::NaiveDate` field, `bucket(width = N)` an `i32` or `i64` field"
)]
pub trait BucketSource: CqlMapping + Clone + Send + Sync + 'static {
    /// The bucket of this value under `rule`.
    #[doc(hidden)]
    fn bucket(&self, rule: BucketRule) -> BucketValue;
}

/// A type a time bucket (`day`, `week`, `month`, `year`) can be computed from.
#[diagnostic::on_unimplemented(
    message = "a time bucket cannot be computed from `{Self}`: it needs a `DateTime<Utc>` or `NaiveDate` field",
    label = "not a date or timestamp",
    note = "for an integer field, bucket by a width instead: `#[cass(bucket(width = 1000))]`"
)]
pub trait TimeBucketSource: BucketSource {}

/// A type a width bucket (`bucket(width = N)`) can be computed from.
#[diagnostic::on_unimplemented(
    message = "a width bucket cannot be computed from `{Self}`: it needs an `i32` or `i64` field",
    label = "not an integer",
    note = "for a `DateTime<Utc>` or `NaiveDate` field, bucket by time instead: `#[cass(bucket(month))]`"
)]
pub trait WidthBucketSource: BucketSource {}

impl BucketSource for chrono::DateTime<chrono::Utc> {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_date(self.date_naive(), rule)
    }
}
impl TimeBucketSource for chrono::DateTime<chrono::Utc> {}

impl BucketSource for NaiveDate {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_date(*self, rule)
    }
}
impl TimeBucketSource for NaiveDate {}

impl BucketSource for i32 {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_int(i64::from(*self), rule)
    }
}
impl WidthBucketSource for i32 {}

impl BucketSource for i64 {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_int(*self, rule)
    }
}
impl WidthBucketSource for i64 {}

/// Compile-time check of a time bucket's source type.
#[doc(hidden)]
pub const fn assert_time_bucket<T: TimeBucketSource>() {}

/// Compile-time check of a width bucket's source type.
#[doc(hidden)]
pub const fn assert_width_bucket<T: WidthBucketSource>() {}

/// The bucket of `value` under `rule`, bound (generated key methods and `get`). Not bound by
/// [`BucketSource`]: the derive asserts that once, on the field, so a wrong type is one error.
#[doc(hidden)]
pub fn bucket_of<'a, V: CqlMapping>(value: &V, rule: BucketRule) -> Bound<'a> {
    Bound::Bucket(value.__bucket(rule).unwrap_or(BucketValue::Overflow))
}

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
    async fn bucket<R>(&self, db: &Db, bucket: BucketValue) -> Result<crate::RowStream<R>>
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
        crate::exec::row_stream(pager)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn time_buckets() {
        let d = date(2026, 11, 26); // a Thursday
        let b = |p| d.bucket(BucketRule::Period(p));
        assert_eq!(b(Period::Day), BucketValue::Date(d));
        assert_eq!(b(Period::Week), BucketValue::Date(date(2026, 11, 23)));
        assert_eq!(b(Period::Month), BucketValue::Date(date(2026, 11, 1)));
        assert_eq!(b(Period::Year), BucketValue::Date(date(2026, 1, 1)));
        let month = BucketRule::Period(Period::Month);
        let dec = BucketValue::Date(date(2026, 12, 1));
        assert_eq!(
            dec.step(month, true),
            Some(BucketValue::Date(date(2027, 1, 1)))
        );
        assert_eq!(
            BucketValue::Date(date(2027, 1, 1)).step(month, false),
            Some(dec)
        );
    }

    #[test]
    fn width_buckets() {
        let w = BucketRule::Width(1000);
        assert_eq!(1999i64.bucket(w), BucketValue::BigInt(1000));
        assert_eq!((-1i32).bucket(w), BucketValue::BigInt(-1000));
        assert_eq!(0i64.bucket(w), BucketValue::BigInt(0));
        assert_eq!(i64::MIN.bucket(w), BucketValue::Overflow);
        assert_eq!(
            BucketValue::BigInt(-1000).step(w, true),
            Some(BucketValue::BigInt(0))
        );
    }
}
