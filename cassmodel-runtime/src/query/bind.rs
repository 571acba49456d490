//! Bound values: what a builder method takes ([`Bound`]) and how a query's values are
//! written in bind order.

use scylla::frame::response::result::{ColumnSpec, ColumnType};
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, RowWriter, WrittenCellProof};

/// A value behind a reference, type-erased: a field or argument as its column type writes
/// it. Implemented for every [`CqlMapping`](crate::CqlMapping) type; generated code hands fields out as
/// `&dyn ErasedValue` (`Table::__value`), so that the writing is generic runtime code.
/// (The impl for every `CqlMapping` type is in `mapping.rs`.)
#[doc(hidden)]
pub trait ErasedValue: Sync {
    /// Writes the value for a bind marker of type `typ`.
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError>;

    /// Its Rust type (`std::any::type_name`), for messages.
    fn rust_type(&self) -> &'static str;

    /// Whether it is `None` (left unset by inserts).
    fn is_none(&self) -> bool {
        false
    }

    /// Its bucket under `rule`, if it is a bucket source (`DateTime<Utc>`, `NaiveDate`, `i32`,
    /// `i64`).
    fn source_bucket(&self, rule: crate::BucketRule) -> Option<crate::bucket::BucketValue> {
        let _ = rule;
        None
    }

    /// At least as many bytes as [`write_to`](Self::write_to) writes (the cell's contents,
    /// without its length), when that is known without writing it; `None` otherwise (a
    /// write then serializes its values first to learn their size).
    fn size_bound(&self) -> Option<usize> {
        None
    }
}

/// A list bound to one marker (`IN ?`, a set of map keys to remove).
struct ListOf<'a, V>(&'a [V]);

impl<V: SerializeValue + Sync> ErasedValue for ListOf<'_, V> {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        SerializeValue::serialize(self.0, typ, writer)
    }

    fn rust_type(&self) -> &'static str {
        std::any::type_name::<&[V]>()
    }
}

/// One bound value: what [`BindAs`](crate::BindAs) turns a method's argument into.
#[doc(hidden)]
pub enum Bound<'a> {
    /// A borrowed value.
    Value(&'a dyn ErasedValue),
    /// A borrowed string (for `String` columns).
    Str(&'a str),
    /// A list index (`l[?] = ?`).
    Index(i32),
    /// A counter change (`c = c + ?`).
    Counter(i64),
    /// A bucket computed from its source's value (`#[cass(bucket(..))]`).
    Bucket(crate::bucket::BucketValue),
    /// An owned adapter (the list of an `IN`).
    Boxed(Box<dyn ErasedValue + Send + 'a>),
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
            Bound::Bucket(b) => b.write_to(typ, writer),
            Bound::Boxed(v) => v.write_to(typ, writer),
        }
    }

    /// Writes the value for the bind marker `spec`, naming its table and column in an error.
    pub(crate) fn write_for<'b>(
        &self,
        spec: &ColumnSpec<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        self.write_to(spec.typ(), writer)
            .map_err(|e| crate::table::write_error(spec, self.rust_type(), e))
    }

    /// At least as many bytes as [`write_to`](Self::write_to) writes, if known.
    pub(crate) fn size_bound(&self) -> Option<usize> {
        match self {
            Bound::Value(v) => v.size_bound(),
            Bound::Str(s) => Some(s.len()),
            Bound::Index(_) => Some(4),
            Bound::Counter(_) => Some(8),
            Bound::Bucket(_) => Some(crate::bucket::BUCKET_SIZE_BOUND),
            Bound::Boxed(v) => v.size_bound(),
        }
    }

    /// The Rust type of the value, for messages.
    fn rust_type(&self) -> &'static str {
        match self {
            Bound::Value(v) => v.rust_type(),
            Bound::Str(_) => "&str",
            Bound::Index(_) => "i32",
            Bound::Counter(_) => "i64",
            Bound::Bucket(_) => "bucket",
            Bound::Boxed(v) => v.rust_type(),
        }
    }

    /// The same value, borrowed (an owned adapter as a reference to it).
    pub(crate) fn reborrow(&self) -> Bound<'_> {
        match self {
            Bound::Value(v) => Bound::Value(*v),
            Bound::Str(s) => Bound::Str(s),
            Bound::Index(i) => Bound::Index(*i),
            Bound::Counter(n) => Bound::Counter(*n),
            Bound::Bucket(b) => Bound::Bucket(*b),
            Bound::Boxed(b) => Bound::Value(&**b),
        }
    }

    /// A list of values bound to one marker (`IN ?`, map keys to remove).
    pub fn list<V: SerializeValue + Sync + Send>(values: &'a [V]) -> Self {
        Bound::Boxed(Box::new(ListOf(values)))
    }
}

