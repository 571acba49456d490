//! Errors.

use scylla::client::session::Session;
use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::errors::{
    BrokenConnectionError, BrokenConnectionErrorKind, ConnectionError, ConnectionPoolError,
    ConnectionSetupRequestError, ConnectionSetupRequestErrorKind, DbError, ExecutionError,
    FrameHeaderParseError, IntoRowsResultError, MaybeFirstRowError, NewSessionError, NextPageError,
    NextRowError, PagerExecutionError, PrepareError, RequestAttemptError, RequestError, RowsError,
};
use scylla::frame::response::result::ColumnSpec;
use scylla::serialize::SerializationError;
use scylla::serialize::row::RowSerializationContext;

use crate::config::attempts::{self, Answer, Attempt, consistency_name};

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
    /// deleted. [`Error::kind`](crate::Error::kind) is [`ErrorKind::UnexpectedNull`]: the
    /// struct, not the schema, is at fault.
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
    /// [`ErrorKind::InvalidRequest`].
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
fn udt_place(udt: &str, field: &str, rust_type: &str) -> String {
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

/// Everything that can go wrong in cassmodel.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session could not be created.
    #[error("{}", connect_message(contact_points, source, points, tls.as_deref()))]
    Connect {
        /// The contact points tried.
        contact_points: String,
        /// The driver's error.
        #[source]
        source: Box<NewSessionError>,
        /// When no contact point could be reached: each one with its own reason (its name
        /// not resolved, a refused or unanswered TCP connection), in the order given.
        points: Vec<(String, String)>,
        /// When the TLS handshake is why (feature `tls`): what failed and what to fix. Found
        /// in the driver's error, or, when the driver's first request failed on the closed
        /// connection before the node's alert was read, by a handshake of cassmodel's own
        /// that reads it: the message is the same either way.
        tls: Option<String>,
    },
    /// No connection was set up within the connect timeout
    /// ([`ConnectOptions::connect_timeout`](crate::ConnectOptions::connect_timeout)): the
    /// deadline covers the whole connection, from the TCP connection through the TLS handshake
    /// and the CQL start-up to the first schema metadata. [`Error::kind`] is
    /// [`ErrorKind::Timeout`].
    #[error(
        "could not connect to Cassandra at {contact_points}: no connection was set up within \
         the connect timeout of {} (TCP connection, TLS handshake, CQL start-up and the first \
         schema metadata). Something accepts connections there without answering as a Cassandra \
         node: check that the address is the node's CQL port (9042 by default), that the TLS \
         settings match the port's, and that the node is not paused or overloaded; for a slow \
         cluster, raise CASSMODEL_CONNECT_TIMEOUT (`--connect-timeout`, \
         `ConnectOptions::connect_timeout`)",
        seconds(*.timeout)
    )]
    ConnectTimeout {
        /// The contact points tried.
        contact_points: String,
        /// The connect timeout.
        timeout: std::time::Duration,
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
    ///
    /// The message starts with the most telling answer of the request's attempts (a
    /// server's `Unavailable` before another node's connection error), then lists every
    /// node tried when more than one was, and ends with what to do;
    /// [`Error::attempts`] returns the attempts and [`Error::kind`] follows the same answer.
    #[error("running `{cql}` failed: {}", failure(.source.as_ref(), .attempts))]
    Execute {
        /// The statement.
        cql: String,
        /// The driver's error: the last attempt's, or why no further attempt was made.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
        /// Every attempt of the request, in order; nodes without an open connection last
        /// ([`Answer::NoConnection`]). Empty when the request failed before it was sent, on
        /// a `Db` made from a session of the caller's ([`Db::new`](crate::Db::new)), and for
        /// the pages after the first of a `fetch_stream` (fetched by the driver's pager task).
        attempts: Vec<Attempt>,
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
    /// A write whose values are larger than the server takes in one request, refused before
    /// anything was sent.
    #[error(
        "table `{table}`: the values of this write take {bytes} bytes, over the {limit}-byte \
         limit of one request (Cassandra's `native_transport_max_frame_size`, 16 MiB by default); \
         split the value over several rows, or raise the server's limit and \
         `ConnectOptions::max_request_size` (CASSMODEL_MAX_REQUEST_SIZE) together"
    )]
    RequestTooLarge {
        /// `keyspace.table`.
        table: String,
        /// The size of the serialized values (an insert counts it by each value's size bound,
        /// exact for every type cassmodel maps, as it writes them).
        bytes: usize,
        /// The limit ([`ConnectOptions::max_request_size`](crate::ConnectOptions::max_request_size)).
        limit: usize,
    },
    /// A contact point could not be understood.
    #[error("bad contact point `{0}`: expected host:port, e.g. 127.0.0.1:9042")]
    ContactPoint(String),
    /// An invalid argument (e.g. a keyspace name Cassandra cannot accept).
    #[error("{0}")]
    Invalid(String),
    /// A write of a table with dual writes (`#[cass(from = .., dual_writes)]`) reached one of
    /// the two tables and not the other (or it is not known whether it did).
    #[error(
        "dual writes: the write to {not_written} failed ({source}); {written}: {written_state}. \
         Run the write again (a plain write is idempotent); a row left different is reported \
         by `migrate verify` and fixed by running `migrate backfill` again",
        written_state = if *applied { "written" } else { "not known whether written" }
    )]
    DualWrite {
        /// `keyspace.table` the write failed on.
        not_written: String,
        /// `keyspace.table` of the other half of the write.
        written: String,
        /// Whether the other half is known to have been written.
        applied: bool,
        /// The failure.
        #[source]
        source: Box<Error>,
    },
    /// New storage-attached indexes exist but some nodes had not built them when the wait
    /// ended: reads that use them fail with `INDEX_NOT_AVAILABLE` on those nodes until they
    /// have.
    #[error(
        "index(es) {} created, but not yet queryable on {} after waiting {} s (still being \
         built); reads that use them fail with INDEX_NOT_AVAILABLE there until the build ends: \
         run the same step again to wait longer, or wait longer with \
         `Migrator::index_wait(..)`",
        .indexes.join(", "),
        .nodes.join(", "),
        .waited.as_secs()
    )]
    IndexNotReady {
        /// `keyspace.index` of each index waited for.
        indexes: Vec<String>,
        /// The nodes that did not report them all queryable.
        nodes: Vec<String>,
        /// How long it waited.
        waited: std::time::Duration,
    },
    /// The local data centre of the settings is none of the cluster's: every request would
    /// fail with the driver's "empty plan". Refused by `connect`. [`Error::kind`] is
    /// [`ErrorKind::Configuration`].
    #[error(
        "the local data centre `{given}` (CASSMODEL_LOCAL_DC, --local-dc, \
         ConnectOptions::local_dc) is not a data centre of the cluster at {contact_points}; \
         its data centres: {}{}",
        datacenter_list(.datacenters),
        did_you_mean(.suggestion.as_deref())
    )]
    UnknownLocalDc {
        /// The name given.
        given: String,
        /// The contact points connected to.
        contact_points: String,
        /// Each data centre of the cluster with its number of nodes, by name.
        datacenters: Vec<(String, usize)>,
        /// The data centre whose name differs from the given one only in case, if any.
        suggestion: Option<String>,
    },
    /// The server refused a request that uses a feature its Cassandra version lacks (a vector
    /// search on Cassandra 4.1): told by the feature and the version instead of the server's
    /// syntax error, which is kept as the source. [`Error::kind`] is
    /// [`ErrorKind::Unsupported`].
    #[error(
        "{feature} needs Cassandra {needs} or later, and the cluster runs Cassandra {server}: \
         upgrade the cluster, or do without it on this one"
    )]
    Unsupported {
        /// What the request uses, in words (`a vector search (ORDER BY embedding ANN OF ?)`).
        feature: String,
        /// The first Cassandra version that has it (`5.0`).
        needs: &'static str,
        /// The oldest version among the cluster's nodes (`4.1.10`).
        server: String,
        /// The server's refusal.
        #[source]
        source: Box<Error>,
    },
}

