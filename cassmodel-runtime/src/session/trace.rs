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
use std::pin::pin;

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

/// Runs the future `body` makes inside the span `span` makes (entered at each poll), and
/// records its rows or its error in the span when it ends. Both are made when this future
/// first runs, inside it.
///
/// A statement's future holds the driver's request future (about 4 KB). Built by the caller
/// and handed to a wrapper by value, it was copied into the wrapper and again into the
/// caller's future: two `memcpy`s of 4 KB per call, which the raw driver's calls do not make
/// (counted with `benches/callgrind_ops.sh`, BENCHMARKS.md). Made here, it is built where it
/// runs, pinned in this future.
pub(crate) async fn in_span<F, T>(
    span: impl FnOnce() -> Span,
    body: impl FnOnce() -> F,
) -> Result<T>
where
    F: Future<Output = Result<T>>,
    T: Returned,
{
    let span = span();
    let mut body = pin!(body());
    let out = std::future::poll_fn(|cx| {
        let _in = span.enter();
        body.as_mut().poll(cx)
    })
    .await;
    record(&span, &out);
    out
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
