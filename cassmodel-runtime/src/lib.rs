//! Runtime of [cassmodel](https://docs.rs/cassmodel): the traits the derive macros implement,
//! the Rust-to-CQL type mapping, and statement execution on the scylla driver.
//!
//! Users depend on the `cassmodel` crate, which re-exports everything here; the items under
//! `__private` exist for generated code only and are not a stable API.
//!
//! The modules are layers, each importing only those below it (ARCHITECTURE.md in the
//! repository): `error`, `schema`, `config` (ground); `mapping` (values); `statement`;
//! `session`; `exec` (execution); `query`, `sizing`, `migrate` (features). This file is the
//! face: it declares them and re-exports what users call.

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`, nightly): each item a cargo feature adds says which.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod config;
mod error;
mod exec;
mod mapping;
#[cfg(feature = "migrate")]
#[cfg_attr(docsrs, doc(cfg(feature = "migrate")))]
pub mod migrate;
mod progress;
mod query;
mod schema;
mod session;
pub mod sizing;
mod statement;

pub use cassmodel_schema::{CqlType, IndexTarget, NativeType, Period, Similarity, Span};
pub use config::ConnectOptions;
pub use error::attempt::{Answer, Attempt};
pub use error::errors::{Error, Result};
pub use error::kind::ErrorKind;
pub use error::row::RowError;
pub use exec::batch::{Batch, CounterStatement, Counters, Regular, RegularStatement};
pub use exec::entity::{EntityWithIdentity, FromEntity, FromEntityEach};
pub use exec::insert::{
    IfNotExists, Insert, InsertKind, InsertRow, Insertable, InsertableRows, Inserts, Plain,
    TimestampAllowed,
};
pub use exec::result::{Outcome, Page, QueryFuture, RowStream};
pub use mapping::bind::BindAs;
pub use mapping::function::CqlFunction;
pub use mapping::projection::Projection;
pub use mapping::table::Table;
pub use mapping::types::{BucketSource, CqlMapping, KeyColumn, KeyElement};
pub use mapping::udt::Udt;
pub use mapping::vector::Scored;
pub use mapping::view::{BaseOf, Writable, Writes};
pub use query::bucket::{BucketRange, BucketRead, BucketStream, LatestRange};
pub use schema::ddl::Replication;
pub use schema::function::{AggregateSchema, FunctionSchema, UserFunction};
pub use schema::model::{
    BucketDef, BucketRule, ColumnDef, ColumnKind, Growth, IndexDef, Order, SourceDef, TableOptions,
    TableSchema, UdtSchema,
};
pub use scylla::response::PagingState;
pub use scylla::statement::{Consistency, SerialConsistency};
pub use session::db::Db;
pub use session::version::ServerVersion;
pub use session::warnings::ServerWarning;
pub use statement::options::{QueryOptions, RowCount};
pub use statement::spec::Cmp;
pub use statement::typestate::{kind, state};

/// Re-export of the scylla driver, so users and generated code name the same version.
pub use scylla;

/// CQL value types of the scylla driver that have no standard Rust equivalent, under the
/// names used in cassmodel's documentation, and [`Vector`](value::Vector) for `vector<float, N>`.
///
/// A value a column cannot hold is refused when it is bound, before anything is sent, with
/// a [`RowError::Refused`] naming the table and column: a `Time` outside one day (its
/// nanoseconds since midnight below 0 or from 86,400,000,000,000 on; Cassandra would store it
/// and then fail every read of the row) and chrono's leap second in a `NaiveTime`. A
/// `DateTime<Utc>` with digits below the millisecond (`Utc::now()`) is written truncated to
/// its millisecond, compared exactly in reads ([`CqlMapping`]'s `DateTime<Utc>`), and
/// refused only with [`strict_timestamps`](value::strict_timestamps).
///
/// ```
/// use cassmodel::value::Time;
///
/// let noon = Time(12 * 3_600 * 1_000_000_000);
/// let midnight_next_day = Time(86_400 * 1_000_000_000); // refused when written
/// # let _ = (noon, midnight_next_day);
/// ```
pub mod value {
    pub use crate::mapping::types::strict_timestamps;
    pub use crate::mapping::vector::{DimensionError, Vector};
    pub use scylla::value::{
        Counter, CqlDate as Date, CqlDecimal as Decimal, CqlDuration as Duration, CqlTime as Time,
        CqlTimestamp as Timestamp, CqlTimeuuid as Timeuuid, CqlVarint as Varint,
    };
}

// The submodules are not `doc(hidden)`: rustc names items in its messages (`required by a
// bound in ..`) by a path through modules that are not hidden, which the `cassmodel` crate's
// own `__private` (hidden only from its docs) gives: `cassmodel::__private::<purpose>::..`.
/// Registers the drift check of an entity with an identity table, for the migration
/// command's `check-entity` (with the feature `migrate`; nothing without it). Not a public API.
#[doc(hidden)]
#[cfg(feature = "migrate")]
#[macro_export]
macro_rules! __register_entity {
    ($entity:ty) => {
        $crate::__private::table::inventory::submit! {
            $crate::migrate::drift::EntityEntry($crate::migrate::drift::checker::<$entity>)
        }
    };
}

/// Without the feature `migrate`, there is no drift check to register.
#[doc(hidden)]
#[cfg(not(feature = "migrate"))]
#[macro_export]
macro_rules! __register_entity {
    ($entity:ty) => {};
}

