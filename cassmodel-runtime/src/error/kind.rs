//! [`ErrorKind`]: what kind of failure an error is, read from the server's answer or the
//! driver's error.

use scylla::errors::{
    ConnectionError, ConnectionPoolError, ConnectionSetupRequestError,
    ConnectionSetupRequestErrorKind, DbError, ExecutionError, NextPageError, PrepareError,
    RequestAttemptError, RequestError,
};

/// What kind of failure an [`Error`](crate::Error) is, from
/// [`Error::kind`](crate::Error::kind): what a caller decides on (retry later, lower the
/// consistency, fix the credentials, migrate the schema) without looking into the driver's
/// error types.
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
    /// types differ from the struct (see [`RowError`](crate::RowError)). Usually a migration
    /// not applied.
    SchemaMismatch,
    /// A row holds a null in a column whose field cannot hold one
    /// ([`RowError::Null`](crate::RowError::Null)): the row was written without the column, or
    /// its value was deleted. Make the field an `Option`; migrating does not help. (A counter
    /// never incremented is no such null: a `Counter` field reads it as 0.)
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
    pub(super) fn of_db(e: &DbError, message: &str) -> ErrorKind {
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
pub(super) fn kind_of(e: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    kind_here(e).or_else(|| e.source().and_then(kind_of))
}

pub(super) fn kind_here(e: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
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
