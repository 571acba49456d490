//! Running queries: the generic code behind every generated terminal method.

use std::any::TypeId;
use std::future::Future;
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
use scylla::deserialize::value::DeserializeValue;
use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::frame::response::result::ColumnSpec;
use scylla::response::query_result::QueryResult;
use scylla::response::{PagingState, PagingStateResponse};
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::writers::RowWriter;
use scylla::statement::Consistency;
use scylla::statement::prepared::PreparedStatement;

use crate::db::{CacheKey, Db};
use crate::error::{Error, Result, RowError};
use crate::query::{
    Bound, BoundRow, Op, Outcome, QueryFuture, QueryOptions, QueryState, RowStream, Spec, Statement,
};
use crate::table::{Rows, Table};

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
#[non_exhaustive]
pub struct Page<R> {
    /// The rows of this page.
    pub rows: Vec<R>,
    /// Where the next page starts, or `None` after the last page. Store
    /// [`PagingState::as_bytes_slice`] (e.g. base64 in a web API's cursor) and rebuild it with
    /// [`PagingState::new_from_raw_bytes`].
    pub next: Option<PagingState>,
}

pub(crate) async fn prepare<T: Table, R: Projection<T>>(
    db: &Db,
    spec: Spec,
    what: Statement,
) -> Result<Arc<PreparedStatement>> {
    let idempotent = spec.is_idempotent();
    let key = CacheKey::Query {
        table: TypeId::of::<T>(),
        row: TypeId::of::<R>(),
        what,
        spec,
    };
    db.prepared(key, idempotent, |key| {
        let CacheKey::Query { spec, .. } = key else {
            return Err(Error::Invalid("statement cache key mismatch".into()));
        };
        let schema = T::schema();
        let ks = db.keyspace_of::<T>()?;
        Ok(match what {
            Statement::Delete => crate::cql::delete(schema, ks, spec),
            Statement::Update => crate::cql::update(schema, ks, spec),
            Statement::Select => crate::cql::select(schema, ks, R::columns(), spec),
        })
    })
    .await
}

/// A statement from the [`Db`]'s cache, or a copy of it carrying per-query options.
pub(crate) struct Stmt {
    cached: Arc<PreparedStatement>,
    custom: Option<PreparedStatement>,
}

impl Stmt {
    /// `cached` with `options` applied (copied only when an option is set).
    pub(crate) fn with(cached: Arc<PreparedStatement>, options: &QueryOptions) -> Self {
        let custom = options.apply(&cached);
        Stmt { cached, custom }
    }

    /// The statement of `spec` for table `T` read as `R`, with `options`.
    pub(crate) async fn prepare<T: Table, R: Projection<T>>(
        db: &Db,
        spec: Spec,
        what: Statement,
        options: &QueryOptions,
    ) -> Result<Self> {
        Ok(Self::with(prepare::<T, R>(db, spec, what).await?, options))
    }

    pub(crate) fn get(&self) -> &PreparedStatement {
        self.custom.as_ref().unwrap_or(&self.cached)
    }

    pub(crate) fn cql(&self) -> &str {
        self.get().get_statement()
    }
}

/// The values of a write, serialized once before sending so that their size is known; the
/// driver takes the cells as they are.
pub(crate) struct Serialized {
    /// The cells, each as the protocol has it: an `i32` length (-1 null, -2 unset), then
    /// its bytes.
    cells: Vec<u8>,
    count: usize,
}

