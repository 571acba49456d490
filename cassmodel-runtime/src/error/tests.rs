//! Unit tests of the errors' kinds and words.

use super::attempt::{Answer, Attempt};
use super::errors::Error;
use super::kind::ErrorKind;
use scylla::errors::{
    ConnectionError, ConnectionPoolError, DbError, ExecutionError, RequestAttemptError,
};

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
