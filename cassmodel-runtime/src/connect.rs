//! [`ConnectOptions`]: one set of connection settings for [`Db`], the migration CLI, the demo
//! and the tests, from code, from the environment or from command-line flags.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use scylla::client::execution_profile::ExecutionProfile;
use scylla::client::session_builder::SessionBuilder;
use scylla::policies::load_balancing::DefaultPolicy;
use scylla::statement::{Consistency, SerialConsistency};

use crate::db::{Db, local_contact_point};
use crate::error::{Error, Result};

/// The environment variables [`ConnectOptions::from_env`] reads, with what each sets.
///
/// | variable | setting | default |
/// |---|---|---|
/// | `CASSMODEL_CONTACT_POINTS` | [`contact_points`](ConnectOptions::contact_points) | the local node, `127.0.0.1:9042` |
/// | `CASSMODEL_LOCAL_DC` | [`local_dc`](ConnectOptions::local_dc) | none |
/// | `CASSMODEL_USERNAME` | [`credentials`](ConnectOptions::credentials) | none |
/// | `CASSMODEL_PASSWORD` | [`credentials`](ConnectOptions::credentials) | none |
/// | `CASSMODEL_PASSWORD_FILE` | the password, from the first line of a file | none |
/// | `CASSMODEL_TLS_CA` | [`tls_ca`](ConnectOptions::tls_ca) | no TLS |
/// | `CASSMODEL_TLS_CERT`, `CASSMODEL_TLS_KEY` | [`tls_client_cert`](ConnectOptions::tls_client_cert) | none |
/// | `CASSMODEL_CONNECT_TIMEOUT` | [`connect_timeout`](ConnectOptions::connect_timeout) | `5s` |
/// | `CASSMODEL_REQUEST_TIMEOUT` | [`request_timeout`](ConnectOptions::request_timeout) | `30s` |
/// | `CASSMODEL_CONSISTENCY` | [`consistency`](ConnectOptions::consistency) | `LOCAL_QUORUM` |
/// | `CASSMODEL_SERIAL_CONSISTENCY` | [`serial_consistency`](ConnectOptions::serial_consistency) | `LOCAL_SERIAL` |
/// | `CASSMODEL_KEYSPACE` | [`keyspace`](ConnectOptions::keyspace) | none |
/// | `CASSMODEL_MAX_REQUEST_SIZE` | [`max_request_size`](ConnectOptions::max_request_size) | `16MiB` |
pub const ENV_VARS: &[&str] = &[
    crate::db::CONTACT_POINTS_ENV,
    "CASSMODEL_LOCAL_DC",
    "CASSMODEL_USERNAME",
    "CASSMODEL_PASSWORD",
    "CASSMODEL_PASSWORD_FILE",
    "CASSMODEL_TLS_CA",
    "CASSMODEL_TLS_CERT",
    "CASSMODEL_TLS_KEY",
    "CASSMODEL_CONNECT_TIMEOUT",
    "CASSMODEL_REQUEST_TIMEOUT",
    "CASSMODEL_CONSISTENCY",
    "CASSMODEL_SERIAL_CONSISTENCY",
    "CASSMODEL_KEYSPACE",
    "CASSMODEL_MAX_REQUEST_SIZE",
];

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
/// ([`from_env`](Self::from_env), variables in [`ENV_VARS`]) and from the migration CLI's
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

    /// The defaults of [`new`](Self::new), changed by every variable of [`ENV_VARS`] that is
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
        if let Some(v) = get(crate::db::CONTACT_POINTS_ENV) {
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

    /// How long to wait for a connection to a node to open (default 5 s).
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

    /// The keyspace of the tables that do not name their own (see [`Db::with_keyspace`]).
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

    /// The keyspace set with [`keyspace`](Self::keyspace) or `CASSMODEL_KEYSPACE`.
    pub fn get_keyspace(&self) -> Option<&str> {
        self.keyspace.as_deref()
    }

    /// The user name, if credentials are set (the password is not readable back).
    pub fn get_username(&self) -> Option<&str> {
        self.credentials.as_ref().map(|(u, _)| u.as_str())
    }

    /// Connects: a driver session with these settings, wrapped in a [`Db`] (with the
    /// keyspace, if one is set).
    ///
    /// A failure is [`Error::Connect`], whose hint follows the cause (unreachable, refused
    /// credentials, TLS).
    pub async fn connect(&self) -> Result<Db> {
        if self.contact_points.is_empty() {
            return Err(Error::ContactPoint(String::new()));
        }
        for p in &self.contact_points {
            check_contact_point(p)?;
        }
        let mut profile = ExecutionProfile::builder()
            .consistency(self.consistency)
            .serial_consistency(self.serial_consistency)
            .request_timeout(self.request_timeout);
        if let Some(dc) = &self.local_dc {
            let policy = DefaultPolicy::builder()
                .prefer_datacenter(dc.clone())
                .token_aware(true)
                .permit_dc_failover(false)
                .build();
            profile = profile.load_balancing_policy(policy);
        }
        let mut builder = SessionBuilder::new()
            .known_nodes(&self.contact_points)
            .connection_timeout(self.connect_timeout)
            .default_execution_profile_handle(profile.build().into_handle());
        if let Some((user, Password(password))) = &self.credentials {
            builder = builder.user(user.clone(), password.clone());
        }
        builder = crate::tls::configure(
            builder,
            self.tls_ca.as_deref(),
            self.tls_client_cert.as_ref(),
        )?;
        let session = builder.build().await.map_err(|source| Error::Connect {
            contact_points: self.contact_points.join(","),
            source: Box::new(source),
        })?;
        let db = Db::from_parts(
            std::sync::Arc::new(session),
            None,
            Default::default(),
            self.max_request_size,
        );
        match &self.keyspace {
            Some(ks) => db.with_keyspace(ks),
            None => Ok(db),
        }
    }
}