impl SerializeRow for Serialized {
    fn serialize(
        &self,
        _ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> std::result::Result<(), SerializationError> {
        let mut rest = self.cells.as_slice();
        for _ in 0..self.count {
            let malformed = || {
                SerializationError::new(crate::RowError::Value {
                    table: String::new(),
                    column: String::new(),
                    rust_type: "bound values",
                    detail: "malformed serialized values".to_owned(),
                })
            };
            let (len, tail) = rest.split_first_chunk::<4>().ok_or_else(malformed)?;
            let cell = writer.make_cell_writer();
            rest = match i32::from_be_bytes(*len) {
                -1 => {
                    cell.set_null();
                    tail
                }
                -2 => {
                    cell.set_unset();
                    tail
                }
                n => {
                    let n = usize::try_from(n).map_err(|_| malformed())?;
                    let value = tail.get(..n).ok_or_else(malformed)?;
                    cell.set_value(value).map_err(|_| malformed())?;
                    &tail[n..]
                }
            };
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl Serialized {
    /// Their size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }
}

/// Serializes the values of a write for `st`, with the table and column in any error.
pub(crate) fn serialize_for(
    st: &PreparedStatement,
    values: &impl SerializeRow,
) -> Result<Serialized> {
    let specs = st.get_variable_col_specs();
    let ctx = RowSerializationContext::from_specs(specs.as_slice());
    // Room for a typical row at once (a length and a short value per marker).
    let mut cells = Vec::with_capacity(specs.len() * 16);
    let mut writer = RowWriter::new(&mut cells);
    values
        .serialize(&ctx, &mut writer)
        .map_err(|e| Error::execute(st.get_statement(), e))?;
    let count = writer.value_count();
    Ok(Serialized { cells, count })
}

/// The values of a write for `st`, refused before anything is sent when they are larger than
/// the server takes in one request ([`Db::max_request_size`]). Values whose size bound fits
/// are handed to the driver as they are (serialized once, by the driver); the others are
/// serialized here first, to learn their size.
pub(crate) fn write_values<V: SerializeRow + SizeBound>(
    db: &Db,
    st: &PreparedStatement,
    values: V,
) -> Result<WriteValues<V>> {
    if values
        .size_bound()
        .is_some_and(|bound| bound <= db.max_request_size())
    {
        return Ok(WriteValues::Direct(values));
    }
    let values = serialize_for(st, &values)?;
    check_request_size(db, st, values.len())?;
    Ok(WriteValues::Serialized(values))
}

/// Values whose serialized size has a known upper bound ([`write_values`]).
pub(crate) trait SizeBound {
    /// At least as many bytes as the serialized values take (each cell with its 4-byte
    /// length), or `None` when that is not known without serializing them.
    fn size_bound(&self) -> Option<usize>;
}

impl<V: SizeBound> SizeBound for &V {
    fn size_bound(&self) -> Option<usize> {
        (**self).size_bound()
    }
}

/// The size bound of cells whose contents have the bounds `contents` (`None` if one has
/// none).
pub(crate) fn cells_bound(contents: impl IntoIterator<Item = Option<usize>>) -> Option<usize> {
    contents.into_iter().try_fold(0usize, |sum, c| {
        Some(sum.saturating_add(4).saturating_add(c?))
    })
}

/// The values of a write as the driver takes them ([`write_values`]).
pub(crate) enum WriteValues<V> {
    /// As they are: they fit in one request whatever their exact size.
    Direct(V),
    /// Serialized once here, their size checked.
    Serialized(Serialized),
}

impl<V: SerializeRow> SerializeRow for WriteValues<V> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> std::result::Result<(), SerializationError> {
        match self {
            WriteValues::Direct(v) => v.serialize(ctx, writer),
            WriteValues::Serialized(s) => s.serialize(ctx, writer),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            WriteValues::Direct(v) => v.is_empty(),
            WriteValues::Serialized(s) => s.is_empty(),
        }
    }
}

/// Refuses `bytes` of values for `st` when they exceed the request limit.
pub(crate) fn check_request_size(db: &Db, st: &PreparedStatement, bytes: usize) -> Result<()> {
    if bytes <= db.max_request_size() {
        return Ok(());
    }
    let table = crate::table::table_of_specs(st.get_variable_col_specs().as_slice())
        .unwrap_or_else(|| st.get_statement().to_owned());
    Err(Error::RequestTooLarge {
        table,
        bytes,
        limit: db.max_request_size(),
    })
}

/// Cassandra cannot page a query that is reversed and has `IN` on the partition key.
fn unpageable<T: Table>(spec: &Spec) -> bool {
    spec.reversed && spec.in_on_partition_key(T::schema())
}

fn refuse_unpageable<T: Table>(spec: &Spec) -> Result<()> {
    if unpageable::<T>(spec) {
        return Err(Error::Invalid(format!(
            "table `{}`: Cassandra cannot page a query that is reversed and has IN on the \
             partition key; read it with `fetch_all` (one unpaged request) or drop one of the two",
            T::schema().name
        )));
    }
    Ok(())
}

/// The rows of a pager as a stream, without static-only rows ([`Rows`]).
pub(crate) fn row_stream<R>(pager: scylla::client::pager::QueryPager) -> Result<RowStream<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm> + Send + 'static,
{
    Ok(Box::pin(
        pager
            .rows_stream::<Rows<R>>()?
            .try_filter_map(|r| std::future::ready(Ok(r.0)))
            .map_err(Error::from),
    ))
}

/// Runs `st` with `values` in one unpaged request: `Result<QueryResult>`. A macro, not an
/// async fn: the driver's request future (about 4 KB) is then a field of the caller's own
/// future instead of being built and moved once more into a nested one, a copy per query.
macro_rules! unpaged {
    ($db:expr, $st:expr, $values:expr) => {
        $db.session()
            .execute_unpaged($st.get(), $values)
            .await
            .map_err(|e| $crate::error::Error::execute($st.cql(), e))
    };
}
pub(crate) use unpaged;

/// Every row of an unpaged result. A partition's static-only row (static values, no
/// clustering rows yet) is not a row: skipped.
fn rows_of<R>(res: QueryResult) -> Result<Vec<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let res = res.into_rows_result()?;
    let rows = res.rows::<Rows<R>>()?;
    let mut out = Vec::with_capacity(rows.rows_remaining());
    for row in rows {
        if let Some(r) = row?.0 {
            out.push(r);
        }
    }
    Ok(out)
}

/// The first row of an unpaged result (a static-only row is none).
fn first_of<R>(res: QueryResult) -> Result<Option<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    Ok(res
        .into_rows_result()?
        .maybe_first_row::<Rows<R>>()?
        .and_then(|r| r.0))
}

/// Every row of a SELECT, page after page, without static-only rows.
async fn rows_paged<R>(db: &Db, st: Stmt, values: impl SerializeRow) -> Result<Vec<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let pager = db
        .session()
        .execute_iter(st.get().clone(), values)
        .await
        .map_err(|e| Error::execute(st.cql(), e))?;
    Ok(pager
        .rows_stream::<Rows<R>>()?
        .try_filter_map(|r| std::future::ready(Ok(r.0)))
        .try_collect::<Vec<_>>()
        .await?)
}

