//! One node's life: started (or reused) from its configuration, probed, signalled, stopped,
//! reset, its log read, `nodetool` run on it.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use crate::config::{NodeConfig, SUPERUSER};
use crate::error::{NodeError, tail_text};
use crate::process::START_MARKER;
use crate::{jars, java, launch, lock, process};

/// How [`ensure_running`] got a running node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    /// A node already answered on the port (started earlier, or by another process).
    Reused,
    /// This call started the node.
    StartedNow {
        /// The Java process id (also in the pid file).
        pid: u32,
    },
}

/// How long [`stop`] waits after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(60);
/// Extra time a caller waits for the start lock, on top of the start time-out, to cover a
/// first download by the process holding it.
const LOCK_EXTRA: Duration = Duration::from_secs(900);
/// Lines of log put into start errors.
const ERROR_LOG_LINES: usize = 60;

/// Makes sure a node answers CQL on `cfg.contact_point()`, starting it if needed.
///
/// Safe to call from several processes at once: exactly one starts the node, the others wait
/// for it and get [`Started::Reused`]. If the node does not answer within `cfg.start_timeout` it
/// is stopped again and the error carries the end of its log.
pub async fn ensure_running(cfg: &NodeConfig) -> Result<Started, NodeError> {
    if cfg.tls && !cfg.tls_files().complete() {
        // Certificates added since the node started (its own are kept), under the lock so
        // that a certificate and its key come from one writer.
        let _lock = lock::lock_async(&cfg.lock_file(), cfg.start_timeout + LOCK_EXTRA).await?;
        crate::tls::ensure_certificates(cfg)?;
    }
    if is_ready(cfg).await {
        return Ok(Started::Reused);
    }
    fs::create_dir_all(&cfg.work_dir)
        .map_err(|e| NodeError::io(format!("cannot create {}", cfg.work_dir.display()), e))?;
    let _lock = lock::lock_async(&cfg.lock_file(), cfg.start_timeout + LOCK_EXTRA).await?;
    if is_ready(cfg).await {
        return Ok(Started::Reused);
    }
    // A node of ours that is alive but not answering yet (its starter died, or it is restarting):
    // wait for it instead of starting a second one.
    if let Some(pid) = process::read_pid(cfg) {
        if process::is_our_node(pid, cfg) {
            wait_ready(cfg, pid, None).await?;
            return Ok(Started::Reused);
        }
        process::remove_pid_file(cfg);
    }

    let owned = cfg.clone();
    let child = tokio::task::spawn_blocking(move || prepare_and_spawn(&owned))
        .await
        .map_err(|e| NodeError::io("the start task failed", std::io::Error::other(e)))??;
    let pid = child.id();
    let child = wait_ready(cfg, pid, Some(child)).await?;
    if let Some(mut child) = child {
        // Reap the process if it exits while this process lives, so that it never lingers as a
        // zombie (which would still look alive by pid); the thread ends with this process.
        let _ = std::thread::Builder::new()
            .name("cassmodel-node-reaper".into())
            .spawn(move || {
                let _ = child.wait();
            });
    }
    Ok(Started::StartedNow { pid })
}

/// The connection settings a program should use: those of the environment
/// ([`ConnectOptions::from_env`](cassmodel_runtime::ConnectOptions::from_env): credentials,
/// TLS, local data centre, time-outs, consistency), with the cluster named by
/// `CASSMODEL_CONTACT_POINTS` when it is set (no local node is started then), otherwise the
/// local node's contact point, after starting it if nothing answers on its port.
///
/// This is what the demo and the integration tests call, so that the same code runs against
/// a developer's local node or the user's own cluster.
pub async fn cluster_or_local_node() -> Result<cassmodel_runtime::ConnectOptions, NodeError> {
    let options = cassmodel_runtime::ConnectOptions::from_env()?;
    if cassmodel_runtime::config::contact_points_from_env().is_some() {
        return Ok(options);
    }
    let cfg = NodeConfig::try_from_env()?;
    ensure_running(&cfg).await?;
    Ok(options.contact_points([cfg.contact_point()]))
}

/// Blocking form of [`ensure_running`], for synchronous code.
///
/// Runs on its own current-thread tokio runtime; called from inside a runtime (e.g. a
/// `#[tokio::test]` not using `spawn_blocking`) it runs on a helper thread instead of panicking.
pub fn ensure_running_blocking(cfg: &NodeConfig) -> Result<Started, NodeError> {
    let run = || -> Result<Started, NodeError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| NodeError::io("cannot build a tokio runtime", e))?;
        rt.block_on(ensure_running(cfg))
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| s.spawn(run).join()).unwrap_or_else(|_| {
            Err(NodeError::io(
                "ensure_running",
                std::io::Error::other("the helper thread panicked"),
            ))
        })
    } else {
        run()
    }
}

