//! The drift check of an entity's tables (`#[derive(CassEntity)]` with
//! `#[cass(identity = T)]`): the same data kept in several tables drifts when something
//! writes one table and not the others (another service, a script, `cqlsh`, an older release
//! of the application, a batch that was not logged). [`check_entity`] reads every table by
//! token range and reports rows missing, extra and different in each, with their keys;
//! with [`DriftOptions::repair`] it makes the tables agree, cell by cell, as Cassandra
//! reconciles replicas (the latest write time wins), writing each cell with the write time
//! and TTL of the copy that won. The migration command runs it for the entities linked into
//! the binary: `migrate check-entity Video` (`--repair`, `--delete-extra`, `--sample F`).

mod check;
mod options;
mod read;
mod reconcile;
mod registry;
mod repair;
mod report;
mod rows;
pub(crate) mod shared;

pub use check::check_entity;
pub use options::DriftOptions;
pub use registry::{EntityChecker, EntityEntry, checker, registered_entities};
pub use report::{DriftReport, TableDrift};
