//! The charybdis peer (`benches/peers/charybdis`): built by `cargo build --release` in its own
//! workspace, started once on the bench's node and keyspace, and asked for one run at a time
//! over its stdin; it measures its own process the way the bench measures its sides.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::Sample;
use crate::drive::Measured;
use crate::keys::Phase;

pub struct Peer {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Peer {
    /// Builds the peer (a release build, as the bench's own) and starts it; `Err` says why not.
    pub async fn start(contact_point: &str, keyspace: &str) -> Result<Peer, String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers/charybdis");
        let built = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .status()
            .await
            .map_err(|e| format!("cargo build of the peer: {e}"))?;
        if !built.success() {
            return Err(format!("cargo build of the peer failed ({built})"));
        }
        let mut child = Command::new(dir.join("target/release/charybdis-peer"))
            .args([contact_point, keyspace])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("starting the peer: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
        Ok(Peer {
            _child: child,
            stdin,
            stdout,
        })
    }

    /// One run of `phase`, of charybdis's code or (`raw`) of the bench's raw code in the
    /// peer's process; `None` if charybdis has no form of the phase.
    pub async fn run(
        &mut self,
        raw: bool,
        phase: Phase,
        concurrency: usize,
        rate: Option<f64>,
        slice: Duration,
        seed: u64,
    ) -> Option<Sample> {
        let side = if raw { "raw" } else { "charybdis" };
        let line = format!(
            "{side} {phase:?} {concurrency} {} {} {seed}\n",
            rate.unwrap_or(0.0),
            slice.as_millis()
        );
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to the peer");
        self.stdin.flush().await.expect("write to the peer");
        let reply = self
            .stdout
            .next_line()
            .await
            .expect("read from the peer")
            .expect("the peer ended (see its panic above)");
        if reply == "unsupported" {
            return None;
        }
        let f: Vec<u64> = reply
            .split_whitespace()
            .map(|w| w.parse().expect("a number from the peer"))
            .collect();
        let [ops, cpu_ns, wall_ns, allocs] = f[..] else {
            panic!("the peer said `{reply}`");
        };
        Some(Sample::from(Measured {
            ops: ops as usize,
            cpu: Duration::from_nanos(cpu_ns),
            wall: Duration::from_nanos(wall_ns),
            allocs: allocs as usize,
        }))
    }
}
