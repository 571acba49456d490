//! Running a plan: each step in order, skipped when the cluster already has it (another
//! process, or an earlier run that was interrupted, applied it), run with an idempotent
//! statement otherwise; then, either way, schema agreement before the next step, and for a
//! new index, until every node can answer reads that use it. A step whose answer timed out is
//! looked for again after schema agreement, and run again only when the cluster lacks it.

use super::error::MigrationError;
use super::live::LiveSchema;
use super::plan::{Change, Step};
use crate::progress::{OnProgress, Progress};
use crate::session::db::Db;

/// What [`Migrator::apply`](super::Migrator::apply) did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApplyReport {
    /// Steps this call ran, in order.
    pub applied: Vec<Step>,
    /// Steps the cluster already had when their turn came (applied by another process or an
    /// earlier, interrupted run); not run again.
    pub already_applied: Vec<Step>,
}

/// How often a step is tried when it is refused because the schema has not reached its
/// coordinator yet, or when its answer timed out.
const STEP_ATTEMPTS: usize = 5;
/// The pause before the second attempt of such a step; it grows by as much each time
/// (at most 2 s in all).
const STEP_BACKOFF: std::time::Duration = std::time::Duration::from_millis(200);

/// Runs `steps`; after a step that creates an index, waits up to `index_wait` until every
/// node can answer reads that use it.
pub(crate) async fn apply_steps(
    db: &Db,
    steps: &[Step],
    index_wait: std::time::Duration,
    progress: Option<&OnProgress>,
) -> Result<ApplyReport, MigrationError> {
    let mut report = ApplyReport::default();
    for (n, step) in steps.iter().enumerate() {
        if let Some(p) = progress {
            p.report(&Progress::Step {
                n: n + 1,
                total: steps.len(),
                description: step.description.clone(),
            });
        }
        let done = run_step(db, step).await?;
        // Also for a step found done: another process may have applied it a moment ago, and
        // the node that runs the next step may not know it yet.
        await_agreement(db, step).await?;
        await_index(db, step, index_wait, progress).await?;
        if done {
            report.already_applied.push(step.clone());
        } else {
            report.applied.push(step.clone());
        }
    }
    Ok(report)
}

/// Runs one step until it is done, or found done: `Ok(true)` when another process (or an
/// earlier run) had applied it.
async fn run_step(db: &Db, step: &Step) -> Result<bool, MigrationError> {
    let mut attempt = 1;
    // Whether this call sent the step and its answer timed out: then a step found done
    // is this call's own.
    let mut timed_out = false;
    loop {
        let live = LiveSchema::read(db, &[step.change.keyspace()]).await?;
        if step.change.is_done(&live) {
            return Ok(!timed_out);
        }
        match db.execute_ddl(&step.cql).await {
            Ok(()) => return Ok(false),
            // Another process's change (the table this index is on, created through
            // another coordinator at the same moment) has not reached this coordinator
            // yet: wait for agreement and look again. Every step is idempotent.
            Err(e) if e.is_schema_mismatch() && attempt < STEP_ATTEMPTS => {
                await_agreement(db, step).await?;
                // Agreement can be reported while a node still merges two concurrent
                // definitions of one table: give it a little longer each time.
                tokio::time::sleep(STEP_BACKOFF * u32::try_from(attempt).unwrap_or(1)).await;
                attempt += 1;
            }
            // A schema change whose answer timed out may still be applied: the
            // coordinator goes on with it (a view's drop waits for its build to stop, a
            // loaded node is slow to answer). Wait for agreement, then the loop reads the
            // schema again and finds the step done, or runs its idempotent statement again.
            Err(e) if e.is_timeout() && attempt < STEP_ATTEMPTS => {
                await_agreement(db, step).await?;
                timed_out = true;
                attempt += 1;
            }
            Err(source) => {
                return Err(MigrationError::Step {
                    description: step.description.clone(),
                    source: Box::new(source),
                });
            }
        }
    }
}

/// After a step that creates an index, waits up to `index_wait` until every node can answer
/// reads that use it, reporting each pause to `progress`.
async fn await_index(
    db: &Db,
    step: &Step,
    index_wait: std::time::Duration,
    progress: Option<&OnProgress>,
) -> Result<(), MigrationError> {
    // Also for a step found done: the index may still be building (an earlier run that
    // gave up waiting, another process).
    if let Change::CreateIndex {
        keyspace, index, ..
    } = &step.change
    {
        let building = |waited| {
            if let Some(p) = progress {
                p.report(&Progress::IndexBuilding {
                    keyspace: keyspace.clone(),
                    index: index.clone(),
                    waited,
                    limit: index_wait,
                });
            }
        };
        db.await_indexes_reporting(keyspace, &[index], index_wait, &building)
            .await
            .map_err(|source| MigrationError::Step {
                description: format!(
                    "{} (waiting for the index to be queryable)",
                    step.description
                ),
                source: Box::new(source),
            })?;
    }
    Ok(())
}

/// Waits until every node reports the same schema version.
async fn await_agreement(db: &Db, step: &Step) -> Result<(), MigrationError> {
    db.await_schema_agreement()
        .await
        .map_err(|e| MigrationError::Step {
            description: format!("{} (waiting for schema agreement)", step.description),
            source: Box::new(e),
        })
}
