//! A migration binary for the seed models: the whole program is the one line in `main`.
//! Every `#[derive(CassTable)]` / `#[derive(CassUdt)]` linked into the binary (here, the
//! seed models in `models/`) is found through cassmodel's registry; nothing is listed by hand.
//!
//! ```text
//! cargo run --example migrate -- schema --keyspace demo --replication SimpleStrategy:1
//! cargo run --example migrate -- plan --keyspace cassmodel_demo --replication SimpleStrategy:1
//! cargo run --example migrate -- apply --keyspace cassmodel_demo --replication SimpleStrategy:1
//! cargo run --example migrate -- generate --dir migrations --keyspace cassmodel_demo
//! cargo run --example migrate -- validate --keyspace cassmodel_demo
//! ```
//!
//! In your project, the same file is `src/bin/migrate.rs` in the crate that defines (or
//! links) your models. Exit codes: 0 nothing to do or done, 1 error, 2 plan not empty or
//! cluster differs (`plan`, `validate`), 3 something refused.

#[path = "models/mod.rs"]
mod models;

fn main() -> std::process::ExitCode {
    cassmodel_cli::main()
}
