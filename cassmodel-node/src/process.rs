//! The node's Java process: spawning it detached, recognising it by pid, stopping it.

use std::fs::{self, File};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::config::NodeConfig;
use crate::error::NodeError;
use crate::java::Java;
use crate::launch::{MAIN_CLASS, config_url, jvm_args};

/// Start of the line written to `system.log` before each start.
pub(crate) const START_MARKER: &str = "==== cassmodel-node: starting Cassandra";

/// Spawns the node in its own process group (so a Ctrl-C in the terminal of a test run does not
/// reach it), stdin from /dev/null and stdout/stderr to `logs/output.log` (so no pipe of the caller
/// is held open), and writes the pid file.
pub(crate) fn spawn(cfg: &NodeConfig, java: &Java, lib: &Path) -> Result<Child, NodeError> {
    let args = jvm_args(cfg, java, lib)?;
    mark_start(cfg);
    let out_path = cfg.output_log();
    let out = File::create(&out_path)
        .map_err(|e| NodeError::io(format!("cannot create {}", out_path.display()), e))?;
    let err = out
        .try_clone()
        .map_err(|e| NodeError::io(format!("cannot reopen {}", out_path.display()), e))?;
    let child = Command::new(&java.bin)
        .args(&args)
        .current_dir(&cfg.work_dir)
        .env("JAVA_HOME", &java.home)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .process_group(0)
        .spawn()
        .map_err(|e| NodeError::io(format!("cannot run {}", java.bin.display()), e))?;
    let pid_file = cfg.pid_file();
    if let Err(e) = fs::write(&pid_file, format!("{}\n", child.id())) {
        let pid = child.id();
        let _ = kill(pid, "KILL");
        return Err(NodeError::io(
            format!(
                "cannot write {} (node pid {pid} killed)",
                pid_file.display()
            ),
            e,
        ));
    }
    Ok(child)
}

/// Appends a separator to `system.log`, so that a failed start reports only its own lines.
fn mark_start(cfg: &NodeConfig) {
    use std::io::Write;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    if let Ok(mut f) = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(cfg.system_log())
    {
        let _ = writeln!(f, "{START_MARKER} {} at unix time {secs} ====", cfg.version);
    }
}

/// The pid in the pid file, if any.
pub(crate) fn read_pid(cfg: &NodeConfig) -> Option<u32> {
    fs::read_to_string(cfg.pid_file())
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

pub(crate) fn remove_pid_file(cfg: &NodeConfig) {
    let _ = fs::remove_file(cfg.pid_file());
}

/// Whether `pid` is alive (not a zombie) and is the Cassandra of this work dir, so that a
/// recycled pid is never signalled.
pub(crate) fn is_our_node(pid: u32, cfg: &NodeConfig) -> bool {
    let proc_dir = Path::new("/proc").join(pid.to_string());
    if Path::new("/proc/self").exists() {
        // Field 3 of /proc/PID/stat is the state; the command name before it is in parentheses.
        let Ok(stat) = fs::read_to_string(proc_dir.join("stat")) else {
            return false;
        };
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        if matches!(state, Some("Z") | Some("X") | None) {
            return false;
        }
        let Ok(cmdline) = fs::read(proc_dir.join("cmdline")) else {
            return false;
        };
        let cmdline = String::from_utf8_lossy(&cmdline);
        cmdline.contains(MAIN_CLASS) && cmdline.contains(&config_url(cfg))
    } else {
        // No /proc (not Linux): trust the pid file.
        Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

/// Sends a signal with the `kill` command.
pub(crate) fn kill(pid: u32, signal: &str) -> Result<(), String> {
    let out = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run kill: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

/// SIGTERM (Cassandra drains and exits), then SIGKILL after `grace`.
pub(crate) async fn terminate(
    pid: u32,
    cfg: &NodeConfig,
    grace: Duration,
) -> Result<(), NodeError> {
    if !is_our_node(pid, cfg) {
        return Ok(());
    }
    if let Err(e) = kill(pid, "TERM")
        && is_our_node(pid, cfg)
    {
        return Err(NodeError::StopFailed { pid, detail: e });
    }
    if wait_gone(pid, cfg, grace).await {
        return Ok(());
    }
    if let Err(e) = kill(pid, "KILL")
        && is_our_node(pid, cfg)
    {
        return Err(NodeError::StopFailed { pid, detail: e });
    }
    if wait_gone(pid, cfg, Duration::from_secs(10)).await {
        Ok(())
    } else {
        Err(NodeError::StopFailed {
            pid,
            detail: "still alive 10 s after SIGKILL".into(),
        })
    }
}

async fn wait_gone(pid: u32, cfg: &NodeConfig, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if !is_our_node(pid, cfg) {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
