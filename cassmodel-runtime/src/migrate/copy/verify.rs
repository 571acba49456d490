//! Verify: the source (converted) against the new table, row by row: rows missing from the
//! new table, rows that differ, and rows of the new table that no source row gives (extra).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use futures::{StreamExt, TryStreamExt};
use scylla::statement::prepared::PreparedStatement;

use super::convert::CopyFrom;
use super::record::{copy_again, record_verified};
use super::setup::{Copy, KIND, copy_of, describe, encoded, prepare};
use super::source::SourceRow;
use crate::error::errors::Error;
use crate::exec::read::{first_by_key_prefix, token_ranges};
use crate::exec::send;
use crate::mapping::table::Columns;
use crate::migrate::error::MigrationError;
use crate::session::db::Db;
use crate::statement::cql;
use crate::statement::options::QueryOptions;

/// How a verify runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct VerifyOptions {
    /// Token ranges each table's ring is read in (default 256).
    pub ranges: u32,
    /// Ranges read at once (default 4).
    pub ranges_in_flight: usize,
    /// Row look-ups in flight per range (default 32).
    pub lookups_in_flight: usize,
    /// Check only this fraction of the ranges (e.g. 0.05), for very large tables; the
    /// outcome of a sampled verify is not recorded as the copy's verify.
    pub sample: Option<f64>,
    /// Keys listed per kind of difference (default 10).
    pub listed: usize,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            ranges: 256,
            ranges_in_flight: 4,
            lookups_in_flight: 32,
            sample: None,
            listed: 10,
        }
    }
}

impl VerifyOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks only `fraction` (0 to 1) of the ranges.
    pub fn sample(mut self, fraction: f64) -> Self {
        self.sample = Some(fraction.clamp(0.0, 1.0));
        self
    }
}

/// What a verify found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct VerifyReport {
    /// `keyspace.table` copied into.
    pub target: String,
    /// `keyspace.table` copied from.
    pub source: String,
    /// Source rows read.
    pub source_rows: u64,
    /// Rows of the new table read.
    pub target_rows: u64,
    /// Source rows whose row is not in the new table.
    pub missing: u64,
    /// Source rows whose row in the new table holds other values.
    pub different: u64,
    /// Rows of the new table that no source row gives; for a copy converted by a function,
    /// which cannot be traced back to the source, counted as the new table's rows beyond the
    /// source's.
    pub extra: u64,
    /// Source rows whose conversion failed (never copied).
    pub failed: u64,
    /// The first keys (in the new table) of each: missing, different, extra.
    pub first_missing: Vec<String>,
    /// See [`first_missing`](Self::first_missing).
    pub first_different: Vec<String>,
    /// See [`first_missing`](Self::first_missing); empty for a converted copy.
    pub first_extra: Vec<String>,
    /// Whether only some ranges were checked.
    pub sampled: bool,
    /// Ranges of the copy's record that held a missing or different row, marked not done:
    /// the next `backfill` copies them again (a counter copy repairs them).
    pub ranges_to_copy: u32,
}

impl VerifyReport {
    /// No row missing, different or extra, and every row converted.
    pub fn is_clean(&self) -> bool {
        self.missing == 0 && self.different == 0 && self.extra == 0 && self.failed == 0
    }
}

impl std::fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} <- {}{}: {} source rows, {} rows here; {} missing, {} different, {} extra, {} \
             not converted",
            self.target,
            self.source,
            if self.sampled { " (sampled)" } else { "" },
            self.source_rows,
            self.target_rows,
            self.missing,
            self.different,
            self.extra,
            self.failed
        )?;
        if self.ranges_to_copy > 0 {
            write!(
                f,
                "; {} range(s) with a row missing or different marked to copy again \
                 (`backfill`)",
                self.ranges_to_copy
            )?;
        }
        for (what, keys) in [
            ("missing", &self.first_missing),
            ("different", &self.first_different),
            ("extra", &self.first_extra),
        ] {
            for k in keys {
                write!(f, "\n  {what}: {k}")?;
            }
        }
        Ok(())
    }
}

