//! [`NodeConfig`]: where the node lives and how it is reached.

use std::env;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::NodeError;

/// The Cassandra version used when `CASSMODEL_CASSANDRA_VERSION` is not set.
pub const DEFAULT_VERSION: &str = "5.0.8";
/// The CQL port used when `CASSMODEL_NODE_PORT` is not set.
pub const DEFAULT_NATIVE_PORT: u16 = 9042;
/// The inter-node port used when `CASSMODEL_NODE_STORAGE_PORT` is not set.
pub const DEFAULT_STORAGE_PORT: u16 = 7000;
/// The local JMX port used when `CASSMODEL_NODE_JMX_PORT` is not set.
pub const DEFAULT_JMX_PORT: u16 = 7199;
/// The Java heap size used when `CASSMODEL_NODE_HEAP` is not set.
pub const DEFAULT_HEAP: &str = "1G";
/// The start time-out, in seconds, used when `CASSMODEL_NODE_START_TIMEOUT_SECS` is not set.
pub const DEFAULT_START_TIMEOUT_SECS: u64 = 240;

/// The address the node binds every port to when `CASSMODEL_NODE_HOST` is not set.
pub const DEFAULT_HOST: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);

/// The loopback address of [`NodeConfig::password_protected`]: outside 127.0.0.1-127.0.0.3, so
/// that it can run beside the default node and a three-node cluster.
pub const PASSWORD_NODE_HOST: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 4);

/// The superuser Cassandra creates on a node with authentication, and its password.
pub const SUPERUSER: (&str, &str) = ("cassandra", "cassandra");
/// The address of a node of another Cassandra version beside the local one
/// ([`NodeConfig::of_version`]).
pub const OTHER_VERSION_HOST: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 5);

/// Everything needed to start, find and stop the node.
///
/// Build it with [`NodeConfig::from_env`] (or [`NodeConfig::try_from_env`]) and change fields as
/// needed; all paths should be absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeConfig {
    /// Apache Cassandra version, as published on Maven Central (`org.apache.cassandra:cassandra-all`).
    pub version: String,
    /// The loopback address (`127.x.y.z`) the node listens on, for CQL and for other nodes.
    pub host: Ipv4Addr,
    /// CQL (native transport) port on `host`.
    pub native_port: u16,
    /// Inter-node (storage) port on `host`.
    pub storage_port: u16,
    /// Local JMX port (used by `nodetool`); Cassandra binds it on 127.0.0.1 whatever `host` is,
    /// so nodes on the same machine need different ones.
    pub jmx_port: u16,
    /// The seed nodes' addresses (their storage port is `storage_port`); empty means this node
    /// alone.
    pub seeds: Vec<Ipv4Addr>,
    /// The node's token (`initial_token`, one token per node); nodes of one cluster need
    /// different ones.
    pub initial_token: i64,
    /// The node's data centre (rack `rack1`), declared to the other nodes by
    /// `GossipingPropertyFileSnitch` from `conf/cassandra-rackdc.properties`; `None`:
    /// `SimpleSnitch`, whose one data centre is `datacenter1`. A node keeps the data centre it
    /// first started in: reset it before changing this.
    pub datacenter: Option<String>,
    /// Password authentication (`PasswordAuthenticator`, `CassandraAuthorizer`): clients must
    /// log in; the superuser is [`SUPERUSER`].
    pub authentication: bool,
    /// TLS on the CQL port (`client_encryption_options`, with Cassandra's PEM keystore), beside
    /// plain connections (`optional: true`): a TLS client must present a certificate signed
    /// by the node's authority (`require_client_auth`). The certificates are generated into
    /// `<work_dir>/tls/` on the first start ([`tls_files`](Self::tls_files)).
    pub tls: bool,
    /// Whether the node runs user-defined functions and aggregates
    /// (`user_defined_functions_enabled`): on for the local node and the clusters, which
    /// serve development and tests; off on the password-protected node, where the refusal of
    /// a plan that needs them is tested.
    pub user_functions: bool,
    /// Jar cache root: the jars go to `<cache_dir>/cassandra-<version>/lib`.
    pub cache_dir: PathBuf,
    /// The node's own folder: `conf/`, `data/`, `logs/`, the pid file and the lock file.
    pub work_dir: PathBuf,
    /// Java home to use; `None` searches for a Java 17 (or 11).
    pub java_home: Option<PathBuf>,
    /// Java heap size, in `-Xmx` syntax (`1G`, `768M`).
    pub heap: String,
    /// How long to wait for the node to answer CQL after starting it.
    pub start_timeout: Duration,
}

impl NodeConfig {
    /// Reads the configuration from the environment (see the crate docs for the variables).
    ///
    /// A variable with an invalid value is reported on stderr and its default is used instead;
    /// use [`NodeConfig::try_from_env`] to get an error instead.
    pub fn from_env() -> Self {
        let mut errors = Vec::new();
        let cfg = Self::read_env(&mut |e| errors.push(e));
        for e in errors {
            eprintln!("cassmodel-node: {e}; using the default instead");
        }
        cfg
    }

