//! One `tracing` span per statement a call runs: `statement` at debug level, target
//! `cassmodel`, with the statement's `kind` (`select`, `insert`, `update`, `delete`, `batch`,
//! `count`, `ddl`, ...; `schema`, `copy`, `record`, `sizing` for the statements the runtime
//! writes itself), `keyspace`, `table` and `consistency`, its `shape` (what a query
//! restricts, without values: `WHERE user_id = ? AND post_id > ? LIMIT ?`; a DDL statement's
//! `cql`), for a read over buckets the `buckets` it read, and, when it ends, the `rows` it
//! returned, the `retries` the driver made and its `error`.
//! The driver's own events and cassmodel's (a failed attempt, a server warning) are inside it.
//! The pages a `fetch_stream` reads after its first are not: the span ends when the stream is
//! returned.
//!
//! Without a subscriber that wants debug spans of `cassmodel`, a span is `Span::none()`:
//! one check of the level filter, no field written, nothing recorded.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use scylla::client::session::Session;
use scylla::statement::Consistency;
use tracing::Span;
use tracing::field::Empty;

use crate::error::attempt::consistency_name;
use crate::error::errors::Result;

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
        shape = Empty,
        buckets = Empty,
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

/// Whether the spans of statements are wanted (a subscriber takes debug spans of
/// `cassmodel`): what a statement's `shape` is written for, only then.
#[inline]
pub(crate) fn spans_enabled() -> bool {
    tracing::enabled!(target: "cassmodel", tracing::Level::DEBUG)
}

/// Records `field` of the current statement's span (a read over buckets: its `shape` once
/// planned, its `buckets`), the value made only when spans are wanted.
pub(crate) fn record_current<V: tracing::Value>(field: &'static str, value: impl FnOnce() -> V) {
    if spans_enabled() {
        Span::current().record(field, value());
    }
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

/// A plain statement's answer: its rows are counted where they are decoded.
impl Returned for scylla::response::query_result::QueryResult {}

/// A pager's rows come after its span ends.
impl Returned for scylla::client::pager::QueryPager {}

impl Returned for scylla::statement::prepared::PreparedStatement {}

/// A count is one row.
impl Returned for u64 {
    fn rows(&self) -> Option<usize> {
        Some(1)
    }
}

/// Runs the future `body` makes inside the span `span` makes (entered at each poll), and
/// records its rows or its error in the span when it ends. Both are made now, here: taken as
/// closures, not values, because a future passed by value is built first and then moved into
/// the struct, a whole copy even inlined (`objdump` of the bench's `poll_operation`: copies of
/// whole futures, 0xfb0 to 0x1180 bytes, with values; none with closures). Made here, it is
/// built in place.
///
/// A statement's future holds the driver's request future (about 4 KB), and a caller moves
/// the future this returns at least once (into its own when it awaits it), a `memcpy` of its
/// whole size. So this adds only the span to `body`'s future: a struct that polls `body` where
/// it lies, not an `async fn`, whose state would keep its arguments (the closure and what it
/// captures: a query's bound values and options) beside the future it pinned, 0.4 KB more for
/// a read (`-Zprint-type-sizes`, BENCHMARKS.md).
///
/// Inlined, as every function between a user's call and a statement's future
/// (`#[inline(always)]`, marked "built in place"): a future returned by a function that is not
/// inlined comes back through memory and is copied whole into the caller's own future, twice
/// (into `IntoFuture::into_future` and out of it), a `memcpy` of its 4 KB that the raw
/// driver's inlined `async fn`s do not make. Inlined, only the fields set so far are written,
/// where the future will run (`objdump -d` of the bench's `poll_operation`: two 4,480-byte
/// copies per latest-20 read before, none after).
#[inline(always)]
pub(crate) fn in_span<F, T>(span: impl FnOnce() -> Span, body: impl FnOnce() -> F) -> InSpan<F>
where
    F: Future<Output = Result<T>>,
    T: Returned,
{
    InSpan {
        span: span(),
        body: body(),
    }
}

pin_project_lite::pin_project! {
    /// The future of [`in_span`].
    pub(crate) struct InSpan<F> {
        span: Span,
        #[pin]
        body: F,
    }
}

impl<F, T> Future for InSpan<F>
where
    F: Future<Output = Result<T>>,
    T: Returned,
{
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let this = self.project();
        let out = {
            let _in = this.span.enter();
            ready!(this.body.poll(cx))
        };
        record(this.span, &out);
        Poll::Ready(out)
    }
}

/// Records the rows or the error of a statement's outcome in its span (if enabled).
fn record<T: Returned>(span: &Span, out: &Result<T>) {
    if span.is_disabled() {
        return;
    }
    match out {
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
