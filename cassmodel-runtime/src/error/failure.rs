//! The words of a failed request: its most telling answer, every attempt, and what to do.

use super::attempt::{Answer, Attempt, consistency_name};
use super::kind::{ErrorKind, kind_of};
use scylla::errors::{DbError, ExecutionError, NextPageError, RequestAttemptError, RequestError};

/// The attempt an error is about: the last one a server answered, if any (a server's
/// `Unavailable` or timeout says more than another node's connection error, and the last
/// answer is the newest news of the cluster).
pub(super) fn telling(attempts: &[Attempt]) -> Option<(&Attempt, &DbError, &str)> {
    attempts.iter().rev().find_map(|a| match &a.answer {
        Answer::Server { error, message } => Some((a, error, message.as_str())),
        _ => None,
    })
}

/// The kind of a request's error: the server's answer when an attempt had one, else the
/// kind of the driver's error (a client time-out, a connection error).
pub(super) fn telling_kind(
    attempts: &[Attempt],
    source: &(dyn std::error::Error + 'static),
) -> ErrorKind {
    match telling(attempts) {
        Some((_, error, message)) => ErrorKind::of_db(error, message),
        None => kind_of(source).unwrap_or(ErrorKind::Other),
    }
}

/// A server's error in CQL's words: `Unavailable: QUORUM needs 2 replicas alive, 1 is`.
pub(super) fn server_answer(error: &DbError, message: &str) -> String {
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
pub(super) fn has_own_words(error: &DbError) -> bool {
    matches!(
        error,
        DbError::Unavailable { .. } | DbError::WriteTimeout { .. } | DbError::ReadTimeout { .. }
    )
}

/// The server's answer under a driver error of a request, if the request ended with one.
pub(super) fn server_error_in<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<(&'a DbError, &'a str)> {
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
pub(super) fn attempt_line(a: &Attempt, lead: Option<(&DbError, &str)>) -> String {
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
pub(super) fn answer_name(error: &DbError) -> String {
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
pub(super) fn millis(d: std::time::Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// The message of a failed request: its most telling answer, every node tried (when more
/// than one was, or the telling answer is not the last error), and what to do.
pub(super) fn failure(source: &(dyn std::error::Error + 'static), attempts: &[Attempt]) -> String {
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
pub(super) fn broken_in_flight(last: &Attempt) -> Option<String> {
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
pub(super) fn request_hint(kind: ErrorKind, server: Option<(&DbError, &str)>) -> Option<String> {
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
