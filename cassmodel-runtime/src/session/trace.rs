//! One `tracing` span per statement a call runs: `statement` at debug level, target
//! `cassmodel`, with the statement's `kind` (`select`, `insert`, `update`, `delete`, `batch`,
//! `count`, `ddl`, ...), `keyspace`, `table` and `consistency` (a DDL statement's `cql` too),
//! and, when it ends, the `rows` it returned, the `retries` the driver made and its `error`.
//! The driver's own events and cassmodel's (a failed attempt, a server warning) are inside it.
//! The pages a `fetch_stream` reads after its first are not: the span ends when the stream is
//! returned.
//!
//! Without a subscriber that wants debug spans of `cassmodel`, a span is `Span::none()`:
//! one check of the level filter, no field written, nothing recorded.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use pin_project_lite::pin_project;
use scylla::client::session::Session;
use scylla::statement::Consistency;
use tracing::Span;
use tracing::field::Empty;

use crate::config::attempts::consistency_name;
use crate::error::Result;

/// The span of a statement of `kind` on the `(keyspace, table)` that `names` gives, at
/// `consistency` (`None`: the session's default). `names` and the default consistency are
/// looked up only when the span is enabled.
pub(crate) fn statement_span<'n>(
    session: &Session,
    kind: &'static str,
    names: impl FnOnce() -> (&'n str, &'n str),
    consistency: Option<Consistency>,
) -> Span {
    let span = tracing::debug_span!(
        target: "cassmodel",
        "statement",
        kind,
        keyspace = Empty,
        table = Empty,
        consistency = Empty,
        rows = Empty,
        retries = Empty,
        error = Empty,
        cql = Empty,
    );
    if !span.is_disabled() {
        let (keyspace, table) = names();
        span.record("keyspace", keyspace);
        span.record("table", table);
        let consistency = consistency.unwrap_or_else(|| {
            session
                .get_default_execution_profile_handle()
                .to_profile()
                .get_consistency()
        });
        span.record("consistency", consistency_name(consistency));
    }
    span
}

/// How many rows a statement's result holds, for its span (`None`: not rows).
pub(crate) trait Returned {
    fn rows(&self) -> Option<usize> {
        None
    }
}

impl<R> Returned for Vec<R> {
    fn rows(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<R> Returned for Option<R> {
    fn rows(&self) -> Option<usize> {
        Some(usize::from(self.is_some()))
    }
}

impl Returned for () {}

impl Returned for bool {}

/// A count is one row.
impl Returned for u64 {
    fn rows(&self) -> Option<usize> {
        Some(1)
    }
}

pin_project! {
    /// A statement's future inside its span: entered at each poll, and given the rows or the
    /// error when it ends.
    pub(crate) struct Traced<F> {
        #[pin]
        future: F,
        span: Span,
    }
}

impl<F> Traced<F> {
    /// `future` inside `span`.
    pub(crate) fn new(span: Span, future: F) -> Self {
        Traced { future, span }
    }
}

impl<F, T> Future for Traced<F>
where
    F: Future<Output = Result<T>>,
    T: Returned,
{
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let this = self.project();
        let span = this.span;
        let _in = span.enter();
        let out = ready!(this.future.poll(cx));
        if !span.is_disabled() {
            match &out {
                Ok(v) => {
                    if let Some(n) = v.rows() {
                        span.record("rows", n);
                    }
                }
                Err(e) => {
                    span.record("error", tracing::field::display(e));
                }
            }
        }
        Poll::Ready(out)
    }
}
