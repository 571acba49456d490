//! What a query is made of, whatever runs it: its shape ([`Spec`], the cache key of its
//! prepared statement), its bound values, options, the type-level states of generated
//! builders, and [`QueryFuture`], what every query returns. The builder core generated code
//! wraps is `builder::Query`.

mod bind;
mod options;
mod spec;
mod typestate;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;

pub use bind::{Bound, ErasedValue};
pub(crate) use bind::{BoundRow, QueryValues};
pub use options::QueryOptions;
pub use spec::{Cmp, Op, SetOp, Spec, Statement};
pub use typestate::{kind, state};

use crate::error::Result;

/// The future of a query: what `fetch_all`, `execute`, ... return. Await it.
///
/// It is boxed once per query, so that its type names only what it yields: the builder's
/// state, the table and the driver's futures stay out of it (and out of the compile time of
/// the crate that awaits it), and so that a query the compiler refuses is one error: an
/// `impl Future` return type repeats a failed bound at every `.await`. The hot calls,
/// `db.insert(&row)`, `T::get(..)`, `fetch_all` and `fetch_first`, return an unboxed
/// `impl Future` instead (see `__private::refused_read` for how their errors stay one).
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

/// A query under construction: its statement shape, bound values and options.
#[derive(Default)]
pub(crate) struct QueryState<'a> {
    pub(crate) spec: Spec,
    pub(crate) values: QueryValues<'a>,
    pub(crate) options: QueryOptions,
}

impl<'a> QueryState<'a> {
    // Each clause with a bound value sets the statement's shape (the cache key) and the value
    // together, here, so the two cannot disagree.

    /// Adds `column op ?` to the WHERE clause.
    pub(crate) fn restrict(&mut self, column: u16, op: Op, value: Bound<'a>) {
        self.spec.restrictions.push((column, op));
        self.values.where_.push(value);
    }

    /// Adds `column[?] = ?`: a map entry, its key then its value.
    pub(crate) fn restrict_entry(&mut self, column: u16, key: Bound<'a>, value: Bound<'a>) {
        self.spec.restrictions.push((column, Op::Entry));
        self.values.where_.push(key);
        self.values.where_.push(value);
    }

    /// Adds `IF column op ?`.
    pub(crate) fn condition(&mut self, column: u16, op: Op, value: Bound<'a>) {
        self.spec.conditions.push((column, op));
        self.values.if_.push(value);
    }

    /// `ORDER BY column ANN OF ?`: a vector search.
    pub(crate) fn ann(&mut self, column: u16, query: Bound<'a>) {
        self.spec.ann = Some(column);
        self.values.ann = Some(query);
    }

    /// Reads the similarity score of each row before its columns.
    pub(crate) fn score(&mut self) {
        self.spec.score = true;
        self.values.score = true;
    }

    /// `LIMIT n` (bound, not spliced).
    pub(crate) fn limit(&mut self, n: i32) {
        self.spec.limit = true;
        self.values.limit = Some(n);
    }

    /// `PER PARTITION LIMIT n`.
    pub(crate) fn per_partition_limit(&mut self, n: i32) {
        self.spec.per_partition_limit = true;
        self.values.per_partition_limit = Some(n);
    }

    /// `USING TTL seconds`.
    pub(crate) fn ttl(&mut self, seconds: i32) {
        self.spec.ttl = true;
        self.values.ttl = Some(seconds);
    }

    /// `USING TIMESTAMP micros`.
    pub(crate) fn timestamp(&mut self, micros: i64) {
        self.spec.timestamp = true;
        self.values.timestamp = Some(micros);
    }

    /// Adds a change of `column` to the SET clause: one value, or two for `c[?] = ?`.
    /// Assigning a column twice keeps the last value.
    pub(crate) fn set(&mut self, column: u16, op: SetOp, values: [Option<Bound<'a>>; 2]) {
        if op == SetOp::Assign
            && let Some(i) = self.spec.sets.iter().position(|&s| s == (column, op))
        {
            // The values of earlier SET entries come first; find this entry's slot.
            let slot: usize = self.spec.sets[..i]
                .iter()
                .map(|&(_, o)| if o == SetOp::AtKey { 2 } else { 1 })
                .sum();
            if let [Some(v), _] = values {
                self.values.set[slot] = v;
            }
            return;
        }
        self.spec.sets.push((column, op));
        self.values.set.extend(values.into_iter().flatten());
    }
}
