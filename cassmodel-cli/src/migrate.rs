//! The migration command of a crate's models. Embed it in a `bin` of your own, in one line
//! that names the crate whose models it migrates (every `#[derive(CassTable)]` /
//! `#[derive(CassUdt)]` linked into the binary is found through the registry, and a crate the
//! binary does not use is not linked):
//!
//! ```
//! # extern crate cassmodel_runtime as telemetry;
//! // src/bin/migrate.rs of the crate `telemetry`, whose models are in its library
//! cassmodel_cli::main!(telemetry);
//! ```
//!
//! ```text
//! migrate [OPTIONS] <plan|apply|generate --dir DIR|validate|schema|analyze [--live]
//!                    |backfill|verify [--sample F]|status|drop-source KS.TABLE
//!                    |forget-copy KS.TABLE|forget-copy --dropped
//!                    |check-entity [ENTITY] [--repair [--delete-extra]] [--sample F]>
//!
//!   plan       dry run: print the CQL it would run, what it refuses, what it leaves alone
//!   apply      run the plan (nothing at all if something is refused)
//!   generate   write the plan as the next DIR/NNNN_<description>.cql
//!   validate   check that the cluster matches the models (for start-up checks and CI)
//!   schema     print the full DDL of every model, offline (no cluster needed)
//!   analyze    estimate each table's partition size from its `#[cass(expect(...))]`
//!              (offline); `--live` adds what the node reports about the real partitions,
//!              `--count-rows` the partition with the most rows (a scan of each table)
//!
//!   a key change (a new table with `#[cass(from = ..)]`; `plan` prints its steps):
//!   backfill   copy the old table's rows into the new one: resumable after any crash,
//!              shared by every process that runs it (`--ranges`, `--ranges-in-flight`,
//!              `--writes-in-flight`, `--rows-per-second`, `--lease-seconds`, `--table`)
//!   verify     rows missing, different and extra between old and new (`--sample F`)
//!   status     where each copy of `--keyspace` stands (every copy without one), who holds
//!              its ranges and whether they still renew their leases
//!   drop-source KS.TABLE   drop the old table of a finished, verified copy
//!   forget-copy KS.TABLE   forget the record of a copy; `--dropped`: of every copy whose
//!              new table no longer exists
//!
//!   an entity with an identity table (`#[derive(CassEntity)]`, `#[cass(identity = T)]`):
//!   check-entity   its tables compared: rows missing, extra and different in each, with
//!              their keys (every such entity without a name); `--repair` makes them agree
//!              cell by cell by the latest write time, `--delete-extra` also deletes the
//!              rows no entity has; resumable after any crash and shared by every process
//!              that runs it (`--ranges`); `--sample F` reads a fraction of the ranges
//!
//!   --keyspace KS                    keyspace of the models that do not name one
//!   --replication SPEC               replication of keyspaces the plan creates:
//!                                    SimpleStrategy:1 or NetworkTopologyStrategy:dc1=3,dc2=3
//!   --keyspace-replication KS=SPEC   the same for one keyspace (repeatable)
//!   --allow-drop KS.TABLE.COLUMN     let the plan drop this column (repeatable)
//!   --allow-unmask KS.TABLE.COLUMN   let the plan drop this column's mask, which its field
//!                                    no longer declares: every role without UNMASK then
//!                                    reads its values (repeatable; refused without it)
//!   --create-views                   let the plan create the materialized views the models
//!                                    declare (`#[cass(view_of = ..)]`; the server must
//!                                    enable them: `materialized_views_enabled: true`)
//!   --allow-drop-view KS.VIEW        let the plan drop this view, to create it again or
//!                                    because no model declares it (repeatable)
//!
//!   connection: --contact-points, --local-dc, --username, --password-file, --tls-ca,
//!   --tls-cert, --tls-key, --connect-timeout, --request-timeout, --consistency,
//!   --serial-consistency; each overrides its CASSMODEL_* variable (see ConnectOptions)
//! ```
//!
//! Exit codes ([`Exit`](crate::Exit)), for CI jobs: `0` nothing to do / done, `1` error (including a bad
//! command line), `2` the plan is not empty or the cluster does not match (`plan`,
//! `validate`), `3` something is refused (by the plan, or a key change's command that wrote
//! nothing: `backfill` into a table with rows of its own, `drop-source` before a clean
//! verify, ...), `4` a table outgrows the partition-size guidance (`analyze`), `5` a copy is
//! incomplete (`backfill` left rows it could not convert, `verify` found differences), `6`
//! the binary holds no model (every command but `status`, `drop-source` and `forget-copy`
//! refuses to run: a `validate` that found nothing to compare would pass forever), `7` an
//! entity's tables drift (`check-entity` found rows missing, extra or different and did not
//! repair them all).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use cassmodel_runtime::migrate::{MigrationError, Migrator, Models};
use cassmodel_runtime::{Db, Replication, sizing};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::connect::{ConnectArgs, Warned};
use crate::copy::{BackfillArgs, ForgetArgs, VerifyArgs};
use crate::drift::CheckEntityArgs;
use crate::exit::{Exit, block_on};
use crate::progress::Shown;

