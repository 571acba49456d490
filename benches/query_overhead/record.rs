//! This run's rows of `benches/results/query_overhead.csv`: one per variant, with the run's
//! date, commit, machine, rounds and load (`QUERY_OVERHEAD_CSV=<file>` writes elsewhere,
//! `QUERY_OVERHEAD_CSV=` nowhere).

use std::path::PathBuf;

use crate::results::{RunInfo, append_csv};

/// The columns of `query_overhead.csv`.
pub const HEADER: [&str; 28] = [
    "date",
    "commit",
    "machine",
    "rounds",
    "slice_ms",
    "load_start",
    "load_end",
    "mode",
    "only",
    "peer",
    "phase",
    "in_flight",
    "paced",
    "paced_per_s",
    "ratio_vs_raw",
    "ci_low",
    "ci_high",
    "iqr_low",
    "iqr_high",
    "ratio_vs_charybdis",
    "charybdis_ci_low",
    "charybdis_ci_high",
    "allocs_cassmodel",
    "allocs_raw",
    "cpu_us_cassmodel",
    "cpu_us_raw",
    "cpu_us_charybdis",
    "notes",
];

/// What is the same for every row of a run.
pub struct Run {
    pub info: RunInfo,
    pub rounds: usize,
    pub slice_ms: u128,
    /// `real`, `calibrate` (A/A), `policies`, or `side:<side>` (`QUERY_OVERHEAD_SIDE`), with
    /// `+spin:<ns>` when `QUERY_OVERHEAD_SPIN_NS` is set.
    pub mode: String,
    /// `QUERY_OVERHEAD_ONLY`.
    pub only: String,
    pub peer: bool,
}

/// One variant's figures.
pub struct Variant<'a> {
    pub phase: &'a str,
    pub in_flight: usize,
    pub rate: Option<f64>,
    /// The median of the paired CPU ratios and its interquartile range.
    pub ratio: (f64, f64, f64),
    /// The 95% interval of that median.
    pub ci: Option<(f64, f64)>,
    /// Against charybdis, where the peer has the phase.
    pub charybdis: Option<Charybdis>,
    pub allocs: (f64, f64),
    pub cpu_us: (f64, f64),
}

/// A variant's figures against charybdis.
pub struct Charybdis {
    /// The median of the per-round (cassmodel / raw here) / (charybdis / raw in the peer).
    pub ratio: f64,
    /// Its 95% interval.
    pub ci: Option<(f64, f64)>,
    /// charybdis's CPU µs per operation (the median over rounds).
    pub cpu_us: f64,
}

impl Run {
    pub fn row(&self, v: &Variant<'_>, load_end: &str) -> Vec<String> {
        let three = |x: f64| format!("{x:.3}");
        let one = |x: f64| format!("{x:.1}");
        let pair = |p: Option<(f64, f64)>| {
            p.map_or((String::new(), String::new()), |(a, b)| {
                (three(a), three(b))
            })
        };
        let (ci_low, ci_high) = pair(v.ci);
        let (to_charybdis, (ch_low, ch_high), ch_cpu) = match &v.charybdis {
            Some(c) => (three(c.ratio), pair(c.ci), one(c.cpu_us)),
            None => (String::new(), (String::new(), String::new()), String::new()),
        };
        vec![
            self.info.date.clone(),
            self.info.commit.clone(),
            self.info.machine.clone(),
            self.rounds.to_string(),
            self.slice_ms.to_string(),
            self.info.load_start.clone(),
            load_end.to_owned(),
            self.mode.clone(),
            self.only.clone(),
            u8::from(self.peer).to_string(),
            v.phase.to_owned(),
            v.in_flight.to_string(),
            u8::from(v.rate.is_some()).to_string(),
            v.rate.map_or(String::new(), |r| format!("{r:.0}")),
            three(v.ratio.0),
            ci_low,
            ci_high,
            three(v.ratio.1),
            three(v.ratio.2),
            to_charybdis,
            ch_low,
            ch_high,
            one(v.allocs.0),
            one(v.allocs.1),
            one(v.cpu_us.0),
            one(v.cpu_us.1),
            ch_cpu,
            String::new(),
        ]
    }
}

/// Appends `rows` to the file `QUERY_OVERHEAD_CSV` names (default
/// `benches/results/query_overhead.csv`; empty: none).
pub fn append(rows: &[Vec<String>]) {
    let path = match std::env::var_os("QUERY_OVERHEAD_CSV") {
        Some(p) if p.is_empty() => return,
        Some(p) => PathBuf::from(p),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/results/query_overhead.csv")
        }
    };
    match append_csv(&path, &HEADER, rows) {
        Ok(()) => println!("{} rows appended to {}", rows.len(), path.display()),
        Err(e) => eprintln!("could not append to {}: {e}", path.display()),
    }
}
