//! Errors.

use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::errors::{
    ExecutionError, IntoRowsResultError, MaybeFirstRowError, NewSessionError, NextRowError,
    PagerExecutionError, PrepareError, RowsError,
};
use scylla::serialize::SerializationError;

/// A row, or a value in it, that does not fit the Rust type it is read into or written from.
///
/// Each variant names the table and the column, so a schema drift is found from the message
/// alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RowError {
    /// The result has a different number of columns than the struct has fields.
    #[error(
        "table `{table}`: the result has {actual} columns but `{rust}` reads {expected}; \
         select exactly the struct's columns, in field order"
    )]
    ColumnCount {
        /// `keyspace.table`.
        table: String,
        /// The Rust type.
        rust: &'static str,
        /// Columns the struct reads.
        expected: usize,
        /// Columns in the result.
        actual: usize,
    },
    /// A result column is not the one the struct expects at that position.
    #[error(
        "table `{table}`: result column {position} is `{actual}`, but `{rust}` reads `{expected}` there; \
         select the struct's columns in field order"
    )]
    ColumnName {
        /// `keyspace.table`.
        table: String,
        /// The Rust type.
        rust: &'static str,
        /// 0-based position in the row.
        position: usize,
        /// The column the struct expects.
        expected: &'static str,
        /// The column in the result.
        actual: String,
    },
    /// A column's CQL type does not fit the field's Rust type.
    #[error(
        "table `{table}`, column `{column}`: the struct expects CQL type `{expected}` (Rust `{}`), \
         but the table has `{actual}`",
        rust_name(.rust_type)
    )]
    Type {
        /// `keyspace.table`.
        table: String,
        /// The column.
        column: String,
        /// The CQL type the struct maps the column to.
        expected: String,
        /// The field's Rust type.
        rust_type: &'static str,
        /// The column's CQL type on the server.
        actual: String,
    },
    /// A null in a column whose Rust type cannot hold one.
    #[error(
        "table `{table}`, column `{column}` is null, but its field has Rust type `{ty}` \
         (CQL `{expected}`), which cannot hold a null; make the field an `Option<{ty}>`",
        ty = rust_name(.rust_type)
    )]
    Null {
        /// `keyspace.table`.
        table: String,
        /// The column.
        column: String,
        /// The CQL type the struct maps the column to.
        expected: String,
        /// The field's Rust type.
        rust_type: &'static str,
    },
    /// A value could not be decoded or encoded.
    #[error("table `{table}`, column `{column}` (Rust `{}`): {detail}", rust_name(.rust_type))]
    Value {
        /// `keyspace.table`.
        table: String,
        /// The column.
        column: String,
        /// The field's Rust type.
        rust_type: &'static str,
        /// What the driver said.
        detail: String,
    },
}

/// A Rust type name (`std::any::type_name`) as a user writes it: paths dropped
/// (`Option<DateTime<Utc>>`), and the driver's value types under the names cassmodel exports
/// them as (`cassmodel::value::Timeuuid`, not `scylla_cql_core::value::CqlTimeuuid`).
///
/// ```
/// # use cassmodel_runtime::__private::rust_name;
/// assert_eq!(
///     rust_name("core::option::Option<scylla_cql_core::value::CqlTimeuuid>"),
///     "Option<cassmodel::value::Timeuuid>"
/// );
/// assert_eq!(
///     rust_name("chrono::datetime::DateTime<chrono::offset::utc::Utc>"),
///     "DateTime<Utc>"
/// );
/// assert_eq!(rust_name("(i32, alloc::string::String)"), "(i32, String)");
/// ```
pub fn rust_name(type_name: &str) -> String {
    let mut out = String::with_capacity(type_name.len());
    let mut path = String::new();
    let flush = |path: &mut String, out: &mut String| {
        if path.is_empty() {
            return;
        }
        let last = path.rsplit("::").next().unwrap_or(path.as_str());
        let driver = path.starts_with("scylla");
        let exported = match last {
            "CqlTimeuuid" if driver => Some("Timeuuid"),
            "CqlTimestamp" if driver => Some("Timestamp"),
            "CqlDate" if driver => Some("Date"),
            "CqlTime" if driver => Some("Time"),
            "CqlDuration" if driver => Some("Duration"),
            "CqlDecimal" if driver => Some("Decimal"),
            "CqlVarint" if driver => Some("Varint"),
            "Counter" if driver => Some("Counter"),
            "Vector" if path.starts_with("cassmodel") => Some("Vector"),
            _ => None,
        };
        match exported {
            Some(name) => {
                out.push_str("cassmodel::value::");
                out.push_str(name);
            }
            None => out.push_str(last),
        }
        path.clear();
    };
    for c in type_name.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            path.push(c);
        } else {
            flush(&mut path, &mut out);
            out.push(c);
        }
    }
    flush(&mut path, &mut out);
    out
}

