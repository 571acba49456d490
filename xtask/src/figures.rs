//! `cargo xtask figures [--check] [--readme FILE] [--benchmarks FILE]`: the figures that the top
//! of BENCHMARKS.md and README.md quote, rendered from the CSV files of `benches/results/`
//! and written between the markers `<!-- figures:begin NAME -->` and
//! `<!-- figures:end NAME -->` of each file:
//!
//! - `benchmarks-summary` (BENCHMARKS.md): a line per measure of every benchmark, from
//!   `summary.csv`, and the run-time ratios per phase of the run those lines name, from
//!   `query_overhead.csv`;
//! - `readme-costs` (README.md): what cassmodel costs, one line per benchmark, from
//!   `summary.csv`, each linked to its section of BENCHMARKS.md.
//!
//! `summary.csv` holds every figure quoted in both places once (`metric,value,unit,date,
//! commit,machine,source`). Rendering checks it against the results: each line's run must be
//! in its `source` file, and the run-time lowest and highest ratios must be those of that
//! run's rows in `query_overhead.csv`. `--check` writes nothing, and fails when a file's block
//! is not what the CSV files render, or when a file lacks its markers.
//!
//! std only: `tests/figures.rs` includes this file (`#[path]`) to run the same check in the
//! suite.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where the CSV files are, from the workspace's root.
pub const RESULTS: &str = "benches/results";

/// A generated block: the file it belongs in (from the workspace's root), its marker name and
/// its text (what goes between the markers).
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub file: &'static str,
    pub name: &'static str,
    pub text: String,
}

pub fn begin_marker(name: &str) -> String {
    format!("<!-- figures:begin {name} -->")
}

pub fn end_marker(name: &str) -> String {
    format!("<!-- figures:end {name} -->")
}

/// A CSV file: its header and rows (RFC 4180 quoting, one record per line).
#[derive(Debug)]
pub struct Csv {
    name: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    pub fn parse(name: &str, text: &str) -> Result<Csv, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, head) = lines.next().ok_or_else(|| format!("{name} is empty"))?;
        let header = split_record(head).map_err(|e| format!("{name}:1: {e}"))?;
        let mut rows = Vec::new();
        for (i, line) in lines {
            let row = split_record(line).map_err(|e| format!("{name}:{}: {e}", i + 1))?;
            if row.len() != header.len() {
                return Err(format!(
                    "{name}:{}: {} fields, the header has {}",
                    i + 1,
                    row.len(),
                    header.len()
                ));
            }
            rows.push(row);
        }
        Ok(Csv {
            name: name.to_owned(),
            header,
            rows,
        })
    }

    fn column(&self, col: &str) -> Result<usize, String> {
        self.header
            .iter()
            .position(|h| h == col)
            .ok_or_else(|| format!("{} has no column `{col}`", self.name))
    }

    /// The rows whose columns hold the given values, in file order.
    pub fn rows_where(&self, wanted: &[(&str, &str)]) -> Result<Vec<Row<'_>>, String> {
        let idx = wanted
            .iter()
            .map(|(c, v)| Ok((self.column(c)?, *v)))
            .collect::<Result<Vec<_>, String>>()?;
        Ok(self
            .rows
            .iter()
            .filter(|r| idx.iter().all(|(i, v)| r[*i] == *v))
            .map(|cells| Row { csv: self, cells })
            .collect())
    }
}

/// One row of a [`Csv`].
#[derive(Clone, Copy)]
pub struct Row<'a> {
    csv: &'a Csv,
    cells: &'a [String],
}

impl<'a> Row<'a> {
    pub fn get(&self, col: &str) -> Result<&'a str, String> {
        Ok(self.cells[self.csv.column(col)?].as_str())
    }
}

fn split_record(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut started = true;
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' if quoted => quoted = false,
            '"' if started => quoted = true,
            ',' if !quoted => {
                out.push(std::mem::take(&mut field));
                started = true;
                continue;
            }
            c => field.push(c),
        }
        started = false;
    }
    if quoted {
        return Err("a quote is not closed".to_owned());
    }
    out.push(field);
    Ok(out)
}

/// One figure of `summary.csv` (its `unit` column is for the reader).
struct Metric {
    value: String,
    date: String,
    commit: String,
    machine: String,
    source: String,
}

impl Metric {
    fn run(&self) -> String {
        let machine = if self.machine.is_empty() {
            "machine not recorded"
        } else {
            &self.machine
        };
        format!("{}, `{}`, {machine}", self.date, self.commit)
    }
}

