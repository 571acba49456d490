//! Reads: the generic code behind every generated read (`fetch_all`, `fetch_first`,
//! `fetch_stream`, `fetch_page`, `get`, `partition`, `scan_full_table`), each with its
//! statement from [`statement`](super::statement) and its rows decoded by the row type.

use std::any::TypeId;
use std::future::Future;

use futures::{StreamExt, TryStreamExt};
use scylla::deserialize::row::DeserializeRow;
use scylla::response::query_result::QueryResult;
use scylla::response::{PagingState, PagingStateResponse};
use scylla::serialize::row::SerializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::result::{Page, QueryFuture, RowStream};
use super::send::{self, Cql, unpaged};
use super::statement::{
    Stmt, cached, key_prefix_read, key_prefix_statement, read_statement, traced,
};
use crate::error::errors::{Error, Result};
use crate::mapping::erased::Bound;
use crate::mapping::projection::Projection;
use crate::mapping::table::{Rows, Table};
use crate::session::cache::{CacheKey, PerTable};
use crate::session::db::Db;
use crate::session::trace::spans_enabled;
use crate::statement::cql;
use crate::statement::options::QueryOptions;
use crate::statement::spec::{Op, Spec, Statement};
use crate::statement::state::QueryState;
use crate::statement::values::BoundRow;

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

/// Every row of an unpaged result. A partition's static-only row (static values, no
/// clustering rows yet) is not a row: skipped.
fn rows_of<R>(res: QueryResult) -> Result<Vec<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let mut out = Vec::new();
    append_rows(res, &mut out)?;
    Ok(out)
}

/// The largest first allocation of a page's vector: glibc's allocator serves a request under
/// 1 KiB from its small bins, and one of 1 KiB or more first merges every small chunk freed
/// since (`malloc_consolidate`).
const SMALL_ALLOCATION: usize = 1023;

/// The rows of one result (a page), after those already in `out`; static-only rows skipped.
///
/// The first page's vector starts below [`SMALL_ALLOCATION`] and takes the rest of the page
/// at once when it is full. Allocated whole before the rows (latest 20: 1.7 KB), it merged the
/// small chunks that the last read's rows freed, so every row read after it took the
/// allocator's slow path: 7% more instructions than the raw driver's latest-20 read, whose
/// vector grows from 4 rows. Staged on the stack and copied into a vector allocated after
/// them, the rows cost a copy and 4 KB of stack that miss the cache with 64 reads in flight
/// (BENCHMARKS.md, issue 29).
fn append_rows<R>(res: QueryResult, out: &mut Vec<R>) -> Result<()>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let res = res.into_rows_result()?;
    let rows = res.rows::<Rows<R>>()?;
    let n = rows.rows_remaining();
    let start = out.len();
    let first = if start == 0 {
        n.min(SMALL_ALLOCATION / size_of::<R>().max(1)).max(1)
    } else {
        n
    };
    out.reserve(first);
    each_row(rows, |r| {
        if out.len() == out.capacity() {
            out.reserve(n.saturating_sub(out.len() - start).max(1));
        }
        out.push(r);
    })
}

/// Hands each row of `rows` to `push`, static-only rows skipped.
fn each_row<R, E>(
    rows: impl Iterator<Item = std::result::Result<Rows<R>, E>>,
    mut push: impl FnMut(R),
) -> Result<()>
where
    Error: From<E>,
{
    for row in rows {
        if let Some(r) = row?.0 {
            push(r);
        }
    }
    Ok(())
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

/// Every row `st` reads with `values`, page after page, after those already in `out`
/// (static-only rows skipped). Each page is one request, sent when the previous page is read:
/// no pager task, no channel and no copy of the statement, which is what `execute_iter` costs
/// on every read, however few its rows.
pub(crate) async fn collect_pages<R>(
    db: &Db,
    st: &PreparedStatement,
    values: &(impl SerializeRow + Sync),
    out: &mut Vec<R>,
) -> Result<()>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let mut from = PagingState::start();
    loop {
        let (res, next) = send::page(db, st, values, from).await?;
        append_rows(res, out)?;
        match next {
            PagingStateResponse::HasMorePages { state } => from = state,
            PagingStateResponse::NoMorePages => return Ok(()),
        }
    }
}

