//! Command-line tools of [cassmodel](https://docs.rs/cassmodel), as `sqlx-cli` and
//! `diesel_cli` are to their libraries: the runtime compiles no argument parser.
//!
//! - The **migration command of your models** ([`main`]): plan, apply, generate files,
//!   validate, print the schema, analyze partition sizes. It must link your
//!   `#[derive(CassTable)]` structs, so it is a one-line `bin` of your own crate:
//!
//!   ```no_run
//!   // src/bin/migrate.rs, with `cassmodel-cli` in [dependencies]
//!   fn main() -> std::process::ExitCode {
//!       cassmodel_cli::main()
//!   }
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
mod exit;
mod migrate;
mod progress;
pub mod pull;
pub mod tool;

pub use connect::ConnectArgs;
pub use cql_file::cql_statements;
pub use exit::Exit;
pub use migrate::{main, main_with, parse_replication, run};