/// What a figure cell shows: a metric's value (thousands grouped), or text.
enum Part {
    M(&'static str),
    T(&'static str),
}
use Part::{M, T};

/// A line of the summary table in BENCHMARKS.md.
struct Line {
    benchmark: &'static str,
    anchor: &'static str,
    measure: &'static str,
    figure: &'static [Part],
    bar: &'static str,
}

const LINES: &[Line] = &[
    Line {
        benchmark: "Run time",
        anchor: "run-time",
        measure: "client CPU per operation, cassmodel / raw driver, 1 request in flight: lowest and highest of the 9 phases",
        figure: &[
            M("run_time_min_cell_ratio_1_in_flight"),
            T("–"),
            M("run_time_max_cell_ratio_1_in_flight"),
            T("x"),
        ],
        bar: "≤ 1.03x in every phase",
    },
    Line {
        benchmark: "Run time",
        anchor: "run-time",
        measure: "the same, 64 requests in flight",
        figure: &[
            M("run_time_min_cell_ratio_64_in_flight"),
            T("–"),
            M("run_time_max_cell_ratio_64_in_flight"),
            T("x"),
        ],
        bar: "≤ 1.03x in every phase",
    },
    Line {
        benchmark: "Run time",
        anchor: "run-time",
        measure: "cassmodel / charybdis (each over the raw driver in its own process), the 6 phases charybdis has, 1 and 64 in flight",
        figure: &[
            M("run_time_min_ratio_vs_charybdis"),
            T("–"),
            M("run_time_max_ratio_vs_charybdis"),
            T("x"),
        ],
        bar: "≤ 1.00x in each of the 12",
    },
    Line {
        benchmark: "Memory",
        anchor: "memory",
        measure: "heap allocations per operation: phases × {1, 64} in flight where cassmodel allocates more than the raw driver",
        figure: &[M("allocs_cells_above_raw"), T(" of 18")],
        bar: "none above raw's + 1",
    },
    Line {
        benchmark: "Memory",
        anchor: "memory",
        measure: "peak live heap streaming 1,000,000 rows (`fetch_stream`, pages of 500); collecting them (`fetch_all`)",
        figure: &[
            M("stream_peak_heap_kib"),
            T(" KiB; "),
            M("stream_collect_peak_mib"),
            T(" MiB"),
        ],
        bar: "flat in the partition's size (`tests/paging.rs`)",
    },
    Line {
        benchmark: "Compile time",
        anchor: "compile-time",
        measure: "`cargo check` of 50 derived tables, cassmodel / scylla's derives, user CPU",
        figure: &[M("compile_time_check_ratio"), T("x")],
        bar: "≤ 0.85x",
    },
    Line {
        benchmark: "Compile time",
        anchor: "a-service-that-only-queries",
        measure: "a query-only crate's build (cassmodel-runtime, cassmodel and the crate), without / with the `migrate` feature: wall; user CPU; peak memory (MiB)",
        figure: &[
            M("query_only_build_ratio_wall"),
            T("x; "),
            M("query_only_build_ratio_user"),
            T("x; "),
            M("query_only_build_peak_mib_without"),
            T(" / "),
            M("query_only_build_peak_mib_with"),
        ],
        bar: "none set",
    },
    Line {
        benchmark: "Key-change copy",
        anchor: "key-change-copy",
        measure: "1,000,000 rows, cassmodel / the best hand-written raw copy (rows/s; peak memory); the first copy on a cluster, which creates the copies' record",
        figure: &[
            M("backfill_ratio_vs_best_raw_1m"),
            T("x ("),
            M("backfill_rows_per_s_1m"),
            T(" rows/s; "),
            M("backfill_peak_mib_1m"),
            T(" MiB); first "),
            M("backfill_first_ratio_vs_best_raw_1m"),
            T("x"),
        ],
        bar: "none set",
    },
    Line {
        benchmark: "Key-change copy",
        anchor: "key-change-copy",
        measure: "100,000 rows, cassmodel / the best raw copy (rows/s); the first copy on a cluster; cqlsh `COPY` default, tuned (rows/s)",
        figure: &[
            M("backfill_ratio_vs_best_raw_100k"),
            T("x ("),
            M("backfill_rows_per_s_100k"),
            T("); first "),
            M("backfill_first_ratio_vs_best_raw_100k"),
            T("x; cqlsh "),
            M("backfill_cqlsh_default_rows_per_s_100k"),
            T(", "),
            M("backfill_cqlsh_tuned_rows_per_s_100k"),
        ],
        bar: "none set",
    },
    Line {
        benchmark: "Key-change copy",
        anchor: "key-change-copy",
        measure: "1,000,000 counter rows offline, cassmodel / the best raw copy: defaults; 4 ranges × 4 writes in flight",
        figure: &[
            M("counter_copy_ratio_vs_best_raw_defaults"),
            T("x; "),
            M("counter_copy_ratio_vs_best_raw_4x4"),
            T("x"),
        ],
        bar: "none set",
    },
    Line {
        benchmark: "Instruction counts",
        anchor: "instruction-counts",
        measure: "instructions of the `rustc` that checks the 50 tables, cassmodel / scylla's derives",
        figure: &[M("callgrind_check_ratio")],
        bar: "none (ranks changes)",
    },
    Line {
        benchmark: "Instruction counts",
        anchor: "instruction-counts",
        measure: "instructions per operation at 64 in flight, cassmodel / raw driver: the 6 read phases",
        figure: &[
            M("callgrind_ops_min_ratio_reads_64"),
            T("–"),
            M("callgrind_ops_max_ratio_reads_64"),
        ],
        bar: "none (ranks changes)",
    },
    Line {
        benchmark: "Instruction counts",
        anchor: "instruction-counts",
        measure: "the same, the 3 write phases",
        figure: &[
            M("callgrind_ops_min_ratio_writes_64"),
            T("–"),
            M("callgrind_ops_max_ratio_writes_64"),
        ],
        bar: "none (ranks changes)",
    },
];

/// A line of README.md's table of costs.
struct Cost {
    what: &'static str,
    against: &'static str,
    figure: &'static [Part],
    anchor: &'static str,
}

const COSTS: &[Cost] = &[
    Cost {
        what: "Compile time: `cargo check` of 50 derived tables",
        against: "the scylla driver's own row derives",
        figure: &[M("compile_time_check_ratio"), T("x")],
        anchor: "compile-time",
    },
    Cost {
        what: "Run time, 1 request in flight: client CPU per operation, 9 phases",
        against: "the same statements on the raw scylla driver",
        figure: &[
            M("run_time_min_cell_ratio_1_in_flight"),
            T("–"),
            M("run_time_max_cell_ratio_1_in_flight"),
            T("x"),
        ],
        anchor: "run-time",
    },
    Cost {
        what: "Run time, 64 requests in flight",
        against: "the same statements on the raw scylla driver",
        figure: &[
            M("run_time_min_cell_ratio_64_in_flight"),
            T("–"),
            M("run_time_max_cell_ratio_64_in_flight"),
            T("x"),
        ],
        anchor: "run-time",
    },
    Cost {
        what: "Run time, the 6 phases charybdis has, 1 and 64 in flight",
        against: "charybdis 1.1 (each over the raw driver)",
        figure: &[
            M("run_time_min_ratio_vs_charybdis"),
            T("–"),
            M("run_time_max_ratio_vs_charybdis"),
            T("x"),
        ],
        anchor: "run-time",
    },
    Cost {
        what: "Memory: peak heap streaming 1,000,000 rows",
        against: "collecting the same rows with `fetch_all`",
        figure: &[
            M("stream_peak_heap_kib"),
            T(" KiB ("),
            M("stream_collect_peak_mib"),
            T(" MiB collected)"),
        ],
        anchor: "memory",
    },
    Cost {
        what: "Key-change copy of 1,000,000 rows (`migrate backfill`)",
        against: "the best hand-written copy on the raw driver",
        figure: &[
            M("backfill_ratio_vs_best_raw_1m"),
            T("x ("),
            M("backfill_rows_per_s_1m"),
            T(" rows/s)"),
        ],
        anchor: "key-change-copy",
    },
];

/// The bars the per-phase table marks in bold: above these, a cell misses the bar.
const BAR_VS_RAW: f64 = 1.03;
const BAR_VS_CHARYBDIS: f64 = 1.00;

/// The blocks, rendered from the CSV files (`file name -> text`, e.g. `"summary.csv"`).
pub fn render(csvs: &BTreeMap<String, String>) -> Result<Vec<Block>, String> {
    let parsed = csvs
        .iter()
        .map(|(name, text)| Ok((name.clone(), Csv::parse(name, text)?)))
        .collect::<Result<BTreeMap<_, _>, String>>()?;
    let summary = parsed
        .get("summary.csv")
        .ok_or_else(|| format!("no {RESULTS}/summary.csv"))?;
    let metrics = metrics(summary)?;
    for (name, m) in &metrics {
        let source = parsed.get(&m.source).ok_or_else(|| {
            format!(
                "summary.csv: `{name}` comes from {}, which is not in {RESULTS}",
                m.source
            )
        })?;
        if source
            .rows_where(&[("date", &m.date), ("commit", &m.commit)])?
            .is_empty()
        {
            return Err(format!(
                "summary.csv: `{name}` names the run of {} `{}`, which {} does not hold",
                m.date, m.commit, m.source
            ));
        }
    }
    let qo = parsed
        .get("query_overhead.csv")
        .ok_or_else(|| format!("no {RESULTS}/query_overhead.csv"))?;
    let phases = phase_table(qo, &metrics)?;
    let mut summary_text = String::from(
        "\n| benchmark | measure | today | bar | from the run of |\n|---|---|---|---|---|\n",
    );
    for line in LINES {
        let (figure, run) = render_figure(&metrics, line.figure)?;
        summary_text.push_str(&format!(
            "| [{}](#{}) | {} | {figure} | {} | {run} |\n",
            line.benchmark, line.anchor, line.measure, line.bar
        ));
    }
    summary_text.push('\n');
    summary_text.push_str(&phases);
    summary_text.push('\n');
    let mut costs =
        String::from("\n| what | against | cassmodel | measured |\n|---|---|---|---|\n");
    for c in COSTS {
        let (figure, _) = render_figure(&metrics, c.figure)?;
        let date = &metrics[first_metric(c.figure)].date;
        costs.push_str(&format!(
            "| {} | {} | **{figure}** | {date}, [BENCHMARKS.md](BENCHMARKS.md#{}) |\n",
            c.what, c.against, c.anchor
        ));
    }
    costs.push('\n');
    Ok(vec![
        Block {
            file: "BENCHMARKS.md",
            name: "benchmarks-summary",
            text: summary_text,
        },
        Block {
            file: "README.md",
            name: "readme-costs",
            text: costs,
        },
    ])
}

fn metrics(summary: &Csv) -> Result<BTreeMap<String, Metric>, String> {
    let mut out = BTreeMap::new();
    for row in summary.rows_where(&[])? {
        let metric = row.get("metric")?.to_owned();
        let m = Metric {
            value: row.get("value")?.to_owned(),
            date: row.get("date")?.to_owned(),
            commit: row.get("commit")?.to_owned(),
            machine: row.get("machine")?.to_owned(),
            source: row.get("source")?.to_owned(),
        };
        if m.value.parse::<f64>().is_err() {
            return Err(format!(
                "summary.csv: `{metric}` is `{}`, not a number",
                m.value
            ));
        }
        if out.insert(metric.clone(), m).is_some() {
            return Err(format!("summary.csv: `{metric}` twice"));
        }
    }
    Ok(out)
}

fn first_metric(parts: &[Part]) -> &'static str {
    parts
        .iter()
        .find_map(|p| match p {
            M(m) => Some(*m),
            T(_) => None,
        })
        .unwrap_or("")
}

/// A figure's text, and the run its metrics come from (all the same run).
fn render_figure(
    metrics: &BTreeMap<String, Metric>,
    parts: &[Part],
) -> Result<(String, String), String> {
    let mut text = String::new();
    let mut run: Option<String> = None;
    for part in parts {
        match part {
            T(t) => text.push_str(t),
            M(name) => {
                let m = metrics
                    .get(*name)
                    .ok_or_else(|| format!("summary.csv has no `{name}`"))?;
                text.push_str(&grouped(&m.value));
                let this = m.run();
                match &run {
                    Some(r) if *r != this => {
                        return Err(format!(
                            "summary.csv: `{name}` is of {this}, the figure beside it of {r}: \
                             one line quotes one run"
                        ));
                    }
                    _ => run = Some(this),
                }
            }
        }
    }
    Ok((text, run.unwrap_or_default()))
}

/// `63784` -> `63,784` (whole numbers of four digits or more); anything else as written.
fn grouped(value: &str) -> String {
    if value.len() < 4 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return value.to_owned();
    }
    let mut out = String::new();
    for (i, c) in value.chars().enumerate() {
        if i > 0 && (value.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn number(row: &Row<'_>, col: &str) -> Result<Option<f64>, String> {
    let v = row.get(col)?;
    if v.is_empty() {
        return Ok(None);
    }
    v.parse()
        .map(Some)
        .map_err(|_| format!("query_overhead.csv: `{v}` in `{col}` is not a number"))
}

/// The run-time ratios per phase of the run `summary.csv` names, checked against its lowest and
/// highest figures.
fn phase_table(qo: &Csv, metrics: &BTreeMap<String, Metric>) -> Result<String, String> {
    let named = metrics
        .get("run_time_max_cell_ratio_1_in_flight")
        .ok_or("summary.csv has no `run_time_max_cell_ratio_1_in_flight`")?;
    let rows = qo.rows_where(&[
        ("date", &named.date),
        ("commit", &named.commit),
        ("mode", "real"),
        ("paced", "0"),
    ])?;
    if rows.is_empty() {
        return Err(format!(
            "query_overhead.csv has no run of {} `{}` (mode real)",
            named.date, named.commit
        ));
    }
    check_summary(&rows, metrics, named)?;
    let mut phases: Vec<&str> = Vec::new();
    for r in &rows {
        let p = r.get("phase")?;
        if !phases.contains(&p) {
            phases.push(p);
        }
    }
    let cell = |p: &str, inflight: &str| -> Result<Option<Row<'_>>, String> {
        Ok(rows
            .iter()
            .find(|r| r.get("phase") == Ok(p) && r.get("in_flight") == Ok(inflight))
            .copied())
    };
    let first = rows[0];
    let mut out = format!(
        "Run time per phase: client CPU per operation, cassmodel / raw driver (the median of the \
         paired rounds [its 95% interval]); against charybdis; heap allocations per operation. \
         From the run of {}, {} rounds of {} ms, load average {} at the start and {} at the end. \
         In bold: above the bar.\n\n\
         | phase | 1 in flight | 64 in flight | / charybdis, 1; 64 | allocations, cassmodel / raw, 1; 64 |\n\
         |---|---:|---:|---:|---:|\n",
        named.run(),
        first.get("rounds")?,
        first.get("slice_ms")?,
        first.get("load_start")?,
        first.get("load_end")?,
    );
    for p in phases {
        let (one, many) = (cell(p, "1")?, cell(p, "64")?);
        let mut cols = Vec::new();
        for r in [&one, &many] {
            cols.push(match r {
                Some(r) => ratio(r, "ratio_vs_raw", "ci_low", "ci_high", BAR_VS_RAW)?,
                None => "–".to_owned(),
            });
        }
        let mut charybdis = Vec::new();
        let mut allocs = Vec::new();
        for r in [&one, &many].into_iter().flatten() {
            charybdis.push(ratio(
                r,
                "ratio_vs_charybdis",
                "charybdis_ci_low",
                "charybdis_ci_high",
                BAR_VS_CHARYBDIS,
            )?);
            allocs.push(format!(
                "{} / {}",
                r.get("allocs_cassmodel")?,
                r.get("allocs_raw")?
            ));
        }
        let charybdis = if charybdis.iter().all(|c| c == "–") {
            "–".to_owned()
        } else {
            charybdis.join("; ")
        };
        out.push_str(&format!(
            "| {p} | {} | {} | {charybdis} | {} |\n",
            cols[0],
            cols[1],
            allocs.join("; ")
        ));
    }
    Ok(out)
}

/// A ratio of `r` in column `col` with its interval `lo`–`hi`, in bold above `bar` (`–`: none).
fn ratio(r: &Row<'_>, col: &str, lo: &str, hi: &str, bar: f64) -> Result<String, String> {
    let v = r.get(col)?;
    if v.is_empty() {
        return Ok("–".to_owned());
    }
    let shown = if number(r, col)?.is_some_and(|x| x > bar) {
        format!("**{v}**")
    } else {
        v.to_owned()
    };
    let (lo, hi) = (r.get(lo)?, r.get(hi)?);
    Ok(if lo.is_empty() || hi.is_empty() {
        shown
    } else {
        format!("{shown} [{lo}–{hi}]")
    })
}

/// Whether the summary's lowest and highest ratios, and its count of cells allocating above
/// raw's, are those of the run `rows` of `named` (the run the summary names).
fn check_summary(
    rows: &[Row<'_>],
    metrics: &BTreeMap<String, Metric>,
    named: &Metric,
) -> Result<(), String> {
    let mut checks: Vec<(&str, f64)> = Vec::new();
    for (inflight, min, max) in [
        (
            "1",
            "run_time_min_cell_ratio_1_in_flight",
            "run_time_max_cell_ratio_1_in_flight",
        ),
        (
            "64",
            "run_time_min_cell_ratio_64_in_flight",
            "run_time_max_cell_ratio_64_in_flight",
        ),
    ] {
        let mut ratios = Vec::new();
        for r in rows.iter().filter(|r| r.get("in_flight") == Ok(inflight)) {
            ratios.extend(number(r, "ratio_vs_raw")?);
        }
        let (lowest, highest) = min_max(&ratios);
        checks.extend([(min, lowest), (max, highest)]);
    }
    let mut to_charybdis = Vec::new();
    let mut above = 0.0;
    for r in rows {
        to_charybdis.extend(number(r, "ratio_vs_charybdis")?);
        if let (Some(c), Some(raw)) = (number(r, "allocs_cassmodel")?, number(r, "allocs_raw")?)
            && c > raw
        {
            above += 1.0;
        }
    }
    let (lowest, highest) = min_max(&to_charybdis);
    checks.extend([
        ("run_time_min_ratio_vs_charybdis", lowest),
        ("run_time_max_ratio_vs_charybdis", highest),
        ("allocs_cells_above_raw", above),
    ]);
    for (name, computed) in checks {
        let m = metrics
            .get(name)
            .ok_or_else(|| format!("summary.csv has no `{name}`"))?;
        if (m.date.as_str(), m.commit.as_str()) != (named.date.as_str(), named.commit.as_str()) {
            return Err(format!(
                "summary.csv: `{name}` is of the run of {} `{}`, the other run-time figures of {} `{}`",
                m.date, m.commit, named.date, named.commit
            ));
        }
        if m.value.parse::<f64>().ok() != Some(computed) {
            return Err(format!(
                "summary.csv: `{name}` is {}, but the run of {} `{}` in query_overhead.csv gives {computed}",
                m.value, named.date, named.commit
            ));
        }
    }
    Ok(())
}

/// The lowest and the highest of `xs` (infinities when it is empty).
fn min_max(xs: &[f64]) -> (f64, f64) {
    xs.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

/// `doc` with the text between `block`'s markers replaced by its text.
pub fn replace(doc: &str, file: &str, block: &Block) -> Result<String, String> {
    let (start, end) = span(doc, file, block.name)?;
    Ok(format!("{}{}{}", &doc[..start], block.text, &doc[end..]))
}

/// Where the text between the markers of `name` is in `doc`.
fn span(doc: &str, file: &str, name: &str) -> Result<(usize, usize), String> {
    let (begin, end) = (begin_marker(name), end_marker(name));
    let missing = || {
        format!(
            "{file} lacks the block {begin} ... {end}: put the two markers where the block \
             goes, then run `cargo xtask figures`"
        )
    };
    let b = doc.find(&begin).ok_or_else(missing)?;
    let start = b + begin.len();
    let e = doc[start..].find(&end).ok_or_else(missing)? + start;
    if doc[e + end.len()..].contains(&begin) || doc[start..e].contains(&begin) {
        return Err(format!("{file} has the block {begin} more than once"));
    }
    // The block's text starts on the line after the begin marker.
    let start = if doc[start..].starts_with('\n') {
        start + 1
    } else {
        start
    };
    Ok((start, e))
}

/// `Ok` when `doc`'s block is `block`'s text; else what differs, line by line, and how to mend.
pub fn compare(doc: &str, file: &str, block: &Block) -> Result<(), String> {
    let (start, end) = span(doc, file, block.name)?;
    let old = &doc[start..end];
    if old == block.text {
        return Ok(());
    }
    let (old, new): (Vec<&str>, Vec<&str>) = (old.lines().collect(), block.text.lines().collect());
    let mut msg = format!(
        "{file}: the block {} is not what {RESULTS}/*.csv renders (- in {file}, + rendered):\n",
        begin_marker(block.name)
    );
    for i in 0..old.len().max(new.len()) {
        match (old.get(i), new.get(i)) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => {
                if let Some(a) = a {
                    msg.push_str(&format!("-{a}\n"));
                }
                if let Some(b) = b {
                    msg.push_str(&format!("+{b}\n"));
                }
            }
        }
    }
    msg.push_str("run `cargo xtask figures` to write it from the CSV files");
    Err(msg)
}

/// Every `*.csv` of `benches/results` under `root`, by file name.
pub fn read_results(root: &Path) -> Result<BTreeMap<String, String>, String> {
    let dir = root.join(RESULTS);
    let mut out = BTreeMap::new();
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.extension().is_some_and(|x| x == "csv") {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            out.insert(name, text);
        }
    }
    Ok(out)
}

/// Checks (or writes) the block `name` in the file at `path` (shown as `label`), rendered from
/// the results under `root`.
pub fn check_file(
    root: &Path,
    name: &str,
    path: &Path,
    label: &str,
    write: bool,
) -> Result<(), String> {
    let blocks = render(&read_results(root)?)?;
    let block = blocks
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| format!("no block named {name}"))?;
    let doc = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if write {
        let new = replace(&doc, label, block)?;
        if new != doc {
            std::fs::write(path, new).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("wrote the block {name} of {label}");
        }
        Ok(())
    } else {
        compare(&doc, label, block)
    }
}

const USAGE: &str = "usage: cargo xtask figures [--check] [--readme FILE] [--benchmarks FILE]\n\n\
    writes the blocks between <!-- figures:begin NAME --> and <!-- figures:end NAME --> of\n\
    BENCHMARKS.md (benchmarks-summary) and README.md (readme-costs) from benches/results/*.csv;\n\
    --check: writes nothing, fails if a block differs or a file lacks its markers";

pub fn main(args: &[String]) -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut write = true;
    let mut files = BTreeMap::from([
        ("benchmarks-summary", root.join("BENCHMARKS.md")),
        ("readme-costs", root.join("README.md")),
    ]);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let name = match a.as_str() {
            "--check" => {
                write = false;
                continue;
            }
            "--readme" => "readme-costs",
            "--benchmarks" => "benchmarks-summary",
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        };
        let Some(path) = it.next() else {
            eprintln!("{a} needs a file\n{USAGE}");
            return ExitCode::from(2);
        };
        files.insert(name, PathBuf::from(path));
    }
    let mut ok = true;
    for (name, path) in &files {
        let label = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        match check_file(&root, name, path, &label, write) {
            Ok(()) if !write => eprintln!("{label}: the block {name} is as the results render it"),
            Ok(()) => {}
            Err(e) => {
                eprintln!("{e}");
                ok = false;
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMMARY: &str = "metric,value,unit,date,commit,machine,source
compile_time_check_ratio,0.83,x,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",compile_time.csv
query_only_build_ratio_wall,0.74,x,2026-12-05,ddd0006,,without_migrate.csv
query_only_build_ratio_user,0.73,x,2026-12-05,ddd0006,,without_migrate.csv
query_only_build_peak_mib_without,536,MiB,2026-12-05,ddd0006,,without_migrate.csv
query_only_build_peak_mib_with,743,MiB,2026-12-05,ddd0006,,without_migrate.csv
run_time_min_cell_ratio_1_in_flight,0.934,x,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",query_overhead.csv
run_time_max_cell_ratio_1_in_flight,1.023,x,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",query_overhead.csv
run_time_min_cell_ratio_64_in_flight,0.948,x,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",query_overhead.csv
run_time_max_cell_ratio_64_in_flight,1.026,x,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",query_overhead.csv
run_time_min_ratio_vs_charybdis,0.867,x,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",query_overhead.csv
run_time_max_ratio_vs_charybdis,0.987,x,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",query_overhead.csv
allocs_cells_above_raw,0,cells,2026-12-03,abc1234,\"AMD EPYC, 2 cores\",query_overhead.csv
stream_peak_heap_kib,352,KiB,2026-11-26,def5678,,stream_memory.csv
stream_collect_peak_mib,126.7,MiB,2026-11-26,def5678,,stream_memory.csv
backfill_ratio_vs_best_raw_1m,1.01,x,2026-12-02,eee0001,,backfill.csv
backfill_rows_per_s_1m,63784,rows/s,2026-12-02,eee0001,,backfill.csv
backfill_peak_mib_1m,20.6,MiB,2026-12-02,eee0001,,backfill.csv
backfill_first_ratio_vs_best_raw_1m,0.95,x,2026-12-02,eee0001,,backfill.csv
backfill_ratio_vs_best_raw_100k,0.83,x,2026-12-02,eee0001,,backfill.csv
backfill_first_ratio_vs_best_raw_100k,0.70,x,2026-12-02,eee0001,,backfill.csv
backfill_rows_per_s_100k,46382,rows/s,2026-12-02,eee0001,,backfill.csv
backfill_cqlsh_default_rows_per_s_100k,4664,rows/s,2026-12-02,eee0001,,backfill.csv
backfill_cqlsh_tuned_rows_per_s_100k,6539,rows/s,2026-12-02,eee0001,,backfill.csv
counter_copy_ratio_vs_best_raw_defaults,0.83,x,2026-11-26,fff0002,,backfill.csv
counter_copy_ratio_vs_best_raw_4x4,0.90,x,2026-11-26,fff0002,,backfill.csv
callgrind_check_ratio,0.626,x,2026-12-01,ccc0003,,callgrind_check.csv
callgrind_ops_min_ratio_reads_64,0.724,x,2026-12-01,ccc0004,,callgrind_ops.csv
callgrind_ops_max_ratio_reads_64,0.962,x,2026-12-01,ccc0004,,callgrind_ops.csv
callgrind_ops_min_ratio_writes_64,0.959,x,2026-12-01,ccc0005,,callgrind_ops.csv
callgrind_ops_max_ratio_writes_64,0.989,x,2026-12-01,ccc0005,,callgrind_ops.csv
";

    const QO: &str = "date,commit,machine,rounds,slice_ms,load_start,load_end,mode,only,peer,phase,in_flight,paced,paced_per_s,ratio_vs_raw,ci_low,ci_high,ratio_vs_charybdis,charybdis_ci_low,charybdis_ci_high,allocs_cassmodel,allocs_raw
2026-12-03,abc1234,\"AMD EPYC, 2 cores\",96,300,1.52,9.40,real,,1,insert,1,0,,1.023,0.978,1.060,0.987,,,13.0,16.7
2026-12-03,abc1234,\"AMD EPYC, 2 cores\",96,300,1.52,9.40,real,,1,insert,64,0,,0.948,0.905,0.987,0.867,,,14.0,17.7
2026-12-03,abc1234,\"AMD EPYC, 2 cores\",96,300,1.52,9.40,real,,1,\"entity, two tables\",1,0,,0.934,,,,,,10,13
2026-12-03,abc1234,\"AMD EPYC, 2 cores\",96,300,1.52,9.40,real,,1,\"entity, two tables\",64,0,,1.026,0.988,1.056,,,,11,14
2026-12-01,old0000,\"AMD EPYC, 2 cores\",36,300,1,2,real,,1,insert,1,0,,1.5,,,,,,20,16.7
";

    fn inputs() -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        m.insert("summary.csv".to_owned(), SUMMARY.to_owned());
        m.insert("query_overhead.csv".to_owned(), QO.to_owned());
        m.insert(
            "compile_time.csv".to_owned(),
            "date,commit\n2026-12-03,abc1234\n".to_owned(),
        );
        m.insert(
            "stream_memory.csv".to_owned(),
            "date,commit\n2026-11-26,def5678\n".to_owned(),
        );
        m.insert(
            "backfill.csv".to_owned(),
            "date,commit\n2026-11-26,fff0002\n2026-12-02,eee0001\n".to_owned(),
        );
        m.insert(
            "without_migrate.csv".to_owned(),
            "date,commit\n2026-12-05,ddd0006\n".to_owned(),
        );
        m.insert(
            "callgrind_check.csv".to_owned(),
            "date,commit\n2026-12-01,ccc0003\n".to_owned(),
        );
        m.insert(
            "callgrind_ops.csv".to_owned(),
            "date,commit\n2026-12-01,ccc0004\n2026-12-01,ccc0005\n".to_owned(),
        );
        m
    }

    #[test]
    fn csv_fields_with_quotes_and_commas() {
        let c = Csv::parse("t", "a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\n").expect("parses");
        let rows = c.rows_where(&[]).expect("rows");
        assert_eq!(rows[0].get("a"), Ok("x, y"));
        assert_eq!(rows[0].get("b"), Ok("say \"hi\""));
        assert_eq!(rows[0].get("c"), Ok(""));
        assert!(Csv::parse("t", "a,b\n1\n").is_err());
        assert!(Csv::parse("t", "a\n\"open\n").is_err());
    }

    #[test]
    fn thousands_are_grouped_and_nothing_else_changes() {
        assert_eq!(grouped("63784"), "63,784");
        assert_eq!(grouped("1000000"), "1,000,000");
        assert_eq!(grouped("4664"), "4,664");
        assert_eq!(grouped("352"), "352");
        assert_eq!(grouped("0.830"), "0.830");
    }

    #[test]
    fn renders_both_blocks_from_the_results() {
        let blocks = render(&inputs()).expect("renders");
        let readme = &blocks[1];
        assert_eq!((readme.file, readme.name), ("README.md", "readme-costs"));
        assert!(
            readme.text.contains(
                "| Compile time: `cargo check` of 50 derived tables | the scylla driver's own row \
                 derives | **0.83x** | 2026-12-03, [BENCHMARKS.md](BENCHMARKS.md#compile-time) |"
            ),
            "{}",
            readme.text
        );
        assert!(readme.text.contains("**1.01x (63,784 rows/s)**"));
        assert!(readme.text.contains("**0.934–1.023x**"));
        let bench = &blocks[0];
        assert!(bench.text.contains(
            "| [Compile time](#compile-time) | `cargo check` of 50 derived tables, cassmodel / \
             scylla's derives, user CPU | 0.83x | ≤ 0.85x | 2026-12-03, `abc1234`, AMD EPYC, 2 cores |"
        ));
        assert!(bench.text.contains("| 352 KiB; 126.7 MiB |"));
        assert!(bench.text.contains("machine not recorded"));
        // The per-phase table: intervals in brackets, the cell above the bar in bold, a phase
        // charybdis lacks shown as a dash.
        assert!(
            bench.text.contains(
                "| insert | 1.023 [0.978–1.060] | 0.948 [0.905–0.987] | 0.987; 0.867 | 13.0 / 16.7; 14.0 / 17.7 |"
            ),
            "{}",
            bench.text
        );
        assert!(bench.text.contains(
            "| entity, two tables | 0.934 | 1.026 [0.988–1.056] | – | 10 / 13; 11 / 14 |"
        ));
        assert!(bench.text.contains("96 rounds of 300 ms"));
    }

    #[test]
    fn a_summary_that_disagrees_with_its_run_is_refused() {
        let mut m = inputs();
        let s = m["summary.csv"].replace(
            "run_time_max_cell_ratio_64_in_flight,1.026",
            "run_time_max_cell_ratio_64_in_flight,1.020",
        );
        m.insert("summary.csv".to_owned(), s);
        let e = render(&m).expect_err("1.020 is not the run's highest");
        assert!(
            e.contains("run_time_max_cell_ratio_64_in_flight` is 1.020"),
            "{e}"
        );
        let mut m = inputs();
        let s = m["summary.csv"].replace("def5678", "0000000");
        m.insert("summary.csv".to_owned(), s);
        let e = render(&m).expect_err("a run stream_memory.csv lacks");
        assert!(e.contains("stream_memory.csv does not hold"), "{e}");
    }

    #[test]
    fn blocks_are_replaced_between_their_markers_and_compared() {
        let block = Block {
            file: "README.md",
            name: "readme-costs",
            text: "\n| a |\n|---|\n| 1 |\n\n".to_owned(),
        };
        let doc = "# T\n\n<!-- figures:begin readme-costs -->\nold\n<!-- figures:end readme-costs -->\n\nrest\n";
        let new = replace(doc, "README.md", &block).expect("markers");
        assert_eq!(
            new,
            "# T\n\n<!-- figures:begin readme-costs -->\n\n| a |\n|---|\n| 1 |\n\n<!-- figures:end readme-costs -->\n\nrest\n"
        );
        assert_eq!(compare(&new, "README.md", &block), Ok(()));
        let e = compare(doc, "README.md", &block).expect_err("old text");
        assert!(e.contains("-old\n"), "{e}");
        assert!(e.contains("+| a |\n"), "{e}");
        assert!(e.contains("run `cargo xtask figures`"), "{e}");
        let e = compare("# T\n", "README.md", &block).expect_err("no markers");
        assert!(
            e.starts_with("README.md lacks the block <!-- figures:begin readme-costs -->"),
            "{e}"
        );
        assert!(e.contains("run `cargo xtask figures`"), "{e}");
    }
}