/// `dc1 (2 nodes), dc2 (1 node)`.
fn datacenter_list(dcs: &[(String, usize)]) -> String {
    if dcs.is_empty() {
        return "none known (the nodes report no data centre)".to_owned();
    }
    dcs.iter()
        .map(|(dc, n)| format!("`{dc}` ({n} node{})", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ")
}

fn did_you_mean(s: Option<&str>) -> String {
    s.map(|s| format!(". Did you mean `{s}`? Data centre names are case-sensitive"))
        .unwrap_or_default()
}

/// A duration in seconds as a person writes it: `5 s`, `0.25 s`.
fn seconds(d: std::time::Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// `; each contact point: a:9042 connection refused ...; b:9042 ...`.
fn point_reasons(points: &[(String, String)]) -> String {
    if points.is_empty() {
        return String::new();
    }
    let each: Vec<String> = points
        .iter()
        .map(|(p, why)| format!("{p}: {why}"))
        .collect();
    format!("; each contact point: {}", each.join("; "))
}

/// Whether a failed connection failed for want of a reachable node, not for something a
/// node answered (credentials, TLS).
pub(crate) fn unreachable(e: &NewSessionError) -> bool {
    #[cfg(feature = "tls")]
    if tls_failure(e).is_some() {
        return false;
    }
    matches!(
        kind_of(e),
        None | Some(ErrorKind::Connection) | Some(ErrorKind::Timeout)
    ) && !closed_by_peer(e)
}

/// The message of [`Error::Connect`]: the TLS failure when there is one, else the driver's
/// error, each contact point's reason and the advice by the cause.
fn connect_message(
    contact_points: &str,
    source: &NewSessionError,
    points: &[(String, String)],
    tls: Option<&str>,
) -> String {
    match tls {
        Some(tls) => format!("could not connect to Cassandra at {contact_points}: {tls}"),
        None => format!(
            "could not connect to Cassandra at {contact_points}: {source}{}. {}",
            point_reasons(points),
            connect_hint(source)
        ),
    }
}

/// What failed in a TLS handshake and what to fix, as [`Error::Connect`] says it.
#[cfg(feature = "tls")]
pub(crate) fn tls_message(e: &rustls::Error) -> String {
    format!("the TLS handshake failed ({e}). {}", tls_hint(e))
}

/// The advice of a connection error, by its cause.
fn connect_hint(source: &NewSessionError) -> String {
    match kind_of(source) {
        Some(ErrorKind::Authentication) => "The cluster refused the credentials, or needs some: \
             set CASSMODEL_USERNAME and CASSMODEL_PASSWORD (or CASSMODEL_PASSWORD_FILE), give \
             `--username` to the CLI, or call `ConnectOptions::credentials`"
            .to_owned(),
        Some(ErrorKind::Unauthorized) => {
            "The user may not do this: grant it the permission".to_owned()
        }
        _ if closed_by_peer(source) => "Something accepted the connection there and then closed \
             it before the CQL start-up finished: a node that accepts only TLS connections does \
             this to a client without TLS, so if the cluster uses TLS set CASSMODEL_TLS_CA \
             (`--tls-ca`, `ConnectOptions::tls_ca`, with the `tls` feature); otherwise check \
             that the address is a Cassandra node's CQL port (9042 by default)"
            .to_owned(),
        // The variable is `config::CONTACT_POINTS_ENV` (a test there checks this text).
        _ => "Start a local node (`cargo run -p cassmodel-node -- start`) or set \
              CASSMODEL_CONTACT_POINTS to a reachable cluster (if the cluster accepts only TLS \
              connections, set CASSMODEL_TLS_CA, with the `tls` feature)"
            .to_owned(),
    }
}

/// The TLS error under a connection failure, if the failure was TLS's.
#[cfg(feature = "tls")]
pub(crate) fn tls_failure<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a rustls::Error> {
    find_cause(e, &|_: &rustls::Error| true)
}

/// Whether a peer closed the connection during its set-up (the end of the stream where the
/// first answer's header was due, a reset): something answered on the address, unlike an
/// address where nothing listens.
fn closed_by_peer(e: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind as Io;
    let closed = |io: &std::io::Error| {
        matches!(
            io.kind(),
            Io::UnexpectedEof | Io::ConnectionReset | Io::ConnectionAborted | Io::BrokenPipe
        )
    };
    find_cause(e, &closed).is_some()
}

/// The first error of type `T` under `e` (itself included) that `pred` accepts. The driver
/// keeps the causes of a connection failure in `io::Error`s and transparent variants, whose
/// `source()` skips them, so the chain is walked by hand ([`inner_error`]) as well as by
/// `source()`.
fn find_cause<'a, T: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
    pred: &dyn Fn(&T) -> bool,
) -> Option<&'a T> {
    if let Some(t) = e.downcast_ref::<T>()
        && pred(t)
    {
        return Some(t);
    }
    inner_error(e)
        .and_then(|inner| find_cause(inner, pred))
        .or_else(|| e.source().and_then(|source| find_cause(source, pred)))
}

/// The error a driver connection error holds where `source()` does not lead.
fn inner_error<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a (dyn std::error::Error + 'static)> {
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        io.get_ref()
            .map(|i| i as &(dyn std::error::Error + 'static))
    } else if let Some(conn) = e.downcast_ref::<ConnectionError>() {
        // Its variants are `#[error(transparent)]`: `source()` skips them.
        match conn {
            ConnectionError::IoError(io) => Some(io.as_ref()),
            ConnectionError::ConnectionSetupRequestError(setup) => Some(setup),
            ConnectionError::BrokenConnection(broken) => Some(broken),
            _ => None,
        }
    } else if let Some(ConnectionPoolError::Broken {
        last_connection_error,
    }) = e.downcast_ref::<ConnectionPoolError>()
    {
        Some(last_connection_error)
    } else if let Some(setup) = e.downcast_ref::<ConnectionSetupRequestError>() {
        Some(setup.get_error())
    } else if let Some(ConnectionSetupRequestErrorKind::BrokenConnection(broken)) =
        e.downcast_ref::<ConnectionSetupRequestErrorKind>()
    {
        Some(broken)
    } else if let Some(broken) = e.downcast_ref::<BrokenConnectionError>() {
        // A stream that ended, or a handshake the node refused after it finished on the
        // client's side (TLS 1.3 client authentication): the failure arrives with the first
        // response's header.
        match broken.downcast_ref::<BrokenConnectionErrorKind>() {
            Some(BrokenConnectionErrorKind::FrameHeaderParseError(
                FrameHeaderParseError::HeaderIoError(io),
            )) => Some(io),
            _ => None,
        }
    } else {
        None
    }
}

/// The advice for a failed TLS handshake, by what failed.
#[cfg(feature = "tls")]
fn tls_hint(e: &rustls::Error) -> String {
    use rustls::{AlertDescription as Alert, CertificateError as Cert};
    match e {
        rustls::Error::InvalidCertificate(Cert::UnknownIssuer | Cert::BadSignature) => {
            "The node's certificate is not signed by the certificate authority given \
              (CASSMODEL_TLS_CA, --tls-ca, ConnectOptions::tls_ca): give the CA (PEM) that \
              signed the cluster's certificates"
                .to_owned()
        }
        rustls::Error::InvalidCertificate(
            Cert::NotValidForName | Cert::NotValidForNameContext { .. },
        ) => "The node's certificate is not issued for the address connected to: the driver \
              checks the IP address of each node, so each node's certificate must list it as a \
              subject alternative name (IP:<address>)"
            .to_owned(),
        rustls::Error::InvalidCertificate(
            Cert::Expired
            | Cert::ExpiredContext { .. }
            | Cert::NotValidYet
            | Cert::NotValidYetContext { .. },
        ) => "The node's certificate has expired or is not valid yet (or this machine's clock \
              is wrong): renew the node's certificate"
            .to_owned(),
        rustls::Error::AlertReceived(
            Alert::CertificateRequired
            | Alert::BadCertificate
            | Alert::UnknownCA
            | Alert::CertificateUnknown
            | Alert::HandshakeFailure
            | Alert::AccessDenied,
        ) => "The node refused this client in the TLS handshake: it requires a client \
              certificate signed by an authority it trusts (`require_client_auth`); set \
              CASSMODEL_TLS_CERT and CASSMODEL_TLS_KEY (--tls-cert/--tls-key, \
              ConnectOptions::tls_client_cert) to one"
            .to_owned(),
        // Cassandra 5.0 ends the handshake so when the client's certificate is not signed by
        // an authority in its truststore.
        rustls::Error::AlertReceived(Alert::InternalError) => {
            "The node refused this client in the TLS handshake (alert `internal_error`, what \
             Cassandra 5.0 sends for a client certificate it does not trust): give a client \
             certificate signed by an authority in the node's truststore with \
             CASSMODEL_TLS_CERT and CASSMODEL_TLS_KEY (--tls-cert/--tls-key, \
             ConnectOptions::tls_client_cert)"
                .to_owned()
        }
        rustls::Error::InvalidMessage(_) => {
            "The node did not answer the TLS handshake with TLS: its CQL port has no TLS \
             (`client_encryption_options`); drop the TLS settings or use the cluster's TLS port"
                .to_owned()
        }
        _ => "The TLS handshake failed: check the certificate authority (CASSMODEL_TLS_CA), the \
              client certificate and key (CASSMODEL_TLS_CERT/KEY) and the node's \
              `client_encryption_options`"
            .to_owned(),
    }
}

/// What kind of failure an [`Error`] is, from [`Error::kind`]: what a caller decides on (retry
/// later, lower the consistency, fix the credentials, migrate the schema) without looking into
/// the driver's error types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request timed out: the server's read or write timeout (too few replicas answered
    /// in time) or the client's request or connect timeout. A timed-out write may have been
    /// applied.
    Timeout,
    /// Too few replicas alive for the consistency level; nothing was tried (retrying at the
    /// same level fails until a node comes back).
    Unavailable,
    /// The coordinator is overloaded, rate-limited or still bootstrapping: retry later,
    /// elsewhere or slower.
    Overloaded,
    /// The credentials were refused, or the cluster needs some and none were given.
    Authentication,
    /// The user is authenticated but lacks the permission for the statement.
    Unauthorized,
    /// The statement does not match the cluster's schema: an unknown keyspace, table or
    /// column, a statement the server no longer knows as prepared, or a row whose columns or
    /// types differ from the struct (see [`RowError`]). Usually a migration not applied.
    SchemaMismatch,
    /// A row holds a null in a column whose field cannot hold one ([`RowError::Null`]): the
    /// row was written without the column, or its value was deleted. Make the field an
    /// `Option`; migrating does not help. (A counter never incremented is no such null: a
    /// `Counter` field reads it as 0.)
    UnexpectedNull,
    /// The server (or cassmodel, before sending) refused the request as invalid: syntax, a
    /// value it cannot take, an object that already exists, a bad argument.
    InvalidRequest,
    /// No connection: the contact points are unreachable, the connection broke, or no node
    /// could take the request.
    Connection,
    /// The replicas failed to run the request (read or write failure, server error).
    ServerFailure,
    /// The settings do not fit the cluster (a local data centre that no node is in): fix
    /// the settings, retrying cannot help.
    Configuration,
    /// The cluster's Cassandra version lacks a feature the request or the models use (SAI or
    /// vector indexes, vector types, masked columns on Cassandra 4.1): upgrade the cluster.
    Unsupported,
    /// Anything else.
    Other,
}

impl ErrorKind {
    fn of_db(e: &DbError, message: &str) -> ErrorKind {
        match e {
            DbError::ReadTimeout { .. } | DbError::WriteTimeout { .. } => ErrorKind::Timeout,
            DbError::Unavailable { .. } => ErrorKind::Unavailable,
            DbError::Overloaded | DbError::RateLimitReached { .. } | DbError::IsBootstrapping => {
                ErrorKind::Overloaded
            }
            DbError::AuthenticationError => ErrorKind::Authentication,
            DbError::Unauthorized => ErrorKind::Unauthorized,
            DbError::Unprepared { .. } => ErrorKind::SchemaMismatch,
            // Cassandra answers a statement on a table, keyspace or column it does not know
            // with INVALID; these are its messages for them.
            DbError::Invalid
                if [
                    "unconfigured table",
                    "Undefined column",
                    "does not exist",
                    "doesn't exist",
                ]
                .iter()
                .any(|m| message.contains(m)) =>
            {
                ErrorKind::SchemaMismatch
            }
            DbError::Invalid
            | DbError::SyntaxError
            | DbError::AlreadyExists { .. }
            | DbError::ConfigError
            | DbError::FunctionFailure { .. } => ErrorKind::InvalidRequest,
            DbError::ReadFailure { .. }
            | DbError::WriteFailure { .. }
            | DbError::ServerError
            | DbError::TruncateError => ErrorKind::ServerFailure,
            _ => ErrorKind::Other,
        }
    }
}

/// The kind of the first error in `e`'s source chain that tells one.
fn kind_of(e: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    kind_here(e).or_else(|| e.source().and_then(kind_of))
}

fn kind_here(e: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    if let Some(e) = e.downcast_ref::<RequestAttemptError>() {
        return match e {
            RequestAttemptError::DbError(db, message) => Some(ErrorKind::of_db(db, message)),
            RequestAttemptError::BrokenConnectionError(_)
            | RequestAttemptError::UnableToAllocStreamId => Some(ErrorKind::Connection),
            _ => None,
        };
    }
    if let Some(e) = e.downcast_ref::<ExecutionError>() {
        return match e {
            ExecutionError::RequestTimeout(_) => Some(ErrorKind::Timeout),
            ExecutionError::EmptyPlan | ExecutionError::ConnectionPoolError(_) => {
                Some(ErrorKind::Connection)
            }
            ExecutionError::BadQuery(_) => Some(ErrorKind::InvalidRequest),
            // `#[error(transparent)]`: its `source()` skips the attempt's error, so look at it
            // here.
            ExecutionError::LastAttemptError(a) => kind_here(a),
            ExecutionError::PrepareError(p) => kind_here(p),
            _ => None,
        };
    }
    if let Some(NextPageError::RequestFailure(r)) = e.downcast_ref() {
        return kind_here(r);
    }
    if let Some(e) = e.downcast_ref::<RequestError>() {
        return match e {
            RequestError::RequestTimeout(_) => Some(ErrorKind::Timeout),
            RequestError::EmptyPlan | RequestError::ConnectionPoolError(_) => {
                Some(ErrorKind::Connection)
            }
            RequestError::LastAttemptError(a) => kind_here(a),
            _ => None,
        };
    }
    if let Some(PrepareError::AllAttemptsFailed { first_attempt }) = e.downcast_ref() {
        return kind_here(first_attempt);
    }
    if let Some(e) = e.downcast_ref::<ConnectionSetupRequestError>() {
        return kind_here(e.get_error());
    }
    if let Some(e) = e.downcast_ref::<ConnectionSetupRequestErrorKind>() {
        return match e {
            ConnectionSetupRequestErrorKind::DbError(db, message) => {
                Some(ErrorKind::of_db(db, message))
            }
            ConnectionSetupRequestErrorKind::MissingAuthentication
            | ConnectionSetupRequestErrorKind::StartAuthSessionError(_)
            | ConnectionSetupRequestErrorKind::AuthChallengeEvaluationError(_)
            | ConnectionSetupRequestErrorKind::AuthFinishError(_) => {
                Some(ErrorKind::Authentication)
            }
            _ => None,
        };
    }
    if let Some(ConnectionPoolError::Broken {
        last_connection_error,
    }) = e.downcast_ref()
    {
        return kind_here(last_connection_error).or(Some(ErrorKind::Connection));
    }
    if let Some(e) = e.downcast_ref::<ConnectionError>() {
        return match e {
            ConnectionError::ConnectTimeout => Some(ErrorKind::Timeout),
            ConnectionError::ConnectionSetupRequestError(s) => kind_here(s),
            _ => None,
        };
    }
    None
}

impl Error {
    /// What kind of failure this is, for a caller that decides what to do next (retry,
    /// lower the consistency, fix credentials, migrate) without downcasting driver errors.
    ///
    /// ```no_run
    /// # use cassmodel::{Db, ErrorKind}; async fn f(db: &Db, q: impl std::future::Future<Output = cassmodel::Result<()>>) {
    /// match q.await {
    ///     Ok(()) => {}
    ///     Err(e) if e.kind() == ErrorKind::Unavailable => eprintln!("too few replicas up: {e}"),
    ///     Err(e) if e.is_timeout() => eprintln!("timed out (a write may have been applied): {e}"),
    ///     Err(e) => eprintln!("{e}"),
    /// }
    /// # }
    /// ```
    pub fn kind(&self) -> ErrorKind {
        let driver: &(dyn std::error::Error + 'static) = match self {
            Error::Row(RowError::Refused { .. }) => return ErrorKind::InvalidRequest,
            Error::Row(RowError::Null { .. }) => return ErrorKind::UnexpectedNull,
            Error::Row(_) => return ErrorKind::SchemaMismatch,
            Error::NoKeyspace { .. }
            | Error::ContactPoint(_)
            | Error::Invalid(_)
            | Error::RequestTooLarge { .. } => {
                return ErrorKind::InvalidRequest;
            }
            Error::Connect { source, .. } => {
                return kind_of(source.as_ref()).unwrap_or(ErrorKind::Connection);
            }
            // The wait for the index ran out; the index itself was created.
            Error::IndexNotReady { .. } | Error::ConnectTimeout { .. } => {
                return ErrorKind::Timeout;
            }
            Error::UnknownLocalDc { .. } => return ErrorKind::Configuration,
            Error::Unsupported { .. } => return ErrorKind::Unsupported,
            Error::DualWrite { source, .. } => return source.kind(),
            Error::Prepare { source, .. } => source.as_ref(),
            Error::Execute {
                source, attempts, ..
            } => return telling_kind(attempts, source.as_ref()),
            Error::Driver(source) => source.as_ref(),
        };
        kind_of(driver).unwrap_or(ErrorKind::Other)
    }

    /// Every attempt of the request this error ended, in order: each node tried, what it
    /// answered and how long it took, then the nodes the driver had no open connection to
    /// ([`Answer::NoConnection`]). Empty for an error that is not a request's, or a request
    /// that failed before anything was sent.
    ///
    /// ```no_run
    /// # use cassmodel::{errors::Answer, ErrorKind}; fn f(e: cassmodel::Error) {
    /// for a in e.attempts() {
    ///     match &a.answer {
    ///         Answer::Server { error, .. } => eprintln!("{} answered {error}", a.node),
    ///         Answer::Failed(why) => eprintln!("{} failed: {why}", a.node),
    ///         Answer::NoConnection => eprintln!("{}: no open connection", a.node),
    ///         _ => {}
    ///     }
    /// }
    /// # }
    /// ```
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            Error::Execute { attempts, .. } => attempts,
            Error::DualWrite { source, .. } => source.attempts(),
            _ => &[],
        }
    }

    /// A server read/write timeout or a client request/connect timeout
    /// ([`ErrorKind::Timeout`]).
    pub fn is_timeout(&self) -> bool {
        self.kind() == ErrorKind::Timeout
    }

    /// Too few replicas alive for the consistency level ([`ErrorKind::Unavailable`]).
    pub fn is_unavailable(&self) -> bool {
        self.kind() == ErrorKind::Unavailable
    }

    /// The coordinator is overloaded or rate-limiting ([`ErrorKind::Overloaded`]).
    pub fn is_overloaded(&self) -> bool {
        self.kind() == ErrorKind::Overloaded
    }

    /// Credentials refused or missing ([`ErrorKind::Authentication`]).
    pub fn is_authentication(&self) -> bool {
        self.kind() == ErrorKind::Authentication
    }

    /// The statement or row does not match the schema ([`ErrorKind::SchemaMismatch`]).
    pub fn is_schema_mismatch(&self) -> bool {
        self.kind() == ErrorKind::SchemaMismatch
    }

    /// The request was refused as invalid ([`ErrorKind::InvalidRequest`]).
    pub fn is_invalid_request(&self) -> bool {
        self.kind() == ErrorKind::InvalidRequest
    }
}

