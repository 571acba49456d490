//! The Rust-to-CQL type mapping: [`CqlMapping`] and its implementations, which key columns
//! and bucket sources a type may be.
//!
//! [`CqlMapping`] says which CQL type a Rust type is stored as. It is implemented for every
//! CQL native type the scylla driver supports, for `Option<T>`, the standard collections,
//! tuples, and (through `#[derive(CassUdt)]`) user-defined types. Implement it for a type of
//! your own to use that type as a column.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};

use cassmodel_schema::{CqlType, NativeType};
use scylla::deserialize::value::{DeserializeValue, MapIterator};
use scylla::serialize::value::SerializeValue;
use scylla::value::{
    Counter, CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, CqlTimeuuid, CqlVarint,
};

use scylla::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
use scylla::frame::response::result::{CollectionType, ColumnType};
use scylla::serialize::SerializationError;
use scylla::serialize::writers::{CellWriter, WrittenCellProof};

use chrono::NaiveDate;

use super::bucket::BucketValue;
use super::cells::{Cell, CellStop, Walk};
use super::erased::{Bound, ErasedValue, ListElement};
use crate::error::row::value_refused;
use crate::schema::model::{BucketRule, ColumnDef, ColumnKind, UdtSchema};

/// A Rust type that can be stored in a CQL column (or a UDT field, or a collection element).
///
/// The derive macros require it for every field; the scylla driver's
/// [`SerializeValue`]/[`DeserializeValue`] do the actual encoding.
///
/// # Types behind features
///
/// | feature | Rust type | CQL type |
/// |---|---|---|
/// | `num-bigint` | `num_bigint::BigInt` (0.4) | `varint` |
/// | `bigdecimal` | `bigdecimal::BigDecimal` (0.4) | `decimal` |
/// | `time` | `time::Date`, `time::Time`, `time::OffsetDateTime` (0.3) | `date`, `time`, `timestamp` |
///
/// Without a feature, `varint` and `decimal` are held in `cassmodel::value::Varint` and
/// `Decimal`, and dates and times in chrono's types. An `OffsetDateTime` with digits below the
/// millisecond is written truncated to its millisecond and compared exactly in reads, as a
/// `DateTime<Utc>` is; it reads back in UTC.
/// `rust_decimal::Decimal` is not mapped: the driver does not encode it, and its 96-bit
/// mantissa holds fewer values than a CQL `decimal` (a value written by another client could
/// not be read); hold such a column in a `BigDecimal` and convert.
///
/// # Collections
///
/// A `Vec<T>` is a `list`, a `HashSet<T>` or `BTreeSet<T>` a `set`, a `HashMap<K, V>` or
/// `BTreeMap<K, V>` a `map` (elements that are collections themselves are frozen). A `Vec`
/// holds a set or a map too, given the column's type with `#[cass(cql_type = "...")]`: a
/// `Vec<T>` with `cql_type = "set<..>"`, and a `Vec` of pairs `(K, V)` with
/// `cql_type = "map<..>"`, one pair per entry. That is how a set or map of floats is held
/// (`f32` and `f64` are neither `Hash` nor `Ord`, so no `HashSet` or `BTreeMap` takes them).
/// Read back, its elements or entries come in the server's order (of the keys, for a map:
/// `-Infinity`, `-0.0`, `0.0`, ..., `Infinity`, `NaN`), each value or key once (a key
/// written twice keeps its last value).
///
/// Cassandra stores an empty collection that is not frozen as no value at all, a null: it
/// reads back as `None` from an `Option<Vec<_>>` field (so `Some(vec![])` written reads back
/// `None`), and as an empty collection from a plain `Vec<_>` field (a field that cannot hold
/// a null reads a null collection as empty). A frozen collection keeps its empty value.
///
/// ```no_run
/// use cassmodel::CassTable;
///
/// #[derive(CassTable)]
/// struct Player {
///     #[partition_key]
///     id: i32,
///     /// Scores by their weight: a `map<float, int>`, float keys in a `Vec` of pairs.
///     #[cass(cql_type = "map<float, int>")]
///     by_weight: Vec<(f32, i32)>,
///     /// Empty reads back as `None`.
///     nicknames: Option<Vec<String>>,
///     /// Empty reads back as empty.
///     badges: Vec<String>,
/// }
///
/// # async fn f(db: &cassmodel::Db) -> cassmodel::Result<()> {
/// let p = Player { id: 1, by_weight: vec![(0.5, 3), (-1.5, 7)], nicknames: Some(vec![]), badges: vec![] };
/// db.insert(&p).await?;
/// let back = Player::get(db, &1).await?.expect("the row");
/// assert_eq!(back.by_weight, vec![(-1.5, 7), (0.5, 3)]); // in the order of the keys
/// assert_eq!(back.nicknames, None); // the empty list was stored as null
/// assert_eq!(back.badges, Vec::<String>::new());
/// # Ok(()) }
/// ```
///
/// # Implementing it for your own type
///
/// ```
/// use cassmodel_runtime::{CqlMapping, CqlType, NativeType};
/// use cassmodel_runtime::scylla::serialize::{value::SerializeValue, writers::{CellWriter, WrittenCellProof}, SerializationError};
/// use cassmodel_runtime::scylla::deserialize::{value::DeserializeValue, DeserializationError, FrameSlice, TypeCheckError};
/// use cassmodel_runtime::scylla::frame::response::result::ColumnType;
///
/// /// An e-mail address, stored as `text`.
/// struct Email(String);
///
/// impl SerializeValue for Email {
///     fn serialize<'b>(&self, typ: &ColumnType, w: CellWriter<'b>)
///         -> Result<WrittenCellProof<'b>, SerializationError> {
///         self.0.serialize(typ, w)
///     }
/// }
/// impl<'f, 'm> DeserializeValue<'f, 'm> for Email {
///     fn type_check(typ: &ColumnType) -> Result<(), TypeCheckError> {
///         <String as DeserializeValue>::type_check(typ)
///     }
///     fn deserialize(typ: &'m ColumnType<'m>, v: Option<FrameSlice<'f>>)
///         -> Result<Self, DeserializationError> {
///         String::deserialize(typ, v).map(Email)
///     }
/// }
/// impl CqlMapping for Email {
///     fn cql_type() -> CqlType { CqlType::Native(NativeType::Text) }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no CQL type, so it cannot be stored in a column: derive `CassUdt` on it (for a struct), implement `cassmodel::model::CqlMapping` for it, or use a mapped type",
    label = "no CQL mapping for `{Self}`",
    note = "cassmodel maps String, i8/i16/i32/i64, f32/f64, bool, Uuid, IpAddr, Vec<u8> (blob), the `cassmodel::value` types (Timeuuid, Date, Time, Timestamp, Duration, Varint, Decimal, Counter), chrono's DateTime<Utc>/NaiveDate/NaiveTime, Option<T>, Vec/HashSet/BTreeSet/HashMap/BTreeMap, tuples, and structs with #[derive(CassUdt)]"
)]
pub trait CqlMapping: SerializeValue + for<'f, 'm> DeserializeValue<'f, 'm> + Sync {
    /// The CQL type this Rust type is stored as by default. A field can override it with
    /// `#[cass(cql_type = "...")]` (e.g. `ascii` for a `String`).
    fn cql_type() -> CqlType;

    /// Whether the type can hold a CQL null (true for `Option<T>`).
    const NULLABLE: bool = false;