    /// Reads the configuration from the environment, failing on the first invalid variable.
    pub fn try_from_env() -> Result<Self, NodeError> {
        let mut first = None;
        let cfg = Self::read_env(&mut |e| {
            if first.is_none() {
                first = Some(e);
            }
        });
        match first {
            Some(e) => Err(e),
            None => Ok(cfg),
        }
    }

    fn read_env(on_error: &mut dyn FnMut(NodeError)) -> Self {
        let version = match var("CASSMODEL_CASSANDRA_VERSION") {
            Some(v) if valid_version(&v) => v,
            Some(v) => {
                on_error(NodeError::InvalidEnv {
                    var: "CASSMODEL_CASSANDRA_VERSION",
                    value: v,
                    reason: "expected a version such as 5.0.8".into(),
                });
                DEFAULT_VERSION.to_owned()
            }
            None => DEFAULT_VERSION.to_owned(),
        };
        let host = match var("CASSMODEL_NODE_HOST") {
            Some(v) => match v.parse::<Ipv4Addr>() {
                Ok(ip) if ip.is_loopback() => ip,
                _ => {
                    on_error(NodeError::InvalidEnv {
                        var: "CASSMODEL_NODE_HOST",
                        value: v,
                        reason: "expected a loopback IPv4 address such as 127.0.0.1".into(),
                    });
                    DEFAULT_HOST
                }
            },
            None => DEFAULT_HOST,
        };
        let native_port = port_var("CASSMODEL_NODE_PORT", DEFAULT_NATIVE_PORT, on_error);
        let storage_port = port_var(
            "CASSMODEL_NODE_STORAGE_PORT",
            DEFAULT_STORAGE_PORT,
            on_error,
        );
        let jmx_port = port_var("CASSMODEL_NODE_JMX_PORT", DEFAULT_JMX_PORT, on_error);
        let heap = match var("CASSMODEL_NODE_HEAP") {
            Some(v) if valid_heap(&v) => v,
            Some(v) => {
                on_error(NodeError::InvalidEnv {
                    var: "CASSMODEL_NODE_HEAP",
                    value: v,
                    reason: "expected a Java heap size such as 1G or 768M".into(),
                });
                DEFAULT_HEAP.to_owned()
            }
            None => DEFAULT_HEAP.to_owned(),
        };
        let start_timeout = match var("CASSMODEL_NODE_START_TIMEOUT_SECS") {
            Some(v) => match v.parse::<u64>() {
                Ok(n) if n > 0 => n,
                _ => {
                    on_error(NodeError::InvalidEnv {
                        var: "CASSMODEL_NODE_START_TIMEOUT_SECS",
                        value: v,
                        reason: "expected a positive number of seconds".into(),
                    });
                    DEFAULT_START_TIMEOUT_SECS
                }
            },
            None => DEFAULT_START_TIMEOUT_SECS,
        };
        let work_dir = match var("CASSMODEL_NODE_DIR") {
            Some(v) => absolute(Path::new(&v)),
            None => default_target_dir().join("cassmodel-node"),
        };
        let java_home = var("CASSMODEL_JAVA_HOME").map(|v| absolute(Path::new(&v)));
        let cache_dir = default_cache_dir(&work_dir);
        NodeConfig {
            version,
            host,
            native_port,
            storage_port,
            jmx_port,
            seeds: Vec::new(),
            initial_token: 0,
            datacenter: None,
            authentication: false,
            tls: false,
            user_functions: true,
            cache_dir,
            work_dir,
            java_home,
            heap,
            start_timeout: Duration::from_secs(start_timeout),
        }
    }

    /// The node's data centre as the cluster names it: [`datacenter`](Self::datacenter), or
    /// `datacenter1`, `SimpleSnitch`'s.
    pub fn datacenter_name(&self) -> &str {
        self.datacenter.as_deref().unwrap_or("datacenter1")
    }

    /// The CQL contact point, `<host>:<native_port>`.
    pub fn contact_point(&self) -> String {
        format!("{}:{}", self.host, self.native_port)
    }

    /// The password-protected node the test suite logs in to: this configuration on
    /// [`PASSWORD_NODE_HOST`] (127.0.0.4), with [`authentication`](Self::authentication) and
    /// [`tls`](Self::tls) (plain connections are accepted too), its
    /// own JMX port (`jmx_port + 3`), a 512 MB heap and its own work dir
    /// (`<work_dir>-password`).
    pub fn password_protected(&self) -> NodeConfig {
        let mut cfg = self.clone();
        cfg.host = PASSWORD_NODE_HOST;
        cfg.jmx_port = self.jmx_port.wrapping_add(3);
        cfg.seeds = Vec::new();
        cfg.initial_token = 0;
        cfg.datacenter = None;
        cfg.authentication = true;
        cfg.tls = true;
        cfg.user_functions = false;
        // A few logins and small tables: half the default heap is plenty.
        cfg.heap = "512M".into();
        cfg.work_dir = sibling_dir(&self.work_dir, "password");
        cfg
    }