/// Stops the node of this work dir's pid file, if it is alive: SIGTERM, then SIGKILL after 60 s.
///
/// Returns `Ok(false)` if there was nothing to stop. A node answering on the port that was not
/// started from this work dir is left alone.
pub async fn stop(cfg: &NodeConfig) -> Result<bool, NodeError> {
    fs::create_dir_all(&cfg.work_dir)
        .map_err(|e| NodeError::io(format!("cannot create {}", cfg.work_dir.display()), e))?;
    let _lock = lock::lock_async(&cfg.lock_file(), cfg.start_timeout + LOCK_EXTRA).await?;
    stop_locked(cfg).await
}

async fn stop_locked(cfg: &NodeConfig) -> Result<bool, NodeError> {
    let Some(pid) = process::read_pid(cfg) else {
        return Ok(false);
    };
    if !process::is_our_node(pid, cfg) {
        process::remove_pid_file(cfg);
        return Ok(false);
    }
    process::terminate(pid, cfg, STOP_GRACE).await?;
    process::remove_pid_file(cfg);
    Ok(true)
}

/// Stops the node (as [`stop`]) and deletes its data, logs and generated configuration; the
/// downloaded jars are kept.
pub async fn reset(cfg: &NodeConfig) -> Result<(), NodeError> {
    fs::create_dir_all(&cfg.work_dir)
        .map_err(|e| NodeError::io(format!("cannot create {}", cfg.work_dir.display()), e))?;
    let _lock = lock::lock_async(&cfg.lock_file(), cfg.start_timeout + LOCK_EXTRA).await?;
    stop_locked(cfg).await?;
    for dir in [cfg.data_dir(), cfg.log_dir(), cfg.conf_dir()] {
        if dir.exists() {
            fs::remove_dir_all(&dir)
                .map_err(|e| NodeError::io(format!("cannot delete {}", dir.display()), e))?;
        }
    }
    Ok(())
}

/// Whether a node answers `SELECT release_version FROM system.local` on the contact point.
pub async fn is_ready(cfg: &NodeConfig) -> bool {
    release_version(cfg).await.is_some()
}

/// The `release_version` of the node answering on the contact point, or `None` if none answers.
pub async fn release_version(cfg: &NodeConfig) -> Option<String> {
    let rows = probe_query(cfg, "SELECT release_version FROM system.local").await?;
    let (version,): (String,) = rows.first_row().ok()?;
    Some(version)
}

/// The addresses the node answering on `cfg`'s contact point lists in its `system.peers_v2`
/// (asked of that node alone), or `None` if it does not answer.
pub async fn peers(cfg: &NodeConfig) -> Option<Vec<std::net::Ipv4Addr>> {
    let rows = probe_query(cfg, "SELECT peer FROM system.peers_v2").await?;
    let peers = rows
        .rows::<(std::net::IpAddr,)>()
        .ok()?
        .filter_map(|r| match r {
            Ok((std::net::IpAddr::V4(ip),)) => Some(ip),
            _ => None,
        })
        .collect();
    Some(peers)
}

/// The `schema_version` the node answering on `cfg`'s contact point reports for itself in
/// `system.local` (asked of that node alone), or `None` if it does not answer.
pub async fn schema_version(cfg: &NodeConfig) -> Option<uuid::Uuid> {
    let rows = probe_query(cfg, "SELECT schema_version FROM system.local").await?;
    let (version,): (uuid::Uuid,) = rows.first_row().ok()?;
    Some(version)
}

/// The rows of `cql` asked of the node of `cfg` alone ([`probe_session`]), within 10 s;
/// `None` if it does not answer.
async fn probe_query(
    cfg: &NodeConfig,
    cql: &str,
) -> Option<scylla::response::query_result::QueryRowsResult> {
    let session = probe_session(cfg).await?;
    tokio::time::timeout(Duration::from_secs(10), session.query_unpaged(cql, &[]))
        .await
        .ok()?
        .ok()?
        .into_rows_result()
        .ok()
}

