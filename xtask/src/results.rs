// A run's record: the date, commit, machine and load a benchmark or a check appends to its CSV
// file beside its figures (`benches/results/*.csv`, `reliability/results/*.csv`), and the
// appending itself. std only, and no inner doc comments: the benches include this file with
// `#[path]` and the chaos checks with `include!` (the workspace's architecture test reads
// `mod` items by their file name only).

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

/// Who, where and when of one run, taken when it starts.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// UTC date, `YYYY-MM-DD`.
    pub date: String,
    /// `git rev-parse --short HEAD`, with `-dirty` when tracked files differ from it; empty
    /// outside a git checkout.
    pub commit: String,
    /// The CPU's model name (`/proc/cpuinfo`) and the cores this process may use.
    pub machine: String,
    /// The 1-minute load average at the start.
    pub load_start: String,
}

impl RunInfo {
    /// The record of a run starting now, in the checkout at `dir`.
    pub fn start(dir: &Path) -> RunInfo {
        RunInfo {
            date: today(),
            commit: commit(dir),
            machine: machine(),
            load_start: load_1min(),
        }
    }
}

/// The 1-minute load average (`/proc/loadavg`), or empty.
pub fn load_1min() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_default()
}

/// `<model name>, <n> cores`, or what of it is known.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    match std::thread::available_parallelism() {
        Ok(n) => format!("{model}, {n} cores"),
        Err(_) => model,
    }
}

/// The checkout's short commit, `-dirty` appended when a tracked file differs from it.
pub fn commit(dir: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let Some(head) = git(&["rev-parse", "--short", "HEAD"]) else {
        return String::new();
    };
    match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(changes) if !changes.is_empty() => format!("{head}-dirty"),
        _ => head,
    }
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// One CSV field: quoted when it holds a comma, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Appends `rows` to the CSV file at `path`, which starts with `header`: the file is created
/// with it if missing or empty, and refused if it has another header (a column added to a
/// harness and not to its file).
pub fn append_csv(path: &Path, header: &[&str], rows: &[Vec<String>]) -> std::io::Result<()> {
    let line = |cells: &[String]| {
        let fields: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        fields.join(",") + "\n"
    };
    let head: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let existing = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let mut out = String::new();
    match existing.lines().next() {
        None => out.push_str(&line(&head)),
        Some(first) if first == line(&head).trim_end() => {}
        Some(first) => {
            return Err(std::io::Error::other(format!(
                "{} has the columns `{first}`, not `{}`",
                path.display(),
                line(&head).trim_end()
            )));
        }
    }
    if !existing.is_empty() && !existing.ends_with('\n') {
        out.insert(0, '\n');
    }
    for row in rows {
        if row.len() != header.len() {
            return Err(std::io::Error::other(format!(
                "a row of {} cells for the {} columns of {}",
                row.len(),
                header.len(),
                path.display()
            )));
        }
        out.push_str(&line(row));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(out.as_bytes())
}

#[cfg(test)]
mod results_tests {
    // Items by their path, not imported: the benches that include this file compile it with
    // `cfg(test)` but without a test harness, which would leave an import unused.

    #[test]
    fn dates_from_days() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(31 + 28), (1970, 3, 1));
        assert_eq!(super::civil_from_days(10_957), (2000, 1, 1));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(super::civil_from_days(20_790), (2026, 12, 3));
        assert_eq!(super::civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn fields_are_quoted_when_they_must_be() {
        assert_eq!(super::csv_field("0.83"), "0.83");
        assert_eq!(
            super::csv_field("AMD EPYC, 2 cores"),
            "\"AMD EPYC, 2 cores\""
        );
        assert_eq!(super::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn appends_under_one_header_and_refuses_another() {
        let dir = std::env::temp_dir().join(format!("results-test-{}", std::process::id()));
        let path = dir.join("x.csv");
        let _ = std::fs::remove_file(&path);
        let row = |a: &str, b: &str| vec![a.to_owned(), b.to_owned()];
        super::append_csv(&path, &["a", "b"], &[row("1", "x, y")]).expect("created");
        super::append_csv(&path, &["a", "b"], &[row("2", "z")]).expect("appended");
        let text = std::fs::read_to_string(&path).expect("written");
        assert_eq!(text, "a,b\n1,\"x, y\"\n2,z\n");
        assert!(super::append_csv(&path, &["a", "c"], &[row("3", "w")]).is_err());
        assert!(super::append_csv(&path, &["a", "b"], &[vec!["4".to_owned()]]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
