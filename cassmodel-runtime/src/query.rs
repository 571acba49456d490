//! Typed queries: the runtime half of the query builders `#[derive(CassTable)]` generates.
//!
//! A generated builder (e.g. `PostQuery`) carries its WHERE clause's progress in a type-level
//! state ([`state::Key`], [`state::Range`], [`state::Filtering`]); each column method is
//! callable only in the states Cassandra accepts, which the derive encodes as trait bounds
//! with readable `on_unimplemented` messages. Everything else lives here, written once: the
//! bound values, the statement's shape (the cache key), the CQL text built from it on first
//! use, execution, paging and options.

use std::any::TypeId;
use std::time::Duration;

use futures::{Stream, StreamExt, TryStreamExt};
use scylla::deserialize::row::DeserializeRow;
use scylla::frame::response::result::ColumnType;
use scylla::response::{PagingState, PagingStateResponse};
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, RowWriter, WrittenCellProof};
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};

use crate::db::{CacheKey, Db};
use crate::error::{Error, Result};
use crate::mapping::CqlMapping;
use crate::table::Table;

/// Type-level states of a query's WHERE clause. A generated builder moves between them as
/// columns are restricted; a column method that does not fit the current state does not
/// compile, and the message says what to give first.
pub mod state {
    /// The first `N` key columns (partition key, then clustering columns, in declared order)
    /// are restricted by `=` or `IN`, and nothing else.
    pub struct Key<const N: usize>;
    /// After `N` key columns by `=`/`IN`, a range on key column `N` with a lower bound (`LO`)
    /// and/or an upper bound (`HI`). Nothing may follow but the other bound.
    pub struct Range<const N: usize, const LO: bool, const HI: bool>;
    /// `ALLOW FILTERING`: any column by `=`, at the cost of a scan. Only reached through
    /// `select_allow_filtering()`.
    pub struct Filtering;

    // State transitions, implemented for every state so that a builder method's return type
    // always resolves; whether the method may be called at all is a separate, per-column
    // bound with its own message.

    /// The state after an `=`/`IN` restriction that leads to `X` from a key state.
    #[doc(hidden)]
    pub trait AfterEq<X> {
        /// The next state.
        type Next;
    }
    impl<const N: usize, X> AfterEq<X> for Key<N> {
        type Next = X;
    }
    impl<const N: usize, const LO: bool, const HI: bool, X> AfterEq<X> for Range<N, LO, HI> {
        type Next = X;
    }
    impl<X> AfterEq<X> for Filtering {
        type Next = Filtering;
    }

    /// The state after a lower bound on key column `I`.
    #[doc(hidden)]
    pub trait AfterLower<const I: usize> {
        /// The next state.
        type Next;
    }
    impl<const N: usize, const I: usize> AfterLower<I> for Key<N> {
        type Next = Range<I, true, false>;
    }
    impl<const N: usize, const LO: bool, const HI: bool, const I: usize> AfterLower<I>
        for Range<N, LO, HI>
    {
        type Next = Range<I, true, HI>;
    }
    impl<const I: usize> AfterLower<I> for Filtering {
        type Next = Filtering;
    }

    /// The state after an upper bound on key column `I`.
    #[doc(hidden)]
    pub trait AfterUpper<const I: usize> {
        /// The next state.
        type Next;
    }
    impl<const N: usize, const I: usize> AfterUpper<I> for Key<N> {
        type Next = Range<I, false, true>;
    }
    impl<const N: usize, const LO: bool, const HI: bool, const I: usize> AfterUpper<I>
        for Range<N, LO, HI>
    {
        type Next = Range<I, LO, true>;
    }
    impl<const I: usize> AfterUpper<I> for Filtering {
        type Next = Filtering;
    }
}

/// The future of a query's terminal method. Boxed so that its type does not carry the
/// builder's state: a state error is then reported once, on the method.
pub type QueryFuture<'d, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T>> + Send + 'd>>;

/// Rows read one page at a time: memory stays constant however many rows there are.
pub type RowStream<R> = std::pin::Pin<Box<dyn Stream<Item = Result<R>> + Send>>;

/// What a builder does; its terminal methods depend on it.
pub mod kind {
    /// `SELECT`: `all`, `first`, `stream`, `page`.
    pub struct Select;
    /// `DELETE`: `execute`.
    pub struct Delete;
    /// `UPDATE ... SET`: `execute`.
    pub struct Update;
}

/// A restriction operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `=`
    Eq,
    /// `IN`
    In,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
}

