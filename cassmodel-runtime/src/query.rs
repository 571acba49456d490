//! Typed queries: the runtime half of the query builders `#[derive(CassTable)]` generates.
//!
//! A generated builder (e.g. `PostQuery`) carries its WHERE clause's progress in a type-level
//! state ([`state::Key`], [`state::Range`], [`state::Filtering`]); each column method is
//! callable only in the states Cassandra accepts, which the derive encodes as trait bounds
//! with readable `on_unimplemented` messages. Everything else lives here, written once: the
//! bound values, the statement's shape (the cache key), the CQL text built from it on first
//! use, execution, paging and options.

use std::time::Duration;

use futures::Stream;
use scylla::frame::response::result::ColumnType;
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, RowWriter, WrittenCellProof};
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};

use crate::error::Result;
use crate::mapping::CqlMapping;

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
    /// `SELECT`: `fetch_all`, `fetch_first`, `fetch_stream`, `fetch_page`.
    pub struct Select;
    /// `DELETE`: `execute`. `LWT`: a condition was given (`IF ...`), so `execute` returns an
    /// [`Outcome`](crate::Outcome).
    pub struct Delete<const LWT: bool = false>;
    /// `UPDATE`: `execute`. `W` is what has been set so far: `0` nothing, `1` only static
    /// columns (the partition key is then enough), `2` a regular column (the whole primary
    /// key is needed). `LWT`: a condition was given.
    pub struct Update<const W: u8, const LWT: bool = false>;

    /// The kinds that write: `Delete` and `Update`.
    #[doc(hidden)]
    pub trait WriteKind {
        /// The kind once a condition is added.
        type Conditional;
    }
    impl<const LWT: bool> WriteKind for Delete<LWT> {
        type Conditional = Delete<true>;
    }
    impl<const W: u8, const LWT: bool> WriteKind for Update<W, LWT> {
        type Conditional = Update<W, true>;
    }

    /// The update kind after setting a static column.
    #[doc(hidden)]
    pub trait AfterStaticSet {
        /// The next kind.
        type Next;
    }
    impl<const LWT: bool> AfterStaticSet for Update<0, LWT> {
        type Next = Update<1, LWT>;
    }
    impl<const LWT: bool> AfterStaticSet for Update<1, LWT> {
        type Next = Update<1, LWT>;
    }
    impl<const LWT: bool> AfterStaticSet for Update<2, LWT> {
        type Next = Update<2, LWT>;
    }
}

/// A restriction or condition operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=` (conditions only)
    Ne,
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
            Op::Ne => "!=",
            Op::In => "IN",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }
}

/// A comparison in a lightweight transaction's condition (`IF column <cmp> ?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl From<Cmp> for Op {
    fn from(c: Cmp) -> Op {
        match c {
            Cmp::Eq => Op::Eq,
            Cmp::Ne => Op::Ne,
            Cmp::Lt => Op::Lt,
            Cmp::Le => Op::Le,
            Cmp::Gt => Op::Gt,
            Cmp::Ge => Op::Ge,
        }
    }
}

/// How an UPDATE changes a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetOp {
    /// `c = ?`
    Assign,
    /// `c = c + ?` (list append, set add, map merge)
    Append,
    /// `c = ? + c` (list prepend)
    Prepend,
    /// `c = c - ?` (list/set remove, map remove keys)
    Remove,
    /// `c[?] = ?` (list index, map key)
    AtKey,
    /// `c = c + ?` on a counter
    Increment,
    /// `c = c - ?` on a counter
    Decrement,
}

impl SetOp {
    /// Whether retrying the change could apply it twice.
    pub const fn is_idempotent(self) -> bool {
        !matches!(
            self,
            SetOp::Append | SetOp::Prepend | SetOp::Increment | SetOp::Decrement
        )
    }
}

/// The statement a query runs, without its values: the cache key of its prepared statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Spec {
    /// `(column index, operator)` in WHERE order (which is also bind order).
    pub restrictions: Vec<(u16, Op)>,
    /// `(column index, change)` of an UPDATE, in SET order.
    pub sets: Vec<(u16, SetOp)>,
    /// `IF column <op> ?` conditions (a lightweight transaction).
    pub conditions: Vec<(u16, Op)>,
    /// `IF EXISTS` (a lightweight transaction).
    pub if_exists: bool,
    /// `USING TTL ?`
    pub ttl: bool,
    /// `USING TIMESTAMP ?`
    pub timestamp: bool,
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
    pub(crate) fn in_on_partition_key(&self, table: &crate::TableSchema) -> bool {
        self.restrictions
            .iter()
            .any(|&(c, op)| op == Op::In && table.partition_key.contains(&usize::from(c)))
    }

    /// Whether the statement is a lightweight transaction.
    pub fn is_lwt(&self) -> bool {
        self.if_exists || !self.conditions.is_empty()
    }

    /// Whether the statement may be retried safely.
    pub fn is_idempotent(&self) -> bool {
        !self.is_lwt() && self.sets.iter().all(|(_, op)| op.is_idempotent())
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

/// A list bound to one marker (`IN ?`, a set of map keys to remove).
struct ListOf<'a, V>(&'a [V]);

impl<V: SerializeValue + Sync> BindValue for ListOf<'_, V> {
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
    /// A list index (`l[?] = ?`).
    Index(i32),
    /// A counter change (`c = c + ?`).
    Counter(i64),
    /// An owned adapter (the list of an `IN`).
    Boxed(Box<dyn BindValue + Send + 'a>),
}

