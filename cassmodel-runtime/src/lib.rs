//! Runtime of [cassmodel](https://docs.rs/cassmodel): the traits the derive macros implement,
//! the Rust-to-CQL type mapping, DDL, and statement execution on the scylla driver.
//!
//! Users depend on the `cassmodel` crate, which re-exports everything here; the items under
//! `__private` exist for generated code only and are not a stable API.

#![warn(missing_docs)]

mod batch;
mod bucket;
mod builder;
mod connect;
#[doc(hidden)]
pub mod cql;
mod db;
pub mod ddl;
mod error;
mod exec;
mod index_ready;
mod insert;
mod mapping;
pub mod migrate;
mod query;
mod schema;
pub mod sizing;
mod table;
mod tls;
mod udt;
mod vector;

pub use batch::{Batch, CounterStatement, Counters, FromEntity, Regular, RegularStatement};
pub use bucket::{BucketDef, BucketRange, BucketRead, BucketRule, BucketSource, BucketStream};
pub use cassmodel_schema::{CqlType, IndexTarget, NativeType, Similarity};
pub use cassmodel_schema::{Period, Span};
#[cfg(feature = "cli")]
pub use connect::ConnectArgs;
pub use connect::{ConnectOptions, ENV_VARS};
pub use db::{CONTACT_POINTS_ENV, Db, contact_points_from_env, local_contact_point};
pub use ddl::Replication;
pub use error::{Error, ErrorKind, Result, RowError};
pub use exec::{Page, Projection};
pub use insert::{IfNotExists, Insert, InsertKind, Insertable, Plain, TimestampAllowed};
pub use mapping::{BindAs, CqlMapping, KeyColumn};
pub use query::{Cmp, Outcome, QueryFuture, QueryOptions, RowStream, kind, state};
pub use schema::{
    ColumnDef, ColumnKind, Growth, IndexDef, Order, TableOptions, TableSchema, UdtSchema,
};
pub use scylla::response::PagingState;
pub use scylla::statement::{Consistency, SerialConsistency};
pub use table::Table;
pub use udt::Udt;
pub use vector::Scored;

/// CQL value types of the scylla driver that have no standard Rust equivalent, under the
/// names used in cassmodel's documentation, and [`Vector`](value::Vector) for `vector<float, N>`.
pub mod value {
    pub use crate::vector::{DimensionError, Vector};
    pub use scylla::value::{
        Counter, CqlDate as Date, CqlDecimal as Decimal, CqlDuration as Duration, CqlTime as Time,
        CqlTimestamp as Timestamp, CqlTimeuuid as Timeuuid, CqlVarint as Varint,
    };
}

/// Re-export of the scylla driver, so users and generated code name the same version.
pub use scylla;

#[doc(hidden)]
pub mod __private {
    //! What the code `#[derive(CassTable)]`, `#[derive(CassUdt)]`, `#[derive(CassProjection)]`
    //! and `#[derive(CassEntity)]` generate calls, and the internals the project's own tests
    //! look at. **Not a public API**: anything here may change in any release.

    pub use crate::batch::{BatchEntry, contains_str, run_entity_batch};
    pub use crate::bucket::{
        BucketValue, TimeBucketSource, WidthBucketSource, assert_time_bucket, assert_width_bucket,
        bucket_of,
    };
    pub use crate::builder::{Query, refused_read};
    pub use crate::error::rust_name;
    pub use crate::exec::{get_by_key, partition, scan};
    pub use crate::index_ready::await_queryable;
    pub use crate::migrate::{TableEntry, UdtEntry};
    pub use crate::query::kind::{AfterStaticSet, WriteKind};
    pub use crate::query::state::{
        AfterEq, AfterRange, AnnBase, AnnGiven, AnnOrderOnly, EqNext, Flags, HasLimit, InNext,
        IndexNext, Limited, NoInBeforeIndex, Orderable, Pageable, RangeNext, Reversed, Transitions,
        Unordered, Unpaged,
    };
    pub use crate::query::{Bound, ErasedValue, Op, SetOp, Spec, Statement};
    pub use crate::table::{RowReader, check_columns, check_row, serialize_by_name};
    pub use crate::udt::{UdtReader, serialize_udt, type_check_udt};
    pub use crate::vector::QueryVector;
    pub use inventory;

    /// The column indices (into `T`'s columns) of a projection's fields, by field name.
    pub fn projection_columns<T: crate::Table>(fields: &[&str]) -> Vec<usize> {
        let cols = &T::schema().columns;
        fields
            .iter()
            .filter_map(|f| cols.iter().position(|c| c.field == *f))
            .collect()
    }

    /// The column descriptions of a projection: those of `T` at `indices`.
    pub fn projection_defs<T: crate::Table>(indices: &[usize]) -> Vec<crate::ColumnDef> {
        indices
            .iter()
            .filter_map(|&i| T::schema().columns.get(i).cloned())
            .collect()
    }
    pub use cassmodel_schema::{CqlType, NativeType, Similarity};
    pub use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
    pub use scylla::deserialize::value::DeserializeValue;
    pub use scylla::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
    pub use scylla::frame::response::result::{ColumnSpec, ColumnType};
    pub use scylla::serialize::SerializationError;
    pub use scylla::serialize::row::{RowSerializationContext, SerializeRow};
    pub use scylla::serialize::value::SerializeValue;
    pub use scylla::serialize::writers::{CellWriter, RowWriter, WrittenCellProof};
    pub use std::boxed::Box;
    pub use std::marker::Sized;
    pub use std::option::Option;
    pub use std::result::Result;
    pub use std::string::String;
    pub use std::sync::OnceLock;
    pub use std::vec::Vec;

    /// Compile-time check that a key field's type may be a key column (the error, from
    /// `KeyColumn`'s `on_unimplemented`, points at the field's type).
    pub const fn assert_key_column<T: crate::KeyColumn>() {}
}
