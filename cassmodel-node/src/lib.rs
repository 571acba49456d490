//! Starts, reuses and stops a real single-node **Apache Cassandra 5.0** on this machine, for
//! cassmodel's integration tests, its demo and `cargo xtask test`. No Docker: the jars come from
//! Maven Central (`org.apache.cassandra:cassandra-all`, downloaded once with `mvn`) and run on a
//! Java 17 (or 11) found on the machine.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cassmodel_node::NodeError> {
//! let cfg = cassmodel_node::NodeConfig::from_env();
//! // The first call starts the node (tens of seconds); later calls, from any process, reuse it.
//! cassmodel_node::ensure_running(&cfg).await?;
//! println!("CQL on {}", cfg.contact_point());
//! # Ok(()) }
//! ```
//!
//! # In your own tests
//!
//! Add `cassmodel-node` as a dev-dependency; [`TestKeyspace::new`] gives each test a fresh
//! keyspace on a real node (started on the first call, reused after) and a `Db` on it, and
//! dropping it deletes the keyspace, even when the test panics ([`TestKeyspace::drop`] does it
//! explicitly, returning its error). Set `CASSMODEL_CONTACT_POINTS` to run the same tests
//! on your own cluster; [`TestKeyspace::on_cluster`] runs one on the three-node cluster this
//! crate starts on 127.0.0.1-127.0.0.3.
//!
//! # Lifecycle
//!
//! - [`ensure_running`] returns [`Started::Reused`] at once if something answers CQL on the port.
//!   Otherwise it takes an exclusive lock file in the work dir (so concurrent test binaries start
//!   exactly one node), downloads the jars if they are not cached, writes `conf/cassandra.yaml`
//!   and `conf/logback.xml`, spawns `java` detached (own process group, output to
//!   `logs/output.log`), writes `cassandra.pid` and waits until `SELECT release_version FROM
//!   system.local` answers. The node outlives the calling process.
//! - [`stop`] sends SIGTERM to the pid of the pid file (only if that pid is still the Cassandra of
//!   this work dir), then SIGKILL after 60 s.
//! - [`reset`] stops the node and deletes its data and logs (needed after changing the cluster
//!   name or addresses); the jar cache is kept.
//!
//! # Environment variables
//!
//! Read by [`NodeConfig::from_env`]:
//!
//! | variable | default | meaning |
//! | --- | --- | --- |
//! | `CASSMODEL_CASSANDRA_VERSION` | `5.0.8` | version of `cassandra-all` on Maven Central |
//! | `CASSMODEL_NODE_HOST` | `127.0.0.1` | loopback address the node listens on |
//! | `CASSMODEL_NODE_PORT` | `9042` | CQL port on that address |
//! | `CASSMODEL_NODE_STORAGE_PORT` | `7000` | inter-node port on that address |
//! | `CASSMODEL_NODE_JMX_PORT` | `7199` | local JMX port (nodetool) |
//! | `CASSMODEL_NODE_DIR` | `<target>/cassmodel-node` | work dir: conf, data, logs, pid and lock files |
//! | `CASSMODEL_JAVA_HOME` | search | Java 11/17 home; else `$JAVA_HOME` if it is 17, else `/usr/lib/jvm/*` (17 preferred to 11) |
//! | `CASSMODEL_NODE_HEAP` | `1G` | `-Xms`/`-Xmx` |
//! | `CASSMODEL_NODE_START_TIMEOUT_SECS` | `240` | how long to wait for CQL after spawning Java |
//! | `XDG_CACHE_HOME` / `HOME` | | jars go to `${XDG_CACHE_HOME:-$HOME/.cache}/cassmodel/cassandra-<version>/lib` |
//!
//! `<target>` is `$CARGO_TARGET_DIR` if set when the program runs, else the workspace's `target`
//! folder (next to this crate's folder).
//!
//! # Requirements
//!
//! Java 11 or 17 (Cassandra 5.0 does not run on 21+), and `mvn` for the first download only.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cluster;
mod config;
mod error;
mod fixture;
mod jars;
mod java;
mod launch;
mod lock;
mod node;
mod process;
mod tls;

pub use cluster::{
    CLUSTER_HEAP, CLUSTER_SIZE, Topology, cluster_nodes, cluster_nodes_in, contact_points,
    ring_token, start_cluster, stop_cluster, wait_joined,
};
pub use config::{
    DEFAULT_HEAP, DEFAULT_HOST, DEFAULT_JMX_PORT, DEFAULT_NATIVE_PORT, DEFAULT_START_TIMEOUT_SECS,
    DEFAULT_STORAGE_PORT, DEFAULT_VERSION, NodeConfig, OTHER_VERSION_HOST, PASSWORD_NODE_HOST,
    SUPERUSER,
};
pub use error::NodeError;
pub use fixture::{TestKeyspace, unique_name};
pub use node::{
    Signal, Started, cluster_or_local_node, ensure_running, ensure_running_blocking, is_ready,
    load_average, log_tail, nodetool, peers, pinned_session, release_version, reset, running_pid,
    schema_version, signal, stop,
};
pub use tls::TlsFiles;