    /// A node of Cassandra `version` beside this one (`cargo xtask test --cassandra 4.1.10`):
    /// this configuration on [`OTHER_VERSION_HOST`] (127.0.0.5), with its own JMX port
    /// (`jmx_port + 6`) and work dir (`<work_dir>-<version>`), alone (no seeds, no data
    /// centre, no login).
    pub fn of_version(&self, version: &str) -> NodeConfig {
        let mut cfg = self.clone();
        cfg.version = version.to_owned();
        cfg.host = OTHER_VERSION_HOST;
        cfg.jmx_port = self.jmx_port.wrapping_add(6);
        cfg.seeds = Vec::new();
        cfg.initial_token = 0;
        cfg.datacenter = None;
        cfg.authentication = false;
        cfg.tls = false;
        cfg.work_dir = sibling_dir(&self.work_dir, version);
        cfg
    }

    /// The folder holding this version's jars: `<cache_dir>/cassandra-<version>/lib`.
    pub fn lib_dir(&self) -> PathBuf {
        self.version_cache_dir().join("lib")
    }

    /// The folder of the node's logs (`system.log` and `output.log`).
    pub fn log_dir(&self) -> PathBuf {
        self.work_dir.join("logs")
    }

    /// The folder of the node's data (wiped by [`crate::reset`]).
    pub fn data_dir(&self) -> PathBuf {
        self.work_dir.join("data")
    }

    /// The pid file of the node started from this work dir.
    pub fn pid_file(&self) -> PathBuf {
        self.work_dir.join("cassandra.pid")
    }

    /// The major version of `version` (`5` for `5.0.8`); `None` when it does not start
    /// with a number.
    pub fn major_version(&self) -> Option<u32> {
        self.version.split('.').next()?.parse().ok()
    }

    pub(crate) fn version_cache_dir(&self) -> PathBuf {
        self.cache_dir.join(format!("cassandra-{}", self.version))
    }

    pub(crate) fn conf_dir(&self) -> PathBuf {
        self.work_dir.join("conf")
    }

    pub(crate) fn lock_file(&self) -> PathBuf {
        self.work_dir.join("node.lock")
    }

    pub(crate) fn system_log(&self) -> PathBuf {
        self.log_dir().join("system.log")
    }

    pub(crate) fn output_log(&self) -> PathBuf {
        self.log_dir().join("output.log")
    }
}

/// A non-empty environment variable.
fn var(name: &str) -> Option<String> {
    match env::var(name) {
        Ok(v) if !v.trim().is_empty() => Some(v.trim().to_owned()),
        _ => None,
    }
}

fn port_var(name: &'static str, default: u16, on_error: &mut dyn FnMut(NodeError)) -> u16 {
    match var(name) {
        Some(v) => match v.parse::<u16>() {
            Ok(p) if p > 0 => p,
            _ => {
                on_error(NodeError::InvalidEnv {
                    var: name,
                    value: v,
                    reason: "expected a TCP port number (1-65535)".into(),
                });
                default
            }
        },
        None => default,
    }
}

/// Only characters that are safe in a file name and in the generated pom.xml.
pub(crate) fn valid_version(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 64
        && v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
}

pub(crate) fn valid_heap(v: &str) -> bool {
    let digits = v.trim_end_matches(['k', 'K', 'm', 'M', 'g', 'G']);
    !digits.is_empty() && v.len() - digits.len() <= 1 && digits.chars().all(|c| c.is_ascii_digit())
}

/// `<dir>-<suffix>`, beside `dir`.
pub(crate) fn sibling_dir(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!("-{suffix}"));
    dir.with_file_name(name)
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// `$CARGO_TARGET_DIR` at run time, else the `target` folder of the workspace holding this crate.
fn default_target_dir() -> PathBuf {
    if let Some(dir) = var("CARGO_TARGET_DIR") {
        return absolute(Path::new(&dir));
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).join("target")
}

/// `${XDG_CACHE_HOME:-$HOME/.cache}/cassmodel`, or a folder in the work dir without a home.
fn default_cache_dir(work_dir: &Path) -> PathBuf {
    if let Some(x) = var("XDG_CACHE_HOME").filter(|x| Path::new(x).is_absolute()) {
        return PathBuf::from(x).join("cassmodel");
    }
    if let Some(home) = var("HOME") {
        return PathBuf::from(home).join(".cache").join("cassmodel");
    }
    work_dir.join("jar-cache")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert!(valid_version("5.0.8"));
        assert!(valid_version("5.1-alpha1"));
        assert!(!valid_version(""));
        assert!(!valid_version("5.0</version>"));
        assert!(!valid_version("../5"));
    }

    #[test]
    fn heaps() {
        assert!(valid_heap("1G"));
        assert!(valid_heap("768m"));
        assert!(valid_heap("1048576"));
        assert!(!valid_heap("G"));
        assert!(!valid_heap("1GG"));
        assert!(!valid_heap("1 G"));
        assert!(!valid_heap("-1G"));
    }
}