/// A `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Values larger than one request takes, found as they were written (an insert's values
/// check their size as they go: `InsertValues`); surfaced as
/// [`Error::RequestTooLarge`].
#[derive(Debug, thiserror::Error)]
#[error("the values take {bytes} bytes, over the {limit}-byte limit of one request")]
pub(crate) struct TooLarge {
    table: String,
    bytes: usize,
    limit: usize,
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
fn too_large_in<'e>(e: &'e (dyn std::error::Error + 'static)) -> Option<&'e TooLarge> {
    match e.downcast_ref::<SerializationError>() {
        Some(s) => s.downcast_ref::<TooLarge>(),
        None => e.source().and_then(too_large_in),
    }
}

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
    /// Wraps a driver error from running `cql` on `session`, surfacing a [`RowError`] when
    /// that is the cause, with the request's attempts (called in the poll that returned the
    /// error: see [`attempts`](crate::config::attempts)). When the request ended for want of
    /// a connection, the nodes `session` has none to are added.
    pub(crate) fn execute<E>(session: &Session, cql: &str, e: E) -> Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let mut attempts = attempts::take();
        if ends_without_connection(&e) {
            add_unconnected(session, &mut attempts);
        }
        Error::request(cql, e, attempts)
    }

    /// Wraps a driver error from preparing a request to run `cql` (serializing its values),
    /// before anything was sent: a [`RowError`] when that is the cause.
    pub(crate) fn unsent<E>(cql: &str, e: E) -> Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        Error::request(cql, e, Vec::new())
    }

    /// [`Error::Execute`] of `cql`, or the [`RowError`] under `e`.
    fn request<E>(cql: &str, e: E, attempts: Vec<Attempt>) -> Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        if let Some(t) = too_large_in(&e) {
            return Error::RequestTooLarge {
                table: t.table.clone(),
                bytes: t.bytes,
                limit: t.limit,
            };
        }
        match row_error_in(&e) {
            Some(r) => Error::Row(r),
            None => Error::Execute {
                cql: cql.to_owned(),
                source: Box::new(e),
                attempts,
            },
        }
    }
}

