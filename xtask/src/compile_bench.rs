//! `cargo xtask compile-bench`: what `#[derive(CassTable)]` costs a user's build, against the
//! scylla driver's own row derives, on the same seeded tables.
//!
//! It writes two throw-away crates under `target/compile-bench/` (each its own workspace),
//! with the same 50 tables: one with `#[derive(scylla::SerializeRow, scylla::DeserializeRow)]`,
//! one with `#[derive(cassmodel::CassTable)]` and one `T::select()` per table. Then it times,
//! the two sides interleaved (A B, then B A, ...):
//!
//! - `check`: `cargo check` of the final crate with `CARGO_INCREMENTAL=0`, after touching
//!   `src/main.rs` (dependencies already built);
//! - `build`: the same with `cargo build`;
//! - `edit`: one field of one table changes type, then `cargo build` with incremental
//!   compilation on (the default of the dev profile), in a target directory of its own;
//! - `clean`: `cargo build` of the crate and all its dependencies from an empty target
//!   directory, `CARGO_INCREMENTAL=0` (as dependencies from crates.io build);
//! - `expand`: lines of `rustc -Zunpretty=expanded` output per table, with and without the
//!   derives (`RUSTC_BOOTSTRAP=1`, in a target directory of its own).
//!
//! Each run's user and system CPU seconds cover the whole process tree (cargo, rustc, build
//! scripts, proc macros). The report gives medians and the ratio cassmodel/scylla, and the load
//! average before and after, since the machine may be shared; it is printed, written to
//! `target/compile-bench/results.md`, and appended to `benches/results/compile_time.csv` (one
//! row per measurement, with the date, commit and machine).

mod measure;
mod tables;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use measure::{Cost, loadavg, median};
use tables::Side;

use crate::results::{RunInfo, append_csv, load_1min};

const USAGE: &str = "usage: cargo xtask compile-bench [--runs N] [--clean-runs N] [--tables N] \
    [--seed N] [--only check,build,edit,clean,expand] [--reads]\n\n\
    defaults: 3 runs of check, build and edit; 3 clean builds; 50 tables; seed 2026\n\
    --reads: each crate also reads every table (one partition, all rows, spawned on tokio), \
    in target/compile-bench-reads/";

struct Options {
    runs: usize,
    clean_runs: usize,
    tables: usize,
    seed: u64,
    only: Vec<String>,
    /// Each crate also awaits a read of every table (`src/reads.rs`).
    reads: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Options {
            runs: 3,
            clean_runs: 3,
            tables: 50,
            seed: 2026,
            only: ["check", "build", "edit", "clean", "expand"]
                .map(String::from)
                .to_vec(),
            reads: false,
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let mut value = || {
                it.next()
                    .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
            };
            let number = |v: &String| {
                v.parse::<u64>()
                    .map_err(|_| format!("{flag} takes a whole number, not `{v}`\n{USAGE}"))
            };
            match flag.as_str() {
                "--runs" => o.runs = number(value()?)? as usize,
                "--clean-runs" => o.clean_runs = number(value()?)? as usize,
                "--tables" => o.tables = number(value()?)?.max(1) as usize,
                "--seed" => o.seed = number(value()?)?,
                "--only" => o.only = value()?.split(',').map(str::to_owned).collect(),
                "--reads" => o.reads = true,
                _ => return Err(format!("unknown option `{flag}`\n{USAGE}")),
            }
        }
        Ok(o)
    }

    fn wants(&self, what: &str) -> bool {
        self.only.iter().any(|o| o == what)
    }
}

/// One side's crate on disk.
struct Crate {
    side: Side,
    dir: PathBuf,
    log: PathBuf,
    tables: Vec<tables::Table>,
    edited: bool,
}

