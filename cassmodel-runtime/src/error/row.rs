//! The row codec's errors ([`RowError`]: a row or a value that does not fit its Rust type,
//! with its table and column), their constructors where a value is written, and the row
//! error or the request-size refusal found under a driver error.

use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::frame::response::result::ColumnSpec;
use scylla::serialize::SerializationError;
use scylla::serialize::row::RowSerializationContext;

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
    /// The column has the CQL type the struct declares, yet the field's Rust type cannot read
    /// it: a `#[cass(cql_type = "...")]` that the Rust type does not fit, or a user-defined
    /// type whose fields differ from the struct's. `reason` says which part does not fit.
    #[error(
        "table `{table}`, column `{column}` (Rust `{}`, CQL `{cql_type}`): {reason}",
        rust_name(.rust_type)
    )]
    Unreadable {
        /// `keyspace.table`.
        table: String,
        /// The column.
        column: String,
        /// The field's Rust type.
        rust_type: &'static str,
        /// The column's CQL type, the same on the server and in the struct.
        cql_type: String,
        /// Why the Rust type cannot read it (the driver's reason, in CQL's words).
        reason: String,
    },
    /// A field of a user-defined type does not fit the struct's field (a type, a null, a
    /// value, a field missing from the server's type), or the value is not of that type.
    #[error("{}: {detail}", udt_place(.udt, .field, .rust_type))]
    UdtField {
        /// `keyspace.type`, or the type's name where its keyspace is not known.
        udt: String,
        /// The field (empty: the type as a whole).
        field: String,
        /// The field's Rust type (the struct's, for the type as a whole).
        rust_type: &'static str,
        /// What does not fit, and what to do.
        detail: String,
    },
    /// A null in a column whose Rust type cannot hold one: a row written without the
    /// column (by another program, or before the column was added), or whose value was
    /// deleted. [`Error::kind`](crate::Error::kind) is
    /// [`ErrorKind::UnexpectedNull`](crate::ErrorKind::UnexpectedNull): the struct, not the
    /// schema, is at fault.
    #[error(
        "table `{table}`, column `{column}` is null in this row, but its field has Rust type \
         `{ty}` (CQL `{expected}`), which cannot hold a null: make the field an `Option<{ty}>` \
         (a row has a null where it was written without the column, or the value was deleted)",
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
    /// A value refused before it was written because the column cannot hold it exactly or
    /// at all (a `DateTime<Utc>` with digits below the millisecond, a bucket out of range):
    /// the value is at fault, not the schema. [`Error::kind`](crate::Error::kind) is
    /// [`ErrorKind::InvalidRequest`](crate::ErrorKind::InvalidRequest).
    #[error("table `{table}`, column `{column}` (Rust `{}`): {detail}", rust_name(.rust_type))]
    Refused {
        /// `keyspace.table`.
        table: String,
        /// The column.
        column: String,
        /// The value's Rust type.
        rust_type: &'static str,
        /// Why, and what to do.
        detail: String,
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

/// Where in a user-defined type an error is: `` type `ks.addr`, field `zip` (Rust `i32`) ``.
pub(super) fn udt_place(udt: &str, field: &str, rust_type: &str) -> String {
    let rust = rust_name(rust_type);
    if field.is_empty() {
        format!("type `{udt}` (Rust `{rust}`)")
    } else {
        format!("type `{udt}`, field `{field}` (Rust `{rust}`)")
    }
}

/// A Rust type name (`std::any::type_name`) as a user writes it: paths dropped
/// (`Option<DateTime<Utc>>`), and the driver's value types under the names cassmodel exports
/// them as (`cassmodel::value::Timeuuid`, not `scylla_cql_core::value::CqlTimeuuid`).
///
/// ```
/// # use cassmodel_runtime::__private::testing::rust_name;
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

/// Values larger than one request takes, found as they were written (an insert's values
/// check their size as they go: `InsertValues`); surfaced as
/// [`Error::RequestTooLarge`].
#[derive(Debug, thiserror::Error)]
#[error("the values take {bytes} bytes, over the {limit}-byte limit of one request")]
pub(crate) struct TooLarge {
    pub(super) table: String,
    pub(super) bytes: usize,
    pub(super) limit: usize,
}

impl TooLarge {
    /// Values of `bytes` bytes for the markers `specs`, over `limit`.
    pub(crate) fn new(specs: &[ColumnSpec<'_>], bytes: usize, limit: usize) -> Self {
        TooLarge {
            table: table_of_specs(specs).unwrap_or_default(),
            bytes,
            limit,
        }
    }
}

/// The [`TooLarge`] inside a driver error, if the values were refused for their size.
pub(super) fn too_large_in<'e>(e: &'e (dyn std::error::Error + 'static)) -> Option<&'e TooLarge> {
    match e.downcast_ref::<SerializationError>() {
        Some(s) => s.downcast_ref::<TooLarge>(),
        None => e.source().and_then(too_large_in),
    }
}

/// The [`RowError`] inside a driver error, if the failure came from cassmodel's row mapping.
pub(super) fn row_error_in(e: &(dyn std::error::Error + 'static)) -> Option<RowError> {
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

// Errors of the row codec (`mapping/`) and of bound values (`statement/`): built where a value
// is written, with the table and column the driver's column specs name.

/// A value refused before it is written ([`RowError::Refused`]), for [`write_error`] to name
/// its table and column (the detail says why and what to do).
pub(crate) fn value_refused(rust_type: &'static str, detail: String) -> SerializationError {
    SerializationError::new(RowError::Refused {
        table: String::new(),
        column: String::new(),
        rust_type,
        detail,
    })
}

/// The error of writing a value of Rust type `rust_type` for the bind marker `spec`: names
/// `keyspace.table` and the column (from the statement's metadata), and says what the value
/// writer said (an inner [`value_refused`] stays [`RowError::Refused`], with its detail).
#[cold]
pub(crate) fn write_error(
    spec: &ColumnSpec<'_>,
    rust_type: &'static str,
    e: SerializationError,
) -> SerializationError {
    match e.downcast_ref::<RowError>() {
        Some(RowError::Refused { detail, .. }) => SerializationError::new(RowError::Refused {
            table: table_of(spec),
            column: spec.name().to_owned(),
            rust_type,
            detail: detail.clone(),
        }),
        Some(RowError::Value { detail, .. }) => value_mismatch(spec, rust_type, detail.clone()),
        // A user-defined type's field: its type and field, under the column's table and name.
        Some(other) => value_mismatch(spec, rust_type, other.to_string()),
        None => value_mismatch(spec, rust_type, e.to_string()),
    }
}

/// A [`RowError::Value`] for the bind marker `spec`: the value and the column do not fit.
#[cold]
pub(crate) fn value_mismatch(
    spec: &ColumnSpec<'_>,
    rust_type: &'static str,
    detail: String,
) -> SerializationError {
    SerializationError::new(RowError::Value {
        table: table_of(spec),
        column: spec.name().to_owned(),
        rust_type,
        detail,
    })
}

/// `keyspace.table` of a result column, for messages.
pub(crate) fn table_of(spec: &ColumnSpec<'_>) -> String {
    let t = spec.table_spec();
    format!("{}.{}", t.ks_name(), t.table_name())
}

/// `keyspace.table` of the first of `specs` (the columns or bind markers of one statement),
/// for messages; `None` when there are none.
pub(crate) fn table_of_specs(specs: &[ColumnSpec<'_>]) -> Option<String> {
    specs.first().map(table_of)
}

/// The statement has fewer bind markers than values (a cassmodel bug, never a panic).
#[cold]
pub(crate) fn count_mismatch(ctx: &RowSerializationContext<'_>) -> SerializationError {
    SerializationError::new(RowError::Value {
        table: table_of_specs(ctx.columns()).unwrap_or_default(),
        column: String::new(),
        rust_type: "bound values",
        detail: "the number of values differs from the number of bind markers".to_owned(),
    })
}