impl Op {
    /// The operator in CQL.
    pub const fn cql(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::In => "IN",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }
}

/// The statement a query runs, without its values: the cache key of its prepared statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Spec {
    /// `(column index, operator)` in WHERE order (which is also bind order).
    pub restrictions: Vec<(u16, Op)>,
    /// Columns set by an UPDATE, in SET order.
    pub sets: Vec<u16>,
    /// `LIMIT ?`
    pub limit: bool,
    /// `PER PARTITION LIMIT ?`
    pub per_partition_limit: bool,
    /// `ORDER BY` the reverse of the clustering order.
    pub reversed: bool,
    /// `ALLOW FILTERING`
    pub allow_filtering: bool,
}

impl Spec {
    /// Whether some partition-key column of `schema` is restricted by `IN`.
    fn in_on_partition_key(&self, table: &crate::TableSchema) -> bool {
        self.restrictions
            .iter()
            .any(|&(c, op)| op == Op::In && table.partition_key.contains(&usize::from(c)))
    }
}

/// A value that can be bound: what a column's Rust type writes, or a string slice.
pub trait BindValue: Sync {
    /// Writes the value for a bind marker of type `typ`.
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError>;
}

impl<T: CqlMapping + Sync> BindValue for T {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        self.__write(typ, writer)
    }
}

/// The list bound to an `IN ?` marker.
struct InList<'a, V>(&'a [V]);

impl<V: SerializeValue + Sync> BindValue for InList<'_, V> {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        SerializeValue::serialize(self.0, typ, writer)
    }
}

/// One bound value of a query under construction.
pub enum Bound<'a> {
    /// A borrowed value.
    Value(&'a dyn BindValue),
    /// A borrowed string (for `String` columns).
    Str(&'a str),
    /// An owned adapter (the list of an `IN`).
    Boxed(Box<dyn BindValue + Send + 'a>),
}

impl Bound<'_> {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match self {
            Bound::Value(v) => v.write_to(typ, writer),
            Bound::Str(s) => SerializeValue::serialize(*s, typ, writer),
            Bound::Boxed(v) => v.write_to(typ, writer),
        }
    }
}

/// The list of an `IN` restriction, as a bound value.
pub fn bound_in<'a, V: SerializeValue + Sync + Send>(values: &'a [V]) -> Bound<'a> {
    Bound::Boxed(Box::new(InList(values)))
}

/// Per-query options. Unset options keep the session's defaults; reads and plain writes are
/// idempotent by default (safe for the driver to retry).
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
    /// Consistency level.
    pub consistency: Option<Consistency>,
    /// Serial consistency level (for lightweight transactions).
    pub serial_consistency: Option<Option<SerialConsistency>>,
    /// Client-side timeout.
    pub timeout: Option<Duration>,
    /// Rows per page when paging.
    pub page_size: Option<i32>,
    /// Request tracing.
    pub tracing: bool,
    /// Overrides whether the statement may be retried.
    pub idempotent: Option<bool>,
}

impl QueryOptions {
    fn is_default(&self) -> bool {
        self.consistency.is_none()
            && self.serial_consistency.is_none()
            && self.timeout.is_none()
            && self.page_size.is_none()
            && !self.tracing
            && self.idempotent.is_none()
    }

    /// The cached statement itself, or a copy with these options applied.
    fn apply(&self, ps: &PreparedStatement) -> Option<PreparedStatement> {
        if self.is_default() {
            return None;
        }
        let mut p = ps.clone();
        if let Some(c) = self.consistency {
            p.set_consistency(c);
        }
        if let Some(sc) = self.serial_consistency {
            p.set_serial_consistency(sc);
        }
        if let Some(t) = self.timeout {
            p.set_request_timeout(Some(t));
        }
        if let Some(n) = self.page_size {
            p.set_page_size(n);
        }
        if self.tracing {
            p.set_tracing(true);
        }
        if let Some(i) = self.idempotent {
            p.set_is_idempotent(i);
        }
        Some(p)
    }
}

/// A query under construction: its statement shape, bound values and options. Generated
/// builders wrap one; its methods are called by generated code.
#[derive(Default)]
pub struct QueryState<'a> {
    spec: Spec,
    where_values: Vec<Bound<'a>>,
    set_values: Vec<Bound<'a>>,
    limit: Option<i32>,
    per_partition_limit: Option<i32>,
    options: QueryOptions,
}