/// Everything that can go wrong in cassmodel.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session could not be created.
    #[error(
        "could not connect to Cassandra at {contact_points}: {source}. \
         Start a local node (`cargo run -p cassmodel-node -- start`) or set {env} to a reachable cluster",
        env = crate::CONTACT_POINTS_ENV
    )]
    Connect {
        /// The contact points tried.
        contact_points: String,
        /// The driver's error.
        #[source]
        source: Box<NewSessionError>,
    },
    /// The server refused to prepare a statement.
    #[error("preparing `{cql}` failed: {source}")]
    Prepare {
        /// The statement.
        cql: String,
        /// The driver's error.
        #[source]
        source: Box<PrepareError>,
    },
    /// The server (or the driver) failed to run a statement.
    #[error("running `{cql}` failed: {source}")]
    Execute {
        /// The statement.
        cql: String,
        /// The driver's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A driver error outside a statement (reading rows, paging).
    #[error("{0}")]
    Driver(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A row did not fit its Rust type.
    #[error(transparent)]
    Row(#[from] RowError),
    /// The table has no keyspace: neither `#[cass(keyspace = "...")]` nor a default keyspace
    /// on the [`Db`](crate::Db).
    #[error(
        "table `{table}` has no keyspace: give the Db one with `Db::with_keyspace(..)`, or \
         annotate the struct with #[cass(keyspace = \"...\")]"
    )]
    NoKeyspace {
        /// The table.
        table: &'static str,
    },
    /// A contact point could not be understood.
    #[error("bad contact point `{0}`: expected host:port, e.g. 127.0.0.1:9042")]
    ContactPoint(String),
    /// An invalid argument (e.g. a keyspace name Cassandra cannot accept).
    #[error("{0}")]
    Invalid(String),
}

/// A `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The [`RowError`] inside a driver error, if the failure came from cassmodel's row mapping.
fn row_error_in(e: &(dyn std::error::Error + 'static)) -> Option<RowError> {
    if let Some(t) = e.downcast_ref::<TypeCheckError>() {
        return t.downcast_ref::<RowError>().cloned();
    }
    if let Some(d) = e.downcast_ref::<DeserializationError>() {
        return d.downcast_ref::<RowError>().cloned();
    }
    if let Some(s) = e.downcast_ref::<SerializationError>() {
        return s.downcast_ref::<RowError>().cloned();
    }
    e.source().and_then(row_error_in)
}

impl Error {
    /// Wraps a driver error from running `cql`, surfacing a [`RowError`] when that is the cause.
    pub(crate) fn execute<E>(cql: &str, e: E) -> Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        match row_error_in(&e) {
            Some(r) => Error::Row(r),
            None => Error::Execute {
                cql: cql.to_owned(),
                source: Box::new(e),
            },
        }
    }
}

macro_rules! row_errors {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                match row_error_in(&e) {
                    Some(r) => Error::Row(r),
                    None => Error::Driver(Box::new(e)),
                }
            }
        }
    )*};
}

row_errors!(
    ExecutionError,
    PagerExecutionError,
    IntoRowsResultError,
    RowsError,
    MaybeFirstRowError,
    NextRowError,
    DeserializationError,
    TypeCheckError
);