/// `host:port` with a port number, or a plain host (the driver adds 9042).
fn check_contact_point(p: &str) -> Result<()> {
    let bad = p.trim().is_empty()
        || p.rsplit_once(':')
            .is_some_and(|(host, port)| !host.ends_with(':') && port.parse::<u16>().is_err());
    if bad {
        return Err(Error::ContactPoint(p.to_owned()));
    }
    Ok(())
}

/// A variable of the environment, trimmed; `None` when unset or blank.
pub(crate) fn env_var(name: &str) -> Option<String> {
    non_empty(&std::env::var(name).ok()?)
}

fn non_empty(v: &str) -> Option<String> {
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_owned())
}

/// A comma-separated list, items trimmed, blanks dropped.
pub(crate) fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn env_error(which: &str, value: &str, reason: &str) -> Error {
    Error::Invalid(format!("CASSMODEL_{which}_TIMEOUT={value:?}: {reason}"))
}

/// The first line of a password file, without its line end.
fn read_password_file(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Invalid(format!(
            "cannot read the password file {}: {e}",
            path.display()
        ))
    })?;
    let line = text.lines().next().unwrap_or_default().to_owned();
    if line.is_empty() {
        return Err(Error::Invalid(format!(
            "the password file {} is empty: put the password on its first line",
            path.display()
        )));
    }
    Ok(line)
}

/// `250ms`, `5s`, `2m` or a number of seconds.
pub(crate) fn parse_duration(v: &str) -> std::result::Result<Duration, String> {
    let v = v.trim();
    let (num, unit) = match v.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => v.split_at(i),
        None => (v, "s"),
    };
    let n: u64 = num
        .parse()
        .map_err(|_| "expected a duration such as 500ms, 5s or 2m".to_owned())?;
    let d = match unit.trim() {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" | "min" => Duration::from_secs(n.saturating_mul(60)),
        _ => return Err("expected a duration such as 500ms, 5s or 2m".to_owned()),
    };
    if d.is_zero() {
        return Err("a time-out must be longer than zero".to_owned());
    }
    Ok(d)
}