#[derive(Debug, Parser)]
#[command(
    version = concat!(env!("CARGO_PKG_VERSION"), " (cassmodel-cli)"),
    about = "Migrations from cassmodel structs: plan, apply, generate files, validate, print the schema",
    after_help = "Exit codes: 0 nothing to do or done; 1 error; 2 plan not empty or cluster \
                  differs (plan, validate); 3 something refused (plan, apply, generate; a key \
                  change's command that wrote nothing: backfill, drop-source, forget-copy); \
                  4 a table outgrows the \
                  partition-size guidance (analyze); 5 a copy is incomplete (backfill, \
                  verify); 6 the binary holds no model (cassmodel_cli::main!(your_crate)); \
                  7 an entity's tables disagree (check-entity)."
)]
struct Cli {
    /// How to reach the cluster (and `--keyspace`): each flag overrides its CASSMODEL_*
    /// environment variable.
    #[command(flatten)]
    connect: ConnectArgs,
    /// Replication of keyspaces the plan creates: `SimpleStrategy:1` or
    /// `NetworkTopologyStrategy:dc1=3,dc2=3`.
    #[arg(long, global = true, value_parser = parse_replication)]
    replication: Option<Replication>,
    /// Replication of one keyspace the plan creates: `KS=SPEC` (repeatable).
    #[arg(long = "keyspace-replication", global = true, value_parser = parse_keyspace_replication)]
    keyspace_replication: Vec<(String, Replication)>,
    /// Let the plan drop this column when the models no longer have it: `keyspace.table.column`
    /// (repeatable). Nothing else is ever dropped.
    #[arg(long = "allow-drop", global = true, value_parser = parse_column)]
    allow_drop: Vec<(String, String, String)>,
    /// Let the plan drop this column's mask when its field declares none:
    /// `keyspace.table.column` (repeatable). Every role without the UNMASK permission then
    /// reads the column's values; without this flag the plan refuses to drop a mask.
    #[arg(long = "allow-unmask", global = true, value_parser = parse_column)]
    allow_unmask: Vec<(String, String, String)>,
    /// Let the plan create the materialized views the models declare
    /// (`#[cass(view_of = ..)]`). Views are experimental in Cassandra: the server must set
    /// `materialized_views_enabled: true`.
    #[arg(long = "create-views", global = true)]
    create_views: bool,
    /// Let the plan drop this materialized view: `keyspace.view` (repeatable); to create it
    /// again when the model's differs, or because no model declares it.
    #[arg(long = "allow-drop-view", global = true, value_parser = parse_view)]
    allow_drop_view: Vec<(String, String)>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Dry run: print the CQL it would run, what it refuses and what it leaves alone.
    Plan,
    /// Run the plan: nothing at all if something is refused.
    Apply,
    /// Write the plan as the next `NNNN_<description>.cql` in a directory.
    Generate {
        /// The directory of migration files (created if missing).
        #[arg(long)]
        dir: PathBuf,
        /// The file's description [default: made from the first statement].
        #[arg(long)]
        description: Option<String>,
    },
    /// Check that the cluster matches the models; every mismatch in one report.
    Validate,
    /// Print the full DDL of every model, offline (no cluster needed).
    Schema,
    /// Estimate each table's partition size from its `#[cass(expect(...))]` (offline), with
    /// the fix for each table over the guidance.
    Analyze {
        /// Also read what the node reports about each table's real partitions.
        #[arg(long)]
        live: bool,
        /// With `--live`: find the partition with the most rows (scans each table).
        #[arg(long, requires = "live")]
        count_rows: bool,
    },
    /// Copy the rows of each table that declares `#[cass(from = ..)]` from its source:
    /// resumable, and shared by every process that runs it at once.
    Backfill(BackfillArgs),
    /// Compare each copy's source (converted) with its table: rows missing, different, extra.
    Verify(VerifyArgs),
    /// Where each copy into or from `--keyspace` stands (every copy of the cluster without
    /// one): ranges copied, who holds the others and whether it still renews its leases, the
    /// next step.
    Status,
    /// Drop the source table of a finished copy whose last verify was clean.
    DropSource {
        /// The new table, `keyspace.table`.
        target: String,
    },
    /// Forget the record of a copy (kept in keyspace `cassmodel_migrations`): one by name,
    /// or with `--dropped` every copy whose new table no longer exists.
    ForgetCopy(ForgetArgs),
    /// Compare the tables of an entity with an identity table (`#[cass(identity = ..)]`):
    /// rows missing, extra and different in each; `--repair` makes them agree, cell by cell,
    /// by the latest write time.
    CheckEntity(CheckEntityArgs),
}

