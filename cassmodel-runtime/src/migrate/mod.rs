//! Migrations from structs: compare the models (`#[derive(CassTable)]` / `#[derive(CassUdt)]`)
//! with the live cluster, and turn the difference into a reviewed, safe migration.
//!
//! - [`Models`]: the set of tables and types to manage, every derive in the binary
//!   ([`Models::registered`], a link-time registry) or an explicit list ([`Models::new`] +
//!   [`Models::table`]).
//! - [`Migrator`]: reads `system_schema` ([`LiveSchema`]), computes a [`MigrationPlan`] (a pure
//!   function of the models and the live schema, [`Migrator::plan_against`]), applies it ([`Migrator::apply`]), writes it as versioned `.cql`
//!   files ([`Migrator::generate`]), or checks at start-up that the cluster matches
//!   ([`Migrator::validate`]).
//! - the `cassmodel-cli` crate: the same as a ready command-line tool, embedded in one line.
//!
//! What a plan does:
//!
//! - creates missing keyspaces (with the configured [`Replication`](crate::Replication)), user-defined types
//!   (dependencies first), tables and the SAI indexes the models declare (`#[cass(index)]`,
//!   each after its table and columns), each `IF NOT EXISTS`;
//! - adds new regular and static columns (`ALTER TABLE ... ADD IF NOT EXISTS`) and new UDT
//!   fields (`ALTER TYPE ... ADD IF NOT EXISTS`), and changes the table options the model sets
//!   (`ALTER TABLE ... WITH`);
//! - **refuses** what Cassandra cannot change in place (partition key, clustering columns or
//!   order, a column's type, removing a UDT field, re-adding a dropped column with another
//!   type, an index whose name or target is taken by another index), with a [`Refusal`] that
//!   says what to do instead;
//! - **drops nothing**: tables, columns, types and indexes the models do not have are listed
//!   as [`Unmanaged`]; a column is dropped only after [`Migrator::allow_drop`] names it.
//!
//! ```no_run
//! use cassmodel_runtime::migrate::{Migrator, Models};
//! use cassmodel_runtime::{Db, Replication};
//! # async fn f() -> Result<(), Box<dyn std::error::Error>> {
//! let db = Db::connect_from_env().await?.with_keyspace("shop")?;
//! let migrator = Migrator::new(&db, Models::registered())
//!     .replication(Replication::network_topology([("dc1", 3)]));
//! let plan = migrator.plan().await?;
//! println!("{plan}"); // the CQL it would run, what it refuses, what it leaves alone
//! migrator.apply().await?; // refuses to run anything if the plan refuses something
//! migrator.validate().await?; // at start-up: every mismatch in one error
//! # Ok(()) }
//! ```
//!
//! Table options: only the options a model sets (`default_ttl`, `gc_grace_seconds`,
//! `comment`, `compaction`) are compared and changed; an option the model leaves out is
//! left as the cluster has it (write e.g. `default_ttl = 0` to reset one).
//!
//! User-defined types are created in the keyspace of every table that uses them. A type no
//! table uses is created in the default keyspace, if there is one.

mod apply;
pub mod copy;
pub mod drift;
mod error;
mod files;
mod live;
mod migrator;
mod models;
mod plan;
mod read;
mod target;

pub use crate::progress::Progress;
pub use crate::schema::registry::{registered_functions, registered_tables, registered_udts};
pub use apply::ApplyReport;
pub use error::MigrationError;
pub use files::{GeneratedFile, migration_files, next_file_name};
pub use live::{
    DroppedColumn, LiveAggregate, LiveColumn, LiveFunction, LiveIndex, LiveKeyspace, LiveOptions,
    LiveSchema, LiveTable, LiveType, LiveView,
};
pub use migrator::Migrator;
pub use models::Models;
pub use plan::{Change, MigrationPlan, Mismatch, Refusal, Step, Unmanaged};
