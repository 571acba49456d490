//! `check-entity`: the drift check of an entity's tables (each entity with an identity table
//! linked into the binary), and its repair.

use std::io::Write;
use std::sync::Arc;

use cassmodel_runtime::Db;
use cassmodel_runtime::migrate::MigrationError;
use cassmodel_runtime::migrate::drift::{DriftOptions, EntityChecker, registered_entities};
use clap::Args;

use crate::copy::{io, parse_fraction};
use crate::exit::Exit;
use crate::progress::Shown;

/// What `check-entity` takes.
#[derive(Debug, Args)]
pub(crate) struct CheckEntityArgs {
    /// The entity, by its Rust name (`Video`) [default: every entity with an identity table,
    /// `#[cass(identity = ..)]`].
    entity: Option<String>,
    /// Make the tables agree: each missing or different cell written from the copy with the
    /// latest write time, with that write time and its TTL (without it: a dry run, which
    /// counts what the repair would write).
    #[arg(long)]
    repair: bool,
    /// With --repair, also delete the rows no entity has (left and listed without it).
    #[arg(long, requires = "repair")]
    delete_extra: bool,
    /// Check only this fraction of the token ranges (e.g. 0.05), for very large tables.
    #[arg(long, value_parser = parse_fraction)]
    sample: Option<f64>,
    /// No progress bar or progress lines (on stderr: a bar on a terminal, else a line every
    /// 10 s and at the end of each table).
    #[arg(long)]
    quiet: bool,
    /// Token ranges each table is read in (the unit of resuming and of sharing between
    /// processes; a check continued takes its first run's number).
    #[arg(long, default_value_t = 64)]
    ranges: u32,
}

/// The checkers of the entities named (all without a name).
fn checkers(name: Option<&str>) -> Result<Vec<&'static dyn EntityChecker>, MigrationError> {
    let all = registered_entities();
    let Some(name) = name else {
        if all.is_empty() {
            return Err(MigrationError::CopyRefused(
                "no entity with an identity table is linked into this binary: add \
                 #[cass(identity = T)] to a #[derive(CassEntity)]"
                    .into(),
            ));
        }
        return Ok(all);
    };
    let known: Vec<&str> = all.iter().map(|c| c.name()).collect();
    match all.iter().find(|c| c.name() == name) {
        Some(c) => Ok(vec![*c]),
        None => Err(MigrationError::CopyRefused(format!(
            "no entity `{name}` with an identity table is linked into this binary (entities: \
             {}); an entity is checked when it names its identity table, \
             #[cass(identity = T)]",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ))),
    }
}

/// Runs the check (and repair) of each entity named, writing each report.
pub(crate) async fn check_entity(
    db: &Db,
    args: &CheckEntityArgs,
    out: &mut (dyn Write + Send),
) -> Result<Exit, MigrationError> {
    let mut options = DriftOptions::new();
    options.ranges = args.ranges.max(1);
    if let Some(f) = args.sample {
        options = options.sample(f);
    }
    if args.repair {
        options = options.repair();
    }
    if args.delete_extra {
        options = options.delete_extra();
    }
    let shown = Arc::new(Shown::new("[{bar:20}] {pos}/{len} {msg}"));
    if !args.quiet {
        let reporter = Arc::clone(&shown);
        options = options.on_progress(move |p| reporter.report(p));
    }
    let mut exit = Exit::Ok;
    for c in checkers(args.entity.as_deref())? {
        let report = c.check(db, &options).await;
        shown.finish();
        let report = report?;
        write!(out, "{report}").map_err(io)?;
        let extra: u64 = report.tables.iter().map(|t| t.extra).sum();
        let next = if report.is_clean() {
            None
        } else if !args.repair {
            Some("run with --repair to make the tables agree (--delete-extra to delete extra rows)")
        } else if extra > 0 && !args.delete_extra {
            Some("repaired but the extra rows: --delete-extra deletes them")
        } else {
            None
        };
        if let Some(next) = next {
            exit = Exit::Drift;
            writeln!(out, "{next}").map_err(io)?;
        } else if !report.is_clean() {
            writeln!(out, "repaired: check again to see the tables agree").map_err(io)?;
        }
    }
    Ok(exit)
}