/// Whether a request ended because no node of its plan had an open connection left.
fn ends_without_connection(e: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(e) = e.downcast_ref::<ExecutionError>() {
        return matches!(e, ExecutionError::ConnectionPoolError(_));
    }
    if let Some(e) = e.downcast_ref::<RequestError>() {
        return matches!(e, RequestError::ConnectionPoolError(_));
    }
    if let Some(PagerExecutionError::NextPageError(NextPageError::RequestFailure(r))) =
        e.downcast_ref()
    {
        return matches!(r, RequestError::ConnectionPoolError(_));
    }
    false
}

/// The nodes `session` has no open connection to (and is meant to have), after those
/// already tried: the driver's plan ends with them, and a request fails with a pool error
/// once it reaches them.
fn add_unconnected(session: &Session, attempts: &mut Vec<Attempt>) {
    let state = session.get_cluster_state();
    let mut nodes: Vec<Attempt> = state
        .get_nodes_info()
        .iter()
        .filter(|n| n.is_enabled() && !n.is_connected())
        .map(|n| Attempt {
            node: std::net::SocketAddr::new(n.address.ip(), n.address.port()),
            datacenter: n.datacenter.clone(),
            answer: Answer::NoConnection,
            took: None,
            retried: false,
        })
        .filter(|n| !attempts.iter().any(|a| a.node == n.node))
        .collect();
    nodes.sort_by_key(|n| n.node);
    attempts.extend(nodes);
}