impl<'a> QueryState<'a> {
    /// An empty query.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `column op ?` to the WHERE clause.
    pub fn restrict(mut self, column: u16, op: Op, value: Bound<'a>) -> Self {
        self.spec.restrictions.push((column, op));
        self.where_values.push(value);
        self
    }

    /// Adds `column = ?` to the SET clause (updates). Setting a column twice keeps the last.
    pub fn set(mut self, column: u16, value: Bound<'a>) -> Self {
        match self.spec.sets.iter().position(|&c| c == column) {
            Some(i) => self.set_values[i] = value,
            None => {
                self.spec.sets.push(column);
                self.set_values.push(value);
            }
        }
        self
    }

    /// `LIMIT n` (bound, not spliced).
    pub fn limit(mut self, n: i32) -> Self {
        self.spec.limit = true;
        self.limit = Some(n);
        self
    }

    /// `PER PARTITION LIMIT n`.
    pub fn per_partition_limit(mut self, n: i32) -> Self {
        self.spec.per_partition_limit = true;
        self.per_partition_limit = Some(n);
        self
    }

    /// Reads in the reverse of the clustering order (a reverse scan).
    pub fn reversed(mut self, reversed: bool) -> Self {
        self.spec.reversed = reversed;
        self
    }

    /// Adds `ALLOW FILTERING`.
    pub fn allow_filtering(mut self) -> Self {
        self.spec.allow_filtering = true;
        self
    }

    /// The per-query options.
    pub fn options_mut(&mut self) -> &mut QueryOptions {
        &mut self.options
    }

    /// Sets the per-query options with `f`.
    pub fn with_options(mut self, f: impl FnOnce(&mut QueryOptions)) -> Self {
        f(&mut self.options);
        self
    }

    fn split(self) -> (Spec, BoundValues<'a>, QueryOptions) {
        (
            self.spec,
            BoundValues {
                set: self.set_values,
                where_: self.where_values,
                per_partition_limit: self.per_partition_limit,
                limit: self.limit,
            },
            self.options,
        )
    }
}

/// The values of a query in bind order: SET values, WHERE values, PER PARTITION LIMIT, LIMIT.
pub struct BoundValues<'a> {
    set: Vec<Bound<'a>>,
    where_: Vec<Bound<'a>>,
    per_partition_limit: Option<i32>,
    limit: Option<i32>,
}

impl SerializeRow for BoundValues<'_> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let mut specs = ctx.columns().iter();
        let mut next_type = || {
            specs.next().map(|s| s.typ()).ok_or_else(|| {
                SerializationError::new(crate::RowError::Value {
                    table: String::new(),
                    column: String::new(),
                    rust_type: "bound values",
                    detail: "more values than bind markers".to_owned(),
                })
            })
        };
        for v in self.set.iter().chain(&self.where_) {
            v.write_to(next_type()?, writer.make_cell_writer())?;
        }
        for n in self.per_partition_limit.iter().chain(&self.limit) {
            SerializeValue::serialize(n, next_type()?, writer.make_cell_writer())?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.set.is_empty()
            && self.where_.is_empty()
            && self.limit.is_none()
            && self.per_partition_limit.is_none()
    }
}

/// The rows a read returns: the whole table struct, or a projection of some of its columns
/// (`#[derive(CassProjection)]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a projection of table `{T}`",
    label = "cannot read rows of `{T}` as `{Self}`",
    note = "derive `CassProjection` on `{Self}` with `#[cass(table = {T})]`, with fields named and typed like columns of `{T}`"
)]
pub trait Projection<T: Table>:
    Sized + Send + 'static + for<'f, 'm> DeserializeRow<'f, 'm>
{
    /// Indices (into `T::schema().columns`) of the columns read, in field order.
    fn columns() -> &'static [usize];
}

impl<T: Table> Projection<T> for T {
    fn columns() -> &'static [usize] {
        T::schema().all_columns()
    }
}

/// One page of rows and the state to resume from.
#[derive(Debug)]
pub struct Page<R> {
    /// The rows of this page.
    pub rows: Vec<R>,
    /// Where the next page starts, or `None` after the last page. Store
    /// [`PagingState::as_bytes_slice`] (e.g. base64 in a web API's cursor) and rebuild it with
    /// [`PagingState::new_from_raw_bytes`].
    pub next: Option<PagingState>,
}