impl Command {
    /// What the command does with the models, for the refusal of a binary that holds none;
    /// `None` for `status`, `drop-source` and `forget-copy`, which read only what the cluster
    /// recorded.
    fn use_of_models(&self) -> Option<&'static str> {
        match self {
            Command::Plan | Command::Apply | Command::Generate { .. } | Command::Validate => {
                Some("compare the cluster with")
            }
            Command::Schema => Some("print"),
            Command::Analyze { .. } => Some("analyze"),
            Command::Backfill(_) | Command::Verify(_) => Some("copy or compare"),
            Command::CheckEntity(_) => Some("check"),
            Command::Status | Command::DropSource { .. } | Command::ForgetCopy(_) => None,
        }
    }
}

/// The refusal of `command`, which would `what` the models, by a binary that holds none, with
/// the likely cause and the one-line fix, naming the crate `cargo run` runs (`CARGO_PKG_NAME`)
/// when it is known.
fn no_models(command: &str, what: &str) -> String {
    let krate = std::env::var("CARGO_PKG_NAME")
        .ok()
        .filter(|n| !n.is_empty())
        .map_or_else(|| "your_crate".to_owned(), |n| n.replace('-', "_"));
    format!(
        "error: `{command}` refused: this migration binary holds no model (no \
         `#[derive(CassTable)]` type is linked into it), so it has nothing to {what}.\n\
         \n\
         The usual cause: the models are in your crate's library and this binary does not use \
         it, so the linker leaves them out. Name the crate in src/bin/migrate.rs:\n\
         \n    cassmodel_cli::main!({krate});\n\n\
         (the same as `use {krate} as _;` above `fn main() -> std::process::ExitCode {{ \
         cassmodel_cli::main() }}`).\n"
    )
}