/// Every row of a SELECT, page after page, without static-only rows.
async fn rows_paged<R>(
    db: &Db,
    st: &PreparedStatement,
    values: &(impl SerializeRow + Sync),
) -> Result<Vec<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let mut out = Vec::new();
    collect_pages(db, st, values, &mut out).await?;
    Ok(out)
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
    first_of(unpaged!(db, st.get(), values)?)
}

/// The first row `st` reads with `values` (a static-only row is none): for a statement kept
/// for many reads, its options applied once (a copy's repair reads).
#[cfg(feature = "migrate")]
pub(crate) async fn first_row<R>(db: &Db, st: &Stmt, values: impl SerializeRow) -> Result<Option<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    first_of(unpaged!(db, st.get(), values)?)
}

/// Every row with `=` on the first `n` primary-key columns bound from `values` (paged): the
/// body of `partition`.
pub(crate) async fn all_by_key_prefix<T: Table>(
    db: &Db,
    n: usize,
    values: impl SerializeRow + Sync,
    options: &QueryOptions,
) -> Result<Vec<T>> {
    let st = key_prefix_read::<T>(db, n, options).await?;
    rows_paged(db, st.get(), &values).await
}

impl Db {
    /// The row with the given full primary key, if it exists. `key` binds the partition-key
    /// columns and then the clustering columns, in declared order (the generated `T::get`
    /// takes the same with typed arguments). The values are bound as the driver binds them:
    /// a `DateTime<Utc>` with digits below the millisecond is truncated, where `T::get`
    /// finds no row for it (no stored timestamp has those digits).
    pub async fn get_by_key<T: Table>(&self, key: impl SerializeRow) -> Result<Option<T>> {
        let n = T::schema().primary_key().len();
        first_by_key_prefix::<T>(self, n, key, &QueryOptions::default()).await
    }

    /// Every row of one partition, in clustering order. `key` binds the partition-key
    /// columns in declared order (the generated `T::partition` takes the same with typed
    /// arguments).
    pub async fn partition<T: Table>(&self, key: impl SerializeRow + Sync) -> Result<Vec<T>> {
        let n = T::schema().partition_key.len();
        all_by_key_prefix::<T>(self, n, key, &QueryOptions::default()).await
    }
}

/// The body of a generated `T::get(db, key...)`: the row whose primary key is `key` (the
/// partition-key columns, then the clustering columns, in declared order), if it exists.
/// Unboxed: this is the hot path of point reads. Not an `async fn`: the declared `+ Send`
/// lets a user's crate take the future as `Send` without looking into it.
#[allow(clippy::manual_async_fn)]
#[inline(always)] // built in place: see `session::trace::in_span`
pub fn get_by_key<'d, T: Table, const N: usize>(
    db: &'d Db,
    key: [Bound<'d>; N],
) -> impl Future<Output = Result<Option<T>>> + Send + 'd {
    // The request is sent in this future, not in `first_by_key_prefix`'s: awaiting a nested
    // future that holds the driver's request future (4 KB) moves it whole into this one.
    // Once prepared, the statement is borrowed from its table's slot: no cache lock, no hash
    // of its key, no reference count (the cache is taken on the first call only).
    traced::<T, _, _>(db, "select", None, key_shape::<T>(N), move || async move {
        // No stored timestamp has digits below the millisecond: no row has such a key.
        if key.iter().any(|k| k.sub_millis().is_some()) {
            return Ok(None);
        }
        let full_key = N == T::schema().primary_key().len();
        let st: Box<Stmt>;
        let ps = match db.statements().kept::<T>(PerTable::Get) {
            Some(ps) if full_key => ps,
            _ => {
                st = Box::new(key_prefix_statement::<T>(db, N, &QueryOptions::default()).await?);
                st.get()
            }
        };
        first_of(unpaged!(db, ps, BoundRow(key))?)
    })
}