/// A driver session to the node of `cfg` only (its peers are filtered out, so that every
/// query runs on it), logged in as [`SUPERUSER`] when it needs a login; `None` if it does not
/// answer within a few seconds.
async fn probe_session(cfg: &NodeConfig) -> Option<scylla::client::session::Session> {
    use tokio::time::timeout;

    // A cheap TCP probe first: the CQL driver is slower to give up.
    match timeout(
        Duration::from_secs(2),
        tokio::net::TcpStream::connect(cfg.contact_point()),
    )
    .await
    {
        Ok(Ok(_)) => {}
        _ => return None,
    }
    timeout(Duration::from_secs(15), pinned_session(cfg))
        .await
        .ok()?
        .ok()
}

/// A driver session that talks to the node of `cfg` alone: the driver's other nodes are
/// filtered out, so that this node coordinates every request (how a test asks one node of a
/// cluster what it sees). Logged in as [`SUPERUSER`] when the node needs a login.
pub async fn pinned_session(
    cfg: &NodeConfig,
) -> Result<scylla::client::session::Session, NodeError> {
    use scylla::client::session_builder::SessionBuilder;
    use scylla::policies::host_filter::AllowListHostFilter;

    let addr = cfg.contact_point();
    let failed = |detail: String| NodeError::Session {
        addr: addr.clone(),
        detail,
    };
    let filter = AllowListHostFilter::new([addr.as_str()]).map_err(|e| failed(e.to_string()))?;
    let mut builder = SessionBuilder::new()
        .known_node(&addr)
        .host_filter(std::sync::Arc::new(filter))
        .connection_timeout(Duration::from_secs(5));
    if cfg.authentication {
        builder = builder.user(SUPERUSER.0, SUPERUSER.1);
    }
    builder.build().await.map_err(|e| failed(e.to_string()))
}

/// A signal [`signal`] can send to the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// `SIGSTOP`: freeze the node (a long GC pause, a stuck VM), until [`Signal::Cont`].
    Stop,
    /// `SIGCONT`: let a stopped node run again.
    Cont,
    /// `SIGKILL`: end the node at once (`kill -9`): no drain, no flush.
    Kill,
}

/// Sends `sig` to the node started from this work dir, by the pid of its pid file, after
/// checking that this pid is still that node (alive, running Cassandra with this work dir's
/// configuration); returns the pid. For fault tests: no other process is ever signalled.
pub fn signal(cfg: &NodeConfig, sig: Signal) -> Result<u32, NodeError> {
    let name = match sig {
        Signal::Stop => "STOP",
        Signal::Cont => "CONT",
        Signal::Kill => "KILL",
    };
    let pid = running_pid(cfg).ok_or_else(|| NodeError::NotRunning {
        work_dir: cfg.work_dir.clone(),
    })?;
    process::kill(pid, name).map_err(|detail| NodeError::StopFailed { pid, detail })?;
    Ok(pid)
}

