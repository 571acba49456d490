//! Command-line tools of [cassmodel](https://docs.rs/cassmodel), as `sqlx-cli` and
//! `diesel_cli` are to their libraries: the runtime compiles no argument parser.
//!
//! - The **migration command of your models** ([`main!`]): plan, apply, generate files,
//!   validate, print the schema, analyze partition sizes. It must link your
//!   `#[derive(CassTable)]` structs, so it is a one-line `bin` of your own crate that names
//!   the crate holding them (a crate the binary does not use is not linked, and a binary
//!   without models refuses to run, exit code 6):
//!
//!   ```
//!   # extern crate cassmodel_runtime as telemetry;
//!   // src/bin/migrate.rs of the crate `telemetry` (models in its src/lib.rs), with
//!   // `cassmodel-cli` in [dependencies]
//!   cassmodel_cli::main!(telemetry);
//!   ```
//!
//! - **`cassmodel`**, installed with `cargo install --path cassmodel-cli` (or from crates.io):
//!   what needs no models ([`tool`]): `cassmodel check` (does the cluster answer with these
//!   settings; its nodes, versions and keyspaces) and `cassmodel apply-files --dir DIR` (run
//!   the migration files `migrate generate` wrote, for a deployment that runs no Rust).
//!
//! Both take the connection settings of [`ConnectArgs`] (`--contact-points`, `--username`,
//! `--tls-ca`, ...), each overriding its `CASSMODEL_*` variable, and exit with an [`Exit`]
//! code for CI jobs.

mod connect;
mod copy;
mod cql_file;
mod drift;
mod exit;
mod migrate;
mod progress;
pub mod pull;
pub mod tool;

pub use connect::ConnectArgs;
pub use cql_file::cql_statements;
pub use exit::Exit;
pub use migrate::{main, main_with, parse_replication, run};

/// The whole `src/bin/migrate.rs` of a crate whose models are in its library: names the
/// crate (or crates) that hold the models, so that the binary links them, and runs the
/// migration command on them ([`main()`](fn@main)).
///
/// ```
/// # extern crate cassmodel_runtime as telemetry;
/// // src/bin/migrate.rs of the crate `telemetry`
/// cassmodel_cli::main!(telemetry);
/// ```
///
/// It expands to
///
/// ```no_run
/// # extern crate cassmodel_runtime as telemetry;
/// use telemetry as _;
/// fn main() -> std::process::ExitCode {
///     cassmodel_cli::main()
/// }
/// ```
///
/// Without the `use`, a binary that never names the library does not link it, and with it
/// none of its `#[derive(CassTable)]` registrations: every command that needs the models
/// then refuses to run ([`Exit::NoModels`], code 6) rather than find nothing to migrate.
#[macro_export]
macro_rules! main {
    ($($models:ident),+ $(,)?) => {
        $(
            #[allow(unused_imports)]
            use $models as _;
        )+
        fn main() -> ::std::process::ExitCode {
            $crate::main()
        }
    };
}