    /// Pushes the user-defined types this type refers to, each after the types it depends
    /// on, so that `CREATE TYPE` statements can run in this order.
    fn collect_udts(_out: &mut Vec<&'static UdtSchema>) {}

    // The hidden methods below are what generated code calls. Every use of a field's type
    // goes through `<Ty as CqlMapping>::...`, so a type without a mapping gives one error on
    // the field (identical diagnostics are merged) rather than one per use.

    #[doc(hidden)]
    fn __column(
        name: &'static str,
        field: &'static str,
        kind: ColumnKind,
        cql_type: Option<CqlType>,
        frozen: bool,
    ) -> ColumnDef
    where
        Self: Sized,
    {
        ColumnDef::new::<Self>(name, field, kind, cql_type, frozen)
    }

    #[doc(hidden)]
    fn __erased(&self) -> &dyn ErasedValue
    where
        Self: Sized + Sync,
    {
        self
    }

    /// The value as a row's cell, as an insert writes it (`Table::__cells`).
    #[doc(hidden)]
    #[inline(always)]
    fn __cell(&self) -> Cell<'_, Self>
    where
        Self: Sized,
    {
        Cell::new(self, write_cell::<Self>)
    }

    #[doc(hidden)]
    fn __type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
        <Self as DeserializeValue<'_, '_>>::type_check(typ)
    }

    #[doc(hidden)]
    fn __is_none(&self) -> bool {
        false
    }

    /// The bucket of this value (`None`: not a bucket source).
    #[doc(hidden)]
    fn __bucket(&self, rule: BucketRule) -> Option<BucketValue> {
        let _ = rule;
        None
    }

    /// The bucket of the last value before this one: the last bucket of a range that ends
    /// before this value (`None`: not a bucket source).
    #[doc(hidden)]
    fn __bucket_before(&self, rule: BucketRule) -> Option<BucketValue> {
        let _ = rule;
        None
    }

    /// At least as many bytes as `__write` writes, when known without writing
    /// ([`ErasedValue::size_bound`](ErasedValue::size_bound)).
    #[doc(hidden)]
    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        None
    }

    /// Refuses a value its CQL type cannot hold exactly (a `DateTime<Utc>` with digits below
    /// the millisecond), before anything is written; collections check their elements.
    #[doc(hidden)]
    #[inline]
    fn __check(&self) -> Result<(), SerializationError> {
        Ok(())
    }

    /// The components of a vector value (a `Vector<N>`, or `Some` of one), for the rules of a
    /// vector index ([`ErasedValue::vector`]).
    #[doc(hidden)]
    #[inline]
    fn __vector(&self) -> Option<&[f32]> {
        None
    }

    /// For a timestamp with digits below the millisecond (a `DateTime<Utc>`, an
    /// `OffsetDateTime`, or `Some` of one): the millisecond it falls in, since the epoch
    /// (rounded down). `None` for any other value ([`ErasedValue::sub_millis`]).
    #[doc(hidden)]
    #[inline]
    fn __sub_millis(&self) -> Option<i64> {
        None
    }

    /// Calls `f` with each element of a list or set, or each key of a map (none for `None`);
    /// false for a value that is no collection ([`ErasedValue::each`]).
    #[doc(hidden)]
    fn __each<'s>(&'s self, _f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        false
    }

    #[doc(hidden)]
    #[inline]
    fn __write<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        self.__check()?;
        SerializeValue::serialize(self, typ, writer)
    }

    #[doc(hidden)]
    fn __read<'f, 'm>(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Self, DeserializationError>
    where
        Self: Sized,
    {
        <Self as DeserializeValue<'f, 'm>>::deserialize(typ, v)
    }

    // A `Vec<Self>` and a CQL map: a pair `(K, V)` is one entry (the impl of 2-tuples);
    // any other type is not, and a `Vec` of it gives the driver's error.

    /// `type_check` of a `Vec<Self>` against the map type `typ`.
    #[doc(hidden)]
    fn __map_type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError>
    where
        Self: Sized,
    {
        <Vec<Self> as DeserializeValue<'_, '_>>::type_check(typ)
    }

    /// Writes `entries` for the map type `typ`.
    #[doc(hidden)]
    fn __write_map<'b>(
        entries: &[Self],
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError>
    where
        Self: Sized,
    {
        SerializeValue::serialize(entries, typ, writer)
    }

    /// Reads the entries of a value of the map type `typ`.
    #[doc(hidden)]
    fn __read_map<'f, 'm>(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Vec<Self>, DeserializationError>
    where
        Self: Sized,
    {
        <Vec<Self> as DeserializeValue<'f, 'm>>::deserialize(typ, v)
    }
}

/// Writes `v` as column `i`'s cell of `walk` (the [`Cell`] of a `V`).
#[inline(always)]
fn write_cell<V: CqlMapping>(v: &V, i: usize, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop> {
    walk.write(
        i,
        v.__is_none(),
        || v.__size_bound(),
        |typ, w| v.__write(typ, w),
    )
}

impl<T: CqlMapping> ListElement for T {
    #[inline]
    fn __sub_millis(&self) -> Option<i64> {
        CqlMapping::__sub_millis(self)
    }
}

impl<T: CqlMapping> ErasedValue for T {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        self.__write(typ, writer)
    }

    fn rust_type(&self) -> &'static str {
        std::any::type_name::<T>()
    }

    fn is_none(&self) -> bool {
        self.__is_none()
    }

    fn source_bucket(&self, rule: BucketRule) -> Option<BucketValue> {
        self.__bucket(rule)
    }

    fn size_bound(&self) -> Option<usize> {
        self.__size_bound()
    }

    fn vector(&self) -> Option<&[f32]> {
        self.__vector()
    }

    fn sub_millis(&self) -> Option<i64> {
        self.__sub_millis()
    }

    fn each<'s>(&'s self, f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        self.__each(f)
    }
}

impl ColumnDef {
    /// Describes field `field` of Rust type `T`, stored as column `name`.
    ///
    /// `cql_type` overrides `T`'s default CQL type; `frozen` wraps the type in `frozen<...>`.
    pub fn new<T: CqlMapping>(
        name: &'static str,
        field: &'static str,
        kind: ColumnKind,
        cql_type: Option<CqlType>,
        frozen: bool,
    ) -> Self {
        let declared_type = cql_type.is_some();
        let mut t = cql_type.unwrap_or_else(T::cql_type);
        if frozen {
            t = t.frozen();
        }
        let mut udts = Vec::new();
        T::collect_udts(&mut udts);
        let mut column = ColumnDef::from_parts(
            name,
            field,
            t,
            kind,
            T::NULLABLE,
            std::any::type_name::<T>(),
            udts,
            T::__type_check,
        );
        column.declared_type = declared_type;
        column
    }
}

/// A type that may be a partition-key or clustering column.
///
/// Not implemented for `Option<T>` (key columns are never null; an element of a key tuple
/// may be, [`KeyElement`]), non-frozen collections, user-defined types (they must be
/// frozen), `Counter` and `CqlDuration`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a primary-key column: add `#[cass(frozen)]` to the field if it is a collection or user-defined type, else move the field out of the key",
    label = "not allowed in a primary key",
    note = "partition-key and clustering columns cannot be null (`Option`), counters, durations, or non-frozen collections and user-defined types",
    note = "for an `Option`, key the table on the inner type: a key column always has a value"
)]
pub trait KeyColumn: CqlMapping {}

/// A type that may be an element of a tuple in a partition-key or clustering column: a key
/// column's type, or an `Option` of one. The tuple of a key column is never null, but each of
/// its elements may be (`(1, null)` is a legal key in CQL, and `cassmodel pull` writes every
/// element of a tuple as an `Option` so that such a key reads back).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of a tuple in a primary key",
    label = "not allowed in a primary key's tuple",
    note = "an element of a key tuple is a type a key column may have, or an `Option` of one: not a counter, a duration or a collection"
)]
pub trait KeyElement: CqlMapping {}

#[diagnostic::do_not_recommend]
impl<T: KeyColumn> KeyElement for T {}

/// A null element of a key tuple.
#[diagnostic::do_not_recommend]
impl<T: KeyColumn> KeyElement for Option<T> {}

