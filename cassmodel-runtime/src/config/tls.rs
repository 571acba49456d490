//! TLS for [`ConnectOptions`](crate::ConnectOptions): the driver's rustls 0.23 support, behind
//! the `tls` feature. The node's certificate is checked against the given certificate authority
//! and against the IP address the driver connects to (so it must list that address as a
//! subject alternative name); a client certificate is presented when one is given.

use std::path::{Path, PathBuf};

use scylla::client::session_builder::SessionBuilder;

use crate::error::errors::{Error, Result};

/// Adds TLS to the session when a CA file is given.
#[cfg(feature = "tls")]
pub(crate) fn configure(
    builder: SessionBuilder,
    ca: Option<&Path>,
    client: Option<&(PathBuf, PathBuf)>,
) -> Result<SessionBuilder> {
    let Some(ca) = ca else {
        return match client {
            Some(_) => Err(Error::Invalid(
                "a TLS client certificate is given (CASSMODEL_TLS_CERT/CASSMODEL_TLS_KEY, \
                 --tls-cert/--tls-key or ConnectOptions::tls_client_cert) without the \
                 certificate authority to check the cluster's certificates with: set \
                 CASSMODEL_TLS_CA (--tls-ca, ConnectOptions::tls_ca) too"
                    .into(),
            )),
            None => Ok(builder),
        };
    };
    let config = client_config(ca, client)?;
    Ok(builder.tls_context(Some(std::sync::Arc::new(config))))
}

/// Why a TLS connection to `addr` with these settings fails, found by a handshake of its own
/// (blocking; each step bounded by `limit`). A node that requires a client certificate refuses
/// a client without one after the handshake finished on the client's side (TLS 1.3), with an
/// alert, then closes the connection. A client that writes its first request at once races
/// that close: a request the node has not read when it closes makes the node's kernel reset
/// the connection and drop the alert unsent (what the driver meets on a loaded machine). So
/// this handshake first listens: an alert, or the node's first record (a session ticket), or
/// `limit` of silence; only then is one CQL `OPTIONS` request written and its answer read, in
/// order. `None` when the handshake and the request went through, or the failure was not
/// TLS's.
#[cfg(feature = "tls")]
pub(crate) fn handshake_failure(
    ca: &Path,
    client: Option<&(PathBuf, PathBuf)>,
    addr: std::net::SocketAddr,
    limit: std::time::Duration,
) -> Option<rustls::Error> {
    use std::io::{ErrorKind, Read, Write};

    // Protocol v4, no flags, stream 0, opcode OPTIONS, no body.
    const OPTIONS: [u8; 9] = [4, 0, 0, 0, 5, 0, 0, 0, 0];
    let config = std::sync::Arc::new(client_config(ca, client).ok()?);
    let mut sock = std::net::TcpStream::connect_timeout(&addr, limit).ok()?;
    sock.set_read_timeout(Some(limit)).ok()?;
    sock.set_write_timeout(Some(limit)).ok()?;
    let name = rustls::pki_types::ServerName::IpAddress(addr.ip().into());
    let mut conn = rustls::ClientConnection::new(config, name).ok()?;
    while conn.is_handshaking() {
        if let Err(e) = conn.complete_io(&mut sock) {
            return rustls_error(&e);
        }
    }
    match conn.read_tls(&mut sock) {
        Ok(0) => return None,
        Ok(_) => {
            if let Err(e) = conn.process_new_packets() {
                return Some(e);
            }
        }
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        Err(_) => return None,
    };
    let mut tls = rustls::Stream::new(&mut conn, &mut sock);
    let mut answer = [0u8; 9];
    let failed = match tls.write_all(&OPTIONS).and_then(|()| tls.flush()) {
        Err(e) => e,
        Ok(()) => tls.read(&mut answer).err()?,
    };
    rustls_error(&failed)
}

/// The TLS failure inside an I/O error of rustls' stream, if it is one.
#[cfg(feature = "tls")]
fn rustls_error(e: &std::io::Error) -> Option<rustls::Error> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .cloned()
}

/// Without the `tls` feature, any TLS setting is refused: a connection never silently goes
/// out in plain text.
#[cfg(not(feature = "tls"))]
pub(crate) fn configure(
    builder: SessionBuilder,
    ca: Option<&Path>,
    client: Option<&(PathBuf, PathBuf)>,
) -> Result<SessionBuilder> {
    if ca.is_some() || client.is_some() {
        return Err(Error::Invalid(
            "TLS settings are given (CASSMODEL_TLS_*, --tls-*, or ConnectOptions::tls_ca), but \
             cassmodel was built without TLS: enable its `tls` feature (`cassmodel = { \
             features = [\"tls\"] }`)"
                .into(),
        ));
    }
    Ok(builder)
}

