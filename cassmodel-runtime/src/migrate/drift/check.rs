//! The check: the identity table read by token range, each entity's rows looked up in its
//! other tables by the keys its identity row gives (rows missing, cells different); then
//! each other table read by token range, each row traced to its entity's identity row
//! (rows extra: no identity row, or a key the entity no longer has). Each pass's ranges are
//! shared through the record (`shared.rs`); the rows' work is `rows.rs`.

use futures::{StreamExt, TryStreamExt};

use super::options::DriftOptions;
use super::read::Shape;
use super::repair::Writes;
use super::report::{DriftReport, TableDrift};
use super::rows::{Check, fields};
use super::shared::{self, PREFIX, Pass, merge};
use crate::exec::change::identity_of;
use crate::exec::entity::EntityWithIdentity;
use crate::exec::read::token_ranges;
use crate::migrate::copy::verify::sampled;
use crate::migrate::error::MigrationError;
use crate::session::db::Db;

/// Compares the tables of entity `E` (every table it lists, against its identity table, which
/// holds one row per entity) and, with [`DriftOptions::repair`], makes them agree.
///
/// Found, per table: rows **missing** (an entity's row under the key its identity row gives
/// is not there), rows **extra** (a row whose entity has no identity row, or whose entity's
/// key fields give another key: a stale row under an old key), and rows **different** (a
/// cell whose value or TTL is not the winning copy's).
///
/// The winning copy of each field is the one Cassandra would keep among replicas: the latest
/// write time, then the greater value. A null cell has no write time CQL can read: where the
/// identity table holds the field its copy decides, else a value wins over a null. Key fields
/// follow the identity table. The repair writes each cell with the winner's write time and TTL,
/// so a write made by the application while the check runs is newer and wins; extra rows are
/// deleted only with [`DriftOptions::delete_extra`].
///
/// The check reads while the application writes: a change made during the check can show as
/// a difference that is gone when checked again.
pub async fn check_entity<E: EntityWithIdentity>(
    db: &Db,
    options: &DriftOptions,
) -> Result<DriftReport, MigrationError> {
    let tables = E::__TABLES;
    let identity = identity_of::<E, E::Identity>(tables)?;
    let mut shapes = Vec::with_capacity(tables.len());
    for t in tables {
        shapes.push(Shape::new(db, (t.schema)()).await?);
    }
    let at = tables
        .iter()
        .position(|t| std::ptr::eq(t, identity))
        .unwrap_or_default();
    let check = Check {
        db,
        options,
        tables,
        identity: at,
        fields: fields(tables, at),
        shapes,
        writes: Writes::default(),
    };
    let mut found = vec![TableDrift::default(); tables.len()];
    let found_in = check
        .pass(at, |lo, hi| check.identity_range(lo, hi))
        .await?;
    merge(&mut found, &found_in, options.listed);
    for t in (0..tables.len()).filter(|&t| t != at) {
        match check.identity_key_in(t) {
            Ok(columns) => {
                let columns = &columns;
                let found_in = check
                    .pass(t, |lo, hi| check.other_range(t, columns, (lo, hi)))
                    .await?;
                merge(&mut found, &found_in, options.listed);
            }
            Err(why) => found[t].extra_unchecked = Some(why),
        }
    }
    for (f, shape) in found.iter_mut().zip(&check.shapes) {
        f.table.clone_from(&shape.name);
    }
    Ok(DriftReport {
        entity: short_name::<E>().to_owned(),
        entities: found[at].rows,
        tables: found,
        sampled: options.sample.is_some(),
        repaired: options.repair,
    })
}

impl<E: EntityWithIdentity> Check<'_, E> {
    /// Every range of table `t`'s ring, each through `work`: shared with the other processes
    /// that run the same check through the record (resumable), or, for a sample, read here
    /// alone.
    async fn pass<F, Fut>(&self, t: usize, work: F) -> Result<Vec<TableDrift>, MigrationError>
    where
        F: Fn(i64, i64) -> Fut,
        Fut: Future<Output = Result<Vec<TableDrift>, MigrationError>>,
    {
        let options = self.options;
        if options.sample.is_some() {
            let ranges = sampled(token_ranges(options.ranges), options.sample);
            let total = u32::try_from(ranges.len()).unwrap_or(u32::MAX);
            let mut found = vec![TableDrift::default(); self.tables.len()];
            let mut each = futures::stream::iter(ranges)
                .map(|(lo, hi)| work(lo, hi))
                .buffer_unordered(options.ranges_in_flight);
            let mut done = 0;
            while let Some(range) = each.try_next().await? {
                merge(&mut found, &range, options.listed);
                done += 1;
                shared::report(options.progress.as_ref(), &self.shapes[t].name, done, total);
            }
            return Ok(found);
        }
        let (identity, table) = (&self.shapes[self.identity], &self.shapes[t]);
        let mode = match (options.repair, options.delete_extra) {
            (false, _) => "check",
            (true, false) => "repair",
            (true, true) => "repair+delete",
        };
        let pass = Pass {
            name: format!("{PREFIX}{mode}:{}>{}", identity.name, table.name),
            keyspace: &identity.keyspace,
            ranges: options.ranges.max(1),
            ranges_in_flight: options.ranges_in_flight,
            tables: self.tables.len(),
            listed: options.listed,
            table: &table.name,
            progress: options.progress.as_ref(),
        };
        shared::run(self.db, &pass, work).await
    }
}

/// `Video` for `my_crate::models::Video`.
pub(super) fn short_name<E>() -> &'static str {
    let full = std::any::type_name::<E>();
    full.rsplit("::").next().unwrap_or(full)
}