async fn prepare<T: Table, R: Projection<T>>(
    db: &Db,
    spec: Spec,
    what: &'static str,
) -> Result<std::sync::Arc<PreparedStatement>> {
    let key = CacheKey::Query {
        table: TypeId::of::<T>(),
        row: TypeId::of::<R>(),
        what,
        spec,
    };
    db.prepared(key, |key| {
        let CacheKey::Query { spec, .. } = key else {
            return Err(Error::Invalid("statement cache key mismatch".into()));
        };
        let schema = T::schema();
        let ks = db.keyspace_of::<T>()?;
        Ok(match what {
            "delete" => crate::cql::delete(schema, ks, spec),
            "update" => crate::cql::update(schema, ks, spec),
            _ => crate::cql::select(schema, ks, R::columns(), spec),
        })
    })
    .await
}

/// `SELECT` with `=` on the first `n` primary-key columns, bound from `values`: the body of
/// the generated `get` (`single`: first row, unpaged) and `partition` (all rows, paged).
pub(crate) async fn select_key_prefix<T: Table>(
    db: &Db,
    n: usize,
    values: impl SerializeRow,
    single: bool,
) -> Result<Vec<T>> {
    let schema = T::schema();
    let spec = Spec {
        restrictions: schema
            .primary_key()
            .take(n)
            .map(|i| (i as u16, Op::Eq))
            .collect(),
        ..Spec::default()
    };
    let ps = prepare::<T, T>(db, spec, "select").await?;
    let cql = ps.get_statement();
    if single {
        let res = db
            .session()
            .execute_unpaged(&ps, values)
            .await
            .map_err(|e| Error::execute(cql, e))?;
        return Ok(res
            .into_rows_result()?
            .maybe_first_row::<T>()?
            .into_iter()
            .collect());
    }
    let pager = db
        .session()
        .execute_iter(PreparedStatement::clone(&ps), values)
        .await
        .map_err(|e| Error::execute(cql, e))?;
    Ok(pager.rows_stream::<T>()?.try_collect::<Vec<_>>().await?)
}

/// Runs a SELECT and collects every row (paging through all of them).
pub async fn select_all<T: Table, R: Projection<T>>(db: &Db, q: QueryState<'_>) -> Result<Vec<R>> {
    let (spec, values, options) = q.split();
    // Cassandra cannot page a query with ORDER BY and IN on the partition key.
    let unpaged = spec.reversed && spec.in_on_partition_key(T::schema());
    let ps = prepare::<T, R>(db, spec, "select").await?;
    let custom = options.apply(&ps);
    let ps = custom.as_ref().unwrap_or(&ps);
    let cql = ps.get_statement();
    if unpaged {
        let res = db
            .session()
            .execute_unpaged(ps, values)
            .await
            .map_err(|e| Error::execute(cql, e))?;
        return Ok(res
            .into_rows_result()?
            .rows::<R>()?
            .collect::<Result<Vec<_>, _>>()?);
    }
    let pager = db
        .session()
        .execute_iter(ps.clone(), values)
        .await
        .map_err(|e| Error::execute(cql, e))?;
    Ok(pager.rows_stream::<R>()?.try_collect::<Vec<_>>().await?)
}

/// Runs a SELECT for its first row (adding `LIMIT 1` unless the query has a limit).
pub async fn select_first<T: Table, R: Projection<T>>(
    db: &Db,
    mut q: QueryState<'_>,
) -> Result<Option<R>> {
    if !q.spec.limit {
        q = q.limit(1);
    }
    let (spec, values, options) = q.split();
    let ps = prepare::<T, R>(db, spec, "select").await?;
    let custom = options.apply(&ps);
    let ps = custom.as_ref().unwrap_or(&ps);
    let res = db
        .session()
        .execute_unpaged(ps, values)
        .await
        .map_err(|e| Error::execute(ps.get_statement(), e))?;
    Ok(res.into_rows_result()?.maybe_first_row::<R>()?)
}

/// Runs a SELECT as a stream that fetches one page at a time: memory stays constant however
/// large the partition.
pub async fn select_stream<T: Table, R: Projection<T>>(
    db: &Db,
    q: QueryState<'_>,
) -> Result<RowStream<R>> {
    let (spec, values, options) = q.split();
    if spec.reversed && spec.in_on_partition_key(T::schema()) {
        return Err(Error::Invalid(format!(
            "table `{}`: Cassandra cannot page a query that is reversed and has IN on the \
             partition key; read it with `all()` (one unpaged request) or drop one of the two",
            T::schema().name
        )));
    }
    let ps = prepare::<T, R>(db, spec, "select").await?;
    let ps = options
        .apply(&ps)
        .unwrap_or_else(|| PreparedStatement::clone(&ps));
    let cql = ps.get_statement().to_owned();
    let pager = db
        .session()
        .execute_iter(ps, values)
        .await
        .map_err(|e| Error::execute(&cql, e))?;
    Ok(Box::pin(
        pager.rows_stream::<R>()?.map(|r| r.map_err(Error::from)),
    ))
}

