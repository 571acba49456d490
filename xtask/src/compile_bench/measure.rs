//! Timing one command: wall time, and the user and system CPU time of the whole process tree
//! it starts (cargo, rustc, build scripts, proc macros), read from the kernel's accounting of
//! this process's reaped children (`/proc/self/stat`, fields `cutime` and `cstime`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// What one run cost.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    pub user: f64,
    pub sys: f64,
    pub wall: f64,
}

/// CPU seconds of the reaped children of this process: (user, system).
fn children_cpu() -> Result<(f64, f64), String> {
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| format!("cannot read /proc/self/stat (this benchmark needs Linux): {e}"))?;
    // The second field is `(comm)`, which may contain spaces; the rest follow its `)`.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or("unexpected /proc/self/stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After `)`: state is field 3 of proc(5), so field N is at index N - 3.
    let tick = |n: usize| -> Result<f64, String> {
        fields
            .get(n - 3)
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or_else(|| format!("no field {n} in /proc/self/stat"))
    };
    let hz = clock_ticks();
    Ok((tick(16)? / hz, tick(17)? / hz))
}

/// `sysconf(_SC_CLK_TCK)`, asked of `getconf` once; 100 on every Linux seen.
fn clock_ticks() -> f64 {
    static HZ: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *HZ.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// Runs `cmd` in `dir` with its output appended to `log`, and returns its cost; a failed
/// command is an error that points at the log.
pub fn run(cmd: &mut Command, dir: &Path, log: &Path) -> Result<Cost, String> {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let (u0, s0) = children_cpu()?;
    let start = Instant::now();
    let status = cmd
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let wall = start.elapsed().as_secs_f64();
    let (u1, s1) = children_cpu()?;
    if !status.success() {
        return Err(format!(
            "{cmd:?} in {} failed ({status}); its output is in {}",
            dir.display(),
            log.display()
        ));
    }
    Ok(Cost {
        user: u1 - u0,
        sys: s1 - s0,
        wall,
    })
}

/// The 1-, 5- and 15-minute load averages.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_owned())
}

/// The median of `v` (the mean of the middle two for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn child_cpu_is_counted() {
        // A child that burns CPU in a shell loop: its user time shows up once reaped.
        let dir = std::env::temp_dir();
        let log = dir.join("xtask-measure-test.log");
        let cost = run(
            Command::new("sh").args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"]),
            &dir,
            &log,
        )
        .expect("sh runs");
        assert!(cost.user + cost.sys > 0.05, "{cost:?}");
        assert!(cost.wall >= cost.user * 0.5, "{cost:?}");
    }
}