/// Compares `T`'s source (each row converted) with `T`'s table: every source row must be
/// there with the same values, and, for a copy by name, every row there must come from a
/// source row. A full (not sampled) verify is recorded with the copy: `migrate status` shows
/// it, and `migrate drop-source` asks for a clean one.
///
/// Rows written by the application to one table only while the verify reads both show as
/// differences: verify after the backfill, with both tables written alike (dual writes).
pub async fn verify<T: CopyFrom>(
    db: &Db,
    options: &VerifyOptions,
) -> Result<VerifyReport, MigrationError> {
    let copy = copy_of::<T>(db, 1000).await?;
    let ranges = sampled(token_ranges(options.ranges), options.sample);
    let report = Mutex::new(VerifyReport {
        target: copy.target.clone(),
        source: copy.source.name(),
        sampled: options.sample.is_some(),
        ..VerifyReport::default()
    });
    let check = Check {
        db,
        copy: &copy,
        options,
        report: &report,
        source_rows: AtomicU64::new(0),
        target_rows: AtomicU64::new(0),
    };
    // The source's ranges with a row missing from the new table or different there.
    let checking = &check;
    let differing: Vec<(i64, i64)> = futures::stream::iter(ranges.iter().copied())
        .map(|(lo, hi)| async move {
            let differs = checking.source_range::<T>(lo, hi).await?;
            Ok::<_, MigrationError>(differs.then_some((lo, hi)))
        })
        .buffer_unordered(options.ranges_in_flight)
        .try_filter_map(|r| std::future::ready(Ok(r)))
        .try_collect()
        .await?;
    match check.source_has_row(db).await? {
        Some(exists) => {
            let scan = prepare(
                db,
                cql::token_range_scan(
                    T::schema(),
                    &copy.target_keyspace,
                    (T::schema().all_columns(), &[]),
                ),
                true,
            )
            .await?;
            futures::stream::iter(ranges.iter().copied())
                .map(|(lo, hi)| check.target_range::<T>(lo, hi, &scan, &exists))
                .buffer_unordered(options.ranges_in_flight)
                .try_collect::<()>()
                .await?;
        }
        // Rows of another ring's sample cannot be counted against these: no extra then.
        None if options.sample.is_none() => check.count_target::<T>(&ranges).await?,
        None => {}
    }
    let (source_rows, target_rows) = (
        check.source_rows.load(Ordering::Relaxed),
        check.target_rows.load(Ordering::Relaxed),
    );
    let mut report = report
        .into_inner()
        .map_err(|_| MigrationError::Copy("a verify task panicked".into()))?;
    report.source_rows = source_rows;
    report.target_rows = target_rows;
    if copy.source_cell.is_none() && options.sample.is_none() {
        let copied = report.source_rows - report.missing - report.failed;
        report.extra = report.target_rows.saturating_sub(copied);
    }
    if !report.sampled {
        record_verified(db, &copy.target, &report.source, report.is_clean()).await?;
    }
    report.ranges_to_copy = copy_again(db, &copy.target, &differing).await?;
    Ok(report)
}

/// Every `1/fraction`-th range (all without a fraction), spread evenly over the ring.
pub(crate) fn sampled(ranges: Vec<(i64, i64)>, fraction: Option<f64>) -> Vec<(i64, i64)> {
    let Some(f) = fraction.filter(|f| *f < 1.0) else {
        return ranges;
    };
    let keep = ((ranges.len() as f64 * f).ceil() as usize).max(1);
    let step = ranges.len() as f64 / keep as f64;
    (0..keep)
        .filter_map(|i| ranges.get((i as f64 * step) as usize).copied())
        .collect()
}

struct Check<'a> {
    db: &'a Db,
    copy: &'a Copy,
    options: &'a VerifyOptions,
    report: &'a Mutex<VerifyReport>,
    source_rows: AtomicU64,
    target_rows: AtomicU64,
}

/// What one row of a verify found.
enum Found {
    Same,
    Missing(String),
    Different(String),
    Failed,
}