macro_rules! native {
    // `#[cfg(feature = "..")]` before a type gates its impls (and docs.rs shows the feature
    // on them, which it cannot for a gated invocation of the macro).
    ($($(#[$m:meta])* $t:ty => $n:ident $(, key $k:tt)? $(, bucket $b:tt)? $(, size $s:tt)? $(, check $c:ident)?;)*) => {$(
        $(#[$m])*
        impl CqlMapping for $t {
            fn cql_type() -> CqlType {
                CqlType::Native(NativeType::$n)
            }
            $(native!(@bucket $b);)?
            $(native!(@size $s);)?
            $(native!(@check $c);)?
        }
        native!(@key [$(#[$m])*] $t $(, $k)?);
    )*};
    // The bytes of a value (`size_bound`): as many as its length, or a fixed width.
    (@size len) => {
        #[inline]
        fn __size_bound(&self) -> Option<usize> {
            Some(self.len())
        }
    };
    // An address: 4 bytes for IPv4, 16 for IPv6 (exact: an insert refuses values over the
    // request limit by their bounds).
    (@size inet) => {
        #[inline]
        fn __size_bound(&self) -> Option<usize> {
            Some(if self.is_ipv4() { 4 } else { 16 })
        }
    };
    (@size $n:literal) => {
        #[inline]
        fn __size_bound(&self) -> Option<usize> {
            Some($n)
        }
    };
    // A value the CQL type cannot hold, refused before it is written (`check` is a function
    // of the value).
    (@check $c:ident) => {
        #[inline]
        fn __check(&self) -> Result<(), SerializationError> {
            $c(self)
        }
    };
    // A bucket source (`bucket.rs`): its bucket, reachable through `ErasedValue`.
    (@bucket yes) => {
        fn __bucket(&self, rule: BucketRule) -> Option<BucketValue> {
            Some(BucketSource::bucket(self, rule))
        }

        fn __bucket_before(&self, rule: BucketRule) -> Option<BucketValue> {
            Some(BucketSource::bucket_before(self, rule))
        }
    };
    // `do_not_recommend` on every `KeyColumn` impl keeps rustc from listing them all under
    // an error; the trait's notes say what a key column may be.
    (@key [$(#[$m:meta])*] $t:ty, yes) => {
        $(#[$m])*
        #[diagnostic::do_not_recommend]
        impl KeyColumn for $t {}
    };
    (@key [$(#[$m:meta])*] $t:ty) => {};
}

native! {
    String => Text, key yes, size len;
    i8 => Tinyint, key yes, size 1;
    i16 => Smallint, key yes, size 2;
    i32 => Int, key yes, bucket yes, size 4;
    i64 => Bigint, key yes, bucket yes, size 8;
    f32 => Float, key yes, size 4;
    f64 => Double, key yes, size 8;
    bool => Boolean, key yes, size 1;
    CqlTimeuuid => Timeuuid, key yes, size 16;
    CqlVarint => Varint, key yes;
    CqlDecimal => Decimal, key yes;
    CqlTimestamp => Timestamp, key yes, size 8;
    CqlDate => Date, key yes, size 4;
    CqlTime => Time, key yes, size 8, check time_of_day;
    chrono::NaiveDate => Date, key yes, bucket yes, size 4;
    chrono::NaiveTime => Time, key yes, size 8, check not_leap_second;
    IpAddr => Inet, key yes, size inet;
    Vec<u8> => Blob, key yes, size len;
    CqlDuration => Duration;
}

/// A counter column that was never incremented holds no value on the server (a null), and
/// every Cassandra client reads it as 0: so does a `Counter` field, in a table, a projection
/// or an entity. An `Option<Counter>` field reads it as `None`.
impl CqlMapping for Counter {
    fn cql_type() -> CqlType {
        CqlType::Native(NativeType::Counter)
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        Some(8)
    }

    #[inline]
    fn __read<'f, 'm>(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Self, DeserializationError> {
        match v {
            None => Ok(Counter(0)),
            Some(_) => <Self as DeserializeValue<'f, 'm>>::deserialize(typ, v),
        }
    }
}

/// Nanoseconds in a day: a CQL `time` is at least 0 (00:00) and below this (24:00).
const NANOS_PER_DAY: i64 = 86_400_000_000_000;

/// A CQL `time` is a time of day, in nanoseconds since midnight: 0 to 86,399,999,999,999.
/// Cassandra stores a value outside that range (-1, or 24:00) without complaint, and then
/// every read of the row fails (a driver cannot make a time of day of it), so such a `Time`
/// is refused when it is bound, naming the table and column.
#[inline]
fn time_of_day(t: &CqlTime) -> Result<(), SerializationError> {
    if (0..NANOS_PER_DAY).contains(&t.0) {
        return Ok(());
    }
    Err(time_out_of_day(t.0))
}

#[cold]
fn time_out_of_day(nanos: i64) -> SerializationError {
    value_refused(
        "Time",
        format!(
            "`Time({nanos})` is not a time of day: a CQL time holds the nanoseconds since \
             midnight, 0 (00:00:00) to {} (23:59:59.999999999); for a span of time use a \
             `duration` column (`cassmodel::value::Duration`) or an integer",
            NANOS_PER_DAY - 1
        ),
    )
}

/// chrono writes a leap second as 23:59:59 plus a second's worth of nanoseconds (shown as
/// `23:59:60`), which a CQL `time` cannot hold: refused when bound, rather than left to the
/// driver's bare "value overflow".
#[inline]
fn not_leap_second(t: &chrono::NaiveTime) -> Result<(), SerializationError> {
    use chrono::Timelike;
    if t.nanosecond() < 1_000_000_000 {
        return Ok(());
    }
    Err(leap_second(t))
}

#[cold]
fn leap_second(t: &chrono::NaiveTime) -> SerializationError {
    value_refused(
        "NaiveTime",
        format!(
            "`{t}` is a leap second, which a CQL time cannot hold (it ends at \
             23:59:59.999999999); store the second before it or after it"
        ),
    )
}

/// A CQL `timestamp` holds milliseconds; a `DateTime<Utc>` holds nanoseconds (`Utc::now()`
/// has them). cassmodel takes such a value to the millisecond the way that keeps every
/// statement's meaning:
///
/// - **Written** (an insert, an update's values and key, a delete's key, a batch), it is
///   truncated to its millisecond (rounded down, towards the past), as the Java, Python and
///   Rust drivers do: `Utc::now()` can be written as it is, and reads back truncated.
/// - **A range** (`_gt`, `_ge`, `_lt`, `_le`, a bucket range, a condition's `<`, `<=`, `>`,
///   `>=`), in a read or a write, is rounded in the direction that keeps exactly the rows the
///   exact value would: `> t` and `<= t` to `t`'s millisecond, `>= t` and `< t` to the next one.
/// - **A read's equality** (`get`, `=`, `IN`) with digits below the millisecond matches no
///   row, since no stored timestamp has them: such a read returns nothing without a request,
///   and an `IN` leaves such values out. To read back by a time you also wrote, truncate it
///   once (`Utc::now().trunc_subsecs(3)`, chrono's `SubsecRound`) and use that value for both.
///
/// [`strict_timestamps`] makes writes refuse such values instead
/// ([`RowError::Refused`](crate::RowError), [`ErrorKind::InvalidRequest`](crate::ErrorKind)).
impl CqlMapping for chrono::DateTime<chrono::Utc> {
    fn cql_type() -> CqlType {
        CqlType::Native(NativeType::Timestamp)
    }

    fn __bucket(&self, rule: BucketRule) -> Option<BucketValue> {
        Some(BucketSource::bucket(self, rule))
    }

    fn __bucket_before(&self, rule: BucketRule) -> Option<BucketValue> {
        Some(BucketSource::bucket_before(self, rule))
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        Some(8)
    }

    #[inline]
    fn __check(&self) -> Result<(), SerializationError> {
        if self.timestamp_subsec_nanos().is_multiple_of(1_000_000) || !strict() {
            return Ok(());
        }
        Err(sub_millisecond(self))
    }

    #[inline]
    fn __sub_millis(&self) -> Option<i64> {
        if self.timestamp_subsec_nanos().is_multiple_of(1_000_000) {
            return None;
        }
        Some(self.timestamp_millis())
    }
}
#[diagnostic::do_not_recommend]
impl KeyColumn for chrono::DateTime<chrono::Utc> {}

/// Whether writes refuse timestamps with digits below the millisecond ([`strict_timestamps`]).
static STRICT_TIMESTAMPS: AtomicBool = AtomicBool::new(false);

/// Makes every write of this process refuse a `DateTime<Utc>` (or, with the `time` feature,
/// an `OffsetDateTime`) with digits below the millisecond, instead of truncating it (`true`),
/// or truncate again (`false`, the default). For programs that want to find where such values
/// come from, e.g. in their tests. Reads are not affected: their ranges are rounded so as to
/// keep exactly the rows the exact value would, and an equality on such a value matches no
/// row (see the mapping of [`DateTime<Utc>`](chrono::DateTime)).
///
/// ```
/// use chrono::{TimeZone, Utc};
/// cassmodel_runtime::value::strict_timestamps(true);
/// // Any write of this value now fails with `ErrorKind::InvalidRequest`, naming the table,
/// // the column and the value truncated.
/// let _t = Utc.timestamp_nanos(1_700_000_000_123_456_789);
/// cassmodel_runtime::value::strict_timestamps(false);
/// ```
pub fn strict_timestamps(strict: bool) {
    STRICT_TIMESTAMPS.store(strict, Ordering::Relaxed);
}

/// Whether [`strict_timestamps`] is on (read only for a value with digits below the
/// millisecond).
#[cold]
fn strict() -> bool {
    STRICT_TIMESTAMPS.load(Ordering::Relaxed)
}

#[cold]
fn sub_millisecond(t: &chrono::DateTime<chrono::Utc>) -> SerializationError {
    use chrono::SubsecRound;
    value_refused(
        "DateTime<Utc>",
        format!(
            "`{}` has digits below the millisecond, which a CQL timestamp cannot hold, and strict \
             timestamps are on (`cassmodel::value::strict_timestamps`): it would be stored as \
             `{}`; round it first with chrono's `SubsecRound::trunc_subsecs(3)`",
            t.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
            t.trunc_subsecs(3)
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        ),
    )
}

native! {
    #[cfg(feature = "num-bigint")]
    num_bigint::BigInt => Varint, key yes;
    #[cfg(feature = "bigdecimal")]
    bigdecimal::BigDecimal => Decimal, key yes;
    #[cfg(feature = "time")]
    time::Date => Date, key yes, size 4;
    #[cfg(feature = "time")]
    time::Time => Time, key yes, size 8;
}

/// As `DateTime<Utc>`: an `OffsetDateTime` with digits below the millisecond is truncated to
/// its millisecond when written (refused with [`strict_timestamps`]), rounded so as to keep
/// the same rows in a range, and matches no row in a read's equality. It is stored as its
/// instant and read back in UTC (the same instant: `==` holds for a value of whole
/// milliseconds).
#[cfg(feature = "time")]
impl CqlMapping for time::OffsetDateTime {
    fn cql_type() -> CqlType {
        CqlType::Native(NativeType::Timestamp)
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        Some(8)
    }

    #[inline]
    fn __check(&self) -> Result<(), SerializationError> {
        if self.nanosecond().is_multiple_of(1_000_000) || !strict() {
            return Ok(());
        }
        Err(value_refused(
            "OffsetDateTime",
            format!(
                "`{self}` has digits below the millisecond, which a CQL timestamp cannot hold, \
                 and strict timestamps are on (`cassmodel::value::strict_timestamps`); round \
                 it first, e.g. `t.replace_millisecond(t.millisecond())`"
            ),
        ))
    }

    #[inline]
    fn __sub_millis(&self) -> Option<i64> {
        if self.nanosecond().is_multiple_of(1_000_000) {
            return None;
        }
        i64::try_from(self.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
    }
}
#[cfg(feature = "time")]
#[diagnostic::do_not_recommend]
impl KeyColumn for time::OffsetDateTime {}

/// `uuid` by default; with `#[cass(cql_type = "timeuuid")]` a `Uuid` field reads and writes a
/// `timeuuid` column too (the driver only accepts `CqlTimeuuid` there, so the value is
/// converted; a non-time-based UUID is refused by the server, not silently stored).
impl CqlMapping for uuid::Uuid {
    fn cql_type() -> CqlType {
        CqlType::Native(NativeType::Uuid)
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        Some(16)
    }

    fn __type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
        if is_timeuuid(typ) {
            Ok(())
        } else {
            <Self as DeserializeValue<'_, '_>>::type_check(typ)
        }
    }

    #[inline]
    fn __write<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        if is_timeuuid(typ) {
            CqlTimeuuid::from(*self).serialize(typ, writer)
        } else {
            SerializeValue::serialize(self, typ, writer)
        }
    }

    #[inline]
    fn __read<'f, 'm>(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Self, DeserializationError> {
        if is_timeuuid(typ) {
            <CqlTimeuuid as DeserializeValue<'f, 'm>>::deserialize(typ, v).map(Into::into)
        } else {
            <Self as DeserializeValue<'f, 'm>>::deserialize(typ, v)
        }
    }
}
#[diagnostic::do_not_recommend]
impl KeyColumn for uuid::Uuid {}

#[inline]
fn is_map(typ: &ColumnType<'_>) -> bool {
    matches!(
        typ,
        ColumnType::Collection {
            typ: CollectionType::Map(..),
            ..
        }
    )
}

/// Writes the entries `entries` (`len` of them) as a value of the map type `typ` (key type
/// `key`, value type `value`), as the driver writes a map; its errors are the driver's.
fn write_map<'t, 'b, K: SerializeValue + 't, V: SerializeValue + 't>(
    rust_name: &'static str,
    len: usize,
    entries: impl Iterator<Item = (&'t K, &'t V)>,
    typ: &ColumnType<'_>,
    writer: CellWriter<'b>,
) -> Result<WrittenCellProof<'b>, SerializationError> {
    use scylla::serialize::value::{
        BuiltinSerializationError as E, BuiltinSerializationErrorKind as Kind,
        MapSerializationErrorKind as MapKind,
    };
    let ColumnType::Collection {
        typ: CollectionType::Map(key, value),
        ..
    } = typ
    else {
        return Err(SerializationError::new(
            scylla::serialize::value::BuiltinTypeCheckError {
                rust_name,
                got: typ.clone().into_owned(),
                kind: scylla::serialize::value::MapTypeCheckErrorKind::NotMap.into(),
            },
        ));
    };
    let error = |kind: Kind| {
        SerializationError::new(E {
            rust_name,
            got: typ.clone().into_owned(),
            kind,
        })
    };
    let mut builder = writer.into_value_builder();
    let count = i32::try_from(len).map_err(|_| error(MapKind::TooManyElements.into()))?;
    builder.append_bytes(&count.to_be_bytes());
    for (k, v) in entries {
        k.serialize(key, builder.make_sub_writer())
            .map_err(|e| error(MapKind::KeySerializationFailed(e).into()))?;
        v.serialize(value, builder.make_sub_writer())
            .map_err(|e| error(MapKind::ValueSerializationFailed(e).into()))?;
    }
    builder.finish().map_err(|_| error(Kind::SizeOverflow))
}

#[inline]
fn is_timeuuid(typ: &ColumnType<'_>) -> bool {
    matches!(
        typ,
        ColumnType::Native(scylla::frame::response::result::NativeType::Timeuuid)
    )
}

impl<T: CqlMapping> CqlMapping for Option<T> {
    fn __each<'s>(&'s self, f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        match self {
            Some(c) => c.__each(f),
            None => true,
        }
    }

    const NULLABLE: bool = true;

    fn cql_type() -> CqlType {
        T::cql_type()
    }

    fn collect_udts(out: &mut Vec<&'static UdtSchema>) {
        T::collect_udts(out)
    }

    fn __type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
        T::__type_check(typ)
    }

    fn __is_none(&self) -> bool {
        self.is_none()
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        self.as_ref().map_or(Some(0), T::__size_bound)
    }

    fn __check(&self) -> Result<(), SerializationError> {
        self.as_ref().map_or(Ok(()), T::__check)
    }

    #[inline]
    fn __vector(&self) -> Option<&[f32]> {
        self.as_ref().and_then(T::__vector)
    }

    #[inline]
    fn __sub_millis(&self) -> Option<i64> {
        self.as_ref().and_then(T::__sub_millis)
    }

    fn __write<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        match self {
            Some(v) => v.__write(typ, writer),
            None => Ok(writer.set_null()),
        }
    }

    fn __read<'f, 'm>(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Self, DeserializationError> {
        match v {
            Some(_) => T::__read(typ, v).map(Some),
            None => Ok(None),
        }
    }
}

/// The size bound of a collection's contents from its elements' (a map's keys and values in
/// turn): the element count, then each element with its length, as the protocol writes
/// them. `None` if an element has none.
fn collection_bound(elements: impl Iterator<Item = Option<usize>>) -> Option<usize> {
    let mut sum = 4usize;
    for e in elements {
        sum = sum.saturating_add(4).saturating_add(e?);
    }
    Some(sum)
}

/// A `list` (or a `set`: the driver reads and writes a `Vec` as either); a `Vec` of pairs
/// `(K, V)` with `#[cass(cql_type = "map<..>")]` is a `map` (see [`CqlMapping`]).
impl<T: CqlMapping> CqlMapping for Vec<T> {
    fn __each<'s>(&'s self, f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        self.iter().for_each(|e| f(e));
        true
    }

    fn __check(&self) -> Result<(), SerializationError> {
        self.iter().try_for_each(T::__check)
    }

    fn __type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
        if is_map(typ) {
            return T::__map_type_check(typ);
        }
        <Self as DeserializeValue<'_, '_>>::type_check(typ)
    }

    #[inline]
    fn __write<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        self.__check()?;
        if is_map(typ) {
            return T::__write_map(self, typ, writer);
        }
        SerializeValue::serialize(self, typ, writer)
    }

    #[inline]
    fn __read<'f, 'm>(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Self, DeserializationError> {
        if is_map(typ) {
            return T::__read_map(typ, v);
        }
        <Self as DeserializeValue<'f, 'm>>::deserialize(typ, v)
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        collection_bound(self.iter().map(T::__size_bound))
    }

    fn cql_type() -> CqlType {
        CqlType::List(Box::new(T::cql_type().frozen_for_nesting()))
    }
    fn collect_udts(out: &mut Vec<&'static UdtSchema>) {
        T::collect_udts(out)
    }
}

impl<T: CqlMapping + Eq + std::hash::Hash, S: BuildHasher + Default + Sync + 'static> CqlMapping
    for HashSet<T, S>
{
    fn __each<'s>(&'s self, f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        self.iter().for_each(|e| f(e));
        true
    }
    fn __check(&self) -> Result<(), SerializationError> {
        self.iter().try_for_each(T::__check)
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        collection_bound(self.iter().map(T::__size_bound))
    }

    fn cql_type() -> CqlType {
        CqlType::Set(Box::new(T::cql_type().frozen_for_nesting()))
    }
    fn collect_udts(out: &mut Vec<&'static UdtSchema>) {
        T::collect_udts(out)
    }
}

impl<T: CqlMapping + Ord> CqlMapping for BTreeSet<T> {
    fn __each<'s>(&'s self, f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        self.iter().for_each(|e| f(e));
        true
    }

    fn __check(&self) -> Result<(), SerializationError> {
        self.iter().try_for_each(T::__check)
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        collection_bound(self.iter().map(T::__size_bound))
    }

    fn cql_type() -> CqlType {
        CqlType::Set(Box::new(T::cql_type().frozen_for_nesting()))
    }
    fn collect_udts(out: &mut Vec<&'static UdtSchema>) {
        T::collect_udts(out)
    }
}

impl<K, V, S> CqlMapping for HashMap<K, V, S>
where
    K: CqlMapping + Eq + std::hash::Hash,
    V: CqlMapping,
    S: BuildHasher + Default + Sync + 'static,
{
    fn __each<'s>(&'s self, f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        self.keys().for_each(|k| f(k));
        true
    }
    fn __check(&self) -> Result<(), SerializationError> {
        self.iter()
            .try_for_each(|(k, v)| k.__check().and_then(|()| v.__check()))
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        collection_bound(
            self.iter()
                .flat_map(|(k, v)| [k.__size_bound(), v.__size_bound()]),
        )
    }

    fn cql_type() -> CqlType {
        CqlType::Map(
            Box::new(K::cql_type().frozen_for_nesting()),
            Box::new(V::cql_type().frozen_for_nesting()),
        )
    }
    fn collect_udts(out: &mut Vec<&'static UdtSchema>) {
        K::collect_udts(out);
        V::collect_udts(out);
    }
}

impl<K: CqlMapping + Ord, V: CqlMapping> CqlMapping for BTreeMap<K, V> {
    fn __each<'s>(&'s self, f: &mut dyn FnMut(&'s dyn ErasedValue)) -> bool {
        self.keys().for_each(|k| f(k));
        true
    }

    fn __check(&self) -> Result<(), SerializationError> {
        self.iter()
            .try_for_each(|(k, v)| k.__check().and_then(|()| v.__check()))
    }

    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        collection_bound(
            self.iter()
                .flat_map(|(k, v)| [k.__size_bound(), v.__size_bound()]),
        )
    }

    fn cql_type() -> CqlType {
        CqlType::Map(
            Box::new(K::cql_type().frozen_for_nesting()),
            Box::new(V::cql_type().frozen_for_nesting()),
        )
    }
    fn collect_udts(out: &mut Vec<&'static UdtSchema>) {
        K::collect_udts(out);
        V::collect_udts(out);
    }
}

macro_rules! tuples {
    ($($($t:ident)+ $(=> { $($entry:tt)* })?;)*) => {$(
        impl<$($t: CqlMapping),+> CqlMapping for ($($t,)+) {
            $($($entry)*)?
            fn cql_type() -> CqlType {
                CqlType::Tuple(vec![$($t::cql_type().frozen_for_nesting()),+])
            }
            fn collect_udts(out: &mut Vec<&'static UdtSchema>) {
                $($t::collect_udts(out);)+
            }
            #[allow(non_snake_case)]
            fn __check(&self) -> Result<(), SerializationError> {
                let ($($t,)+) = self;
                $($t.__check()?;)+
                Ok(())
            }
        }
        /// Tuples are frozen in Cassandra, so a tuple of key types (each maybe null) may be a
        /// key column.
        #[diagnostic::do_not_recommend]
        impl<$($t: KeyElement),+> KeyColumn for ($($t,)+) {}
    )*};
}

tuples! {
    A;
    // A pair is an entry of a map: a `Vec<(K, V)>` holds a CQL map (its entries in the
    // server's order of the keys, one per key), for keys no `HashMap` or `BTreeMap` can hold
    // (`f32`, `f64`: not `Hash` or `Ord`).
    A B => {
        fn __map_type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
            <MapIterator<'_, '_, A, B> as DeserializeValue<'_, '_>>::type_check(typ)
        }

        fn __write_map<'b>(
            entries: &[Self],
            typ: &ColumnType<'_>,
            writer: CellWriter<'b>,
        ) -> Result<WrittenCellProof<'b>, SerializationError> {
            let pairs = entries.iter().map(|(k, v)| (k, v));
            write_map(std::any::type_name::<Vec<Self>>(), entries.len(), pairs, typ, writer)
        }

        fn __read_map<'f, 'm>(
            typ: &'m ColumnType<'m>,
            v: Option<FrameSlice<'f>>,
        ) -> Result<Vec<Self>, DeserializationError> {
            <MapIterator<'f, 'm, A, B> as DeserializeValue<'f, 'm>>::deserialize(typ, v)?
                .collect()
        }
    };
    A B C;
    A B C D;
    A B C D E;
    A B C D E F;
    A B C D E F G;
    A B C D E F G H;
    A B C D E F G H I;
    A B C D E F G H I J;
    A B C D E F G H I J K;
    A B C D E F G H I J K L;
}