/// The body of a generated `T::partition(db, key...)`: every row of the partition `key`.
#[allow(clippy::manual_async_fn)]
#[inline(always)] // built in place: see `session::trace::in_span`
pub fn partition<'d, T: Table, const N: usize>(
    db: &'d Db,
    key: [Bound<'d>; N],
) -> impl Future<Output = Result<Vec<T>>> + Send + 'd {
    traced::<T, _, _>(db, "select", None, key_shape::<T>(N), move || async move {
        // No stored timestamp has digits below the millisecond: no row has such a key.
        if key.iter().any(|k| k.sub_millis().is_some()) {
            return Ok(Vec::new());
        }
        all_by_key_prefix::<T>(db, N, BoundRow(key), &QueryOptions::default()).await
    })
}

/// The span's shape of a read by `=` on the first `n` primary-key columns of `T`, when spans
/// are wanted.
#[inline]
fn key_shape<T: Table>(n: usize) -> Option<String> {
    spans_enabled().then(|| cql::shape(T::schema(), &Spec::key_prefix(T::schema(), n)))
}

/// The body of a generated `T::scan_full_table(db, splits)`.
pub fn scan<T: Table>(db: &Db, splits: u32) -> QueryFuture<'_, RowStream<T>> {
    QueryFuture::new(traced::<T, _, _>(db, "scan", None, None, move || {
        scan_full_table::<T, T>(db, splits)
    }))
}

/// The driver's page size when a query sets none (`scylla::statement::PageSize::default()`).
const DRIVER_PAGE_SIZE: i32 = 5000;

/// Runs a SELECT and collects every row: paged, or in one unpaged request when Cassandra
/// cannot page it, its `LIMIT` fits in one page (the latest-N read: no pager to set up), or it
/// is a vector search.
#[inline(always)] // built in place: see `session::trace::in_span`
#[allow(clippy::manual_async_fn)] // not an `async fn`: see the body
pub(crate) fn select_all<T: Table, R: Projection<T>>(
    db: &Db,
    mut q: QueryState<'_>,
) -> impl Future<Output = Result<Vec<R>>> {
    // An `async` block, not an `async fn`: an `async fn` keeps its arguments in its state and
    // moves them into locals as it starts, so the query's state (0.4 KB) would be there twice.
    // The values are lent to the driver, whose request future would otherwise hold them twice
    // too.
    async move {
        if !q.exact_timestamps(true) {
            return Ok(Vec::new());
        }
        let page = q.options.page_size.unwrap_or(DRIVER_PAGE_SIZE);
        let fits_one_page = q.values.limit.is_some_and(|n| n <= page);
        // A vector search is one request: "Top-K queries must have a limit specified and the
        // limit must be less than the query page size".
        let paged = !unpageable::<T>(&q.spec) && !fits_one_page && q.spec.ann.is_none();
        let st = read_statement::<T, R>(db, q.spec, &q.options).await?;
        if paged {
            return rows_paged(db, st.get(), &q.values).await;
        }
        rows_of(unpaged!(db, st.get(), &q.values)?)
    }
}