/// The attempt an error is about: the last one a server answered, if any (a server's
/// `Unavailable` or timeout says more than another node's connection error, and the last
/// answer is the newest news of the cluster).
fn telling(attempts: &[Attempt]) -> Option<(&Attempt, &DbError, &str)> {
    attempts.iter().rev().find_map(|a| match &a.answer {
        Answer::Server { error, message } => Some((a, error, message.as_str())),
        _ => None,
    })
}

/// The kind of a request's error: the server's answer when an attempt had one, else the
/// kind of the driver's error (a client time-out, a connection error).
fn telling_kind(attempts: &[Attempt], source: &(dyn std::error::Error + 'static)) -> ErrorKind {
    match telling(attempts) {
        Some((_, error, message)) => ErrorKind::of_db(error, message),
        None => kind_of(source).unwrap_or(ErrorKind::Other),
    }
}

/// A server's error in CQL's words: `Unavailable: QUORUM needs 2 replicas alive, 1 is`.
fn server_answer(error: &DbError, message: &str) -> String {
    match error {
        DbError::Unavailable {
            consistency,
            required,
            alive,
        } => format!(
            "Unavailable: {} needs {required} replica{} alive, {alive} {}{}",
            consistency_name(*consistency),
            if *required == 1 { "" } else { "s" },
            if *alive == 1 { "is" } else { "are" },
            // Cassandra's message names the data centre of EACH_QUORUM and LOCAL_*.
            if message.is_empty() {
                String::new()
            } else {
                format!(" ({message})")
            }
        ),
        DbError::WriteTimeout {
            consistency,
            received,
            required,
            write_type,
        } => format!(
            "write timeout at {}: {received} of {required} replica acknowledgements in time \
             (write type {})",
            consistency_name(*consistency),
            write_type.as_str()
        ),
        DbError::ReadTimeout {
            consistency,
            received,
            required,
            ..
        } => format!(
            "read timeout at {}: {received} of {required} replica answers in time",
            consistency_name(*consistency)
        ),
        other => format!("{other}: {message}"),
    }
}

/// Whether [`server_answer`] words this answer itself (rather than the driver's text).
fn has_own_words(error: &DbError) -> bool {
    matches!(
        error,
        DbError::Unavailable { .. } | DbError::WriteTimeout { .. } | DbError::ReadTimeout { .. }
    )
}

/// The server's answer under a driver error of a request, if the request ended with one.
fn server_error_in<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<(&'a DbError, &'a str)> {
    let attempt = if let Some(a) = e.downcast_ref::<RequestAttemptError>() {
        Some(a)
    } else if let Some(ExecutionError::LastAttemptError(a)) = e.downcast_ref() {
        Some(a)
    } else if let Some(RequestError::LastAttemptError(a)) = e.downcast_ref() {
        Some(a)
    } else if let Some(NextPageError::RequestFailure(RequestError::LastAttemptError(a))) =
        e.downcast_ref()
    {
        Some(a)
    } else {
        None
    };
    match attempt {
        Some(RequestAttemptError::DbError(error, message)) => Some((error, message.as_str())),
        Some(_) => None,
        None => e.source().and_then(server_error_in),
    }
}

/// One attempt as the error's message lists it: `127.0.0.1:9042 (dc1) in 2.1 ms: Unavailable`;
/// an answer equal to `lead` (the message's first words) only by its name.
fn attempt_line(a: &Attempt, lead: Option<(&DbError, &str)>) -> String {
    let dc = a
        .datacenter
        .as_ref()
        .map(|dc| format!(" ({dc})"))
        .unwrap_or_default();
    let what = match &a.answer {
        Answer::Server { error, message } if lead == Some((error, message.as_str())) => {
            answer_name(error)
        }
        Answer::Server { error, message } => server_answer(error, message),
        Answer::Failed(why) => why.clone(),
        Answer::NoConnection => "no open connection".to_owned(),
    };
    let took = a
        .took
        .map(|t| format!(" in {}", millis(t)))
        .unwrap_or_default();
    format!("{}{dc}{took}: {what}", a.node)
}

/// A server's answer by its name alone: `Unavailable`, `write timeout`.
fn answer_name(error: &DbError) -> String {
    match error {
        DbError::Unavailable { .. } => "Unavailable".to_owned(),
        DbError::WriteTimeout { .. } => "write timeout".to_owned(),
        DbError::ReadTimeout { .. } => "read timeout".to_owned(),
        DbError::WriteFailure { .. } => "write failure".to_owned(),
        DbError::ReadFailure { .. } => "read failure".to_owned(),
        DbError::Overloaded => "overloaded".to_owned(),
        DbError::IsBootstrapping => "bootstrapping".to_owned(),
        other => other.to_string(),
    }
}

/// `2 ms`, `0.4 ms`, `1500 ms`.
fn millis(d: std::time::Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// The message of a failed request: its most telling answer, every node tried (when more
/// than one was, or the telling answer is not the last error), and what to do.
fn failure(source: &(dyn std::error::Error + 'static), attempts: &[Attempt]) -> String {
    let telling = telling(attempts);
    let last_is_telling = attempts
        .last()
        .is_some_and(|a| telling.is_some_and(|(t, _, _)| std::ptr::eq(t, a)));
    let listed = attempts.len() > 1 || (telling.is_some() && !last_is_telling);
    let lead = telling.filter(|_| listed).map(|(_, e, m)| (e, m));
    // An answer cassmodel words itself (unavailable, timeouts) reads the same whether one
    // node or several were tried, and whether the attempts were recorded or not (a session
    // of the caller's).
    let own = lead
        .or_else(|| telling.map(|(_, e, m)| (e, m)))
        .or_else(|| server_error_in(source))
        .filter(|&(error, _)| listed || has_own_words(error));
    let mut out = match own {
        Some((error, message)) => server_answer(error, message),
        None => source.to_string(),
    };
    if listed {
        let tried: Vec<String> = attempts.iter().map(|a| attempt_line(a, lead)).collect();
        out.push_str(&format!("; tried: {}", tried.join("; ")));
        if telling.is_some() && !last_is_telling {
            out.push_str(&format!(" (the driver's last error: {source})"));
        }
    }
    let kind = telling_kind(attempts, source);
    let hint = match attempts.last() {
        Some(last) if kind == ErrorKind::Connection => broken_in_flight(last),
        _ => None,
    };
    if let Some(hint) = hint.or_else(|| request_hint(kind, telling.map(|(_, e, m)| (e, m)))) {
        out.push_str(". ");
        out.push_str(&hint);
    }
    out
}

/// The advice when the request's last attempt was sent and its connection broke, and the
/// driver did not send it again: a request that is not idempotent (a lightweight
/// transaction, a counter update, a list append) may have been applied.
fn broken_in_flight(last: &Attempt) -> Option<String> {
    match (&last.answer, last.took, last.retried) {
        (Answer::Failed(_), Some(_), false) => Some(format!(
            "The connection to {} broke after the request was sent, and the driver sends a \
             request that is not idempotent (a lightweight transaction, a counter update, a \
             list append) to no other node: it may have been applied. Find out before sending \
             it again (for a lightweight transaction, read the row at SERIAL)",
            last.node
        )),
        _ => None,
    }
}

/// What to do about a failed request, by its kind.
fn request_hint(kind: ErrorKind, server: Option<(&DbError, &str)>) -> Option<String> {
    match (kind, server) {
        // Cassandra's words for the batch log of a logged batch.
        (ErrorKind::Unavailable, Some((DbError::Unavailable { .. }, message)))
            if message.contains("batchlog") =>
        {
            Some(
                "A logged batch first writes its batch log on two other live nodes of the \
                 coordinator's data centre: wait for the nodes to come back, or send the rows \
                 of one partition as an unlogged batch (`Batch::unlogged()`)"
                    .to_owned(),
            )
        }
        (ErrorKind::Unavailable, Some((DbError::Unavailable { consistency, .. }, _))) => {
            Some(format!(
                "Too few replicas are up for {}: wait for the nodes to come back, or lower the \
             consistency of this call (`.consistency(..)`, or `.serial_consistency(..)` for a \
             lightweight transaction)",
                consistency_name(*consistency)
            ))
        }
        (ErrorKind::Timeout, Some(_)) => Some(
            "The replicas did not all answer in time (overloaded or going down); a write that \
             timed out may have been applied"
                .to_owned(),
        ),
        (ErrorKind::Connection, _) => Some(
            "No node took the request: check that the nodes are up and reachable from here"
                .to_owned(),
        ),
        // The driver prepares a statement again when a node says it does not know it (after
        // a schema change of its table, a restart); this answer came after that.
        (_, Some((DbError::Unprepared { .. }, _))) => Some(
            "The node did not know the prepared statement even after the driver prepared it \
             again: it restarted meanwhile, or its prepared-statement cache \
             (`prepared_statements_cache_size` in cassandra.yaml) is too small for the \
             statements in use and dropped it at once; run the call again, and raise the \
             cache if it happens again"
                .to_owned(),
        ),
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's answers that a single healthy node cannot be made to give (overloaded,
    /// refused credentials, a read timeout) map to their kinds; the others are produced on the
    /// node in `tests/errors.rs`.
    #[test]
    fn server_errors_map_to_kinds() {
        let attempt = |db: DbError, message: &str| Error::Execute {
            cql: "SELECT v FROM ks.t WHERE k = ?".to_owned(),
            source: Box::new(ExecutionError::LastAttemptError(
                RequestAttemptError::DbError(db, message.to_owned()),
            )),
            attempts: Vec::new(),
        };
        let execute = |db: DbError| attempt(db, "server message");
        assert_eq!(execute(DbError::Overloaded).kind(), ErrorKind::Overloaded);
        assert!(execute(DbError::Overloaded).is_overloaded());
        assert!(execute(DbError::AuthenticationError).is_authentication());
        assert_eq!(
            execute(DbError::Unauthorized).kind(),
            ErrorKind::Unauthorized
        );
        assert_eq!(
            execute(DbError::SyntaxError).kind(),
            ErrorKind::InvalidRequest
        );
        assert_eq!(
            execute(DbError::ServerError).kind(),
            ErrorKind::ServerFailure
        );
        let unprepared = DbError::Unprepared {
            statement_id: Default::default(),
        };
        assert!(execute(unprepared).is_schema_mismatch());
        let timeout = DbError::ReadTimeout {
            consistency: scylla::statement::Consistency::Quorum,
            received: 1,
            required: 2,
            data_present: false,
        };
        assert!(execute(timeout).is_timeout());
        // Cassandra's INVALID for an unknown table is a schema mismatch, other INVALIDs not.
        let invalid = |m: &str| attempt(DbError::Invalid, m);
        assert!(invalid("unconfigured table readings").is_schema_mismatch());
        assert!(invalid("Undefined column name nope in table ks.t").is_schema_mismatch());
        assert!(invalid("Table 'orders' doesn't exist").is_schema_mismatch());
        assert!(invalid("A TTL must be greater or equal to 0, but was -5").is_invalid_request());
    }

    fn node(n: u8) -> std::net::SocketAddr {
        std::net::SocketAddr::from(([127, 0, 0, n], 9042))
    }

    fn server(n: u8, error: DbError, retried: bool) -> Attempt {
        Attempt {
            node: node(n),
            datacenter: Some("datacenter1".to_owned()),
            answer: Answer::Server {
                error,
                message: "the server's message".to_owned(),
            },
            took: Some(std::time::Duration::from_millis(3)),
            retried,
        }
    }

    /// A statement the node no longer knows, after the driver's own second prepare, says
    /// what can cause it and what to do.
    #[test]
    fn an_unprepared_answer_names_the_prepared_statement_cache() {
        let e = Error::Execute {
            cql: "SELECT v FROM ks.t WHERE k = ?".to_owned(),
            source: Box::new(ExecutionError::LastAttemptError(
                RequestAttemptError::DbError(
                    DbError::Unprepared {
                        statement_id: vec![1, 2].into(),
                    },
                    "Prepared query with ID 0102 not found".to_owned(),
                ),
            )),
            attempts: vec![server(
                1,
                DbError::Unprepared {
                    statement_id: vec![1, 2].into(),
                },
                false,
            )],
        };
        assert!(e.is_schema_mismatch());
        let text = e.to_string();
        assert!(
            text.contains("prepared_statements_cache_size") && text.contains("run the call again"),
            "{text}"
        );
    }

    fn broken(n: u8) -> Attempt {
        Attempt {
            node: node(n),
            datacenter: Some("datacenter1".to_owned()),
            answer: Answer::Failed("Connection broken: connection reset by peer".to_owned()),
            took: Some(std::time::Duration::from_micros(400)),
            retried: true,
        }
    }

    fn unconnected(n: u8) -> Attempt {
        Attempt {
            node: node(n),
            datacenter: None,
            answer: Answer::NoConnection,
            took: None,
            retried: false,
        }
    }

    /// The driver's error of a request that ran out of nodes with an open connection.
    fn pool_broken() -> Box<dyn std::error::Error + Send + Sync> {
        Box::new(ExecutionError::ConnectionPoolError(
            ConnectionPoolError::Broken {
                last_connection_error: ConnectionError::IoError(std::sync::Arc::new(
                    std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
                )),
            },
        ))
    }

    fn request(source: Box<dyn std::error::Error + Send + Sync>, attempts: Vec<Attempt>) -> Error {
        Error::Execute {
            cql: "INSERT INTO ks.t (k, v) VALUES (?, ?)".to_owned(),
            source,
            attempts,
        }
    }

    fn unavailable(consistency: scylla::statement::Consistency) -> DbError {
        DbError::Unavailable {
            consistency,
            required: 2,
            alive: 1,
        }
    }

    /// The kind of a request's error follows its most telling answer, not its last.
    #[test]
    fn the_kind_comes_from_the_most_telling_attempt() {
        use scylla::statement::Consistency;
        // Unavailable, retried on nodes without a connection: Unavailable.
        let e = request(
            pool_broken(),
            vec![
                server(1, unavailable(Consistency::Quorum), true),
                unconnected(2),
                unconnected(3),
            ],
        );
        assert_eq!(e.kind(), ErrorKind::Unavailable);
        assert_eq!(e.attempts().len(), 3);
        let text = e.to_string();
        for part in [
            "failed: Unavailable: QUORUM needs 2 replicas alive, 1 is (the server's message); ",
            "tried: 127.0.0.1:9042 (datacenter1) in 3.0 ms: Unavailable; ",
            "127.0.0.2:9042: no open connection; 127.0.0.3:9042: no open connection",
            "(the driver's last error: No connections in the pool",
            "wait for the nodes to come back, or lower the consistency",
        ] {
            assert!(text.contains(part), "{part:?} not in {text}");
        }
        // A lightweight transaction's serial phase names its serial consistency.
        let lwt = request(
            pool_broken(),
            vec![
                server(1, unavailable(Consistency::Serial), true),
                unconnected(2),
            ],
        );
        assert!(lwt.is_unavailable());
        assert!(lwt.to_string().contains("SERIAL needs 2"), "{lwt}");
        // Connection errors only: Connection.
        let e = request(
            pool_broken(),
            vec![broken(1), unconnected(2), unconnected(3)],
        );
        assert_eq!(e.kind(), ErrorKind::Connection);
        assert!(e.to_string().contains("No node took the request"), "{e}");
        // A request not idempotent whose connection broke once it was sent: it may have been
        // applied, and the message says so (not that no node took it).
        let mut in_flight = broken(3);
        in_flight.retried = false;
        let e = request(pool_broken(), vec![in_flight]);
        assert_eq!(e.kind(), ErrorKind::Connection);
        let text = e.to_string();
        assert!(
            text.contains("The connection to 127.0.0.3:9042 broke after the request was sent"),
            "{text}"
        );
        assert!(text.contains("may have been applied"), "{text}");
        assert!(!text.contains("No node took the request"), "{text}");
        // No attempt recorded at all (a session of the caller's): the driver's error.
        assert_eq!(
            request(pool_broken(), Vec::new()).kind(),
            ErrorKind::Connection
        );
        // A write timeout, then a connection error on the next node: Timeout.
        let timeout = DbError::WriteTimeout {
            consistency: Consistency::Quorum,
            received: 1,
            required: 2,
            write_type: scylla::errors::WriteType::Simple,
        };
        let e = request(
            pool_broken(),
            vec![server(1, timeout, true), broken(2), unconnected(3)],
        );
        assert_eq!(e.kind(), ErrorKind::Timeout);
        assert!(
            e.to_string()
                .contains("write timeout at QUORUM: 1 of 2 replica acknowledgements"),
            "{e}"
        );
        // Two server answers: the last one (the newest news of the cluster).
        let overloaded = server(1, DbError::Overloaded, true);
        let e = request(
            pool_broken(),
            vec![
                overloaded,
                server(2, unavailable(Consistency::Quorum), true),
            ],
        );
        assert_eq!(e.kind(), ErrorKind::Unavailable);
        // One attempt, the request's own error: the message is the driver's, unchanged.
        let one = request(
            Box::new(ExecutionError::LastAttemptError(
                RequestAttemptError::DbError(
                    DbError::SyntaxError,
                    "line 1: no viable alternative".to_owned(),
                ),
            )),
            vec![server(1, DbError::SyntaxError, false)],
        );
        assert!(!one.to_string().contains("tried:"), "{one}");
        assert!(one.is_invalid_request());
    }

    /// A lightweight transaction's write timeout: one node tried, or none recorded (a session
    /// of the caller's): the same words as when several nodes were tried.
    #[test]
    fn a_timeout_reads_the_same_however_many_nodes_were_tried() {
        use scylla::statement::Consistency;
        let timeout = || DbError::WriteTimeout {
            consistency: Consistency::Serial,
            received: 1,
            required: 2,
            write_type: scylla::errors::WriteType::Cas,
        };
        let driver = || -> Box<dyn std::error::Error + Send + Sync> {
            Box::new(ExecutionError::LastAttemptError(
                RequestAttemptError::DbError(timeout(), "Operation timed out".to_owned()),
            ))
        };
        let words = "write timeout at SERIAL: 1 of 2 replica acknowledgements in time \
                     (write type CAS)";
        for e in [
            request(driver(), vec![server(1, timeout(), false)]),
            request(driver(), Vec::new()),
            request(pool_broken(), vec![server(1, timeout(), true), broken(2)]),
        ] {
            let text = e.to_string();
            assert!(text.contains(words), "{text}");
            assert!(!text.contains("Not enough nodes"), "{text}");
            assert_eq!(e.kind(), ErrorKind::Timeout, "{text}");
        }
    }
}
