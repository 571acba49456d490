//! The one door to the driver. Every request the runtime sends, for any feature (a query's
//! reads and writes, batches, pages, the entities' saves, a migration's reads of the live
//! schema, the key-change copy's scans and writes, the copy record's lightweight
//! transactions, sizing's reads of the system tables), is sent by a function of this file,
//! the only one outside `session/` that calls the driver's session (`tests/architecture.rs`
//! holds the rule; `session/` connects, prepares into the cache, runs DDL with its schema
//! agreement and reads the driver's metadata). Each of them:
//!
//! - tells a failure with [`Error::execute`] in the poll that returned it: every attempt of
//!   the request, the statement's text, one wording on every path;
//! - hands the server's warnings of the answer to the `Db`'s handler
//!   ([`Warnings::check`](crate::session::warnings::Warnings::check));
//! - runs inside a span of the statement ([`statement_span`]): the query's own span, opened by
//!   its caller (`traced`), for the hot path's [`unpaged!`], [`page`] and [`batch`]; a span of
//!   the statement's `kind` (`schema`, `copy`, `record`, `sizing`, ...) with its CQL for a
//!   statement the runtime writes itself ([`run`], [`pager`], [`prepare`], [`batch_of`]).
//!
//! A pager ([`pager`], [`pager_in`]) reads its pages in the driver's own task, which drops the
//! server's warnings of the pages: a read whose warnings matter (a tombstone threshold) reads
//! its pages one request at a time ([`page`]).

use std::future::Future;

use scylla::client::pager::QueryPager;
use scylla::deserialize::row::DeserializeRow;
use scylla::response::query_result::QueryResult;
use scylla::response::{PagingState, PagingStateResponse};
use scylla::serialize::batch::BatchValues;
use scylla::serialize::row::SerializeRow;
use scylla::statement::Statement;
use scylla::statement::batch::{Batch, BatchStatement};
use scylla::statement::prepared::PreparedStatement;

use crate::config::attempts;
use crate::error::errors::{Error, Result};
use crate::session::db::Db;
use crate::session::trace::{in_span, statement_span};

/// A statement to send: prepared, or the text of one the runtime writes once per run (a
/// migration's, a read of a system table).
pub(crate) enum Cql<'a> {
    Prepared(&'a PreparedStatement),
    Text(Statement),
}

impl Cql<'_> {
    /// The statement's CQL, for its error, span and warnings.
    pub(crate) fn text(&self) -> &str {
        match self {
            Cql::Prepared(ps) => ps.get_statement(),
            Cql::Text(st) => &st.contents,
        }
    }

    fn prepared(&self) -> Option<&PreparedStatement> {
        match self {
            Cql::Prepared(ps) => Some(ps),
            Cql::Text(_) => None,
        }
    }
}

impl<'a> From<&'a PreparedStatement> for Cql<'a> {
    fn from(ps: &'a PreparedStatement) -> Self {
        Cql::Prepared(ps)
    }
}

/// `cql` unprepared, marked as one the driver may run again on another node when a node
/// times out, is overloaded or shutting down: a read, or a write that changes nothing when
/// repeated.
pub(crate) fn repeatable(cql: &str) -> Cql<'static> {
    Cql::Text(statement(cql, true))
}

fn statement(cql: &str, idempotent: bool) -> Statement {
    let mut statement = Statement::new(cql);
    statement.set_is_idempotent(idempotent);
    statement
}

/// The span of a statement of `kind` the runtime wrote itself, with its CQL.
fn plain_span(db: &Db, kind: &'static str, cql: &str) -> tracing::Span {
    let span = statement_span(
        db.session(),
        kind,
        || (db.keyspace().unwrap_or_default(), ""),
        None,
    );
    span.record("cql", cql);
    span
}

/// Runs `cql` with `values` in one unpaged request, in a span of `kind`.
pub(crate) async fn run<'c>(
    db: &Db,
    kind: &'static str,
    cql: impl Into<Cql<'c>>,
    values: impl SerializeRow,
) -> Result<QueryResult> {
    let cql = cql.into();
    let body = || async {
        let res = match &cql {
            Cql::Prepared(ps) => db.session().execute_unpaged(ps, values).await,
            Cql::Text(st) => db.session().query_unpaged(st.clone(), values).await,
        }
        .map_err(|e| Error::execute(db.session(), cql.text(), e, attempts::take()))?;
        db.warnings().check(&res, cql.text(), cql.prepared());
        Ok(res)
    };
    in_span(|| plain_span(db, kind, cql.text()), body).await
}

/// Every row `cql` reads with `values`, decoded as `R`, in one unpaged request.
pub(crate) async fn rows<'c, R>(
    db: &Db,
    kind: &'static str,
    cql: impl Into<Cql<'c>>,
    values: impl SerializeRow,
) -> Result<Vec<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let res = run(db, kind, cql, values).await?.into_rows_result()?;
    Ok(res.rows::<R>()?.collect::<std::result::Result<_, _>>()?)
}

/// The first row `cql` reads with `values`, decoded as `R`, if any.
pub(crate) async fn first<'c, R>(
    db: &Db,
    kind: &'static str,
    cql: impl Into<Cql<'c>>,
    values: impl SerializeRow,
) -> Result<Option<R>>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let res = run(db, kind, cql, values).await?.into_rows_result()?;
    Ok(res.maybe_first_row::<R>()?)
}