/// Parses `SimpleStrategy:1` or `NetworkTopologyStrategy:dc1=3,dc2=3` (class names in any
/// case; `Simple` and `NetworkTopology` also work).
///
/// ```
/// use cassmodel_runtime::Replication;
/// use cassmodel_cli::parse_replication;
/// assert_eq!(parse_replication("SimpleStrategy:1"), Ok(Replication::Simple(1)));
/// assert_eq!(
///     parse_replication("NetworkTopologyStrategy:dc1=3,dc2=2"),
///     Ok(Replication::network_topology([("dc1", 3), ("dc2", 2)]))
/// );
/// assert!(parse_replication("SimpleStrategy").is_err());
/// ```
pub fn parse_replication(spec: &str) -> Result<Replication, String> {
    let help = "expected `SimpleStrategy:<rf>` or `NetworkTopologyStrategy:<dc>=<rf>,<dc>=<rf>`";
    let (class, rest) = spec
        .split_once(':')
        .ok_or_else(|| format!("`{spec}`: {help}"))?;
    let rf = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{s}` is not a replication factor in `{spec}`: {help}"))
    };
    let class = class.trim().to_ascii_lowercase();
    match class.as_str() {
        "simplestrategy" | "simple" => Ok(Replication::Simple(rf(rest)?)),
        "networktopologystrategy" | "networktopology" => {
            let mut dcs = Vec::new();
            for part in rest.split(',').filter(|p| !p.trim().is_empty()) {
                let (dc, n) = part
                    .split_once('=')
                    .ok_or_else(|| format!("`{part}` in `{spec}`: {help}"))?;
                dcs.push((dc.trim().to_owned(), rf(n)?));
            }
            if dcs.is_empty() {
                return Err(format!("`{spec}` names no datacenter: {help}"));
            }
            Ok(Replication::NetworkTopology(dcs))
        }
        _ => Err(format!("unknown replication class in `{spec}`: {help}")),
    }
}

fn parse_keyspace_replication(spec: &str) -> Result<(String, Replication), String> {
    let (ks, r) = spec
        .split_once('=')
        .ok_or_else(|| format!("`{spec}`: expected KEYSPACE=SPEC, e.g. orders=SimpleStrategy:1"))?;
    Ok((ks.trim().to_owned(), parse_replication(r)?))
}

fn parse_column(spec: &str) -> Result<(String, String, String), String> {
    let mut parts = spec.splitn(3, '.');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(k), Some(t), Some(c)) if !k.is_empty() && !t.is_empty() && !c.is_empty() => {
            Ok((k.to_owned(), t.to_owned(), c.to_owned()))
        }
        _ => Err(format!(
            "`{spec}`: expected keyspace.table.column, e.g. shop.orders.remarks"
        )),
    }
}

fn parse_view(spec: &str) -> Result<(String, String), String> {
    match spec.split_once('.') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() && !v.contains('.') => {
            Ok((k.to_owned(), v.to_owned()))
        }
        _ => Err(format!(
            "`{spec}`: expected keyspace.view, e.g. shop.orders_by_customer"
        )),
    }
}

/// The command on the registered models (every derive linked into the binary), with the
/// process's arguments; prints to stdout/stderr. The body of [`main!`](crate::main!), which
/// also makes sure the crate that holds the models is linked.
pub fn main() -> ExitCode {
    main_with(Models::registered())
}

/// [`main()`](fn@main) with an explicit list of models instead of the registry.
pub fn main_with(models: Models) -> ExitCode {
    // A bar on a terminal; plain lines in a log.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    block_on(|out, err| Box::pin(run_on(std::env::args_os(), models, out, err, terminal)))
}

/// Runs the command `args` (the first item is the program name) on `models`, writing the
/// report to `out`, and errors and progress lines to `err`. For tests and for programs that
/// wrap the command.
///
/// ```
/// # tokio_test_block_on(async {
/// use cassmodel_runtime::migrate::Models;
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// // No model: refused with its own exit code, and a message that says what to do.
/// let exit = cassmodel_cli::run(["migrate", "schema"], Models::new(), &mut out, &mut err).await;
/// assert_eq!(exit, cassmodel_cli::Exit::NoModels);
/// assert!(String::from_utf8_lossy(&err).contains("cassmodel_cli::main!("));
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub async fn run<I, T>(
    args: I,
    models: Models,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    run_on(args, models, out, err, false).await
}

/// [`run`], with the progress of long commands drawn as a bar on the terminal (`terminal`:
/// `err` is one) rather than written to `err` as lines.
async fn run_on<I, T>(
    args: I,
    models: Models,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
    terminal: bool,
) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let (cli, command) = match parse(args) {
        Ok(c) => c,
        Err(e) => return clap_exit(&e, out, err),
    };
    if let Some(what) = cli.command.use_of_models()
        && models.tables().is_empty()
    {
        let _ = write!(err, "{}", no_models(&command, what));
        return Exit::NoModels;
    }
    let warned = Warned::default();
    let result = execute(cli, models, (out, err, terminal), &warned).await;
    warned.print(err);
    match result {
        Ok(exit) => exit,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            match e {
                MigrationError::Refused(_)
                | MigrationError::Unsupported { .. }
                | MigrationError::CopyRefused(_) => Exit::Refused,
                MigrationError::Mismatch(_) => Exit::Pending,
                _ => Exit::Error,
            }
        }
    }
}

