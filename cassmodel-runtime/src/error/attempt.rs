//! What a request's attempts were ([`Attempt`]: the node, its [`Answer`], how long it took),
//! as `config/attempts.rs` records them for the request's error, and the consistency levels'
//! names the error's words use.

use std::net::SocketAddr;
use std::time::Duration;

use scylla::errors::{DbError, RequestAttemptError};
use scylla::statement::Consistency;

/// One attempt of a request: the node it was sent to, what the node answered and how long it
/// took. [`Error::attempts`](crate::Error::attempts) returns them in order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Attempt {
    /// The node (its CQL address).
    pub node: SocketAddr,
    /// The node's data centre, when the driver knows it.
    pub datacenter: Option<String>,
    /// What came of the attempt.
    pub answer: Answer,
    /// From sending the request to its answer; `None` when nothing was sent.
    pub took: Option<Duration>,
    /// Whether the driver went on with another attempt after this one.
    pub retried: bool,
}

/// What came of one [`Attempt`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// The node answered with an error: the server's error code with its fields (for
    /// `Unavailable`: the consistency, the replicas required and alive) and its message.
    Server {
        /// The error and its fields.
        error: DbError,
        /// The server's message.
        message: String,
    },
    /// The attempt failed on the client's side (the connection broke, no stream id was
    /// free, the answer could not be read): the driver's words.
    Failed(String),
    /// Nothing was sent: the driver had no open connection to the node (it is down, or
    /// unreachable from here). The request's own error says why the last connection failed.
    NoConnection,
}

impl Answer {
    pub(crate) fn of(error: &RequestAttemptError) -> Answer {
        match error {
            RequestAttemptError::DbError(error, message) => Answer::Server {
                error: error.clone(),
                message: message.clone(),
            },
            other => Answer::Failed(other.to_string()),
        }
    }
}

/// The CQL name of a consistency level (`LOCAL_QUORUM`), as `parse_consistency` (`config/env.rs`) reads it
/// and as the server writes it in its messages.
pub(crate) fn consistency_name(c: Consistency) -> &'static str {
    match c {
        Consistency::Any => "ANY",
        Consistency::One => "ONE",
        Consistency::Two => "TWO",
        Consistency::Three => "THREE",
        Consistency::Quorum => "QUORUM",
        Consistency::All => "ALL",
        Consistency::LocalQuorum => "LOCAL_QUORUM",
        Consistency::EachQuorum => "EACH_QUORUM",
        Consistency::LocalOne => "LOCAL_ONE",
        Consistency::Serial => "SERIAL",
        Consistency::LocalSerial => "LOCAL_SERIAL",
    }
}
