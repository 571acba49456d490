//! [`ConnectOptions`]: one set of connection settings for `Db`, the migration CLI, the demo
//! and the tests, from code, from the environment or from command-line flags. Connecting
//! (`ConnectOptions::connect`) is the session layer's.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use scylla::client::execution_profile::ExecutionProfile;
use scylla::client::session_builder::SessionBuilder;
use scylla::policies::load_balancing::DefaultPolicy;
use scylla::statement::{Consistency, SerialConsistency};

use super::attempts::{RecordingPolicy, RecordingRetry};
use super::env::{
    CONTACT_POINTS_ENV, env_var, local_contact_point, non_empty, parse_consistency, parse_duration,
    parse_serial_consistency, parse_size, read_password_file, split_list,
};
use crate::error::errors::{Error, Result};

/// The default of [`ConnectOptions::max_request_size`]: 16 MiB, Cassandra's default
/// `native_transport_max_frame_size`, above which the server refuses a request ("Request is
/// too big").
pub const DEFAULT_MAX_REQUEST_SIZE: usize = 16 * 1024 * 1024;

/// A password: never printed, in `Debug` or anywhere else.
#[derive(Clone, PartialEq, Eq)]
struct Password(String);

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"***\"")
    }
}

/// How to reach a cluster and log in to it: contact points, local data centre, credentials,
/// TLS, time-outs, default consistency and keyspace.
///
/// The same settings come from code (the methods below), from the environment
/// ([`from_env`](Self::from_env), variables in [`ENV_VARS`](super::ENV_VARS)) and from the migration CLI's
/// flags, so a program, its migrations and its tests reach the same cluster the same way.
/// `Debug` shows everything except the password.
///
/// ```no_run
/// # async fn f() -> cassmodel_runtime::Result<()> {
/// use std::time::Duration;
/// use cassmodel_runtime::{ConnectOptions, Consistency};
///
/// let db = ConnectOptions::new()
///     .contact_points(["10.0.0.5:9042", "10.0.0.6:9042"])
///     .local_dc("eu-west")
///     .credentials("app", std::env::var("APP_DB_PASSWORD").unwrap_or_default())
///     .request_timeout(Duration::from_secs(5))
///     .consistency(Consistency::LocalQuorum)
///     .keyspace("shop")
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectOptions {
    contact_points: Vec<String>,
    local_dc: Option<String>,
    credentials: Option<(String, Password)>,
    tls_ca: Option<PathBuf>,
    tls_client_cert: Option<(PathBuf, PathBuf)>,
    connect_timeout: Duration,
    request_timeout: Option<Duration>,
    consistency: Consistency,
    serial_consistency: Option<SerialConsistency>,
    keyspace: Option<String>,
    max_request_size: usize,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl ConnectOptions {
    /// The defaults: the local node (`127.0.0.1:9042`, or `CASSMODEL_NODE_HOST` and
    /// `CASSMODEL_NODE_PORT` as `cassmodel-node` uses them), no credentials, no TLS, a 5 s
    /// connect and a 30 s request timeout, `LOCAL_QUORUM` and `LOCAL_SERIAL`, no keyspace,
    /// writes of at most 16 MiB.
    pub fn new() -> Self {
        ConnectOptions {
            contact_points: vec![local_contact_point()],
            local_dc: None,
            credentials: None,
            tls_ca: None,
            tls_client_cert: None,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Some(Duration::from_secs(30)),
            consistency: Consistency::LocalQuorum,
            serial_consistency: Some(SerialConsistency::LocalSerial),
            keyspace: None,
            max_request_size: DEFAULT_MAX_REQUEST_SIZE,
        }
    }

    /// The defaults of [`new`](Self::new), changed by every variable of [`ENV_VARS`](super::ENV_VARS) that is
    /// set and not empty. An invalid value is an error naming the variable (never showing a
    /// password).
    pub fn from_env() -> Result<Self> {
        Self::new().apply_env(&env_var)
    }

    /// [`from_env`](Self::from_env) with a variable lookup of the caller's (for tests, or
    /// settings kept elsewhere).
    #[doc(hidden)]
    pub fn apply_env(mut self, var: &dyn Fn(&str) -> Option<String>) -> Result<Self> {
        let get = |name: &str| var(name).as_deref().and_then(non_empty);
        if let Some(v) = get(CONTACT_POINTS_ENV) {
            self = self.contact_points(split_list(&v));
        }
        if let Some(v) = get("CASSMODEL_LOCAL_DC") {
            self.local_dc = Some(v);
        }
        let password = match (get("CASSMODEL_PASSWORD"), get("CASSMODEL_PASSWORD_FILE")) {
            (Some(p), _) => Some(p),
            (None, Some(path)) => Some(read_password_file(&PathBuf::from(path))?),
            (None, None) => None,
        };
        match (get("CASSMODEL_USERNAME"), password) {
            (Some(user), Some(p)) => self = self.credentials(user, p),
            (Some(_), None) => {
                return Err(Error::Invalid(
                    "CASSMODEL_USERNAME is set but no password: set CASSMODEL_PASSWORD or \
                     CASSMODEL_PASSWORD_FILE too"
                        .into(),
                ));
            }
            (None, Some(_)) => {
                return Err(Error::Invalid(
                    "a password is set (CASSMODEL_PASSWORD or CASSMODEL_PASSWORD_FILE) but no \
                     CASSMODEL_USERNAME: set the user name too"
                        .into(),
                ));
            }
            (None, None) => {}
        }
        if let Some(v) = get("CASSMODEL_TLS_CA") {
            self.tls_ca = Some(PathBuf::from(v));
        }
        match (get("CASSMODEL_TLS_CERT"), get("CASSMODEL_TLS_KEY")) {
            (Some(c), Some(k)) => self.tls_client_cert = Some((c.into(), k.into())),
            (None, None) => {}
            _ => {
                return Err(Error::Invalid(
                    "CASSMODEL_TLS_CERT and CASSMODEL_TLS_KEY go together: set both (a client \
                     certificate and its private key, PEM) or neither"
                        .into(),
                ));
            }
        }
        if let Some(v) = get("CASSMODEL_CONNECT_TIMEOUT") {
            self.connect_timeout = parse_duration(&v).map_err(|e| env_error("CONNECT", &v, &e))?;
        }
        if let Some(v) = get("CASSMODEL_REQUEST_TIMEOUT") {
            self.request_timeout = match v.as_str() {
                "none" | "off" => None,
                _ => Some(parse_duration(&v).map_err(|e| env_error("REQUEST", &v, &e))?),
            };
        }
        if let Some(v) = get("CASSMODEL_CONSISTENCY") {
            self.consistency = parse_consistency(&v)
                .map_err(|e| Error::Invalid(format!("CASSMODEL_CONSISTENCY={v:?}: {e}")))?;
        }
        if let Some(v) = get("CASSMODEL_SERIAL_CONSISTENCY") {
            self.serial_consistency =
                Some(parse_serial_consistency(&v).map_err(|e| {
                    Error::Invalid(format!("CASSMODEL_SERIAL_CONSISTENCY={v:?}: {e}"))
                })?);
        }
        if let Some(v) = get("CASSMODEL_KEYSPACE") {
            self.keyspace = Some(v);
        }
        if let Some(v) = get("CASSMODEL_MAX_REQUEST_SIZE") {
            self.max_request_size = parse_size(&v)
                .map_err(|e| Error::Invalid(format!("CASSMODEL_MAX_REQUEST_SIZE={v:?}: {e}")))?;
        }
        Ok(self)
    }

    /// The cluster's contact points, `host:port` each (replacing the default local node).
    pub fn contact_points(mut self, points: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.contact_points = points.into_iter().map(Into::into).collect();
        self
    }

    /// The data centre this program runs in: requests go to its replicas only (token-aware:
    /// to a replica of the partition), and `LOCAL_*` consistency levels count its nodes.
    /// Without it, requests go to replicas in any data centre.
    pub fn local_dc(mut self, dc: impl Into<String>) -> Self {
        self.local_dc = Some(dc.into());
        self
    }

    /// User name and password (`PasswordAuthenticator`). The password is never printed.
    pub fn credentials(mut self, username: impl Into<String>, password: impl Into<String>) -> Self {
        self.credentials = Some((username.into(), Password(password.into())));
        self
    }

    /// TLS, trusting the certificate authority in this PEM file (feature `tls`; without it,
    /// [`connect`](Self::connect) refuses TLS settings with an error rather than connecting in
    /// plain text).
    ///
    /// Each node's certificate must be signed by this authority and list the node's IP address
    /// as a subject alternative name: the driver connects to nodes by address and checks it.
    /// A refused handshake is [`Error::Connect`] with a hint that names the cause.
    pub fn tls_ca(mut self, ca_pem: impl Into<PathBuf>) -> Self {
        self.tls_ca = Some(ca_pem.into());
        self
    }

    /// A client certificate and its private key (PEM files; the key unencrypted, PKCS#8,
    /// PKCS#1 or SEC1), for a cluster that requires them (`require_client_auth`); needs
    /// [`tls_ca`](Self::tls_ca).
    pub fn tls_client_cert(
        mut self,
        cert_pem: impl Into<PathBuf>,
        key_pem: impl Into<PathBuf>,
    ) -> Self {
        self.tls_client_cert = Some((cert_pem.into(), key_pem.into()));
        self
    }

    /// How long [`connect`](Self::connect) may take (default 5 s): the TCP connection, the
    /// TLS handshake, the CQL start-up and the first schema metadata, all together. Past it,
    /// the attempt ends with [`Error::ConnectTimeout`](crate::Error::ConnectTimeout).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long the client waits for a request's answer before it fails with
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) (default 30 s; `None`: no client
    /// limit, only the server's own time-outs).
    pub fn request_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.request_timeout = timeout.into();
        self
    }

    /// The consistency level of every statement that does not set its own (default
    /// `LOCAL_QUORUM`).
    pub fn consistency(mut self, consistency: Consistency) -> Self {
        self.consistency = consistency;
        self
    }

    /// The serial consistency of conditional (LWT) statements that do not set their own
    /// (default `LOCAL_SERIAL`).
    pub fn serial_consistency(mut self, serial: Option<SerialConsistency>) -> Self {
        self.serial_consistency = serial;
        self
    }

    /// The keyspace of the tables that do not name their own (see [`Db::with_keyspace`](crate::Db::with_keyspace)).
    pub fn keyspace(mut self, keyspace: impl Into<String>) -> Self {
        self.keyspace = Some(keyspace.into());
        self
    }

    /// The largest values, serialized, that a write may send in one request (default 16 MiB,
    /// Cassandra's `native_transport_max_frame_size`). A larger write is refused with
    /// [`Error::RequestTooLarge`] before it is sent, instead of being sent in full for the
    /// server to refuse. Raise it only together with the server's limit.
    pub fn max_request_size(mut self, bytes: usize) -> Self {
        self.max_request_size = bytes;
        self
    }

    /// The contact points that [`connect`](Self::connect) will use.
    pub fn get_contact_points(&self) -> &[String] {
        &self.contact_points
    }

    /// The local data centre set with [`local_dc`](Self::local_dc) or `CASSMODEL_LOCAL_DC`.
    pub fn get_local_dc(&self) -> Option<&str> {
        self.local_dc.as_deref()
    }

    /// The [connect timeout](Self::connect_timeout): how long [`connect`](Self::connect)
    /// may take.
    pub fn get_connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// The keyspace set with [`keyspace`](Self::keyspace) or `CASSMODEL_KEYSPACE`.
    pub fn get_keyspace(&self) -> Option<&str> {
        self.keyspace.as_deref()
    }

    /// The user name, if credentials are set (the password is not readable back).
    pub fn get_username(&self) -> Option<&str> {
        self.credentials.as_ref().map(|(u, _)| u.as_str())
    }

    /// The driver's session builder with these settings (contact points checked, execution
    /// profile, credentials, TLS): what [`connect`](Self::connect) builds its session from.
    pub(crate) fn session_builder(&self) -> Result<SessionBuilder> {
        if self.contact_points.is_empty() {
            return Err(Error::ContactPoint(String::new()));
        }
        for p in &self.contact_points {
            check_contact_point(p)?;
        }
        // The driver's default policies (token-aware, and DC-aware with a local data centre),
        // wrapped to keep every failed attempt of a request for its error (`attempts`).
        let routing = match &self.local_dc {
            Some(dc) => DefaultPolicy::builder()
                .prefer_datacenter(dc.clone())
                .token_aware(true)
                .permit_dc_failover(false)
                .build(),
            None => DefaultPolicy::builder().build(),
        };
        let profile = ExecutionProfile::builder()
            .consistency(self.consistency)
            .serial_consistency(self.serial_consistency)
            .request_timeout(self.request_timeout)
            .load_balancing_policy(Arc::new(RecordingPolicy(routing)))
            .retry_policy(Arc::new(RecordingRetry));
        let mut builder = SessionBuilder::new()
            .known_nodes(&self.contact_points)
            .connection_timeout(self.connect_timeout)
            .default_execution_profile_handle(profile.build().into_handle());
        if let Some((user, Password(password))) = &self.credentials {
            builder = builder.user(user.clone(), password.clone());
        }
        super::tls::configure(
            builder,
            self.tls_ca.as_deref(),
            self.tls_client_cert.as_ref(),
        )
    }

    /// Whether connections use TLS (a certificate authority is given).
    #[cfg(feature = "tls")]
    pub(crate) fn uses_tls(&self) -> bool {
        self.tls_ca.is_some()
    }

    /// Why a TLS connection to `addr` fails with these settings, by a handshake of its own
    /// (`tls::handshake_failure`); `None` without TLS settings.
    #[cfg(feature = "tls")]
    pub(crate) fn tls_handshake_failure(
        &self,
        addr: std::net::SocketAddr,
        limit: Duration,
    ) -> Option<rustls::Error> {
        let ca = self.tls_ca.as_deref()?;
        super::tls::handshake_failure(ca, self.tls_client_cert.as_ref(), addr, limit)
    }

    /// The largest write ([`max_request_size`](Self::max_request_size)).
    pub(crate) fn request_size_limit(&self) -> usize {
        self.max_request_size
    }

    /// The same credentials under another user name (the password kept), for a command-line
    /// flag that names the user of a password given elsewhere; `None` without credentials.
    #[doc(hidden)]
    pub fn with_username(mut self, username: impl Into<String>) -> Option<Self> {
        let (user, _) = self.credentials.as_mut()?;
        *user = username.into();
        Some(self)
    }
}