/// A type a bucket can be computed from. Implemented for `DateTime<Utc>` and `NaiveDate`
/// (time buckets) and `i32` and `i64` (width buckets).
#[diagnostic::on_unimplemented(
    message = "a bucket cannot be computed from `{Self}`",
    label = "bucket source",
    note = "`bucket(day|week|month|year)` takes a `chrono::DateTime<Utc>` or `chrono::NaiveDate` field, `bucket(width = N)` an `i32` or `i64` field"
)]
pub trait BucketSource: CqlMapping + Clone + Send + Sync + 'static {
    /// The bucket of this value under `rule`.
    #[doc(hidden)]
    fn bucket(&self, rule: BucketRule) -> BucketValue;

    /// The bucket of the last value before this one (an exclusive end's last bucket).
    #[doc(hidden)]
    fn bucket_before(&self, rule: BucketRule) -> BucketValue;
}

/// A type a time bucket (`day`, `week`, `month`, `year`) can be computed from.
#[diagnostic::on_unimplemented(
    message = "a time bucket cannot be computed from `{Self}`: it needs a `DateTime<Utc>` or `NaiveDate` field",
    label = "not a date or timestamp",
    note = "for an integer field, bucket by a width instead: `#[cass(bucket(width = 1000))]`"
)]
pub trait TimeBucketSource: BucketSource {}

