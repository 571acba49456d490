//! Running a plan: each step in order, skipped when the cluster already has it (another
//! process, or an earlier run that was interrupted, applied it), run with an idempotent
//! statement otherwise, then schema agreement before the next step.

use super::MigrationError;
use super::live::LiveSchema;
use super::plan::Step;
use crate::db::Db;

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

pub(crate) async fn apply_steps(db: &Db, steps: &[Step]) -> Result<ApplyReport, MigrationError> {
    let mut report = ApplyReport::default();
    for step in steps {
        let live = LiveSchema::read(db.session(), &[step.change.keyspace()]).await?;
        if step.change.is_done(&live) {
            report.already_applied.push(step.clone());
            continue;
        }
        db.execute_ddl(&step.cql)
            .await
            .map_err(|source| MigrationError::Step {
                description: step.description.clone(),
                source: Box::new(source),
            })?;
        db.session()
            .await_schema_agreement()
            .await
            .map_err(|e| MigrationError::Step {
                description: format!("{} (waiting for schema agreement)", step.description),
                source: Box::new(crate::Error::Driver(Box::new(e))),
            })?;
        report.applied.push(step.clone());
    }
    Ok(report)
}