impl Crate {
    fn new(root: &Path, workspace: &Path, side: Side, opts: &Options) -> Result<Self, String> {
        let dir = root.join(side.name());
        std::fs::create_dir_all(dir.join("src")).map_err(|e| format!("{}: {e}", dir.display()))?;
        let tables = tables::generate(opts.tables, opts.seed);
        write_if_changed(
            &dir.join("Cargo.toml"),
            &tables::cargo_toml(side, workspace, opts.reads),
        )?;
        write_if_changed(
            &dir.join("src/main.rs"),
            &tables::main_rs(side, &tables, opts.reads),
        )?;
        if opts.reads {
            write_if_changed(&dir.join("src/reads.rs"), &tables::reads_rs(side, &tables))?;
        }
        write_if_changed(
            &dir.join("src/tables.rs"),
            &tables::tables_rs(side, &tables, false),
        )?;
        // The workspace's resolved versions, so both sides build the same scylla, tokio, ...
        let lock = dir.join("Cargo.lock");
        if !lock.exists() {
            std::fs::copy(workspace.join("Cargo.lock"), &lock)
                .map_err(|e| format!("cannot copy Cargo.lock: {e}"))?;
        }
        let log = root.join(format!("{}.log", side.name()));
        Ok(Crate {
            side,
            dir,
            log,
            tables,
            edited: false,
        })
    }

    fn cargo(&self, args: &[&str], target: &str, incremental: bool) -> Command {
        let mut c = crate::cargo::cargo();
        c.args(args)
            .env("CARGO_TARGET_DIR", self.dir.join(target))
            .env("CARGO_INCREMENTAL", if incremental { "1" } else { "0" });
        c
    }

    fn run(&self, mut cmd: Command) -> Result<Cost, String> {
        measure::run(&mut cmd, &self.dir, &self.log)
    }

    fn touch_main(&self) -> Result<(), String> {
        let path = self.dir.join("src/main.rs");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()))
            .map_err(|e| format!("cannot touch {}: {e}", path.display()))
    }

    fn set_edited(&mut self, edited: bool) -> Result<(), String> {
        self.edited = edited;
        write_if_changed(
            &self.dir.join("src/tables.rs"),
            &tables::tables_rs(self.side, &self.tables, edited),
        )
    }

    /// One measurement of `what`.
    fn measure(&mut self, what: &str) -> Result<Cost, String> {
        match what {
            "check" | "build" => {
                self.touch_main()?;
                self.run(self.cargo(&[what], "target", false))
            }
            "edit" => {
                self.set_edited(!self.edited)?;
                self.run(self.cargo(&["build"], "target-incr", true))
            }
            "clean" => {
                let target = self.dir.join("target-clean");
                if target.exists() {
                    std::fs::remove_dir_all(&target)
                        .map_err(|e| format!("cannot remove {}: {e}", target.display()))?;
                }
                self.run(self.cargo(&["build"], "target-clean", false))
            }
            _ => Err(format!("unknown measurement {what}")),
        }
    }

    /// Builds what the measurements start from, unmeasured.
    fn warm(&mut self, opts: &Options) -> Result<(), String> {
        eprintln!("  {}: building dependencies", self.side.name());
        if opts.wants("check") {
            self.run(self.cargo(&["check"], "target", false))?;
        }
        if opts.wants("build") {
            self.run(self.cargo(&["build"], "target", false))?;
        }
        if opts.wants("edit") {
            self.run(self.cargo(&["build"], "target-incr", true))?;
        }
        Ok(())
    }

    /// Lines of the expanded crate, with the derives (`full`) or without (`--cfg plain`).
    fn expanded_lines(&self, plain: bool) -> Result<usize, String> {
        let out = self.dir.join(if plain {
            "expanded-plain.rs"
        } else {
            "expanded.rs"
        });
        let mut cmd = self.cargo(
            &["rustc", "--profile", "check", "--"],
            "target-expand",
            false,
        );
        cmd.args(["-Zunpretty=expanded", "-o"]).arg(&out);
        if plain {
            cmd.args(["--cfg", "plain"]);
        }
        cmd.env("RUSTC_BOOTSTRAP", "1");
        self.run(cmd)?;
        let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        Ok(text.lines().count())
    }
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Every run of each measurement, per side.
#[derive(Default)]
struct Results {
    rows: Vec<(String, Vec<Cost>, Vec<Cost>)>,
}

impl Results {
    fn push(&mut self, what: &str, side: Side, cost: Cost) {
        let i = match self.rows.iter().position(|r| r.0 == what) {
            Some(i) => i,
            None => {
                self.rows.push((what.to_owned(), Vec::new(), Vec::new()));
                self.rows.len() - 1
            }
        };
        let row = &mut self.rows[i];
        match side {
            Side::Scylla => row.1.push(cost),
            Side::Cassmodel => row.2.push(cost),
        }
    }
}

