//! The error type of this crate.

use std::path::PathBuf;

/// Everything that can go wrong while starting, probing or stopping the node.
///
/// Every message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// No Java 17 (or 11) installation was found.
    #[error(
        "Java 17 not found (looked at {searched}): Cassandra 5.0 needs Java 11 or 17 (not 21+); \
         install openjdk-17 (e.g. `apt-get install openjdk-17-jdk-headless`) or set \
         CASSMODEL_JAVA_HOME to a Java 17 (or 11) home"
    )]
    JavaNotFound {
        /// The places that were looked at, for the message.
        searched: String,
    },

    /// The Java installation given explicitly cannot run Cassandra 5.0.
    #[error(
        "{home} is not a usable Java 11 or 17 home ({detail}): Cassandra 5.0 runs only on Java 11 \
         or 17; point CASSMODEL_JAVA_HOME at one, or unset it to search /usr/lib/jvm"
    )]
    JavaUnsupported {
        /// The Java home that was rejected.
        home: PathBuf,
        /// What `java -version` said, or why it could not run.
        detail: String,
    },

    /// Maven is needed once to download the Cassandra jars but is not installed.
    #[error(
        "mvn not found on PATH: Maven is needed once to download Cassandra {version} into {cache}; \
         install it (e.g. `apt-get install maven`)"
    )]
    MvnNotFound {
        /// The Cassandra version that was to be downloaded.
        version: String,
        /// Where the jars were to go.
        cache: PathBuf,
    },

    /// Maven ran but could not resolve the Cassandra jars.
    #[error(
        "mvn could not download org.apache.cassandra:cassandra-all:{version} and its runtime \
         dependencies: check that the version exists (CASSMODEL_CASSANDRA_VERSION) and that Maven \
         Central is reachable; mvn said:\n{output}"
    )]
    Download {
        /// The Cassandra version that was to be downloaded.
        version: String,
        /// The end of Maven's output.
        output: String,
    },

    /// An environment variable has a value that cannot be used.
    #[error("environment variable {var}={value:?} is invalid: {reason}")]
    InvalidEnv {
        /// The variable's name.
        var: &'static str,
        /// Its value.
        value: String,
        /// What a valid value looks like.
        reason: String,
    },

    /// A file-system or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, including the path involved.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// The Java process exited before the node answered CQL queries.
    #[error(
        "Cassandra (pid {pid}) exited with {status} before answering on {addr}; fix the cause \
         below (a port in use? run `cassmodel-node reset` if the data is from another \
         configuration); last log lines:\n{log_tail}"
    )]
    ExitedEarly {
        /// The pid the process had.
        pid: u32,
        /// Its exit status, as text.
        status: String,
        /// The CQL contact point that was waited on.
        addr: String,
        /// The last lines of the node's logs.
        log_tail: String,
    },

    /// The node did not answer CQL queries within the start time-out.
    #[error(
        "Cassandra did not answer on {addr} within {secs} s (the node was stopped again); raise \
         CASSMODEL_NODE_START_TIMEOUT_SECS on a slow machine, or run `cassmodel-node reset`; last \
         log lines:\n{log_tail}"
    )]
    StartTimeout {
        /// The CQL contact point that was waited on.
        addr: String,
        /// The time-out, in seconds.
        secs: u64,
        /// The last lines of the node's logs.
        log_tail: String,
    },

    /// The node process would not go away, or could not be signalled.
    #[error(
        "could not signal or stop Cassandra (pid {pid}): {detail}; stop it by hand with `kill -9 {pid}`"
    )]
    StopFailed {
        /// The node's pid.
        pid: u32,
        /// What went wrong.
        detail: String,
    },

    /// No live node was started from this work dir (for [`crate::signal`]).
    #[error(
        "no live node started from {work_dir}: nothing to signal (start it with \
         `cassmodel-node start`, with the same CASSMODEL_NODE_DIR)"
    )]
    NotRunning {
        /// The work dir whose pid file was read.
        work_dir: PathBuf,
    },

    /// `nodetool` failed.
    #[error(
        "`nodetool {args}` failed ({status}); is the node running (`cassmodel-node status`) with \
         its JMX port at CASSMODEL_NODE_JMX_PORT? It said:\n{output}"
    )]
    Nodetool {
        /// Its arguments.
        args: String,
        /// Its exit status.
        status: String,
        /// What it printed.
        output: String,
    },

    /// The connection settings of the environment are invalid (`CASSMODEL_USERNAME` without a
    /// password, an unknown consistency level, ...).
    #[error("invalid connection settings: {0}")]
    Settings(#[from] cassmodel_runtime::Error),

    /// A step of [`TestKeyspace`](crate::TestKeyspace) failed (connecting, creating or
    /// dropping its keyspace).
    #[error("{what} failed: {reason}")]
    Fixture {
        /// The step.
        what: String,
        /// The server's or the driver's words.
        reason: String,
    },

    /// A cluster node's address and port answer for a node that is not that cluster node.
    #[error(
        "{addr} answers for a node not started from {work_dir} (the single local node? stop it \
         with `cassmodel-node stop`), so the cluster cannot start there"
    )]
    AddressTaken {
        /// The contact point in use.
        addr: String,
        /// The cluster node's work dir.
        work_dir: PathBuf,
    },

    /// The cluster's nodes answer CQL but do not all see each other or do not agree on one
    /// schema version.
    #[error(
        "the cluster's nodes did not all see each other and agree on one schema within {secs} s \
         ({missing}); see `cassmodel-node cluster logs`"
    )]
    NotJoined {
        /// How long was waited, in seconds.
        secs: u64,
        /// Which node misses which peer, and each node's schema version when they differ.
        missing: String,
    },

    /// Another process held the start lock for too long.
    #[error(
        "waited {secs} s for the lock {path} held by another process starting or stopping the \
         node; if no such process is running, delete the file"
    )]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long was waited, in seconds.
        secs: u64,
    },

    /// A session to one node alone could not be opened.
    #[error(
        "cannot connect to the node at {addr} alone: {detail}; is it running (`cassmodel-node \
         status`, `cassmodel-node cluster status`)?"
    )]
    Session {
        /// The node's contact point.
        addr: String,
        /// The driver's error.
        detail: String,
    },

    /// The TLS certificates of a node with `tls` could not be generated.
    #[error(
        "could not generate the node's TLS certificates: {0}; delete the node's `tls` folder \
         and start it again"
    )]
    Certificate(String),
}

impl NodeError {
    /// Wraps an I/O error with a description of what was being done.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        NodeError::Io {
            context: context.into(),
            source,
        }
    }
}

/// The last `lines` lines of `text`, each ending with a newline.
pub(crate) fn tail_text(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let from = all.len().saturating_sub(lines);
    let mut out = String::new();
    for line in &all[from..] {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::tail_text;

    #[test]
    fn tail() {
        assert_eq!(tail_text("a\nb\nc\n", 2), "b\nc\n");
        assert_eq!(tail_text("a", 5), "a\n");
        assert_eq!(tail_text("", 5), "");
    }
}