/// `host:port` with a port number, or a plain host (the driver adds 9042).
fn check_contact_point(p: &str) -> Result<()> {
    let bad = p.trim().is_empty() || port_of(p).is_some_and(|port| port.parse::<u16>().is_err());
    if bad {
        return Err(Error::ContactPoint(p.to_owned()));
    }
    Ok(())
}

/// The port part of a contact point, if it has one (`[::1]:9042` has, `::1` has not).
fn port_of(p: &str) -> Option<&str> {
    p.rsplit_once(':')
        .filter(|(host, _)| !host.ends_with(':'))
        .map(|(_, port)| port)
}

/// A contact point as the driver reaches it: with its port, or with 9042, the port the
/// driver adds to a plain host.
pub(crate) fn with_port(p: &str) -> std::borrow::Cow<'_, str> {
    if port_of(p).is_some_and(|port| port.parse::<u16>().is_ok()) {
        p.into()
    } else {
        format!("{p}:9042").into()
    }
}

fn env_error(which: &str, value: &str, reason: &str) -> Error {
    Error::Invalid(format!("CASSMODEL_{which}_TIMEOUT={value:?}: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn env_sets_every_field() {
        let o = ConnectOptions::new()
            .apply_env(&env(&[
                ("CASSMODEL_CONTACT_POINTS", " 10.0.0.1:9042, 10.0.0.2:9042 "),
                ("CASSMODEL_LOCAL_DC", "dc1"),
                ("CASSMODEL_USERNAME", "app"),
                ("CASSMODEL_PASSWORD", "s3cret-pw"),
                ("CASSMODEL_CONNECT_TIMEOUT", "2s"),
                ("CASSMODEL_REQUEST_TIMEOUT", "750ms"),
                ("CASSMODEL_CONSISTENCY", "quorum"),
                ("CASSMODEL_SERIAL_CONSISTENCY", "serial"),
                ("CASSMODEL_KEYSPACE", "shop"),
                ("CASSMODEL_MAX_REQUEST_SIZE", "32MiB"),
            ]))
            .expect("valid settings");
        let expected = ConnectOptions::new()
            .contact_points(["10.0.0.1:9042", "10.0.0.2:9042"])
            .local_dc("dc1")
            .credentials("app", "s3cret-pw")
            .connect_timeout(Duration::from_secs(2))
            .request_timeout(Duration::from_millis(750))
            .consistency(Consistency::Quorum)
            .serial_consistency(Some(SerialConsistency::Serial))
            .keyspace("shop")
            .max_request_size(32 * 1024 * 1024);
        assert_eq!(o, expected);
        let debug = format!("{o:?}");
        assert!(!debug.contains("s3cret-pw"), "{debug}");
        assert!(debug.contains("app"), "{debug}");
    }

    #[test]
    fn env_errors_name_the_variable_and_hide_the_password() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("CASSMODEL_USERNAME", "app")], "CASSMODEL_PASSWORD"),
            (&[("CASSMODEL_PASSWORD", "s3cret-pw")], "CASSMODEL_USERNAME"),
            (
                &[("CASSMODEL_CONSISTENCY", "most")],
                "CASSMODEL_CONSISTENCY=\"most\"",
            ),
            (&[("CASSMODEL_CONSISTENCY", "serial")], "serial consistenc"),
            (
                &[("CASSMODEL_REQUEST_TIMEOUT", "soon")],
                "CASSMODEL_REQUEST_TIMEOUT",
            ),
            (&[("CASSMODEL_CONNECT_TIMEOUT", "0s")], "longer than zero"),
            (&[("CASSMODEL_TLS_CERT", "c.pem")], "CASSMODEL_TLS_KEY"),
            (
                &[("CASSMODEL_MAX_REQUEST_SIZE", "16MB")],
                "CASSMODEL_MAX_REQUEST_SIZE=\"16MB\"",
            ),
            (
                &[
                    ("CASSMODEL_USERNAME", "app"),
                    ("CASSMODEL_PASSWORD_FILE", "/nonexistent/pw"),
                ],
                "/nonexistent/pw",
            ),
        ];
        for (vars, expected) in cases {
            let msg = match ConnectOptions::new().apply_env(&env(vars)) {
                Ok(o) => panic!("{vars:?} was accepted: {o:?}"),
                Err(e) => e.to_string(),
            };
            assert!(msg.contains(expected), "{vars:?}: {msg}");
            assert!(!msg.contains("s3cret-pw"), "{vars:?}: {msg}");
        }
    }

    #[test]
    fn contact_points_are_checked() {
        assert!(check_contact_point("127.0.0.1:9042").is_ok());
        assert!(check_contact_point("db.example.com").is_ok());
        assert!(check_contact_point("[::1]:9042").is_ok());
        assert!(check_contact_point("127.0.0.1:port").is_err());
        assert_eq!(with_port("db.example.com"), "db.example.com:9042");
        assert_eq!(with_port("[::1]:9142"), "[::1]:9142");
        assert!(check_contact_point(" ").is_err());
    }
}