/// A pager over the rows `cql` reads with `values`, in a span of `kind` (which ends when
/// the pager is returned).
pub(crate) async fn pager<'c>(
    db: &Db,
    kind: &'static str,
    cql: impl Into<Cql<'c>>,
    values: impl SerializeRow,
) -> Result<QueryPager> {
    let cql = cql.into();
    let body = || pager_in(db, &cql, values);
    in_span(|| plain_span(db, kind, cql.text()), body).await
}

/// A pager over the rows `cql` reads with `values`, inside the caller's span (a query's
/// `fetch_stream`, a full-table scan's range).
pub(crate) async fn pager_in(
    db: &Db,
    cql: &Cql<'_>,
    values: impl SerializeRow,
) -> Result<QueryPager> {
    match cql {
        Cql::Prepared(ps) => {
            let ps = PreparedStatement::clone(ps);
            db.session().execute_iter(ps, values).await
        }
        Cql::Text(st) => db.session().query_iter(st.clone(), values).await,
    }
    .map_err(|e| Error::execute(db.session(), cql.text(), e, attempts::take()))
}

/// One page of the rows `ps` reads with `values`, from `from`, inside the caller's span: its
/// result and where the next page starts. Inlined and built in place, as every future between
/// a user's call and the driver's (see `session::trace::in_span`).
#[allow(clippy::manual_async_fn)] // the future built in place, as `save_entity`'s
#[inline(always)]
pub(crate) fn page<'a>(
    db: &'a Db,
    ps: &'a PreparedStatement,
    values: impl SerializeRow + Sync + 'a,
    from: PagingState,
) -> impl Future<Output = Result<(QueryResult, PagingStateResponse)>> + 'a {
    async move {
        let (res, next) = db
            .session()
            .execute_single_page(ps, values, from)
            .await
            .map_err(|e| Error::execute(db.session(), ps.get_statement(), e, attempts::take()))?;
        db.warnings().check(&res, ps.get_statement(), Some(ps));
        Ok((res, next))
    }
}

/// Sends `batch` with `values`, inside the caller's span; `what` names the batch in an error.
/// The driver's request future is pinned where it lies (awaited by value, its whole state
/// would be copied into this one's: 637 instructions of `memcpy` per entity save, counted with
/// `benches/callgrind_ops.sh`).
#[allow(clippy::manual_async_fn)] // the future built in place, as `save_entity`'s
#[inline(always)]
pub(crate) fn batch<'a>(
    db: &'a Db,
    batch: &'a Batch,
    values: impl BatchValues + 'a,
    what: &'a str,
) -> impl Future<Output = Result<QueryResult>> + 'a {
    async move {
        let request = std::pin::pin!(db.session().batch(batch, values));
        let res = request
            .await
            .map_err(|e| Error::execute(db.session(), what, e, attempts::take()))?;
        let first = match batch.statements.first() {
            Some(BatchStatement::PreparedStatement(ps)) => Some(ps),
            _ => None,
        };
        db.warnings().check(&res, "BATCH", first);
        Ok(res)
    }
}

/// [`batch`] of statements the runtime wrote itself, in a span of `kind`.
#[cfg(feature = "migrate")]
pub(crate) async fn batch_of(
    db: &Db,
    kind: &'static str,
    of: &Batch,
    values: impl BatchValues,
    what: &str,
) -> Result<QueryResult> {
    in_span(
        || plain_span(db, kind, what),
        || batch(db, of, values, what),
    )
    .await
}

/// `cql` prepared, for a statement the runtime keeps for a whole run (a copy's scan and
/// write, the record's transactions); `idempotent`: whether the driver may send it again
/// to another node. A query's statements are prepared into the `Db`'s cache instead
/// (`exec/statement.rs`).
#[cfg(feature = "migrate")]
pub(crate) async fn prepare(
    db: &Db,
    kind: &'static str,
    cql: &str,
    idempotent: bool,
) -> Result<PreparedStatement> {
    let body = || async {
        db.session()
            .prepare(statement(cql, idempotent))
            .await
            .map_err(|source| Error::Prepare {
                cql: cql.to_owned(),
                source: Box::new(source),
            })
    };
    in_span(|| plain_span(db, kind, cql), body).await
}

/// Runs the prepared statement `ps` (a `&PreparedStatement`) with `values` in one unpaged
/// request, inside the caller's span: `Result<QueryResult>`. A macro, not an async fn: the
/// driver's request future (about 4 KB) is then a field of the caller's own future instead of
/// being built and moved once more into a nested one, a copy per query.
macro_rules! unpaged {
    ($db:expr, $ps:expr, $values:expr) => {{
        let ps: &::scylla::statement::prepared::PreparedStatement = $ps;
        $db.session()
            .execute_unpaged(ps, $values)
            .await
            .map(|res| {
                $db.warnings().check(&res, ps.get_statement(), Some(ps));
                res
            })
            .map_err(|e| {
                $crate::error::errors::Error::execute(
                    $db.session(),
                    ps.get_statement(),
                    e,
                    $crate::config::attempts::take(),
                )
            })
    }};
}
pub(crate) use unpaged;