/// `/proc/loadavg`'s 1-, 5- and 15-minute load averages (`?` where there is none), for the
/// figures of benchmarks and reliability runs: on a shared machine, other load widens the
/// spread of every measurement.
pub fn load_average() -> String {
    fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "?".to_owned(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}

/// The pid of the node started from this work dir, if it is alive.
pub fn running_pid(cfg: &NodeConfig) -> Option<u32> {
    process::read_pid(cfg).filter(|&pid| process::is_our_node(pid, cfg))
}

/// The last `lines` lines of the node's `logs/system.log`, followed by the end of
/// `logs/output.log` (the JVM's own stdout/stderr and WARN+ messages) if it is not empty.
///
/// Lines longer than 400 characters (such as Cassandra's configuration dump) are shortened.
pub fn log_tail(cfg: &NodeConfig, lines: usize) -> String {
    log_tail_impl(cfg, lines, false)
}

/// [`log_tail`], optionally limited to the lines written since the last start.
fn log_tail_impl(cfg: &NodeConfig, lines: usize, since_start: bool) -> String {
    let mut out = String::new();
    let system = tail_file(&cfg.system_log(), lines, since_start);
    let output = tail_file(&cfg.output_log(), lines, false);
    match system {
        Some(s) if !s.is_empty() => {
            out.push_str(&format!("== {} ==\n{s}", cfg.system_log().display()));
        }
        _ => out.push_str(&format!(
            "({} has nothing{})\n",
            cfg.system_log().display(),
            if since_start { " from this start" } else { "" }
        )),
    }
    if let Some(o) = output.filter(|o| !o.trim().is_empty()) {
        out.push_str(&format!("== {} ==\n{o}", cfg.output_log().display()));
    }
    out
}

/// Runs Cassandra's `nodetool` with `args` (e.g. `["flush", "ks", "table"]`) against the node
/// of `cfg` (its local JMX port) and returns what it printed. Blocking: it starts a JVM
/// (about a second).
///
/// ```no_run
/// let cfg = cassmodel_node::NodeConfig::from_env();
/// cassmodel_node::nodetool(&cfg, &["flush", "shop", "orders"])?;
/// # Ok::<(), cassmodel_node::NodeError>(())
/// ```
pub fn nodetool(cfg: &NodeConfig, args: &[&str]) -> Result<String, NodeError> {
    let java = java::find_java(cfg.java_home.as_deref())?;
    let lib = jars::ensure_jars(cfg, &java)?;
    let conf = cfg.conf_dir();
    std::fs::create_dir_all(&conf)
        .map_err(|e| NodeError::io(format!("creating {}", conf.display()), e))?;
    let logback = conf.join("logback-tools.xml");
    std::fs::write(&logback, launch::LOGBACK_TOOLS)
        .map_err(|e| NodeError::io(format!("writing {}", logback.display()), e))?;
    let output = std::process::Command::new(&java.bin)
        .args(launch::nodetool_args(cfg, &java, &lib, args))
        .output()
        .map_err(|e| NodeError::io(format!("running {} (nodetool)", java.bin.display()), e))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        Ok(stdout)
    } else {
        Err(NodeError::Nodetool {
            args: args.join(" "),
            status: output.status.to_string(),
            output: format!("{stdout}{}", String::from_utf8_lossy(&output.stderr)),
        })
    }
}

/// Finds Java, downloads the jars if needed, writes the configuration and spawns the node.
fn prepare_and_spawn(cfg: &NodeConfig) -> Result<Child, NodeError> {
    let java = java::find_java(cfg.java_home.as_deref())?;
    let lib = jars::ensure_jars(cfg, &java)?;
    launch::write_conf(cfg)?;
    process::spawn(cfg, &java, &lib)
}

/// Polls until the node answers, the process exits, or `cfg.start_timeout` passes (then the
/// process is stopped). Gives the child back on success.
async fn wait_ready(
    cfg: &NodeConfig,
    pid: u32,
    mut child: Option<Child>,
) -> Result<Option<Child>, NodeError> {
    let start = Instant::now();
    loop {
        let exited = match child.as_mut() {
            Some(c) => match c.try_wait() {
                Ok(Some(status)) => Some(status.to_string()),
                Ok(None) => None,
                Err(e) => Some(format!("unknown status ({e})")),
            },
            None => (!process::is_our_node(pid, cfg)).then(|| "unknown status".to_owned()),
        };
        if let Some(status) = exited {
            process::remove_pid_file(cfg);
            return Err(NodeError::ExitedEarly {
                pid,
                status,
                addr: cfg.contact_point(),
                log_tail: log_tail_impl(cfg, ERROR_LOG_LINES, true),
            });
        }
        if is_ready(cfg).await {
            return Ok(child);
        }
        if start.elapsed() >= cfg.start_timeout {
            let log = log_tail_impl(cfg, ERROR_LOG_LINES, true);
            process::terminate(pid, cfg, Duration::from_secs(20)).await?;
            if let Some(mut c) = child {
                let _ = c.wait();
            }
            process::remove_pid_file(cfg);
            return Err(NodeError::StartTimeout {
                addr: cfg.contact_point(),
                secs: cfg.start_timeout.as_secs(),
                log_tail: log,
            });
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The last `lines` lines of a file (reading at most its last 1 MiB), long lines shortened;
/// with `since_start`, only those after the last [`START_MARKER`] line.
fn tail_file(path: &Path, lines: usize, since_start: bool) -> Option<String> {
    const MAX: u64 = 1 << 20;
    const MAX_LINE: usize = 400;
    let mut file = fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len > MAX {
        file.seek(SeekFrom::Start(len - MAX)).ok()?;
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut text: &str = &text;
    if since_start && let Some(i) = text.rfind(START_MARKER) {
        text = &text[i..];
    }
    let shortened: String = text
        .lines()
        .map(|l| match l.char_indices().nth(MAX_LINE) {
            Some((i, _)) => format!("{} [...]\n", &l[..i]),
            None => format!("{l}\n"),
        })
        .collect();
    Some(tail_text(&shortened, lines))
}