/// The statement that reads whole rows of `T` by `=` on its first `n` primary-key columns
/// (the partition key, then clustering columns): the shape of `get` and `partition`. Its
/// cache key is fixed per table and `n`, so no [`Spec`] is built or hashed per call.
async fn key_prefix_statement<T: Table>(db: &Db, n: usize, options: &QueryOptions) -> Result<Stmt> {
    let key = CacheKey::KeyPrefix {
        table: TypeId::of::<T>(),
        n,
    };
    let ps = db
        .prepared(key, true, |_| {
            let schema = T::schema();
            let spec = Spec {
                restrictions: schema
                    .primary_key()
                    .iter()
                    .take(n)
                    .map(|&i| (i as u16, Op::Eq))
                    .collect(),
                ..Spec::default()
            };
            Ok(crate::cql::select(
                schema,
                db.keyspace_of::<T>()?,
                schema.all_columns(),
                &spec,
            ))
        })
        .await?;
    Ok(Stmt::with(ps, options))
}

/// The first row with `=` on the first `n` primary-key columns bound from `values`: the body
/// of `get` (the whole primary key, at most one row) and of the SERIAL read after an LWT.
pub(crate) async fn first_by_key_prefix<T: Table>(
    db: &Db,
    n: usize,
    values: impl SerializeRow,
    options: &QueryOptions,
) -> Result<Option<T>> {
    let st = key_prefix_statement::<T>(db, n, options).await?;
    first_of(unpaged!(db, st, values)?)
}

/// Every row with `=` on the first `n` primary-key columns bound from `values` (paged): the
/// body of `partition`.
pub(crate) async fn all_by_key_prefix<T: Table>(
    db: &Db,
    n: usize,
    values: impl SerializeRow,
    options: &QueryOptions,
) -> Result<Vec<T>> {
    let st = key_prefix_statement::<T>(db, n, options).await?;
    rows_paged(db, st, values).await
}

impl Db {
    /// The row with the given full primary key, if it exists. `key` binds the partition-key
    /// columns and then the clustering columns, in declared order (the generated `T::get`
    /// takes the same with typed arguments).
    pub async fn get_by_key<T: Table>(&self, key: impl SerializeRow) -> Result<Option<T>> {
        let n = T::schema().primary_key().len();
        first_by_key_prefix::<T>(self, n, key, &QueryOptions::default()).await
    }

    /// Every row of one partition, in clustering order. `key` binds the partition-key
    /// columns in declared order (the generated `T::partition` takes the same with typed
    /// arguments).
    pub async fn partition<T: Table>(&self, key: impl SerializeRow) -> Result<Vec<T>> {
        let n = T::schema().partition_key.len();
        all_by_key_prefix::<T>(self, n, key, &QueryOptions::default()).await
    }
}

