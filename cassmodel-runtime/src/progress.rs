//! What a long migration or sizing operation reports while it runs ([`Progress`]), for a
//! command-line tool to show: `Migrator::on_progress` for `apply` (its steps, the builds of
//! new indexes), `sizing::live_with_progress` for a count of each partition's rows,
//! `DriftOptions::on_progress` for the ranges of a drift check.

#[cfg(feature = "migrate")]
use std::sync::Arc;
use std::time::Duration;

/// One report of a long operation.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Progress {
    /// `apply` starts step `n` (from 1) of `total`.
    Step {
        /// The step's number, from 1.
        n: usize,
        /// The plan's steps.
        total: usize,
        /// What the step does (`create table ks.t`, ...).
        description: String,
    },
    /// `apply` waits for a new index to be queryable on every node (reported about once a
    /// second while it builds).
    IndexBuilding {
        /// The index's keyspace.
        keyspace: String,
        /// The index.
        index: String,
        /// How long it has waited.
        waited: Duration,
        /// How long it waits at most ([`Migrator::index_wait`](crate::migrate::Migrator::index_wait)).
        limit: Duration,
    },
    /// A count of each partition's rows (`analyze --live --count-rows`) has read this many
    /// partitions and rows of `table` (every 1,000 partitions, and when it ends).
    Scanned {
        /// `keyspace.table`.
        table: String,
        /// Partitions counted so far.
        partitions: u64,
        /// Rows counted so far.
        rows: u64,
    },
    /// A drift check of an entity's tables (`check-entity`) has done `done` of the `total`
    /// token ranges of `table` (one of its passes; reported as ranges end, by any process
    /// that shares the check).
    Ranges {
        /// `keyspace.table` read in this pass.
        table: String,
        /// Ranges done.
        done: u32,
        /// Ranges of the pass.
        total: u32,
    },
}

/// A receiver of [`Progress`] reports, shared by the operations that make them.
#[cfg(feature = "migrate")]
#[derive(Clone)]
pub(crate) struct OnProgress(pub(crate) Arc<dyn Fn(&Progress) + Send + Sync>);

#[cfg(feature = "migrate")]
impl OnProgress {
    pub(crate) fn report(&self, p: &Progress) {
        (self.0)(p);
    }
}

#[cfg(feature = "migrate")]
impl std::fmt::Debug for OnProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnProgress")
    }
}
