//! [`Exit`]: the exit status of the commands, for CI jobs.

use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::process::ExitCode;

/// The exit status of the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// `0`: nothing to do, or done.
    Ok = 0,
    /// `1`: an error (connection, bad arguments, a failed statement).
    Error = 1,
    /// `2`: the plan has statements to run (`plan`), or the cluster does not match the
    /// models (`validate`).
    Pending = 2,
    /// `3`: the plan refuses something (`plan`, `apply`, `generate`), or the models use
    /// what the cluster's Cassandra version lacks (SAI, vectors, masks before 5.0), or a key
    /// change's command refuses to run and wrote nothing (`backfill` into a table that holds
    /// rows of its own or from a source that is missing, `drop-source` before a clean
    /// verify, `forget-copy` of a copy not recorded or being copied now).
    Refused = 3,
    /// `4`: a table's partitions outgrow the guidance (`analyze`; see
    /// [`sizing`](cassmodel_runtime::sizing)).
    OverGuidance = 4,
    /// `5`: a key change's copy is not complete: `backfill` left rows it could not convert,
    /// or `verify` found rows missing, different or extra.
    Incomplete = 5,
    /// `6`: the migration binary holds no model (no `#[derive(CassTable)]` type is linked
    /// into it), so a command that compares, prints or copies models has nothing to work
    /// on: the binary does not use the crate that holds them (see [`main!`](crate::main!)).
    NoModels = 6,
    /// `7`: the tables of an entity disagree (`check-entity`: rows missing, extra or
    /// different, not repaired).
    Drift = 7,
}

impl Exit {
    /// The numeric code.
    pub const fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e.code())
    }
}

/// A command's future, writing its report to `out` and errors to `err`.
pub(crate) type Command<'a> = Pin<Box<dyn Future<Output = Exit> + 'a>>;

/// Runs `command` on a single-threaded tokio runtime with the process's stdout and stderr:
/// the body of a command's `main`.
pub(crate) fn block_on(
    command: impl for<'a> FnOnce(&'a mut (dyn Write + Send), &'a mut (dyn Write + Send)) -> Command<'a>,
) -> ExitCode {
    // Several threads: a backfill's reads, conversions and writes use every core.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cannot start the async runtime: {e}");
            return Exit::Error.into();
        }
    };
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    runtime.block_on(command(&mut out, &mut err)).into()
}
