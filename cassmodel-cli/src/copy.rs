//! The commands of a key change (`backfill`, `verify`, `status`, `drop-source`,
//! `forget-copy`): the copy of each table that declares where its rows come from
//! (`#[cass(from = ..)]`), run on the copiers of the models linked into the binary.

use std::future::Future;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cassmodel_runtime::Db;
use cassmodel_runtime::migrate::MigrationError;
use cassmodel_runtime::migrate::Models;
use cassmodel_runtime::migrate::copy::{
    self, Copier, CopyOptions, CopyProgress, VerifyOptions, registered_copiers,
};
use clap::Args;

use crate::exit::Exit;
use crate::progress::{PLAIN_EVERY, Shown};

/// What `backfill` takes.
#[derive(Debug, Args)]
pub(crate) struct BackfillArgs {
    /// Copy only into this table (`keyspace.table` or `table`) [default: every table that
    /// declares `#[cass(from = ..)]`].
    #[arg(long)]
    table: Option<String>,
    /// Token ranges the ring is cut into: the unit of work, progress and resuming (set by the
    /// first process that starts a copy) [default: sized from the source's size estimates,
    /// about 2 MiB each, 32 to 256; a process joining a copy takes its number].
    #[arg(long)]
    ranges: Option<u32>,
    /// Ranges this process copies at once.
    #[arg(long, default_value_t = 8)]
    ranges_in_flight: usize,
    /// Writes (rows, or batches of one target partition's rows) in flight per range.
    #[arg(long, default_value_t = 16)]
    writes_in_flight: usize,
    /// At most this many rows per second (this process).
    #[arg(long)]
    rows_per_second: Option<u32>,
    /// Seconds a claimed range stays this process's without a renewal. Leases are renewed
    /// every second: the ranges of a process silent for 5 s are taken over by another at once
    /// (a copy of counters waits for the lease to lapse).
    #[arg(long, default_value_t = 30)]
    lease_seconds: u64,
    /// No progress bar or progress lines (on stderr: a bar on a terminal, else a line at the
    /// start, when the copy starts or stops waiting for other processes, and every 10 s).
    #[arg(long)]
    quiet: bool,
}

/// What `forget-copy` takes.
#[derive(Debug, Args)]
pub(crate) struct ForgetArgs {
    /// The new table of the copy to forget, `keyspace.table`, whatever became of its tables.
    #[arg(required_unless_present = "dropped")]
    target: Option<String>,
    /// Forget every copy whose new table no longer exists (dropped, or its keyspace).
    #[arg(long, conflicts_with = "target")]
    dropped: bool,
}

/// What `verify` takes.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// Verify only this table (`keyspace.table` or `table`).
    #[arg(long)]
    table: Option<String>,
    /// Check only this fraction of the token ranges (e.g. 0.05), for very large tables; a
    /// sampled verify does not count as the verify `drop-source` asks for.
    #[arg(long, value_parser = parse_fraction)]
    sample: Option<f64>,
    /// Token ranges each table is read in.
    #[arg(long, default_value_t = 256)]
    ranges: u32,
}

pub(crate) fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        _ => Err(format!("`{s}`: expected a fraction in (0, 1], e.g. 0.05")),
    }
}

/// The copiers of `models` (the tables with a source), only `table` if given.
fn copiers(
    models: &Models,
    table: Option<&str>,
    db: &Db,
) -> Result<Vec<&'static dyn Copier>, MigrationError> {
    let all: Vec<&'static dyn Copier> = registered_copiers()
        .into_iter()
        .filter(|c| models.tables().iter().any(|t| std::ptr::eq(*t, c.target())))
        .collect();
    let name = |c: &dyn Copier| {
        let t = c.target();
        let ks = t.keyspace.or(db.keyspace()).unwrap_or("?");
        format!("{ks}.{}", t.name)
    };
    let Some(wanted) = table else {
        if all.is_empty() {
            return Err(MigrationError::CopyRefused(
                "no model declares where its rows come from: add #[cass(from = \"old_table\")] \
                 to the struct of the new table"
                    .into(),
            ));
        }
        return Ok(all);
    };
    let chosen: Vec<_> = all
        .iter()
        .copied()
        .filter(|c| name(*c) == wanted || c.target().name == wanted)
        .collect();
    if chosen.is_empty() {
        let known: Vec<String> = all.iter().map(|c| name(*c)).collect();
        return Err(MigrationError::CopyRefused(format!(
            "no model copies into `{wanted}`; the tables with a source are: {}",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        )));
    }
    Ok(chosen)
}

