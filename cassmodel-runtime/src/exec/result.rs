//! What a query returns: [`QueryFuture`] (the future of every boxed query), [`RowStream`]
//! (rows a page at a time), [`Page`] (one page and where the next starts) and [`Outcome`] (a
//! write's, with the current row when a condition failed).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use scylla::response::PagingState;

use crate::error::errors::Result;
use crate::session::trace::Returned;

/// The future of a query: what `fetch_all`, `execute`, ... return. Await it.
///
/// It is boxed once per query, so that its type names only what it yields: the builder's
/// state, the table and the driver's futures stay out of it (and out of the compile time of
/// the crate that awaits it), and so that a query the compiler refuses is one error: an
/// `impl Future` return type repeats a failed bound at every `.await`. The hot calls,
/// `db.insert(&row)`, `Insert::..::execute` (conditional or not), an entity's `save`,
/// `T::get(..)`, `fetch_all` and `fetch_first`, return an unboxed `impl Future` instead (see
/// `__private::refused_read` for how the errors of reads stay one).
#[must_use = "a query does nothing unless awaited"]
pub struct QueryFuture<'d, T>(Pin<Box<dyn Future<Output = Result<T>> + Send + 'd>>);

impl<'d, T> QueryFuture<'d, T> {
    /// Wraps a future that runs a query.
    pub(crate) fn new(future: impl Future<Output = Result<T>> + Send + 'd) -> Self {
        QueryFuture(Box::pin(future))
    }
}

impl<T> Future for QueryFuture<'_, T> {
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        self.get_mut().0.as_mut().poll(cx)
    }
}

impl<T> std::fmt::Debug for QueryFuture<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QueryFuture")
    }
}

/// Rows read one page at a time: memory stays constant however many rows there are.
pub type RowStream<R> = Pin<Box<dyn Stream<Item = Result<R>> + Send>>;

/// The result of a write: whether it applied and, for a lightweight transaction that did
/// not, the row as it is now (read with SERIAL consistency), if there is one.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a lightweight transaction may not have applied: check `applied`"]
pub struct Outcome<T> {
    /// Whether the write happened. Always `true` for writes without a condition.
    pub applied: bool,
    /// For a condition that failed: the current row, or `None` if it does not exist.
    pub current: Option<T>,
}

impl<T> Outcome<T> {
    /// An unconditional write that was sent.
    pub(crate) fn done() -> Self {
        Outcome {
            applied: true,
            current: None,
        }
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

impl<R> Returned for Page<R> {
    fn rows(&self) -> Option<usize> {
        Some(self.rows.len())
    }
}

impl<T> Returned for Outcome<T> {}

/// A stream's rows come after its span has ended: none recorded.
impl<S: ?Sized> Returned for Pin<Box<S>> {}