/// A rustls client configuration trusting the authority in `ca`, presenting `client` if given.
#[cfg(feature = "tls")]
fn client_config(ca: &Path, client: Option<&(PathBuf, PathBuf)>) -> Result<rustls::ClientConfig> {
    use rustls::pki_types::PrivateKeyDer;
    use rustls::pki_types::pem::PemObject;

    let mut roots = rustls::RootCertStore::empty();
    for cert in certificates(
        ca,
        "the TLS certificate authority (CASSMODEL_TLS_CA, --tls-ca)",
    )? {
        roots.add(cert).map_err(|e| {
            Error::Invalid(format!(
                "{}: not a usable certificate authority: {e}",
                ca.display()
            ))
        })?;
    }
    // The provider is named rather than taken from the process default, which is ambiguous
    // (and panics) when another crate enables rustls' `ring` as well.
    let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Invalid(format!("TLS: {e}")))?
        .with_root_certificates(roots);
    let Some((cert, key)) = client else {
        return Ok(builder.with_no_client_auth());
    };
    let chain = certificates(
        cert,
        "the TLS client certificate (CASSMODEL_TLS_CERT, --tls-cert)",
    )?;
    let private_key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        Error::Invalid(format!(
            "cannot read the TLS client key (CASSMODEL_TLS_KEY, --tls-key) from {}: {e}; \
             expected a PEM file with an unencrypted `PRIVATE KEY` (PKCS#8), `RSA PRIVATE KEY` \
             or `EC PRIVATE KEY`",
            key.display()
        ))
    })?;
    builder
        .with_client_auth_cert(chain, private_key)
        .map_err(|e| {
            Error::Invalid(format!(
                "the TLS client certificate {} and key {} cannot be used together: {e}",
                cert.display(),
                key.display()
            ))
        })
}

/// Every certificate of a PEM file; an error naming the file and the setting if there is none.
#[cfg(feature = "tls")]
fn certificates(
    path: &Path,
    what: &str,
) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;

    let unreadable = |e: rustls::pki_types::pem::Error| {
        Error::Invalid(format!("cannot read {what} from {}: {e}", path.display()))
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(unreadable)?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(unreadable)?;
    if certs.is_empty() {
        return Err(Error::Invalid(format!(
            "no certificate in {} ({what}): expected a PEM file with `-----BEGIN CERTIFICATE-----`",
            path.display()
        )));
    }
    Ok(certs)
}

#[cfg(all(test, feature = "tls"))]
mod tests {
    use super::*;

    /// A new directory, removed when the returned guard drops.
    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("temp dir")
    }

    #[test]
    fn a_missing_ca_file_names_the_file_and_the_setting() {
        let d = dir();
        let missing = d.path().join("nope.pem");
        let e = client_config(&missing, None).expect_err("no file");
        let msg = e.to_string();
        assert!(msg.contains("nope.pem"), "{msg}");
        assert!(msg.contains("CASSMODEL_TLS_CA"), "{msg}");
    }

    #[test]
    fn a_file_without_certificates_is_refused() {
        let d = dir();
        let f = d.path().join("ca.pem");
        std::fs::write(&f, "not a certificate\n").expect("write");
        let msg = client_config(&f, None).expect_err("empty").to_string();
        assert!(msg.contains("no certificate in"), "{msg}");
        assert!(msg.contains("BEGIN CERTIFICATE"), "{msg}");
    }

    #[test]
    fn a_client_certificate_without_a_ca_is_refused() {
        let pair = (PathBuf::from("c.pem"), PathBuf::from("k.pem"));
        let Err(e) = configure(SessionBuilder::new(), None, Some(&pair)) else {
            panic!("a client certificate alone was accepted");
        };
        assert!(e.to_string().contains("set CASSMODEL_TLS_CA"), "{e}");
    }
}

#[cfg(all(test, not(feature = "tls")))]
mod tests_without_tls {
    use super::*;

    #[test]
    fn tls_settings_are_refused_not_ignored() {
        let ca = PathBuf::from("ca.pem");
        let Err(e) = configure(SessionBuilder::new(), Some(&ca), None) else {
            panic!("a TLS setting was ignored without the `tls` feature");
        };
        assert!(e.to_string().contains("enable its `tls` feature"), "{e}");
        assert!(configure(SessionBuilder::new(), None, None).is_ok());
    }
}