#[doc(hidden)]
pub mod __private {
    //! What the code `#[derive(CassTable)]`, `#[derive(CassUdt)]`, `#[derive(CassProjection)]`
    //! and `#[derive(CassEntity)]` generate calls, by purpose, and the internals the project's
    //! own tests look at. **Not a public API**: anything here may change in any release.

    /// A table's row codec, its registration, and projections.
    pub mod table {
        pub use crate::mapping::cells::Cells;
        pub use crate::mapping::entity_rules::{check_identity, check_stored};
        pub use crate::mapping::erased::ErasedValue;
        pub use crate::mapping::projection::{
            Computed, PerRow, Rule, Selector, assert_count, assert_ttl, assert_write_time,
            field_kind, projection_columns, projection_defs,
        };
        pub use crate::mapping::table::{
            CounterTable, RegularTable, RowReader, ViewOf, check_columns, check_row,
            serialize_by_name,
        };
        pub use crate::mapping::types::assert_key_column;
        pub use crate::mapping::view::{check_view, check_view_of_all};
        pub use crate::schema::registry::TableEntry;
        pub use cassmodel_schema::{CqlType, NativeType, Similarity};
        pub use inventory;
    }

    /// The query builder's core, its type-level states, and the reads and writes it runs.
    pub mod query {
        pub use crate::__register_entity as register_entity;
        pub use crate::exec::batch::BatchEntry;
        pub use crate::exec::change::{replace_current_entity, replace_entity, replace_entity_if};
        pub use crate::exec::entity::{
            EntityTable, EntityTableOf, EntityWithIdentity, delete_entity_in, run_entity_batch,
            save_entity, save_entity_in,
        };
        pub use crate::exec::entity_update::{UpdateOptions, update_entity};
        pub use crate::exec::read::{get_by_key, partition, scan};
        pub use crate::mapping::const_message::contains_str;
        pub use crate::mapping::each::rows_of_each;
        pub use crate::mapping::erased::{Bound, ListElement};
        pub use crate::mapping::vector::QueryVector;
        pub use crate::query::builder::{Query, refused_read};
        pub use crate::statement::spec::{Op, SetOp};
        pub use crate::statement::typestate::kind::{AfterStaticSet, WriteKind};
        pub use crate::statement::typestate::state::{
            AfterEq, AfterRange, AnnBase, AnnGiven, AnnOrderOnly, EqNext, Flags, HasLimit, InNext,
            IndexNext, Limited, NoInBeforeIndex, Orderable, Pageable, RangeNext, Reversed,
            ScoreNeedsVector, Transitions, Unordered, Unpaged,
        };
    }

    /// Bucket columns: their values and the checks of their sources' types.
    pub mod bucket {
        pub use crate::mapping::types::{
            TimeBucketSource, WidthBucketSource, assert_time_bucket, assert_width_bucket, bucket_of,
        };
    }

    /// A key change's copy (`#[cass(from = ..)]`): the conversion and the registration.
    #[cfg(feature = "migrate")]
    pub mod copy {
        pub use crate::migrate::copy::{Converted, CopyEntry, convert_with, copier};
    }

    /// User-defined functions and aggregates: their descriptions, registration and the
    /// compile-time rules of their calls.
    pub mod function {
        pub use crate::mapping::function::{
            Aggregated, FieldRefs, RowKind, Rows, ScalarFunction, aggregate, arguments,
            final_function, per_row, returns, same_kind, state_function,
        };
        pub use crate::schema::function::{AggregateSchema, FunctionSchema, UserFunction};
        pub use crate::schema::registry::FunctionEntry;
    }

    /// A user-defined type's codec and registration.
    pub mod udt {
        pub use crate::mapping::udt::{UdtReader, serialize_udt, type_check_udt};
        pub use crate::schema::registry::UdtEntry;
    }

    /// The scylla driver's traits and types that generated code implements or names.
    pub mod driver {
        pub use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
        pub use scylla::deserialize::value::DeserializeValue;
        pub use scylla::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
        pub use scylla::frame::response::result::{ColumnSpec, ColumnType};
        pub use scylla::serialize::SerializationError;
        pub use scylla::serialize::row::{RowSerializationContext, SerializeRow};
        pub use scylla::serialize::value::SerializeValue;
        pub use scylla::serialize::writers::{CellWriter, RowWriter, WrittenCellProof};
    }

    /// The standard library's items, by absolute path: generated code compiles in a module
    /// that shadows the prelude.
    pub mod std {
        pub use std::boxed::Box;
        pub use std::marker::Sized;
        pub use std::option::Option;
        pub use std::result::Result;
        pub use std::string::String;
        pub use std::sync::OnceLock;
        pub use std::vec::Vec;
    }

    /// Internals the project's own tests look at: statement shapes and their text, Rust type
    /// names in messages. Hidden even from rustc's choice of the paths it prints (its names,
    /// `Statement::Update`, would make `Update` ambiguous in messages).
    #[doc(hidden)]
    #[cfg(feature = "testing")]
    pub mod testing {
        pub use crate::error::row::rust_name;
        pub use crate::mapping::literal::cql_literal;
        pub use crate::session::db::prepared_statements;
        pub use crate::statement::cql::{delete, insert, select, token_range_scan, update};
        pub use crate::statement::spec::{Spec, Statement};
    }
}
