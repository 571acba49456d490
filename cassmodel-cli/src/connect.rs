//! [`ConnectArgs`]: the connection flags of a command-line tool, each overriding its
//! `CASSMODEL_*` variable.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cassmodel_runtime::config::cli::{
    parse_consistency, parse_duration, parse_serial_consistency, parse_size, read_password_file,
};
use cassmodel_runtime::{
    ConnectOptions, Consistency, Db, Error, Result, SerialConsistency, ServerWarning,
};

/// The connection flags of a command-line tool (the migration CLI has them): each one
/// overrides its environment variable (see [`ENV_VARS`](cassmodel_runtime::config::ENV_VARS)). Add them to your own `clap`
/// command with `#[command(flatten)]`. The password has no flag (a flag is visible to every
/// user of the machine in the process list): use `CASSMODEL_PASSWORD` or `--password-file`.
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
    /// Connect timeout: how long the whole connection may take (TCP, TLS, CQL start-up, first
    /// metadata), e.g. 5s [env: CASSMODEL_CONNECT_TIMEOUT; default: 5s].
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
            // The password from the environment, with the user name of the flag.
            (Some(user), None) => match o.with_username(user.clone()) {
                Some(with_user) => o = with_user,
                None => {
                    return Err(Error::Invalid(format!(
                        "--username {user} needs a password: set CASSMODEL_PASSWORD or give \
                         --password-file"
                    )));
                }
            },
            (None, Some(file)) => match o.get_username() {
                Some(user) => {
                    let user = user.to_owned();
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

/// The warnings the server attached to a command's statements (a replication factor above a
/// data centre's node count, a batch over the warning threshold...), printed on its error
/// output when it ends: the first [`Warned::KEPT`], then how many more there were (a
/// backfill may draw one per batch).
#[derive(Clone, Default)]
pub(crate) struct Warned(Arc<Mutex<(Vec<ServerWarning>, usize)>>);

impl Warned {
    /// The warnings printed in full.
    const KEPT: usize = 20;

    /// Keeps the warnings of every statement run through `db`.
    pub(crate) fn watch(&self, db: &Db) {
        let kept = Arc::clone(&self.0);
        db.on_server_warning(move |w| {
            let mut kept = kept
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if kept.0.len() < Self::KEPT {
                kept.0.push(w.clone());
            } else {
                kept.1 += 1;
            }
        });
    }

    /// Prints the warnings kept so far, one line each.
    pub(crate) fn print(&self, err: &mut (dyn Write + Send)) {
        let (kept, more) = std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for w in kept {
            let _ = writeln!(err, "warning from Cassandra: {w}");
        }
        if more > 0 {
            let _ = writeln!(
                err,
                "warning from Cassandra: {more} more warnings not shown"
            );
        }
    }
}