/// A type a width bucket (`bucket(width = N)`) can be computed from.
#[diagnostic::on_unimplemented(
    message = "a width bucket cannot be computed from `{Self}`: it needs an `i32` or `i64` field",
    label = "not an integer",
    note = "for a `DateTime<Utc>` or `NaiveDate` field, bucket by time instead: `#[cass(bucket(month))]`"
)]
pub trait WidthBucketSource: BucketSource {}

impl BucketSource for chrono::DateTime<chrono::Utc> {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_date(self.date_naive(), rule)
    }

    fn bucket_before(&self, rule: BucketRule) -> BucketValue {
        self.checked_sub_signed(chrono::TimeDelta::nanoseconds(1))
            .map_or(BucketValue::Overflow, |t| t.bucket(rule))
    }
}
impl TimeBucketSource for chrono::DateTime<chrono::Utc> {}

impl BucketSource for NaiveDate {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_date(*self, rule)
    }

    fn bucket_before(&self, rule: BucketRule) -> BucketValue {
        self.pred_opt()
            .map_or(BucketValue::Overflow, |d| d.bucket(rule))
    }
}
impl TimeBucketSource for NaiveDate {}

impl BucketSource for i32 {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_int(i64::from(*self), rule)
    }

    fn bucket_before(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_int(i64::from(*self) - 1, rule)
    }
}
impl WidthBucketSource for i32 {}

