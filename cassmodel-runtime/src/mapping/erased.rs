//! Values as the runtime writes them, whatever their Rust type: [`ErasedValue`] (a field or
//! argument behind `&dyn`), [`Bound`] (one bound value of a statement) and [`SizeBound`] (how
//! large a write's values can be, known before they are written).

use cassmodel_schema::Similarity;
use scylla::frame::response::result::{ColumnSpec, ColumnType};
use scylla::serialize::SerializationError;
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, WrittenCellProof};
use scylla::value::CqlTimestamp;

use super::bucket::{BUCKET_SIZE_BOUND, BucketValue};
use super::reason::explained;
use super::vector_index::{VectorUse, refuses};
use crate::error::row::{value_refused, write_error};
use crate::schema::model::BucketRule;

/// A value behind a reference, type-erased: a field or argument as its column type writes
/// it. Implemented for every [`CqlMapping`](crate::CqlMapping) type; generated code hands fields out as
/// `&dyn ErasedValue` (`Table::__value`), so that the writing is generic runtime code.
/// (The impl for every `CqlMapping` type is in `types.rs`.)
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
    fn source_bucket(&self, rule: BucketRule) -> Option<BucketValue> {
        let _ = rule;
        None
    }

    /// At least as many bytes as [`write_to`](Self::write_to) writes (the cell's contents,
    /// without its length), when that is known without writing it; `None` otherwise (a
    /// write then serializes its values first to learn their size).
    fn size_bound(&self) -> Option<usize> {
        None
    }

    /// Its components, if it is a vector (`Vector<N>`, `Some` of one, a query vector
    /// `[f32; N]`): what the rules of a vector index check before it is written
    /// ([`check_indexed`]).
    fn vector(&self) -> Option<&[f32]> {
        None
    }

    /// The millisecond (since the epoch, rounded down) of a timestamp with digits below the
    /// millisecond (a `DateTime<Utc>`, `Some` of one): what a range rounds and an equality
    /// of a read cannot match (`statement::state::QueryState::exact_timestamps`). `None`
    /// for any other value.
    fn sub_millis(&self) -> Option<i64> {
        None
    }

    /// For the list of an `IN` in a read: leaves out, when it is written, each timestamp with
    /// digits below the millisecond (no stored timestamp equals one), and says how many
    /// elements are left. `None` when no element is left out, or the value is no such list.
    fn exact_elements_only(&mut self) -> Option<usize> {
        None
    }

    /// Calls `f` with each element of a list or set, or each key of a map (none for `None` of
    /// one): the rows of a table that holds one per element (`#[cass(each = ..)]`). False
    /// for a value that is no collection.
    fn each<'s>(&'s self, _f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        false
    }

    /// Writes the value as a row's cell: with `unset_nulls`, a `None` is left unset (no
    /// tombstone). One call through the `dyn` for what [`is_none`](Self::is_none) and
    /// [`write_to`](Self::write_to) do, on each column an insert writes by its general path
    /// (the others are written by their own type's code: `mapping::cells`).
    #[inline]
    fn write_cell<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
        unset_nulls: bool,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        if unset_nulls && self.is_none() {
            return Ok(writer.set_unset());
        }
        self.write_to(typ, writer)
    }

    /// The [`size_bound`](Self::size_bound) of [`write_cell`](Self::write_cell): 0 for a
    /// `None` left unset.
    #[inline]
    fn cell_bound(&self, unset_nulls: bool) -> Option<usize> {
        if unset_nulls && self.is_none() {
            return Some(0);
        }
        self.size_bound()
    }
}

/// A value of a list bound to one marker (`IN ?`, a set of map keys to remove): every
/// [`CqlMapping`](crate::CqlMapping) type, and `&str`. Not a public API.
#[doc(hidden)]
pub trait ListElement: SerializeValue + Sync {
    /// [`ErasedValue::sub_millis`] of the element.
    #[inline]
    fn __sub_millis(&self) -> Option<i64> {
        None
    }
}

impl ListElement for str {}
impl ListElement for &str {}

/// A list bound to one marker (`IN ?`, a set of map keys to remove).
struct ListOf<'a, V> {
    values: &'a [V],
    /// Whether its timestamps with digits below the millisecond are left out
    /// ([`ErasedValue::exact_elements_only`]).
    exact_only: bool,
}

impl<V: ListElement> ListOf<'_, V> {
    /// The elements that are not timestamps with digits below the millisecond.
    fn exact(&self) -> impl Iterator<Item = &V> {
        self.values.iter().filter(|v| v.__sub_millis().is_none())
    }
}