/// A consistency level by its CQL name, in any case (`LOCAL_QUORUM`, `quorum`, `one`...).
pub(crate) fn parse_consistency(v: &str) -> std::result::Result<Consistency, String> {
    Ok(
        match v.trim().to_ascii_uppercase().replace('-', "_").as_str() {
            "ANY" => Consistency::Any,
            "ONE" => Consistency::One,
            "TWO" => Consistency::Two,
            "THREE" => Consistency::Three,
            "QUORUM" => Consistency::Quorum,
            "ALL" => Consistency::All,
            "LOCAL_QUORUM" => Consistency::LocalQuorum,
            "EACH_QUORUM" => Consistency::EachQuorum,
            "LOCAL_ONE" => Consistency::LocalOne,
            "SERIAL" | "LOCAL_SERIAL" => {
                return Err(
                    "SERIAL and LOCAL_SERIAL are serial consistencies: set them as the serial \
                 consistency (CASSMODEL_SERIAL_CONSISTENCY, --serial-consistency)"
                        .into(),
                );
            }
            _ => {
                return Err(
                    "expected one of ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, \
                        EACH_QUORUM, LOCAL_ONE"
                        .into(),
                );
            }
        },
    )
}

/// A size in bytes: a number, or a number with `KiB` or `MiB` (e.g. `16MiB`).
pub(crate) fn parse_size(v: &str) -> std::result::Result<usize, String> {
    let v = v.trim();
    let (digits, unit) = match v.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => v.split_at(i),
        None => (v, ""),
    };
    let unit = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1024,
        "mib" => 1024 * 1024,
        _ => return Err("expected a number of bytes, e.g. 16777216 or 16MiB".into()),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|&n| n > 0)
        .ok_or_else(|| "expected a number of bytes, e.g. 16777216 or 16MiB".into())
}

/// `SERIAL` or `LOCAL_SERIAL`, in any case.
pub(crate) fn parse_serial_consistency(v: &str) -> std::result::Result<SerialConsistency, String> {
    match v.trim().to_ascii_uppercase().replace('-', "_").as_str() {
        "SERIAL" => Ok(SerialConsistency::Serial),
        "LOCAL_SERIAL" => Ok(SerialConsistency::LocalSerial),
        _ => Err("expected SERIAL or LOCAL_SERIAL".into()),
    }
}

/// The connection flags of a command-line tool (the migration CLI has them): each one
/// overrides its environment variable (see [`ENV_VARS`]). Add them to your own `clap`
/// command with `#[command(flatten)]`. The password has no flag (a flag is visible to every
/// user of the machine in the process list): use `CASSMODEL_PASSWORD` or `--password-file`.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ConnectArgs {
    /// Comma-separated host:port pairs [env: CASSMODEL_CONTACT_POINTS; default: 127.0.0.1:9042].
    #[arg(long, global = true, value_delimiter = ',')]
    pub contact_points: Vec<String>,
    /// The data centre to send requests to (token- and DC-aware routing) [env: CASSMODEL_LOCAL_DC].
    #[arg(long, global = true)]
    pub local_dc: Option<String>,
    /// User name; the password comes from CASSMODEL_PASSWORD or --password-file
    /// [env: CASSMODEL_USERNAME].
    #[arg(long, global = true)]
    pub username: Option<String>,
    /// A file whose first line is the password [env: CASSMODEL_PASSWORD_FILE].
    #[arg(long, global = true)]
    pub password_file: Option<PathBuf>,
    /// TLS: the PEM file of the certificate authority to trust [env: CASSMODEL_TLS_CA].
    #[arg(long, global = true)]
    pub tls_ca: Option<PathBuf>,
    /// TLS: a client certificate (PEM), with --tls-key [env: CASSMODEL_TLS_CERT].
    #[arg(long, global = true, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS: the client certificate's private key (PEM) [env: CASSMODEL_TLS_KEY].
    #[arg(long, global = true, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Connect timeout, e.g. 5s [env: CASSMODEL_CONNECT_TIMEOUT; default: 5s].
    #[arg(long, global = true, value_parser = parse_duration)]
    pub connect_timeout: Option<Duration>,
    /// Request timeout, e.g. 30s [env: CASSMODEL_REQUEST_TIMEOUT; default: 30s].
    #[arg(long, global = true, value_parser = parse_duration)]
    pub request_timeout: Option<Duration>,
    /// Default consistency, e.g. LOCAL_QUORUM [env: CASSMODEL_CONSISTENCY; default: LOCAL_QUORUM].
    #[arg(long, global = true, value_parser = parse_consistency)]
    pub consistency: Option<Consistency>,
    /// Serial consistency of LWT: SERIAL or LOCAL_SERIAL [env: CASSMODEL_SERIAL_CONSISTENCY;
    /// default: LOCAL_SERIAL].
    #[arg(long, global = true, value_parser = parse_serial_consistency)]
    pub serial_consistency: Option<SerialConsistency>,
    /// Keyspace of the models that do not name one [env: CASSMODEL_KEYSPACE].
    #[arg(long, global = true)]
    pub keyspace: Option<String>,
    /// Largest write, e.g. 16MiB; raise it only with the server's
    /// native_transport_max_frame_size [env: CASSMODEL_MAX_REQUEST_SIZE; default: 16MiB].
    #[arg(long, global = true, value_parser = parse_size)]
    pub max_request_size: Option<usize>,
}