/// Runs a SELECT for one page, starting at `from` ([`PagingState::start`] for the first).
pub async fn select_page<T: Table, R: Projection<T>>(
    db: &Db,
    q: QueryState<'_>,
    from: PagingState,
) -> Result<Page<R>> {
    let (spec, values, options) = q.split();
    if spec.reversed && spec.in_on_partition_key(T::schema()) {
        return Err(Error::Invalid(format!(
            "table `{}`: Cassandra cannot page a query that is reversed and has IN on the \
             partition key",
            T::schema().name
        )));
    }
    let ps = prepare::<T, R>(db, spec, "select").await?;
    let custom = options.apply(&ps);
    let ps = custom.as_ref().unwrap_or(&ps);
    let (res, next) = db
        .session()
        .execute_single_page(ps, values, from)
        .await
        .map_err(|e| Error::execute(ps.get_statement(), e))?;
    let rows = res
        .into_rows_result()?
        .rows::<R>()?
        .collect::<Result<Vec<_>, _>>()?;
    let next = match next {
        PagingStateResponse::HasMorePages { state } => Some(state),
        PagingStateResponse::NoMorePages => None,
    };
    Ok(Page { rows, next })
}

/// Runs a DELETE or UPDATE (`what` = `"delete"` / `"update"`).
pub async fn execute<T: Table>(db: &Db, q: QueryState<'_>, what: &'static str) -> Result<()> {
    let (spec, values, options) = q.split();
    let ps = prepare::<T, T>(db, spec, what).await?;
    let custom = options.apply(&ps);
    let ps = custom.as_ref().unwrap_or(&ps);
    db.session()
        .execute_unpaged(ps, values)
        .await
        .map_err(|e| Error::execute(ps.get_statement(), e))?;
    Ok(())
}

/// A full-table scan, split into `splits` token ranges read one after the other (each
/// paged): every row of every partition, in token order. Costs a read of the whole table
/// on every replica set: only for batch jobs.
pub async fn scan_full_table<T: Table, R: Projection<T>>(
    db: &Db,
    splits: u32,
) -> Result<RowStream<R>> {
    let key = CacheKey::Scan {
        table: TypeId::of::<T>(),
        row: TypeId::of::<R>(),
    };
    let ps = db
        .prepared(key, |_| {
            Ok(crate::cql::token_range_scan(
                T::schema(),
                db.keyspace_of::<T>()?,
                R::columns(),
            ))
        })
        .await?;
    let session = db.clone();
    let ranges = token_ranges(splits.max(1));
    Ok(Box::pin(
        futures::stream::iter(ranges)
            .then(move |(lo, hi)| {
                let db = session.clone();
                let ps = PreparedStatement::clone(&ps);
                async move {
                    let pager = db
                        .session()
                        .execute_iter(ps, (lo, hi))
                        .await
                        .map_err(|e| Error::execute("token range scan", e))?;
                    Ok::<_, Error>(pager.rows_stream::<R>()?.map(|r| r.map_err(Error::from)))
                }
            })
            .try_flatten(),
    ))
}

/// `splits` inclusive token ranges that cover the Murmur3 ring exactly once.
pub fn token_ranges(splits: u32) -> Vec<(i64, i64)> {
    let splits = i128::from(splits.max(1));
    let (min, max) = (i128::from(i64::MIN), i128::from(i64::MAX));
    let width = (max - min + 1) / splits;
    (0..splits)
        .map(|i| {
            let lo = min + i * width;
            let hi = if i == splits - 1 { max } else { lo + width - 1 };
            // Both are within i64 by construction.
            (lo as i64, hi as i64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::token_ranges;

    #[test]
    fn token_ranges_cover_the_ring() {
        for n in [1, 2, 3, 7, 64] {
            let r = token_ranges(n);
            assert_eq!(r.len(), n as usize);
            assert_eq!(r[0].0, i64::MIN);
            assert_eq!(r[r.len() - 1].1, i64::MAX);
            for w in r.windows(2) {
                assert_eq!(w[0].1 + 1, w[1].0);
            }
        }
    }
}
