//! What a failed connection says: its message, the TLS failure under it, and what to fix.

use super::kind::{ErrorKind, kind_of};
use scylla::errors::{
    BrokenConnectionError, BrokenConnectionErrorKind, ConnectionError, ConnectionPoolError,
    ConnectionSetupRequestError, ConnectionSetupRequestErrorKind, FrameHeaderParseError,
    NewSessionError,
};

/// `dc1 (2 nodes), dc2 (1 node)`.
pub(super) fn datacenter_list(dcs: &[(String, usize)]) -> String {
    if dcs.is_empty() {
        return "none known (the nodes report no data centre)".to_owned();
    }
    dcs.iter()
        .map(|(dc, n)| format!("`{dc}` ({n} node{})", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn did_you_mean(s: Option<&str>) -> String {
    s.map(|s| format!(". Did you mean `{s}`? Data centre names are case-sensitive"))
        .unwrap_or_default()
}

/// A duration in seconds as a person writes it: `5 s`, `0.25 s`.
pub(super) fn seconds(d: std::time::Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// `; each contact point: a:9042 connection refused ...; b:9042 ...`.
pub(super) fn point_reasons(points: &[(String, String)]) -> String {
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
pub(super) fn connect_message(
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
pub(super) fn connect_hint(source: &NewSessionError) -> String {
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
pub(crate) fn closed_by_peer(e: &(dyn std::error::Error + 'static)) -> bool {
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
pub(super) fn find_cause<'a, T: std::error::Error + 'static>(
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
pub(super) fn inner_error<'a>(
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
        // response's header, or, when the node's reset came first, with the first request's
        // write.
        match broken.downcast_ref::<BrokenConnectionErrorKind>() {
            Some(BrokenConnectionErrorKind::FrameHeaderParseError(
                FrameHeaderParseError::HeaderIoError(io),
            ))
            | Some(BrokenConnectionErrorKind::WriteError(io)) => Some(io),
            _ => None,
        }
    } else {
        None
    }
}

/// The advice for a failed TLS handshake, by what failed.
#[cfg(feature = "tls")]
pub(super) fn tls_hint(e: &rustls::Error) -> String {
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
