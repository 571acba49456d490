//! [`MigrationError`]: every refusal or mismatch in one error, each on its own line.

use std::fmt;

use super::plan::{Mismatch, Refusal};
use crate::error::errors::Error;

fn bullets<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| format!("\n  - {}", i.to_string().replace('\n', "\n    ")))
        .collect()
}

/// Everything that can go wrong while planning, applying, writing or validating a migration.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MigrationError {
    /// The plan has changes Cassandra cannot make in place; nothing was run.
    #[error(
        "the migration is refused, nothing was changed: {} change(s) cannot be made in place:{}",
        .0.len(),
        bullets(.0)
    )]
    Refused(Vec<Refusal>),
    /// The cluster does not match the models.
    #[error(
        "the cluster's schema does not match the models ({} mismatch(es)):{}\n\
         run the migration (`plan`, then `apply`) or fix the models",
        .0.len(),
        bullets(.0)
    )]
    Mismatch(Vec<Mismatch>),
    /// The set of models is inconsistent (no keyspace, two structs for one table).
    #[error("the models cannot be migrated:{}", bullets(.0))]
    Models(Vec<String>),
    /// The models use what the cluster's Cassandra version lacks (checked before planning:
    /// the server would refuse the DDL with a syntax error).
    #[error(
        "the models use what Cassandra {needs} added, and the cluster runs Cassandra {server}:{}\n\
         upgrade the cluster to Cassandra {needs} or later, or take these out of the models",
        bullets(.features)
    )]
    Unsupported {
        /// The oldest version among the cluster's nodes (`4.1.10`).
        server: String,
        /// The first version that has them (`5.0`).
        needs: &'static str,
        /// Each use, with its table or type.
        features: Vec<String>,
    },
    /// `system_schema` holds something cassmodel cannot read (e.g. an unknown type text).
    #[error("cannot read the live schema: {0}")]
    LiveSchema(String),
    /// A statement of the plan failed.
    #[error("step `{description}` failed: {source}")]
    Step {
        /// The step's description.
        description: String,
        /// What failed.
        #[source]
        source: Box<Error>,
    },
    /// After applying, the cluster still differs from the models (e.g. someone changed the
    /// schema at the same time).
    #[error("after applying, the cluster still differs from the models; the plan now is:\n{0}")]
    Incomplete(String),
    /// Reading or writing migration files.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A key change's copy failed on its way (ranges that failed every attempt, a lease that
    /// ran out): what, and what to do.
    #[error("{0}")]
    Copy(String),
    /// A key change's command refuses to run, and nothing was written: the source or the new
    /// table is missing, the new table holds rows of its own, the record is of another copy,
    /// `drop-source` before a clean verify, ...: what, and what to do. The CLI exits with
    /// code 3, as for a plan's refusals.
    #[error("{0}")]
    CopyRefused(String),
    /// The operation needs a cluster, and the migrator has none ([`Migrator::offline`](super::Migrator::offline)).
    #[error("this needs a connection to the cluster; the migrator is offline")]
    Offline,
    /// A driver or connection error.
    #[error(transparent)]
    Db(Box<Error>),
}

impl From<Error> for MigrationError {
    fn from(e: Error) -> Self {
        MigrationError::Db(Box::new(e))
    }
}