/// Values in bind order, as a row: the typed key arguments of `get` and `partition` (an
/// array, no allocation), or the WHERE values re-bound for the SERIAL read after an LWT.
pub(crate) struct BoundRow<B>(pub(crate) B);

impl<'a, B: AsRef<[Bound<'a>]>> SerializeRow for BoundRow<B> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let values = self.0.as_ref();
        if values.len() != ctx.columns().len() {
            return Err(count_mismatch(ctx));
        }
        for (v, spec) in values.iter().zip(ctx.columns()) {
            v.write_for(spec, writer.make_cell_writer())?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.0.as_ref().is_empty()
    }
}

/// The statement has fewer bind markers than values (a cassmodel bug, never a panic).
#[cold]
pub(crate) fn count_mismatch(ctx: &RowSerializationContext<'_>) -> SerializationError {
    SerializationError::new(crate::RowError::Value {
        table: crate::table::table_of_specs(ctx.columns()).unwrap_or_default(),
        column: String::new(),
        rust_type: "bound values",
        detail: "the number of values differs from the number of bind markers".to_owned(),
    })
}

/// The values of a query in bind order: USING (TTL, TIMESTAMP), the score's query vector,
/// SET, WHERE, IF, the ANN query vector, PER PARTITION LIMIT, LIMIT.
#[derive(Default)]
pub(crate) struct QueryValues<'a> {
    pub(crate) ttl: Option<i32>,
    pub(crate) timestamp: Option<i64>,
    pub(crate) set: Vec<Bound<'a>>,
    pub(crate) where_: Vec<Bound<'a>>,
    pub(crate) if_: Vec<Bound<'a>>,
    /// The query vector of `ORDER BY v ANN OF ?` (and of the score, if read).
    pub(crate) ann: Option<Bound<'a>>,
    /// Whether the score is read (`SELECT similarity_..(v, ?), ...`): the query vector is
    /// then bound first too.
    pub(crate) score: bool,
    pub(crate) per_partition_limit: Option<i32>,
    pub(crate) limit: Option<i32>,
}

impl<'a> QueryValues<'a> {
    /// The bound values in bind order, between USING and the limits: the score's query
    /// vector, SET, WHERE, IF, the ANN query vector.
    fn bound(&self) -> impl Iterator<Item = &Bound<'a>> {
        let score = self.ann.as_ref().filter(|_| self.score);
        score
            .into_iter()
            .chain(&self.set)
            .chain(&self.where_)
            .chain(&self.if_)
            .chain(&self.ann)
    }
}

impl crate::exec::SizeBound for QueryValues<'_> {
    fn size_bound(&self) -> Option<usize> {
        let ints = [self.per_partition_limit, self.limit, self.ttl]
            .into_iter()
            .flatten()
            .map(|_| Some(4));
        let timestamp = self.timestamp.map(|_| Some(8));
        let values = self.bound().map(Bound::size_bound);
        crate::exec::cells_bound(values.chain(ints).chain(timestamp))
    }
}

impl SerializeRow for QueryValues<'_> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let mut specs = ctx.columns().iter();
        let mut next_spec = || specs.next().ok_or_else(|| count_mismatch(ctx));
        if let Some(ttl) = &self.ttl {
            SerializeValue::serialize(ttl, next_spec()?.typ(), writer.make_cell_writer())?;
        }
        if let Some(ts) = &self.timestamp {
            SerializeValue::serialize(ts, next_spec()?.typ(), writer.make_cell_writer())?;
        }
        for v in self.bound() {
            v.write_for(next_spec()?, writer.make_cell_writer())?;
        }
        for n in self.per_partition_limit.iter().chain(&self.limit) {
            SerializeValue::serialize(n, next_spec()?.typ(), writer.make_cell_writer())?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.ttl.is_none()
            && self.timestamp.is_none()
            && self.set.is_empty()
            && self.where_.is_empty()
            && self.if_.is_empty()
            && self.ann.is_none()
            && self.limit.is_none()
            && self.per_partition_limit.is_none()
    }
}