/// Runs a SELECT for its first row (adding `LIMIT 1` unless the query has a limit or names
/// the whole primary key).
#[inline(always)] // built in place: see `session::trace::in_span`
#[allow(clippy::manual_async_fn)] // not an `async fn`: see the body
pub(crate) fn select_first<T: Table, R: Projection<T>>(
    db: &Db,
    mut q: QueryState<'_>,
) -> impl Future<Output = Result<Option<R>>> {
    // An `async` block with the values lent, as `select_all`.
    async move {
        if !q.exact_timestamps(true) {
            return Ok(None);
        }
        // A read by the whole primary key returns at most one row: no LIMIT needed.
        let key_len = T::schema().primary_key().len();
        let by_full_key = q.spec.restrictions.len() == key_len
            && q.spec.restrictions.iter().all(|&(_, op)| op == Op::Eq);
        if !q.spec.limit && !by_full_key {
            q.limit(1);
        }
        let st = read_statement::<T, R>(db, q.spec, &q.options).await?;
        first_of(unpaged!(db, st.get(), &q.values)?)
    }
}

/// `SELECT COUNT(*)` with the restrictions of `q`: how many rows they select, counted by the
/// server in one request (it reads them all, page by page, without sending them). A limit,
/// an order or a vector search is refused: the count would not be of the rows they read.
pub(crate) async fn count_rows<T: Table>(db: &Db, mut q: QueryState<'_>) -> Result<u64> {
    // A score read changes no row that is selected: the count reads none.
    q.no_scores();
    if !q.exact_timestamps(true) {
        return Ok(0);
    }
    let spec = &q.spec;
    let refused = if spec.limit || spec.per_partition_limit {
        Some("the limit (`limit`, `per_partition_limit`)")
    } else if spec.ann.is_some() {
        Some("the vector search")
    } else if spec.reversed {
        Some("the order (`reversed`)")
    } else {
        None
    };
    if let Some(what) = refused {
        return Err(Error::Invalid(format!(
            "`{}`: `count_rows` counts every row the restrictions select, whatever a read \
             would return: remove {what}",
            T::schema().name
        )));
    }
    let st = Stmt::prepare::<T, T>(db, q.spec, Statement::Count, &q.options).await?;
    let count: Option<(i64,)> = first_of(unpaged!(db, st.get(), q.values)?)?;
    // One row, with the count; a negative count is not one.
    count
        .and_then(|(n,)| u64::try_from(n).ok())
        .ok_or_else(|| Error::Invalid(format!("`{}` answered no row count", st.cql())))
}

/// Runs a SELECT as a stream that fetches one page at a time: memory stays constant however
/// large the partition.
pub(crate) async fn select_stream<T: Table, R: Projection<T>>(
    db: &Db,
    mut q: QueryState<'_>,
) -> Result<RowStream<R>> {
    refuse_unpageable::<T>(&q.spec)?;
    if !q.exact_timestamps(true) {
        return Ok(Box::pin(futures::stream::empty()));
    }
    let st = Stmt::prepare::<T, R>(db, q.spec, Statement::Select, &q.options).await?;
    row_stream(send::pager_in(db, &Cql::Prepared(st.get()), q.values).await?)
}

/// Runs a SELECT for one page, starting at `from` ([`PagingState::start`] for the first).
pub(crate) async fn select_page<T: Table, R: Projection<T>>(
    db: &Db,
    mut q: QueryState<'_>,
    from: PagingState,
) -> Result<Page<R>> {
    refuse_unpageable::<T>(&q.spec)?;
    if !q.exact_timestamps(true) {
        return Ok(Page {
            rows: Vec::new(),
            next: None,
        });
    }
    let st = Stmt::prepare::<T, R>(db, q.spec, Statement::Select, &q.options).await?;
    let (res, next) = send::page(db, st.get(), q.values, from).await?;
    let rows = rows_of(res)?;
    let next = match next {
        PagingStateResponse::HasMorePages { state } => Some(state),
        PagingStateResponse::NoMorePages => None,
    };
    Ok(Page { rows, next })
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
    let ps = cached(db, T::schema(), R::computed(), key, true, |_| {
        Ok(cql::token_range_scan(
            T::schema(),
            db.keyspace_of::<T>()?,
            (R::columns(), R::computed()),
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
                    let pager = send::pager_in(&db, &Cql::Prepared(&ps), (lo, hi)).await?;
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