/// Runs `what` `n` times on both sides, alternating which goes first.
fn interleave(
    crates: &mut [Crate; 2],
    what: &str,
    n: usize,
    results: &mut Results,
) -> Result<(), String> {
    for run in 0..n {
        let order: [usize; 2] = if run % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let c = &mut crates[i];
            let cost = c.measure(what)?;
            eprintln!(
                "  {what} #{} {:<9} user {:7.2} s  sys {:6.2} s  wall {:7.2} s  load {}",
                run + 1,
                c.side.name(),
                cost.user,
                cost.sys,
                cost.wall,
                loadavg()
            );
            results.push(what, c.side, cost);
        }
    }
    Ok(())
}

fn describe_machine() -> String {
    let rustc = Command::new("rustc")
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    format!("{}; {}", crate::results::machine(), rustc.trim())
}

/// One measurement's figures over its runs.
struct Figures {
    runs: usize,
    scylla_user: f64,
    cassmodel_user: f64,
    ratio: f64,
    paired: f64,
    paired_min: f64,
    paired_max: f64,
    scylla_wall: f64,
    cassmodel_wall: f64,
}

impl Figures {
    fn of(a: &[Cost], b: &[Cost]) -> Figures {
        let user = |v: &[Cost]| median(&v.iter().map(|c| c.user).collect::<Vec<_>>());
        let wall = |v: &[Cost]| median(&v.iter().map(|c| c.wall).collect::<Vec<_>>());
        let paired: Vec<f64> = a.iter().zip(b).map(|(x, y)| y.user / x.user).collect();
        let (lo, hi) = paired
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &r| {
                (l.min(r), h.max(r))
            });
        Figures {
            runs: a.len().min(b.len()),
            scylla_user: user(a),
            cassmodel_user: user(b),
            ratio: user(b) / user(a),
            paired: median(&paired),
            paired_min: lo,
            paired_max: hi,
            scylla_wall: wall(a),
            cassmodel_wall: wall(b),
        }
    }
}

/// Expanded lines per table with the derives minus without: (scylla, cassmodel).
fn lines_per_table(expand: [(usize, usize); 2], n: usize) -> (f64, f64) {
    let per = |(full, plain): (usize, usize)| full.saturating_sub(plain) as f64 / n as f64;
    (per(expand[0]), per(expand[1]))
}

fn report(results: &Results, expand: Option<[(usize, usize); 2]>, n: usize) -> String {
    let mut out = String::from(
        "| measure | runs | scylla user s | cassmodel user s | ratio (user) | paired ratios (min-max) | scylla wall s | cassmodel wall s |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (what, a, b) in &results.rows {
        let f = Figures::of(a, b);
        out.push_str(&format!(
            "| {what} | {} | {:.2} | {:.2} | **{:.2}x** | {:.2}x ({:.2}-{:.2}) | {:.2} | {:.2} |\n",
            f.runs,
            f.scylla_user,
            f.cassmodel_user,
            f.ratio,
            f.paired,
            f.paired_min,
            f.paired_max,
            f.scylla_wall,
            f.cassmodel_wall,
        ));
    }
    if let Some(expand) = expand {
        let (scylla, cassmodel) = lines_per_table(expand, n);
        out.push_str(&format!(
            "\nExpanded lines per table (`-Zunpretty=expanded`, with the derives minus without): \
             scylla {scylla:.0}, cassmodel {cassmodel:.0}, difference {:+.0}.\n",
            cassmodel - scylla
        ));
    }
    out
}

/// The columns of `benches/results/compile_time.csv`.
const CSV_HEADER: [&str; 20] = [
    "date",
    "commit",
    "machine",
    "tables",
    "seed",
    "runs",
    "measure",
    "scylla",
    "cassmodel",
    "unit",
    "ratio",
    "paired_median",
    "paired_min",
    "paired_max",
    "scylla_wall_s",
    "cassmodel_wall_s",
    "load_start",
    "load_end",
    "reads",
    "notes",
];