pub(crate) async fn backfill(
    db: &Db,
    models: &Models,
    args: &BackfillArgs,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
    terminal: bool,
) -> Result<Exit, MigrationError> {
    let mut exit = Exit::Ok;
    for c in copiers(models, args.table.as_deref(), db)? {
        let mut options = CopyOptions::new()
            .ranges_in_flight(args.ranges_in_flight)
            .writes_in_flight(args.writes_in_flight)
            .lease(Duration::from_secs(args.lease_seconds));
        if let Some(r) = args.rows_per_second {
            options = options.rows_per_second(r);
        }
        if let Some(n) = args.ranges {
            options = options.ranges(n);
        }
        let report = if args.quiet {
            c.backfill(db, &options).await
        } else {
            let progress = Progress::new(c.target().name, terminal);
            let shown = Arc::clone(&progress);
            options = options.progress(move |p| shown.show(p));
            let report = progress.lines(c.backfill(db, &options), err).await;
            progress.finish();
            report
        };
        let report = report?;
        writeln!(out, "{report}").map_err(io)?;
        if report.failed_rows > 0 {
            exit = Exit::Incomplete;
        } else {
            writeln!(
                out,
                "next: `verify --table {}` (rows missing, different, extra)",
                report.target
            )
            .map_err(io)?;
        }
    }
    Ok(exit)
}

pub(crate) async fn verify(
    db: &Db,
    models: &Models,
    args: &VerifyArgs,
    out: &mut (dyn Write + Send),
) -> Result<Exit, MigrationError> {
    let mut exit = Exit::Ok;
    for c in copiers(models, args.table.as_deref(), db)? {
        let mut options = VerifyOptions::new();
        options.ranges = args.ranges.max(1);
        if let Some(f) = args.sample {
            options = options.sample(f);
        }
        let report = c.verify(db, &options).await?;
        writeln!(out, "{report}").map_err(io)?;
        let offline = c.target().source.is_some_and(|s| s.offline);
        let (t, s) = (&report.target, &report.source);
        if !report.is_clean() {
            exit = Exit::Incomplete;
            let writers = if offline {
                format!("check that nothing writes {s} or {t} any more")
            } else {
                "keep the application writing to both tables".to_owned()
            };
            let again = if report.ranges_to_copy > 0 {
                "run `backfill` again (it copies the ranges marked), then `verify`"
            } else {
                "mend the rows listed, then `verify`"
            };
            writeln!(out, "not clean: {writers}; {again}").map_err(io)?;
        } else if report.sampled {
            writeln!(
                out,
                "clean in the sample; `drop-source` asks for a full verify (without --sample)"
            )
            .map_err(io)?;
        } else if offline {
            writeln!(
                out,
                "clean. next: release the application reading and writing {t}; then \
                 `drop-source {t}` drops {s}"
            )
            .map_err(io)?;
        } else {
            writeln!(
                out,
                "clean. next: release the application reading {t} (writes still to both), \
                 then writing {t} alone; then `drop-source {t}` drops {s}"
            )
            .map_err(io)?;
        }
    }
    Ok(exit)
}

/// Where each copy stands: those into or from a table of the connection's keyspace
/// (`--keyspace`, `CASSMODEL_KEYSPACE`) when it has one, else every copy of the cluster.
pub(crate) async fn status(db: &Db, out: &mut (dyn Write + Send)) -> Result<Exit, MigrationError> {
    let copies = match db.keyspace() {
        Some(ks) => copy::status_in(db, ks).await?,
        None => copy::status(db).await?,
    };
    if copies.is_empty() {
        match db.keyspace() {
            Some(ks) => writeln!(out, "no copy into or from keyspace {ks} is recorded"),
            None => writeln!(out, "no copy has been started on this cluster"),
        }
        .map_err(io)?;
    }
    for c in copies {
        writeln!(out, "{c}").map_err(io)?;
    }
    Ok(Exit::Ok)
}

pub(crate) async fn drop_source(
    db: &Db,
    target: &str,
    out: &mut (dyn Write + Send),
) -> Result<Exit, MigrationError> {
    let cql = copy::drop_source(db, target).await?;
    writeln!(out, "{cql}").map_err(io)?;
    writeln!(
        out,
        "-- dropped; remove #[cass(from = ..)] from the new table's struct"
    )
    .map_err(io)?;
    Ok(Exit::Ok)
}