/// The body of a generated `T::get(db, key...)`: the row whose primary key is `key` (the
/// partition-key columns, then the clustering columns, in declared order), if it exists.
/// Unboxed: this is the hot path of point reads. Not an `async fn`: the declared `+ Send`
/// lets a user's crate take the future as `Send` without looking into it.
#[allow(clippy::manual_async_fn)]
pub fn get_by_key<'d, T: Table, const N: usize>(
    db: &'d Db,
    key: [Bound<'d>; N],
) -> impl Future<Output = Result<Option<T>>> + Send + 'd {
    // The request is sent in this future, not in `first_by_key_prefix`'s: awaiting a nested
    // future that holds the driver's request future (4 KB) moves it whole into this one.
    async move {
        let st = key_prefix_statement::<T>(db, N, &QueryOptions::default()).await?;
        first_of(unpaged!(db, st, BoundRow(key))?)
    }
}

/// The body of a generated `T::partition(db, key...)`: every row of the partition `key`.
#[allow(clippy::manual_async_fn)]
pub fn partition<'d, T: Table, const N: usize>(
    db: &'d Db,
    key: [Bound<'d>; N],
) -> impl Future<Output = Result<Vec<T>>> + Send + 'd {
    async move { all_by_key_prefix::<T>(db, N, BoundRow(key), &QueryOptions::default()).await }
}

/// The body of a generated `T::scan_full_table(db, splits)`.
pub fn scan<T: Table>(db: &Db, splits: u32) -> QueryFuture<'_, RowStream<T>> {
    QueryFuture::new(scan_full_table::<T, T>(db, splits))
}

/// The driver's page size when a query sets none (`scylla::statement::PageSize::default()`).
const DRIVER_PAGE_SIZE: i32 = 5000;

/// Runs a SELECT and collects every row: paged, or in one unpaged request when Cassandra
/// cannot page it, its `LIMIT` fits in one page (the latest-N read: no pager to set up), or it
/// is a vector search.
pub(crate) async fn select_all<T: Table, R: Projection<T>>(
    db: &Db,
    q: QueryState<'_>,
) -> Result<Vec<R>> {
    let page = q.options.page_size.unwrap_or(DRIVER_PAGE_SIZE);
    let fits_one_page = q.values.limit.is_some_and(|n| n <= page);
    // A vector search is one request: "Top-K queries must have a limit specified and the
    // limit must be less than the query page size".
    let paged = !unpageable::<T>(&q.spec) && !fits_one_page && q.spec.ann.is_none();
    let st = Stmt::prepare::<T, R>(db, q.spec, Statement::Select, &q.options).await?;
    if paged {
        // Boxed: the pager's futures are larger than one request's, and would otherwise set
        // the size of every read's future, unpaged ones included (each query's future is
        // allocated and moved whole).
        return Box::pin(rows_paged(db, st, q.values)).await;
    }
    rows_of(unpaged!(db, st, q.values)?)
}

/// Runs a SELECT for its first row (adding `LIMIT 1` unless the query has a limit or names
/// the whole primary key).
pub(crate) async fn select_first<T: Table, R: Projection<T>>(
    db: &Db,
    mut q: QueryState<'_>,
) -> Result<Option<R>> {
    // A read by the whole primary key returns at most one row: no LIMIT needed.
    let key_len = T::schema().primary_key().len();
    let by_full_key = q.spec.restrictions.len() == key_len
        && q.spec.restrictions.iter().all(|&(_, op)| op == Op::Eq);
    if !q.spec.limit && !by_full_key {
        q.limit(1);
    }
    let st = Stmt::prepare::<T, R>(db, q.spec, Statement::Select, &q.options).await?;
    first_of(unpaged!(db, st, q.values)?)
}

/// Runs a SELECT as a stream that fetches one page at a time: memory stays constant however
/// large the partition.
pub(crate) async fn select_stream<T: Table, R: Projection<T>>(
    db: &Db,
    q: QueryState<'_>,
) -> Result<RowStream<R>> {
    refuse_unpageable::<T>(&q.spec)?;
    let st = Stmt::prepare::<T, R>(db, q.spec, Statement::Select, &q.options).await?;
    let pager = db
        .session()
        .execute_iter(st.get().clone(), q.values)
        .await
        .map_err(|e| Error::execute(st.cql(), e))?;
    row_stream(pager)
}

/// Runs a SELECT for one page, starting at `from` ([`PagingState::start`] for the first).
pub(crate) async fn select_page<T: Table, R: Projection<T>>(
    db: &Db,
    q: QueryState<'_>,
    from: PagingState,
) -> Result<Page<R>> {
    refuse_unpageable::<T>(&q.spec)?;
    let st = Stmt::prepare::<T, R>(db, q.spec, Statement::Select, &q.options).await?;
    let (res, next) = db
        .session()
        .execute_single_page(st.get(), q.values, from)
        .await
        .map_err(|e| Error::execute(st.cql(), e))?;
    let rows = rows_of(res)?;
    let next = match next {
        PagingStateResponse::HasMorePages { state } => Some(state),
        PagingStateResponse::NoMorePages => None,
    };
    Ok(Page { rows, next })
}