/// This run's rows of `compile_time.csv`: one per measurement, and one for the expansion.
fn csv_rows(
    info: &RunInfo,
    opts: &Options,
    results: &Results,
    expand: Option<[(usize, usize); 2]>,
    load_end: &str,
) -> Vec<Vec<String>> {
    let row = |runs: String, measure: &str, values: [String; 9], notes: String| {
        let [scylla, cassmodel, unit, ratio, pm, pmin, pmax, sw, cw] = values;
        vec![
            info.date.clone(),
            info.commit.clone(),
            info.machine.clone(),
            opts.tables.to_string(),
            opts.seed.to_string(),
            runs,
            measure.to_owned(),
            scylla,
            cassmodel,
            unit,
            ratio,
            pm,
            pmin,
            pmax,
            sw,
            cw,
            info.load_start.clone(),
            load_end.to_owned(),
            u8::from(opts.reads).to_string(),
            notes,
        ]
    };
    let mut out = Vec::new();
    for (what, a, b) in &results.rows {
        let f = Figures::of(a, b);
        let two = |x: f64| format!("{x:.2}");
        out.push(row(
            f.runs.to_string(),
            what,
            [
                two(f.scylla_user),
                two(f.cassmodel_user),
                "user s".to_owned(),
                two(f.ratio),
                two(f.paired),
                two(f.paired_min),
                two(f.paired_max),
                two(f.scylla_wall),
                two(f.cassmodel_wall),
            ],
            String::new(),
        ));
    }
    if let Some(expand) = expand {
        let (scylla, cassmodel) = lines_per_table(expand, opts.tables);
        let mut values: [String; 9] = Default::default();
        values[0] = format!("{scylla:.0}");
        values[1] = format!("{cassmodel:.0}");
        values[2] = "lines/table".to_owned();
        out.push(row(
            String::new(),
            "expand",
            values,
            format!("difference {:+.0}", cassmodel - scylla),
        ));
    }
    out
}

pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("compile-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let opts = Options::parse(args)?;
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace directory")?
        .to_path_buf();
    let root = workspace.join(if opts.reads {
        "target/compile-bench-reads"
    } else {
        "target/compile-bench"
    });
    let mut crates = [
        Crate::new(&root, &workspace, Side::Scylla, &opts)?,
        Crate::new(&root, &workspace, Side::Cassmodel, &opts)?,
    ];
    let info = RunInfo::start(&workspace);
    let load_start = loadavg();
    eprintln!(
        "compile-bench: {} tables (seed {}) in {}; logs in {}/<side>.log; load {load_start}",
        opts.tables,
        opts.seed,
        root.display(),
        root.display()
    );
    for c in &mut crates {
        c.warm(&opts)?;
    }
    let mut results = Results::default();
    for what in ["check", "build", "edit"] {
        if opts.wants(what) {
            interleave(&mut crates, what, opts.runs, &mut results)?;
        }
    }
    for c in &mut crates {
        c.set_edited(false)?;
    }
    if opts.wants("clean") && opts.clean_runs > 0 {
        interleave(&mut crates, "clean", opts.clean_runs, &mut results)?;
    }
    let expand = if opts.wants("expand") {
        let mut lines = [(0, 0); 2];
        for (i, c) in crates.iter().enumerate() {
            lines[i] = (c.expanded_lines(false)?, c.expanded_lines(true)?);
        }
        Some(lines)
    } else {
        None
    };
    let text = format!(
        "Machine: {}. Load average (1/5/15 min) at the start {load_start}, at the end {}.\n\
         {} tables, seed {}{}; user CPU seconds of the whole cargo process tree, median of the runs.\n\n{}",
        describe_machine(),
        loadavg(),
        opts.tables,
        opts.seed,
        if opts.reads {
            ", each table also read (--reads)"
        } else {
            ""
        },
        report(&results, expand, opts.tables)
    );
    println!("{text}");
    let file = root.join("results.md");
    std::fs::write(&file, &text).map_err(|e| format!("{}: {e}", file.display()))?;
    eprintln!("written to {}", file.display());
    let csv = workspace.join("benches/results/compile_time.csv");
    let rows = csv_rows(&info, &opts, &results, expand, &load_1min());
    append_csv(&csv, &CSV_HEADER, &rows).map_err(|e| format!("{}: {e}", csv.display()))?;
    eprintln!("{} rows appended to {}", rows.len(), csv.display());
    Ok(())
}