impl<V: ListElement> ErasedValue for ListOf<'_, V> {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        if self.exact_only {
            let kept: Vec<&V> = self.exact().collect();
            return SerializeValue::serialize(&kept, typ, writer);
        }
        SerializeValue::serialize(self.values, typ, writer)
    }

    fn rust_type(&self) -> &'static str {
        std::any::type_name::<&[V]>()
    }

    fn exact_elements_only(&mut self) -> Option<usize> {
        let kept = self.exact().count();
        if kept == self.values.len() {
            return None;
        }
        self.exact_only = true;
        Some(kept)
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
    Bucket(BucketValue),
    /// An owned adapter (the list of an `IN`).
    Boxed(Box<dyn ErasedValue + Send + 'a>),
    /// A vector compared by a vector index or a similarity function: checked against its
    /// rules ([`check_vector`]) before it is written.
    Vector(&'a dyn ErasedValue, VectorUse),
    /// A timestamp's milliseconds since the epoch: a range's bound with digits below the
    /// millisecond, rounded so as to keep the same rows
    /// (`statement::state::QueryState::exact_timestamps`).
    Millis(i64),
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
            Bound::Bucket(b) => b.write(typ, writer),
            Bound::Boxed(v) => v.write_to(typ, writer),
            Bound::Vector(v, user) => {
                check_vector(*v, *user)?;
                v.write_to(typ, writer)
            }
            Bound::Millis(ms) => SerializeValue::serialize(&CqlTimestamp(*ms), typ, writer),
        }
    }

    /// The millisecond of a timestamp value with digits below the millisecond
    /// ([`ErasedValue::sub_millis`]).
    #[inline]
    pub(crate) fn sub_millis(&self) -> Option<i64> {
        match self {
            Bound::Value(v) => v.sub_millis(),
            Bound::Boxed(v) => v.sub_millis(),
            _ => None,
        }
    }

    /// [`ErasedValue::exact_elements_only`] of an `IN`'s list.
    #[inline]
    pub(crate) fn exact_elements_only(&mut self) -> Option<usize> {
        match self {
            Bound::Boxed(v) => v.exact_elements_only(),
            _ => None,
        }
    }

    /// This value, for a column whose vector index ranks by `similarity` (`None`: the
    /// column has none): checked against the index's rules when it is written.
    #[inline]
    pub(crate) fn for_vector_index(self, similarity: Option<Similarity>) -> Self {
        match (self, similarity) {
            (Bound::Value(v), Some(s)) => Bound::Vector(v, VectorUse::Index(s)),
            (b, _) => b,
        }
    }

    /// This value, the query vector of `similarity_<function>(column, ?)`: checked against
    /// the function's rules when it is written.
    #[inline]
    pub(crate) fn for_similarity(self, function: Similarity) -> Self {
        match self {
            Bound::Value(v) => Bound::Vector(v, VectorUse::Function(function)),
            b => b,
        }
    }

    /// Writes the value for the bind marker `spec`, naming its table and column in an error.
    pub(crate) fn write_for<'b>(
        &self,
        spec: &ColumnSpec<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        self.write_to(spec.typ(), writer)
            .map_err(|e| write_error(spec, self.rust_type(), explained(e)))
    }

    /// At least as many bytes as [`write_to`](Self::write_to) writes, if known.
    pub(crate) fn size_bound(&self) -> Option<usize> {
        match self {
            Bound::Value(v) => v.size_bound(),
            Bound::Str(s) => Some(s.len()),
            Bound::Index(_) => Some(4),
            Bound::Counter(_) => Some(8),
            Bound::Bucket(_) => Some(BUCKET_SIZE_BOUND),
            Bound::Boxed(v) => v.size_bound(),
            Bound::Vector(v, _) => v.size_bound(),
            Bound::Millis(_) => Some(8),
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
            Bound::Vector(v, _) => v.rust_type(),
            Bound::Millis(_) => "timestamp",
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
            Bound::Vector(v, u) => Bound::Vector(*v, *u),
            Bound::Millis(ms) => Bound::Millis(*ms),
        }
    }

    /// A list of values bound to one marker (`IN ?`, map keys to remove).
    pub fn list<V: ListElement + Send>(values: &'a [V]) -> Self {
        Bound::Boxed(Box::new(ListOf {
            values,
            exact_only: false,
        }))
    }
}

/// Refuses a vector `user` cannot compare ([`refuses`]), before it is written; any other value
/// passes.
pub(crate) fn check_vector(
    value: &dyn ErasedValue,
    user: VectorUse,
) -> Result<(), SerializationError> {
    match value.vector().and_then(|v| refuses(v, user)) {
        Some(detail) => Err(value_refused(value.rust_type(), detail)),
        None => Ok(()),
    }
}

impl ErasedValue for BucketValue {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        self.write(typ, writer)
    }

    fn rust_type(&self) -> &'static str {
        "bucket"
    }
}

/// Values whose serialized size has a known upper bound: a write whose bound fits the request
/// limit is handed to the driver as it is, others are serialized first to learn their size.
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