impl BucketSource for i64 {
    fn bucket(&self, rule: BucketRule) -> BucketValue {
        BucketValue::of_int(*self, rule)
    }

    fn bucket_before(&self, rule: BucketRule) -> BucketValue {
        self.checked_sub(1)
            .map_or(BucketValue::Overflow, |n| n.bucket(rule))
    }
}
impl WidthBucketSource for i64 {}

/// Compile-time check of a time bucket's source type.
#[doc(hidden)]
pub const fn assert_time_bucket<T: TimeBucketSource>() {}

/// Compile-time check of a width bucket's source type.
#[doc(hidden)]
pub const fn assert_width_bucket<T: WidthBucketSource>() {}

/// The bucket of `value` under `rule`, bound (generated key methods and `get`). Not bound by
/// [`BucketSource`]: the derive asserts that once, on the field, so a wrong type is one error.
#[doc(hidden)]
pub fn bucket_of<'a, V: CqlMapping>(value: &V, rule: BucketRule) -> Bound<'a> {
    Bound::Bucket(value.__bucket(rule).unwrap_or(BucketValue::Overflow))
}

/// Compile-time check that a key field's type may be a key column (the error, from
/// `KeyColumn`'s `on_unimplemented`, points at the field's type).
#[doc(hidden)]
pub const fn assert_key_column<T: KeyColumn>() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The detail of a value refused by `__check`.
    fn refused<T: CqlMapping>(v: &T) -> Option<String> {
        match v.__check() {
            Ok(()) => None,
            Err(e) => match e.downcast_ref::<crate::error::row::RowError>() {
                Some(crate::error::row::RowError::Refused { detail, .. }) => Some(detail.clone()),
                _ => Some(format!("not Refused: {e}")),
            },
        }
    }

    #[test]
    fn a_time_outside_one_day_is_refused() {
        for ok in [0, 1, NANOS_PER_DAY - 1] {
            assert_eq!(refused(&CqlTime(ok)), None, "{ok}");
        }
        for bad in [-1, NANOS_PER_DAY, i64::MIN, i64::MAX] {
            let detail = refused(&CqlTime(bad)).expect("refused");
            assert!(detail.contains(&format!("`Time({bad})`")), "{detail}");
            assert!(detail.contains("86399999999999"), "{detail}");
        }
        // Inside an Option and a collection too.
        assert!(refused(&Some(CqlTime(-1))).is_some());
        assert!(refused(&vec![CqlTime(1), CqlTime(NANOS_PER_DAY)]).is_some());
        assert_eq!(refused(&vec![CqlTime(1)]), None);
    }

    #[test]
    fn a_leap_second_is_refused() {
        let last = chrono::NaiveTime::from_hms_nano_opt(23, 59, 59, 999_999_999).expect("time");
        assert_eq!(refused(&last), None);
        let leap = chrono::NaiveTime::from_hms_milli_opt(23, 59, 59, 1_500).expect("leap");
        let detail = refused(&leap).expect("refused");
        assert!(detail.contains("leap second"), "{detail}");
        assert!(detail.contains("23:59:60.500"), "{detail}");
    }

    fn text<T: CqlMapping>() -> String {
        T::cql_type().to_string()
    }

    #[test]
    fn default_mappings() {
        assert_eq!(text::<String>(), "text");
        assert_eq!(text::<Vec<u8>>(), "blob");
        assert_eq!(text::<Vec<i32>>(), "list<int>");
        assert_eq!(text::<Vec<Vec<i32>>>(), "list<frozen<list<int>>>");
        assert_eq!(text::<Option<CqlTimeuuid>>(), "timeuuid");
        assert_eq!(text::<HashMap<uuid::Uuid, i32>>(), "map<uuid, int>");
        assert_eq!(
            text::<BTreeMap<String, BTreeSet<i64>>>(),
            "map<text, frozen<set<bigint>>>"
        );
        assert_eq!(text::<(i32, String)>(), "tuple<int, text>");
        assert_eq!(text::<chrono::DateTime<chrono::Utc>>(), "timestamp");
        assert_eq!(text::<Counter>(), "counter");
        assert_eq!(text::<CqlDuration>(), "duration");
        assert_eq!(text::<IpAddr>(), "inet");
    }

    /// The bytes `value` writes for a column of `typ` (without the cell's length), and its
    /// size bound. (A vector's is checked in `vector.rs`.)
    pub(crate) fn written_and_bound<T: CqlMapping + Sync>(
        value: &T,
        typ: ColumnType<'_>,
    ) -> (usize, usize) {
        let mut buf = Vec::new();
        value
            .__write(&typ, CellWriter::new(&mut buf))
            .expect("written");
        let bound = ErasedValue::size_bound(value).expect("a size bound");
        (buf.len().saturating_sub(4), bound)
    }

    /// A write skips serializing its values first when their size bounds fit the request
    /// limit, so a bound below the real size would let an oversize write reach the server.
    #[test]
    fn size_bounds_cover_what_is_written() {
        use scylla::frame::response::result::NativeType as N;
        let native = ColumnType::Native;
        let exact = [
            written_and_bound(&"héllo, wörld".to_owned(), native(N::Text)),
            written_and_bound(&String::new(), native(N::Text)),
            written_and_bound(&-3i8, native(N::TinyInt)),
            written_and_bound(&-3i16, native(N::SmallInt)),
            written_and_bound(&-3i32, native(N::Int)),
            written_and_bound(&-3i64, native(N::BigInt)),
            written_and_bound(&1.5f32, native(N::Float)),
            written_and_bound(&1.5f64, native(N::Double)),
            written_and_bound(&true, native(N::Boolean)),
            written_and_bound(&uuid::Uuid::from_u128(7), native(N::Uuid)),
            written_and_bound(
                &uuid::Uuid::parse_str("8e14e760-7fa8-11eb-bc66-000000000001").expect("uuid"),
                native(N::Timeuuid),
            ),
            written_and_bound(&CqlTimeuuid::from_bytes([0x11; 16]), native(N::Timeuuid)),
            written_and_bound(&CqlTimestamp(1), native(N::Timestamp)),
            written_and_bound(&CqlDate(1), native(N::Date)),
            written_and_bound(&CqlTime(1), native(N::Time)),
            written_and_bound(
                &chrono::NaiveDate::from_ymd_opt(2026, 11, 24).expect("date"),
                native(N::Date),
            ),
            written_and_bound(&chrono::NaiveTime::MIN, native(N::Time)),
            written_and_bound(
                &chrono::DateTime::<chrono::Utc>::UNIX_EPOCH,
                native(N::Timestamp),
            ),
            written_and_bound(&IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1]), native(N::Inet)),
            written_and_bound(&IpAddr::from([127, 0, 0, 1]), native(N::Inet)),
            written_and_bound(&vec![1u8, 2, 3], native(N::Blob)),
            written_and_bound(&Counter(5), native(N::Counter)),
            written_and_bound(&Some(-3i32), native(N::Int)),
            written_and_bound(&None::<String>, native(N::Text)),
        ];
        for (i, (written, bound)) in exact.into_iter().enumerate() {
            assert_eq!(written, bound, "value #{i}: the bound is its exact size");
        }
        // Collections: the count, then each element with its length.
        use scylla::frame::response::result::CollectionType as C;
        let coll = |typ| ColumnType::Collection { frozen: false, typ };
        let list = |t| coll(C::List(Box::new(t)));
        let collections = [
            written_and_bound(
                &vec!["a".to_owned(), "héllo".to_owned()],
                list(native(N::Text)),
            ),
            written_and_bound(&Vec::<i32>::new(), list(native(N::Int))),
            written_and_bound(&vec![vec![1i32, 2], vec![]], list(list(native(N::Int)))),
            written_and_bound(
                &BTreeSet::from([3i64, 1, 2]),
                coll(C::Set(Box::new(native(N::BigInt)))),
            ),
            written_and_bound(
                &HashSet::<i32>::from([7]),
                coll(C::Set(Box::new(native(N::Int)))),
            ),
            written_and_bound(
                &BTreeMap::from([("k".to_owned(), vec![1i32]), ("".to_owned(), vec![])]),
                coll(C::Map(
                    Box::new(native(N::Text)),
                    Box::new(list(native(N::Int))),
                )),
            ),
            written_and_bound(
                &HashMap::<uuid::Uuid, f64>::from([(uuid::Uuid::from_u128(1), 0.5)]),
                coll(C::Map(
                    Box::new(native(N::Uuid)),
                    Box::new(native(N::Double)),
                )),
            ),
        ];
        for (i, (written, bound)) in collections.into_iter().enumerate() {
            assert_eq!(
                written, bound,
                "collection #{i}: the bound is its exact size"
            );
        }
        assert_eq!(
            ErasedValue::size_bound(&vec![CqlVarint::from_signed_bytes_be_slice(&[1])]),
            None,
            "a list of values without a bound has none"
        );
    }

    /// A `Vec<(K, V)>` is a CQL map when the column is one: written as the driver writes a
    /// `BTreeMap` (the same bytes), read back entry by entry, with float keys no map type of
    /// Rust can hold; a `Vec` of anything else still refuses a map, with the driver's reason.
    #[test]
    fn a_vec_of_pairs_is_a_map() {
        use scylla::frame::response::result::NativeType as N;
        let native = |n| Box::new(ColumnType::Native(n));
        let map = |k, v| ColumnType::Collection {
            frozen: false,
            typ: CollectionType::Map(native(k), native(v)),
        };
        let floats = map(N::Float, N::Int);
        type Entries = Vec<(f32, i32)>;
        assert!(Entries::__type_check(&floats).is_ok());
        assert!(Option::<Entries>::__type_check(&floats).is_ok());
        // Still a list (of tuples) for a list column.
        let list = ColumnType::Collection {
            frozen: false,
            typ: CollectionType::List(Box::new(ColumnType::Tuple(vec![
                ColumnType::Native(N::Float),
                ColumnType::Native(N::Int),
            ]))),
        };
        assert!(Entries::__type_check(&list).is_ok());
        // Wrong key type, and a Vec of non-pairs.
        let e = Entries::__type_check(&map(N::Int, N::Int)).expect_err("int keys");
        let why = super::super::reason::type_check_reason(&e);
        assert!(
            why.contains("its keys: Rust `f32` cannot read CQL `int`"),
            "{why}"
        );
        let e = Vec::<i32>::__type_check(&floats).expect_err("not pairs");
        let why = super::super::reason::type_check_reason(&e);
        assert_eq!(
            why,
            "Rust `Vec<i32>` cannot read CQL `map<float, int>`: a `Vec` reads a list, a set or \
             a vector"
        );

        let entries: Entries = vec![
            (f32::NEG_INFINITY, 1),
            (-0.0, 2),
            (0.0, 3),
            (1.5, 4),
            (f32::MAX, 5),
            (f32::INFINITY, 6),
            (f32::NAN, 7),
        ];
        let write = |v: &dyn Fn(CellWriter<'_>)| {
            let mut buf = Vec::new();
            v(CellWriter::new(&mut buf));
            buf
        };
        let ours = write(&|w| {
            entries.__write(&floats, w).expect("written");
        });
        // The bytes the driver writes for the same entries in a map of Rust's.
        let ints: Vec<(i32, i32)> = vec![(-5, 1), (2, 20), (7, -3)];
        let ints_map = map(N::Int, N::Int);
        assert_eq!(
            write(&|w| {
                ints.__write(&ints_map, w).expect("written");
            }),
            write(&|w| {
                BTreeMap::from([(-5, 1), (2, 20), (7, -3)])
                    .serialize(&ints_map, w)
                    .expect("written");
            })
        );
        // Read back, bit for bit (NaN and -0.0 included).
        let slice = FrameSlice::new_borrowed(&ours[4..]);
        let back = Entries::__read(&floats, Some(slice)).expect("read");
        let bits = |v: &Entries| v.iter().map(|(k, v)| (k.to_bits(), *v)).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&entries));
        // A null (an empty map, as Cassandra stores one) reads as no entries.
        assert_eq!(Entries::__read(&floats, None).expect("null"), vec![]);
        assert_eq!(
            Option::<Entries>::__read(&floats, None).expect("null"),
            None
        );
        // A value refused before it is written is refused in a map too.
        let times: Vec<(CqlTime, i32)> = vec![(CqlTime(-1), 1)];
        let mut buf = Vec::new();
        let e = times
            .__write(&map(N::Time, N::Int), CellWriter::new(&mut buf))
            .expect_err("refused");
        assert!(e.to_string().contains("not a time of day"), "{e}");
        // A value of the wrong type for a key: the driver's error, in CQL's words.
        let e = entries
            .__write(&map(N::Double, N::Int), CellWriter::new(&mut buf))
            .expect_err("a float is not a double");
        let why = super::super::reason::serialize_reason(&e);
        assert!(
            why.starts_with(
                "Rust `Vec<(f32, i32)>` could not be written as CQL `map<double, int>`: one of \
                 its keys: Rust `f32` cannot be written as CQL `double`: it is written as \
                 `float`"
            ),
            "{why}"
        );
    }

    /// A tuple's element may be null in CQL (`(1, null, null)`): an `Option` element reads
    /// it as `None` and writes `None` as null, and a tuple of them may be a key column.
    #[test]
    fn a_tuple_holds_null_elements_in_options() {
        use scylla::frame::response::result::NativeType as N;
        type Triple = (i32, Option<String>, Option<Vec<String>>);
        let typ = ColumnType::Tuple(vec![
            ColumnType::Native(N::Int),
            ColumnType::Native(N::Text),
            ColumnType::Collection {
                frozen: true,
                typ: CollectionType::List(Box::new(ColumnType::Native(N::Text))),
            },
        ]);
        for value in [(1, None, None), (2, Some("a".to_owned()), Some(vec![]))] {
            let value: Triple = value;
            let mut buf = Vec::new();
            value
                .__write(&typ, CellWriter::new(&mut buf))
                .expect("written");
            let back = Triple::__read(&typ, Some(FrameSlice::new_borrowed(&buf[4..])));
            assert_eq!(back.expect("read"), value);
        }
        // A null element read into a plain element is the error `pull`'s models met before
        // their elements were `Option`s.
        let mut buf = Vec::new();
        (1, None::<String>, None::<Vec<String>>)
            .__write(&typ, CellWriter::new(&mut buf))
            .expect("written");
        let plain =
            <(i32, String, Vec<String>)>::__read(&typ, Some(FrameSlice::new_borrowed(&buf[4..])));
        assert!(plain.is_err());
        assert_key_column::<(Option<i32>, Option<String>)>();
    }
}