impl<'a> Bound<'a> {
    pub(crate) fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match self {
            Bound::Value(v) => v.write_to(typ, writer),
            Bound::Str(s) => SerializeValue::serialize(*s, typ, writer),
            Bound::Index(i) => SerializeValue::serialize(i, typ, writer),
            Bound::Counter(n) => {
                SerializeValue::serialize(&scylla::value::Counter(*n), typ, writer)
            }
            Bound::Boxed(v) => v.write_to(typ, writer),
        }
    }
}

/// Values in bind order, as a row: the typed key arguments of `get` and `partition` (an
/// array, no allocation), or the WHERE values re-bound for the SERIAL read after an LWT.
pub struct Bounds<B>(pub B);

impl<'a, B: AsRef<[Bound<'a>]>> SerializeRow for Bounds<B> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let values = self.0.as_ref();
        if values.len() != ctx.columns().len() {
            return Err(too_many_values());
        }
        for (v, spec) in values.iter().zip(ctx.columns()) {
            v.write_to(spec.typ(), writer.make_cell_writer())?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.0.as_ref().is_empty()
    }
}

/// A list of values bound to one marker (`IN ?`, map keys to remove).
pub fn bound_list<'a, V: SerializeValue + Sync + Send>(values: &'a [V]) -> Bound<'a> {
    Bound::Boxed(Box::new(ListOf(values)))
}

/// Per-query options. Unset options keep the session's defaults; reads and plain writes are
/// idempotent by default (safe for the driver to retry), lightweight transactions, counter
/// updates and list appends/prepends are not.
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

    /// `None` when the cached statement can run as it is, otherwise a copy with these
    /// options applied.
    pub(crate) fn apply(&self, ps: &PreparedStatement) -> Option<PreparedStatement> {
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
    pub(crate) spec: Spec,
    pub(crate) values: BoundValues<'a>,
    pub(crate) options: QueryOptions,
}

impl<'a> QueryState<'a> {
    /// An empty query.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `column op ?` to the WHERE clause.
    pub fn restrict(mut self, column: u16, op: Op, value: Bound<'a>) -> Self {
        self.spec.restrictions.push((column, op));
        self.values.where_.push(value);
        self
    }

    /// Adds a change of `column` to the SET clause: one value, or two for `c[?] = ?`.
    /// Assigning a column twice keeps the last value.
    pub fn set(mut self, column: u16, op: SetOp, values: [Option<Bound<'a>>; 2]) -> Self {
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
            return self;
        }
        self.spec.sets.push((column, op));
        self.values.set.extend(values.into_iter().flatten());
        self
    }

    /// Adds `IF column op ?`.
    pub fn condition(mut self, column: u16, op: Op, value: Bound<'a>) -> Self {
        self.spec.conditions.push((column, op));
        self.values.if_.push(value);
        self
    }

    /// Adds `IF EXISTS`.
    pub fn if_exists(mut self) -> Self {
        self.spec.if_exists = true;
        self
    }

    /// `USING TTL seconds`: the written cells expire after that long (0: never).
    pub fn ttl(mut self, seconds: i32) -> Self {
        self.spec.ttl = true;
        self.values.ttl = Some(seconds);
        self
    }

    /// `USING TIMESTAMP micros`: the write time of the cells, in microseconds since the epoch.
    pub fn timestamp(mut self, micros: i64) -> Self {
        self.spec.timestamp = true;
        self.values.timestamp = Some(micros);
        self
    }

    /// `LIMIT n` (bound, not spliced).
    pub fn limit(mut self, n: i32) -> Self {
        self.spec.limit = true;
        self.values.limit = Some(n);
        self
    }

    /// `PER PARTITION LIMIT n`.
    pub fn per_partition_limit(mut self, n: i32) -> Self {
        self.spec.per_partition_limit = true;
        self.values.per_partition_limit = Some(n);
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

    /// Sets the per-query options with `f`.
    pub fn with_options(mut self, f: impl FnOnce(&mut QueryOptions)) -> Self {
        f(&mut self.options);
        self
    }
}

/// The values of a query in bind order: USING (TTL, TIMESTAMP), SET, WHERE, IF,
/// PER PARTITION LIMIT, LIMIT.
#[derive(Default)]
pub struct BoundValues<'a> {
    pub(crate) ttl: Option<i32>,
    pub(crate) timestamp: Option<i64>,
    pub(crate) set: Vec<Bound<'a>>,
    pub(crate) where_: Vec<Bound<'a>>,
    pub(crate) if_: Vec<Bound<'a>>,
    pub(crate) per_partition_limit: Option<i32>,
    pub(crate) limit: Option<i32>,
}

fn too_many_values() -> SerializationError {
    SerializationError::new(crate::RowError::Value {
        table: String::new(),
        column: String::new(),
        rust_type: "bound values",
        detail: "the number of values differs from the number of bind markers".to_owned(),
    })
}

impl SerializeRow for BoundValues<'_> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let mut specs = ctx.columns().iter();
        let mut next_type = || specs.next().map(|s| s.typ()).ok_or_else(too_many_values);
        if let Some(ttl) = &self.ttl {
            SerializeValue::serialize(ttl, next_type()?, writer.make_cell_writer())?;
        }
        if let Some(ts) = &self.timestamp {
            SerializeValue::serialize(ts, next_type()?, writer.make_cell_writer())?;
        }
        for v in self.set.iter().chain(&self.where_).chain(&self.if_) {
            v.write_to(next_type()?, writer.make_cell_writer())?;
        }
        for n in self.per_partition_limit.iter().chain(&self.limit) {
            SerializeValue::serialize(n, next_type()?, writer.make_cell_writer())?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.ttl.is_none()
            && self.timestamp.is_none()
            && self.set.is_empty()
            && self.where_.is_empty()
            && self.if_.is_empty()
            && self.limit.is_none()
            && self.per_partition_limit.is_none()
    }
}

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