#[cfg(feature = "cli")]
impl ConnectArgs {
    /// The settings: the environment's ([`ConnectOptions::from_env`]), then every flag given.
    pub fn options(&self) -> Result<ConnectOptions> {
        self.options_over(ConnectOptions::from_env()?)
    }

    /// These flags applied over `base`.
    #[doc(hidden)]
    pub fn options_over(&self, mut o: ConnectOptions) -> Result<ConnectOptions> {
        if !self.contact_points.is_empty() {
            o = o.contact_points(self.contact_points.iter().cloned());
        }
        if let Some(dc) = &self.local_dc {
            o = o.local_dc(dc.clone());
        }
        match (&self.username, &self.password_file) {
            (Some(user), Some(file)) => o = o.credentials(user.clone(), read_password_file(file)?),
            (Some(user), None) => match &o.credentials {
                // The password from the environment, with the user name of the flag.
                Some((_, password)) => o.credentials = Some((user.clone(), password.clone())),
                None => {
                    return Err(Error::Invalid(format!(
                        "--username {user} needs a password: set CASSMODEL_PASSWORD or give \
                         --password-file"
                    )));
                }
            },
            (None, Some(file)) => match &o.credentials {
                Some((user, _)) => {
                    let user = user.clone();
                    o = o.credentials(user, read_password_file(file)?);
                }
                None => {
                    return Err(Error::Invalid(
                        "--password-file needs a user name: give --username or set \
                         CASSMODEL_USERNAME"
                            .into(),
                    ));
                }
            },
            (None, None) => {}
        }
        if let Some(ca) = &self.tls_ca {
            o = o.tls_ca(ca.clone());
        }
        if let (Some(c), Some(k)) = (&self.tls_cert, &self.tls_key) {
            o = o.tls_client_cert(c.clone(), k.clone());
        }
        if let Some(t) = self.connect_timeout {
            o = o.connect_timeout(t);
        }
        if let Some(t) = self.request_timeout {
            o = o.request_timeout(t);
        }
        if let Some(c) = self.consistency {
            o = o.consistency(c);
        }
        if let Some(s) = self.serial_consistency {
            o = o.serial_consistency(Some(s));
        }
        if let Some(ks) = &self.keyspace {
            o = o.keyspace(ks.clone());
        }
        if let Some(n) = self.max_request_size {
            o = o.max_request_size(n);
        }
        Ok(o)
    }
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
    fn durations_and_levels() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("1h").is_err());
        assert_eq!(parse_size("16777216"), Ok(16 * 1024 * 1024));
        assert_eq!(parse_size("16MiB"), Ok(16 * 1024 * 1024));
        assert_eq!(parse_size("64 KiB"), Ok(64 * 1024));
        assert!(parse_size("0").is_err());
        assert!(parse_size("16GB").is_err());
        assert!(parse_size("99999999999999999999MiB").is_err());
        assert_eq!(parse_consistency("local_one"), Ok(Consistency::LocalOne));
        assert_eq!(
            parse_consistency("EACH-QUORUM"),
            Ok(Consistency::EachQuorum)
        );
        assert_eq!(
            parse_serial_consistency("Local_Serial"),
            Ok(SerialConsistency::LocalSerial)
        );
    }

    #[test]
    fn contact_points_are_checked() {
        assert!(check_contact_point("127.0.0.1:9042").is_ok());
        assert!(check_contact_point("db.example.com").is_ok());
        assert!(check_contact_point("[::1]:9042").is_ok());
        assert!(check_contact_point("127.0.0.1:port").is_err());
        assert!(check_contact_point(" ").is_err());
    }
}