impl Check<'_> {
    fn list(&self, found: Found) {
        let Ok(mut r) = self.report.lock() else {
            return;
        };
        let listed = self.options.listed;
        let push = |keys: &mut Vec<String>, k: String| {
            if keys.len() < listed {
                keys.push(k);
            }
        };
        match found {
            Found::Same => {}
            Found::Missing(k) => {
                r.missing += 1;
                push(&mut r.first_missing, k);
            }
            Found::Different(k) => {
                r.different += 1;
                push(&mut r.first_different, k);
            }
            Found::Failed => r.failed += 1,
        }
    }

    /// Every source row of range `lo..=hi`, converted and looked up in the target: whether
    /// one was missing or different.
    async fn source_range<T: CopyFrom>(&self, lo: i64, hi: i64) -> Result<bool, MigrationError> {
        let differs = &AtomicBool::new(false);
        let scan = &self.copy.scan;
        let pager = send::pager(self.db, KIND, scan, (lo, hi)).await?;
        pager
            .rows_stream::<SourceRow<T::Source>>()
            .map_err(Error::from)?
            .map_err(|e| MigrationError::from(Error::from(e)))
            .map_ok(|source| async move {
                self.source_rows.fetch_add(1, Ordering::Relaxed);
                let found = match T::convert(source.row) {
                    Err(_) => Found::Failed,
                    Ok(row) => self.lookup(&row).await?,
                };
                if matches!(found, Found::Missing(_) | Found::Different(_)) {
                    differs.store(true, Ordering::Relaxed);
                }
                self.list(found);
                Ok::<(), MigrationError>(())
            })
            .try_buffer_unordered(self.options.lookups_in_flight)
            .try_collect::<()>()
            .await?;
        Ok(differs.load(Ordering::Relaxed))
    }

    /// The target's row with the key of `row`, compared with it.
    async fn lookup<T: CopyFrom>(&self, row: &T) -> Result<Found, MigrationError> {
        let key = T::schema().primary_key();
        let options = QueryOptions::default();
        let there =
            first_by_key_prefix::<T>(self.db, key.len(), Columns::new(row, key), &options).await?;
        let describe_key = || describe(row, key, &self.copy.columns);
        Ok(match there {
            None => Found::Missing(describe_key()),
            Some(there)
                if encoded(&there, &self.copy.columns) != encoded(row, &self.copy.columns) =>
            {
                Found::Different(describe_key())
            }
            Some(_) => Found::Same,
        })
    }

    /// For a copy by name, the statement that tells whether the source has the row of a
    /// primary key.
    async fn source_has_row(&self, db: &Db) -> Result<Option<PreparedStatement>, MigrationError> {
        if self.copy.source_cell.is_none() {
            return Ok(None);
        }
        Ok(Some(
            prepare(db, self.copy.source.row_exists(), true).await?,
        ))
    }

    /// Every target row of range `lo..=hi` (of the target's ring), looked up in the source by
    /// the source's key (a copy by name holds it under the same column names).
    async fn target_range<T: CopyFrom>(
        &self,
        lo: i64,
        hi: i64,
        scan: &PreparedStatement,
        exists: &PreparedStatement,
    ) -> Result<(), MigrationError> {
        let schema = T::schema();
        let key_in_target: Vec<usize> = self
            .copy
            .source
            .primary_key
            .iter()
            .filter_map(|k| schema.column_index(k))
            .collect();
        let pager = send::pager(self.db, KIND, scan, (lo, hi)).await?;
        let ps = exists;
        pager
            .rows_stream::<T>()
            .map_err(Error::from)?
            .map_err(|e| MigrationError::from(Error::from(e)))
            .map_ok(|row| {
                let key_in_target = &key_in_target;
                async move {
                    self.target_rows.fetch_add(1, Ordering::Relaxed);
                    let res =
                        send::run(self.db, KIND, ps, Columns::new(&row, key_in_target)).await?;
                    let rows = res.into_rows_result().map_err(Error::from)?.rows_num();
                    if rows == 0
                        && let Ok(mut r) = self.report.lock()
                    {
                        r.extra += 1;
                        if r.first_extra.len() < self.options.listed {
                            r.first_extra.push(describe(
                                &row,
                                schema.primary_key(),
                                &self.copy.columns,
                            ));
                        }
                    }
                    Ok::<(), MigrationError>(())
                }
            })
            .try_buffer_unordered(self.options.lookups_in_flight)
            .try_collect::<()>()
            .await
    }

    /// For a converted copy: the target's rows in `ranges`, counted.
    async fn count_target<T: CopyFrom>(&self, ranges: &[(i64, i64)]) -> Result<(), MigrationError> {
        let schema = T::schema();
        let token = cql::token_of(schema);
        let count = prepare(
            self.db,
            format!(
                "SELECT COUNT(*) FROM {} WHERE {token} >= ? AND {token} <= ?",
                crate::schema::ddl::qualified(&self.copy.target_keyspace, schema.name)
            ),
            true,
        )
        .await?;
        for &(lo, hi) in ranges {
            let n = send::first::<(i64,)>(self.db, KIND, &count, (lo, hi))
                .await?
                .map_or(0, |(n,)| n);
            self.target_rows
                .fetch_add(u64::try_from(n).unwrap_or(0), Ordering::Relaxed);
        }
        Ok(())
    }
}