// The tests of `mapping::cells` (here: they write values through `CqlMapping`, which
// `cells.rs` does not import).
#[cfg(test)]
mod cell_tests {
    use scylla::frame::response::result::{ColumnSpec, ColumnType, NativeType as N, TableSpec};
    use scylla::serialize::writers::RowWriter;
    use scylla::value::CqlVarint;

    use super::CqlMapping;
    use cassmodel_schema::CELLS_ARITY as ARITY;

    use crate::mapping::cells::{Cell, CellStop, Cells, Walk, write_cells};

    fn cell<V: CqlMapping>(v: &V) -> Cell<'_, V> {
        v.__cell()
    }

    /// How many columns `cells` are.
    fn count<C: Cells>(_: &C) -> usize {
        C::COUNT
    }

    fn specs(types: &[N]) -> Vec<ColumnSpec<'static>> {
        types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                ColumnSpec::owned(
                    format!("c{i}"),
                    ColumnType::Native(t.clone()),
                    TableSpec::owned("ks".into(), "t".into()),
                )
            })
            .collect()
    }

    /// The runtime writes tuples as long as the derive makes them (it nests longer rows).
    #[test]
    fn the_longest_tuple_the_derive_makes_is_cells() {
        let v = 1i32;
        let c = || cell(&v);
        let row = (c(), c(), c(), c(), c(), c(), c(), c(), c(), c(), c(), c());
        assert_eq!(count(&row), ARITY);
        let nested = (row, (c(),));
        let specs = specs(&[const { N::Int }; ARITY + 1]);
        let mut buf = Vec::new();
        let mut writer = RowWriter::new(&mut buf);
        let mut walk = Walk::new(&specs, &mut writer, true, usize::MAX);
        assert!(write_cells(&nested, &mut walk).is_ok());
        assert_eq!(writer.value_count(), ARITY + 1);
        assert_eq!(buf.len(), (ARITY + 1) * 8);
    }

    /// A cell is written only when its length and bound fit the room left, which it then
    /// takes; otherwise the walk stops at it with nothing of it written, and resumes after it.
    #[test]
    fn a_cell_is_written_within_its_room_or_not_at_all() {
        let word = "héllo".to_owned(); // 6 bytes
        let none = None::<String>;
        let big = CqlVarint::from_signed_bytes_be(vec![1, 2, 3]);
        let row = (cell(&word), cell(&none), cell(&big), cell(&word));
        let specs = specs(&[N::Text, N::Text, N::Varint, N::Text]);
        let mut buf = Vec::new();
        let mut writer = RowWriter::new(&mut buf);
        for room in [0, 3, 9] {
            let mut walk = Walk::new(&specs, &mut writer, true, room);
            let stop = write_cells(&row, &mut walk);
            assert!(
                matches!(stop, Err(CellStop::At(0))),
                "room {room}: {stop:?}"
            );
            assert_eq!(walk.room, room);
        }
        assert_eq!(writer.value_count(), 0);
        // The word (4 + 6) and the `None` left unset (its length only): then the varint,
        // whose size is not known without writing it, stops the walk.
        let mut walk = Walk::new(&specs, &mut writer, true, 100);
        let stop = write_cells(&row, &mut walk);
        assert!(matches!(stop, Err(CellStop::At(2))), "{stop:?}");
        assert_eq!(walk.room, 100 - 10 - 4);
        walk.from = 3;
        assert!(write_cells(&row, &mut walk).is_ok());
        assert_eq!(walk.room, 100 - 10 - 4 - 10);
        assert_eq!(writer.value_count(), 3);
        assert_eq!(&buf[10..14], &(-2i32).to_be_bytes());
        assert_eq!(buf.len(), 24);
    }

    /// A value its marker's type refuses stops the walk with the column's index.
    #[test]
    fn a_refused_value_names_its_column() {
        let word = "x".to_owned();
        let n = 7i32;
        let specs = specs(&[N::Text, N::Text]);
        let mut buf = Vec::new();
        let mut writer = RowWriter::new(&mut buf);
        let mut walk = Walk::new(&specs, &mut writer, true, usize::MAX);
        let stop = write_cells(&(cell(&word), cell(&n)), &mut walk);
        assert!(matches!(stop, Err(CellStop::Failed(1, _))), "{stop:?}");
    }

    /// A statement with fewer markers than the row has columns stops at the first column
    /// without one.
    #[test]
    fn a_column_without_a_marker_stops_the_walk() {
        let n = 7i32;
        let specs = specs(&[N::Int]);
        let mut buf = Vec::new();
        let mut writer = RowWriter::new(&mut buf);
        let mut walk = Walk::new(&specs, &mut writer, true, usize::MAX);
        let stop = write_cells(&(cell(&n), cell(&n)), &mut walk);
        assert!(matches!(stop, Err(CellStop::At(1))), "{stop:?}");
        assert_eq!(writer.value_count(), 1);
    }
}