pub(crate) async fn forget_copy(
    db: &Db,
    args: &ForgetArgs,
    out: &mut (dyn Write + Send),
) -> Result<Exit, MigrationError> {
    if let Some(target) = &args.target {
        copy::forget_copy(db, target).await?;
        writeln!(out, "forgot the copy into {target}").map_err(io)?;
        return Ok(Exit::Ok);
    }
    let forgotten = copy::forget_dropped(db).await?;
    if forgotten.is_empty() {
        writeln!(
            out,
            "every copy recorded copies into a table that exists: none forgotten"
        )
        .map_err(io)?;
    }
    for target in forgotten {
        writeln!(
            out,
            "forgot the copy into {target} (the table no longer exists)"
        )
        .map_err(io)?;
    }
    Ok(Exit::Ok)
}

pub(crate) fn io(e: std::io::Error) -> MigrationError {
    MigrationError::Io {
        path: "<output>".into(),
        source: e,
    }
}

/// The progress of one backfill: a bar on a terminal; else plain lines on the command's
/// error output, one at the start, one when the copy reports for the first time and when it
/// starts or stops waiting for other processes, and one every 10 s.
struct Progress {
    table: &'static str,
    /// The bar, on a terminal.
    bar: Option<Shown>,
    /// The line of the last report, and whether it must be written.
    line: Mutex<Line>,
}

#[derive(Default)]
struct Line {
    text: String,
    must: bool,
    waiting: bool,
    /// The ranges done when this process started.
    first: Option<u32>,
}

impl Progress {
    fn new(table: &'static str, terminal: bool) -> Arc<Self> {
        let template = format!("{table} [{{bar:30}}] {{pos}}/{{len}} ranges  {{msg}}");
        Arc::new(Progress {
            table,
            bar: terminal.then(|| Shown::new(&template)),
            line: Mutex::new(Line {
                text: format!("{table}: starting the copy"),
                must: true,
                ..Line::default()
            }),
        })
    }

    fn show(&self, p: &CopyProgress) {
        let Ok(mut line) = self.line.lock() else {
            return;
        };
        let first = line.first.is_none();
        let from = *line.first.get_or_insert(p.ranges_done);
        let text = describe(p, from);
        line.must |= first || line.waiting != p.waiting;
        line.waiting = p.waiting;
        line.text = format!(
            "{}: {}/{} ranges, {text}",
            self.table, p.ranges_done, p.ranges
        );
        if let Some(bar) = &self.bar {
            let position = Some((u64::from(p.ranges_done), u64::from(p.ranges)));
            bar.show(position, text, false, String::new);
        }
    }

    /// Runs `copy` to its end; without a terminal, writes the lines to `err` as it goes.
    async fn lines<F: Future>(&self, copy: F, err: &mut (dyn Write + Send)) -> F::Output {
        if self.bar.is_some() {
            return copy.await;
        }
        let mut copy = std::pin::pin!(copy);
        let mut last = None::<Instant>;
        loop {
            if let Ok(mut line) = self.line.lock()
                && (line.must || last.is_none_or(|t| t.elapsed() >= PLAIN_EVERY))
            {
                line.must = false;
                last = Some(Instant::now());
                // A progress line that cannot be written is not worth failing the copy.
                let _ = writeln!(err, "{}", line.text);
            }
            tokio::select! {
                done = &mut copy => return done,
                () = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// `rows, rows/s, ETA` of a progress report, or what it waits for; `first`: the ranges done
/// when this process started (the ETA counts the ranges done since, by any process).
fn describe(p: &CopyProgress, first: u32) -> String {
    let rows = format!("{} rows, {:.0} rows/s", p.rows, p.rate());
    if p.waiting {
        let held: Vec<String> = p.held.iter().map(ToString::to_string).collect();
        return format!(
            "{rows}, waiting for ranges other processes hold: {}",
            held.join("; ")
        );
    }
    let done_here = p.ranges_done.saturating_sub(first);
    let left = p.ranges.saturating_sub(p.ranges_done);
    let eta = if done_here == 0 {
        "ETA ?".to_owned()
    } else {
        let per_range = p.elapsed.as_secs_f64() / f64::from(done_here);
        format!("ETA {}", seconds(per_range * f64::from(left)))
    };
    format!("{rows}, {eta}")
}

fn seconds(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions() {
        assert_eq!(parse_fraction("0.05"), Ok(0.05));
        assert_eq!(parse_fraction("1"), Ok(1.0));
        assert!(parse_fraction("0").is_err());
        assert!(parse_fraction("1.5").is_err());
        assert!(parse_fraction("x").is_err());
    }

    #[test]
    fn eta_reads_as_time() {
        assert_eq!(seconds(5.4), "5 s");
        assert_eq!(seconds(125.0), "2 min 5 s");
        assert_eq!(seconds(7260.0), "2 h 1 min");
    }
}