/// The command line, under the name of the binary that runs it (`migrate --version` prints
/// `migrate 0.1.0 (cassmodel-cli)`), and its command as typed.
fn parse<I, T>(args: I) -> Result<(Cli, String), clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let name = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_stem())
        .map_or_else(
            || "migrate".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
    let matches = Cli::command().name(name).try_get_matches_from(args)?;
    let command = matches.subcommand_name().unwrap_or_default().to_owned();
    Ok((Cli::from_arg_matches(&matches)?, command))
}

/// A command line clap did not run: help or the version on `out` (exit 0), else the error
/// on `err` (exit 1, not clap's own 2, which means "plan not empty" here).
pub(crate) fn clap_exit(
    e: &clap::Error,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> Exit {
    let help = matches!(
        e.kind(),
        clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
    );
    let text = e.render().to_string();
    if help {
        let _ = write!(out, "{text}");
        Exit::Ok
    } else {
        let _ = write!(err, "{text}");
        Exit::Error
    }
}

async fn connect(cli: &Cli, warned: &Warned) -> Result<Db, MigrationError> {
    let db = cli.connect.options()?.connect().await?;
    warned.watch(&db);
    Ok(db)
}

/// The keyspace of the models that do not name one, for the offline commands: `--keyspace`,
/// else `CASSMODEL_KEYSPACE` (the other connection settings are not read, nor checked).
fn offline_keyspace(cli: &Cli) -> Option<String> {
    cli.connect
        .keyspace
        .clone()
        .or_else(|| cassmodel_runtime::config::cli::env_var("CASSMODEL_KEYSPACE"))
}

fn configure(mut m: Migrator, cli: &Cli) -> Migrator {
    if let Some(r) = &cli.replication {
        m = m.replication(r.clone());
    }
    for (ks, r) in &cli.keyspace_replication {
        m = m.keyspace_replication(ks, r.clone());
    }
    for (k, t, c) in &cli.allow_drop {
        m = m.allow_drop(k, t, c);
    }
    for (k, t, c) in &cli.allow_unmask {
        m = m.allow_unmask(k, t, c);
    }
    for (k, v) in &cli.allow_drop_view {
        m = m.allow_drop_view(k, v);
    }
    m.create_views(cli.create_views)
}

/// Where a command writes: its report, its errors and progress lines, and whether the latter
/// is a terminal.
type Output<'a> = (&'a mut (dyn Write + Send), &'a mut (dyn Write + Send), bool);

async fn execute(
    cli: Cli,
    models: Models,
    (out, err, terminal): Output<'_>,
    warned: &Warned,
) -> Result<Exit, MigrationError> {
    let io = |e: std::io::Error| MigrationError::Io {
        path: "<output>".into(),
        source: e,
    };
    if let Command::Schema = cli.command {
        let ks = offline_keyspace(&cli);
        let m = configure(Migrator::offline(models, ks.as_deref()), &cli);
        write!(out, "{}", m.schema_cql()?).map_err(io)?;
        return Ok(Exit::Ok);
    }
    if let Command::Analyze { live, count_rows } = cli.command {
        let ks = offline_keyspace(&cli);
        let report = sizing::analyze_all(models.tables(), ks.as_deref());
        write!(out, "{report}").map_err(io)?;
        if live {
            let db = connect(&cli, warned).await?;
            for (schema, size) in models.tables().iter().zip(&report.tables) {
                let shown = Shown::new("{spinner} {msg}");
                let live =
                    sizing::live_with_progress(&db, schema, count_rows, &|p| shown.report(p)).await;
                shown.finish();
                writeln!(out, "{}", live?.compare(size.estimate.as_ref())).map_err(io)?;
            }
        }
        return Ok(if report.exceeds_guidance() {
            Exit::OverGuidance
        } else {
            Exit::Ok
        });
    }
    let db = connect(&cli, warned).await?;
    match &cli.command {
        Command::Backfill(args) => {
            return crate::copy::backfill(&db, &models, args, out, err, terminal).await;
        }
        Command::Verify(args) => return crate::copy::verify(&db, &models, args, out).await,
        Command::Status => return crate::copy::status(&db, out).await,
        Command::DropSource { target } => {
            return crate::copy::drop_source(&db, target, out).await;
        }
        Command::ForgetCopy(args) => return crate::copy::forget_copy(&db, args, out).await,
        Command::CheckEntity(args) => return crate::drift::check_entity(&db, args, out).await,
        _ => {}
    }
    let m = configure(Migrator::new(&db, models), &cli);
    match &cli.command {
        Command::Plan => {
            let plan = m.plan().await?;
            write!(out, "{plan}").map_err(io)?;
            Ok(if !plan.refused.is_empty() {
                Exit::Refused
            } else if !plan.steps.is_empty() {
                Exit::Pending
            } else {
                Exit::Ok
            })
        }
        Command::Apply => {
            let plan = m.plan().await?;
            write!(out, "{plan}").map_err(io)?;
            // Each step and each index build on stderr while it runs.
            let shown = Arc::new(Shown::new("[{bar:20}] {pos}/{len} {msg}"));
            let reporter = Arc::clone(&shown);
            let m = m.on_progress(move |p| reporter.report(p));
            // Runs the plan just printed (refusing everything if it refuses something).
            let report = m.apply_and_check(&plan).await;
            shown.finish();
            let report = report?;
            writeln!(
                out,
                "-- applied {} statement(s), {} already applied by someone else; the cluster \
                 matches the models",
                report.applied.len(),
                report.already_applied.len()
            )
            .map_err(io)?;
            Ok(Exit::Ok)
        }
        Command::Generate { dir, description } => {
            match m.generate(dir, description.as_deref()).await? {
                Some(f) => writeln!(out, "wrote {}", f.path.display()).map_err(io)?,
                None => writeln!(
                    out,
                    "nothing to write: the plan is empty or already the newest file in {}",
                    dir.display()
                )
                .map_err(io)?,
            }
            Ok(Exit::Ok)
        }
        Command::Validate => {
            m.validate().await?;
            writeln!(out, "the cluster matches the models").map_err(io)?;
            Ok(Exit::Ok)
        }
        Command::Schema
        | Command::Analyze { .. }
        | Command::Backfill(_)
        | Command::Verify(_)
        | Command::Status
        | Command::DropSource { .. }
        | Command::ForgetCopy(_)
        | Command::CheckEntity(_) => Ok(Exit::Ok),
    }
}