/// Runs a DELETE or UPDATE. For a lightweight transaction whose condition fails, the outcome
/// carries the current row, read with SERIAL consistency.
pub(crate) async fn execute<T: Table>(
    db: &Db,
    q: QueryState<'_>,
    what: Statement,
) -> Result<Outcome<T>> {
    let QueryState {
        spec,
        values,
        options,
    } = q;
    let lwt = spec.is_lwt();
    if lwt {
        refuse_bad_lwt(T::schema().name, &spec)?;
        if what == Statement::Delete && spec.restrictions.len() != T::schema().primary_key().len() {
            return Err(Error::Invalid(format!(
                "table `{}`: a conditional delete (IF ...) names the whole primary key",
                T::schema().name
            )));
        }
    }
    let key_len = spec.restrictions.len();
    let st = Stmt::prepare::<T, T>(db, spec, what, &options).await?;
    let serialized = write_values(db, st.get(), &values)?;
    let res = unpaged!(db, st, serialized)?;
    if !lwt {
        return Ok(Outcome::done());
    }
    lwt_outcome::<T>(db, res, key_len, BoundRow(&values.where_[..]), &options).await
}

/// A lightweight transaction's `[applied]`, and the current row when it did not apply.
pub(crate) async fn lwt_outcome<T: Table>(
    db: &Db,
    res: QueryResult,
    key_len: usize,
    key: impl SerializeRow,
    options: &QueryOptions,
) -> Result<Outcome<T>> {
    if applied(res)? {
        return Ok(Outcome::done());
    }
    let serial = QueryOptions {
        consistency: Some(Consistency::Serial),
        timeout: options.timeout,
        ..QueryOptions::default()
    };
    let current = first_by_key_prefix::<T>(db, key_len, key, &serial).await?;
    Ok(Outcome {
        applied: false,
        current,
    })
}

/// Refuses, before anything is sent, what Cassandra refuses in a lightweight transaction.
pub(crate) fn refuse_bad_lwt(table: &str, spec: &Spec) -> Result<()> {
    if spec.restrictions.iter().any(|&(_, op)| op == Op::In) {
        return Err(Error::Invalid(format!(
            "table `{table}`: a lightweight transaction (IF ...) cannot use IN: it works on one row"
        )));
    }
    if spec.timestamp {
        return Err(Error::Invalid(format!(
            "table `{table}`: a lightweight transaction (IF ...) cannot take USING TIMESTAMP: \
             Paxos assigns the write time"
        )));
    }
    Ok(())
}

/// Whether a lightweight transaction (or a batch with one) applied: its `[applied]` column.
pub(crate) fn applied(res: QueryResult) -> Result<bool> {
    let Applied(applied) = res
        .into_rows_result()?
        .first_row::<Applied>()
        .map_err(|e| Error::Driver(Box::new(e)))?;
    Ok(applied)
}

/// The `[applied]` column of a lightweight transaction's result (the first column; the
/// others, which vary, are not read).
struct Applied(bool);

impl<'f, 'm> DeserializeRow<'f, 'm> for Applied {
    fn type_check(specs: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
        match specs.first() {
            Some(s) if s.name() == "[applied]" => {
                <bool as DeserializeValue<'_, '_>>::type_check(s.typ())
            }
            _ => Err(TypeCheckError::new(RowError::Value {
                table: String::new(),
                column: "[applied]".to_owned(),
                rust_type: "bool",
                detail: "the result of a lightweight transaction has no [applied] column".into(),
            })),
        }
    }

    fn deserialize(mut row: ColumnIterator<'f, 'm>) -> Result<Self, DeserializationError> {
        let col = row.next().ok_or_else(|| {
            DeserializationError::new(RowError::Value {
                table: String::new(),
                column: "[applied]".to_owned(),
                rust_type: "bool",
                detail: "missing".into(),
            })
        })??;
        <bool as DeserializeValue<'f, 'm>>::deserialize(col.spec.typ(), col.slice).map(Applied)
    }
}

/// A full-table scan, split into `splits` token ranges read one after the other (each
/// paged): every row of every partition, in token order. Costs a read of the whole table
/// on every replica set: only for batch jobs.
pub(crate) async fn scan_full_table<T: Table, R: Projection<T>>(
    db: &Db,
    splits: u32,
) -> Result<RowStream<R>> {
    let key = CacheKey::Scan {
        table: TypeId::of::<T>(),
        row: TypeId::of::<R>(),
    };
    let ps = db
        .prepared(key, true, |_| {
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
                    row_stream::<R>(pager)
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
