//! [`Error`], everything that can go wrong in cassmodel, its accessors, and the wrapping of
//! a failed request with its attempts.

use super::attempt::{Answer, Attempt};
use super::failure::{failure, telling_kind};
use super::hint::{connect_message, datacenter_list, did_you_mean, seconds};
use super::kind::{ErrorKind, kind_of};
use super::row::{RowError, row_error_in, too_large_in};
use scylla::client::session::Session;
use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::errors::{
    ExecutionError, IntoRowsResultError, MaybeFirstRowError, NewSessionError, NextPageError,
    NextRowError, PagerExecutionError, PrepareError, RequestError, RowsError,
};

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
    /// A conditional change of an entity (`replace_if_unchanged`) applied on its identity
    /// table, but the batch that writes its other tables failed (or it is not known whether
    /// it was written): those tables may still hold the stored entity.
    #[error(
        "the change of `{entity}` applied on its identity table `{identity}` (its condition \
         held), but writing its other tables failed ({source}): run the same change again \
         with `replace` (its writes are idempotent) to bring them in step"
    )]
    EntityChange {
        /// The entity's Rust name.
        entity: &'static str,
        /// `keyspace.table` of the identity table, which was written.
        identity: String,
        /// The failure of the other tables' batch.
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
            Error::DualWrite { source, .. } | Error::EntityChange { source, .. } => {
                return source.kind();
            }
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
            Error::DualWrite { source, .. } | Error::EntityChange { source, .. } => {
                source.attempts()
            }
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

impl Error {
    /// Wraps a driver error from running `cql` on `session`, surfacing a [`RowError`] when
    /// that is the cause, with the request's `attempts` (the caller takes them in the poll
    /// that returned the error: `config::attempts::take`). When the request ended for want
    /// of a connection, the nodes `session` has none to are added.
    pub(crate) fn execute<E>(
        session: &Session,
        cql: &str,
        e: E,
        mut attempts: Vec<Attempt>,
    ) -> Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
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
pub(super) fn ends_without_connection(e: &(dyn std::error::Error + 'static)) -> bool {
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
pub(super) fn add_unconnected(session: &Session, attempts: &mut Vec<Attempt>) {
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
