//! Where each copy recorded on a cluster stands (`migrate status`), and forgetting records
//! (`migrate forget-copy`).

use std::collections::BTreeMap;

use super::keyspace::RECORD_KEYSPACE;
use super::lease::{HeldRanges, holders};
use super::record::{KIND, forget, keyspace_columns, lease_lookup, leases, now_millis, recorded};
use crate::exec::send::{self, repeatable};
use crate::migrate::error::MigrationError;
use crate::schema::ddl::qualified;
use crate::session::db::Db;

/// Where a copy stands: from [`status`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopyStatus {
    /// `keyspace.table` copied into.
    pub target: String,
    /// `keyspace.table` copied from (empty when the record does not say).
    pub source: String,
    /// Token ranges done.
    pub ranges_done: u32,
    /// Token ranges in all (0 before the first backfill).
    pub ranges: u32,
    /// Ranges not done whose lease has not lapsed.
    pub ranges_held: u32,
    /// Who holds them, by process: whether it renews its leases, when it was last heard
    /// from, when its leases lapse.
    pub holders: Vec<HeldRanges>,
    /// Rows copied by the ranges done.
    pub rows: i64,
    /// Whether every range is done.
    pub finished: bool,
    /// The outcome of the last verify: `Some(true)` when it found no difference.
    pub verified_clean: Option<bool>,
    /// Whether it is the offline copy of a counter table (its steps differ: no dual writes,
    /// one release at the end).
    pub offline: bool,
    /// Whether the source table exists (`drop-source` drops it at the end).
    pub source_exists: bool,
    /// Whether the new table exists (when it does not, its keyspace dropped say, the record
    /// is all that is left of the copy).
    pub target_exists: bool,
}

impl std::fmt::Display for CopyStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = if self.source.is_empty() {
            "(source not recorded)"
        } else {
            &self.source
        };
        write!(f, "{} <- {source}: ", self.target)?;
        if self.ranges == 0 {
            write!(f, "no range copied yet")?;
        } else {
            write!(
                f,
                "{} of {} ranges copied ({} rows)",
                self.ranges_done, self.ranges, self.rows
            )?;
        }
        for h in &self.holders {
            write!(f, ", {h}")?;
        }
        write!(f, "; ")?;
        self.stage(f)
    }
}

impl CopyStatus {
    /// The step the copy is at, and the command of the next one.
    fn stage(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (t, s) = (&self.target, &self.source);
        if !self.target_exists {
            return write!(
                f,
                "{t} no longer exists: this record is all that is left of the copy; \
                 `forget-copy --dropped` forgets it"
            );
        }
        let clean = self.verified_clean == Some(true);
        if !self.source_exists && self.finished && clean {
            let attributes = if self.offline {
                "#[cass(from = .., offline)]"
            } else {
                "#[cass(from = ..)] and `dual_writes`"
            };
            return write!(
                f,
                "the key change is finished: {s} was dropped; what remains: remove \
                 {attributes} from the struct of {t}, then `forget-copy {t}` forgets this record"
            );
        }
        if !self.source_exists {
            return write!(
                f,
                "{s} no longer exists, so the copy cannot go on: `forget-copy {t}` forgets \
                 this record"
            );
        }
        let of = if self.offline { 6 } else { 7 };
        match (self.finished, self.verified_clean) {
            (false, _) => write!(
                f,
                "step 3 of {of}, the copy: `backfill` (again, to continue; on more machines, \
                 to share it)"
            ),
            (true, None) => write!(f, "copied; step 4 of {of}: `verify`"),
            (true, Some(false)) => write!(
                f,
                "step 4 of {of}: the last verify found rows a copy does not mend (rows of \
                 {t} that {s} lacks, or rows whose conversion failed): `verify` lists them; \
                 mend them, then `verify` again"
            ),
            (true, Some(true)) if self.offline => write!(
                f,
                "copied and verified; steps 5 and 6: release the application reading and \
                 writing {t} (no more writes to {s}), then `drop-source {t}`"
            ),
            (true, Some(true)) => write!(
                f,
                "copied and verified; steps 5 to 7: release the application reading {t}, then \
                 writing {t} alone, then `drop-source {t}`"
            ),
        }
    }
}

/// A row of `copies`: target, source, ranges, last verify.
type CopyRow = (String, Option<String>, Option<i32>, Option<bool>);

/// Every row of `copies`; none when no copy was ever started on this cluster.
async fn copy_rows(db: &Db) -> Result<Vec<CopyRow>, MigrationError> {
    let cql = format!(
        "SELECT migration, source, ranges, verified_clean FROM {}",
        qualified(RECORD_KEYSPACE, "copies")
    );
    match send::rows(db, KIND, repeatable(&cql), ()).await {
        Ok(rows) => Ok(rows),
        Err(e) if e.is_schema_mismatch() => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

/// The tables of keyspace `ks`, each with whether it has a counter column (none when the
/// keyspace does not exist).
async fn tables_of(db: &Db, ks: &str) -> Result<BTreeMap<String, bool>, MigrationError> {
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    for (table, _, ty) in keyspace_columns(db, ks).await? {
        *out.entry(table).or_default() |= ty == "counter";
    }
    Ok(out)
}

/// The tables of every keyspace of `names` (`keyspace.table`).
struct Tables(BTreeMap<String, BTreeMap<String, bool>>);

impl Tables {
    async fn of<'a>(
        db: &Db,
        names: impl Iterator<Item = &'a str>,
    ) -> Result<Tables, MigrationError> {
        let mut out = BTreeMap::new();
        for name in names {
            let ks = name.split_once('.').map_or(name, |(ks, _)| ks);
            if !out.contains_key(ks) {
                out.insert(ks.to_owned(), tables_of(db, ks).await?);
            }
        }
        Ok(Tables(out))
    }

    /// `Some(has counters)` when `name` (`keyspace.table`) exists.
    fn get(&self, name: &str) -> Option<bool> {
        let (ks, t) = name.split_once('.')?;
        self.0.get(ks)?.get(t).copied()
    }
}

/// Where every copy recorded on the cluster of `db` stands: one line each, by target.
pub async fn status(db: &Db) -> Result<Vec<CopyStatus>, MigrationError> {
    status_of(db, None).await
}

/// [`status`] of the copies into or from a table of keyspace `keyspace` only.
pub async fn status_in(db: &Db, keyspace: &str) -> Result<Vec<CopyStatus>, MigrationError> {
    status_of(db, Some(keyspace)).await
}

fn in_keyspace(name: &str, keyspace: &str) -> bool {
    name.split_once('.').is_some_and(|(ks, _)| ks == keyspace)
}

async fn status_of(db: &Db, keyspace: Option<&str>) -> Result<Vec<CopyStatus>, MigrationError> {
    let copies: Vec<CopyRow> = copy_rows(db)
        .await?
        .into_iter()
        // The drift checks' passes share the record's ranges, and are not copies.
        .filter(|(target, ..)| !target.starts_with(crate::migrate::drift::shared::PREFIX))
        .filter(|(target, source, _, _)| match keyspace {
            None => true,
            Some(k) => {
                in_keyspace(target, k) || source.as_deref().is_some_and(|s| in_keyspace(s, k))
            }
        })
        .collect();
    if copies.is_empty() {
        return Ok(Vec::new());
    }
    let names = copies
        .iter()
        .flat_map(|(t, s, _, _)| [Some(t.as_str()), s.as_deref()])
        .flatten();
    let tables = Tables::of(db, names).await?;
    let lease = lease_lookup(db).await?;
    let now = now_millis();
    let mut out = Vec::new();
    for (migration, source, ranges, verified) in copies {
        let states = recorded(db, &migration).await?;
        let done = states.iter().filter(|r| r.done).count();
        let not_done: Vec<i64> = states.iter().filter(|r| !r.done).map(|r| r.start).collect();
        let held: Vec<_> = leases(db, &lease, &migration, &not_done)
            .await?
            .into_iter()
            .flatten()
            .map(|l| (l, None))
            .collect();
        let holders = holders(&held, now);
        let ranges = u32::try_from(ranges.unwrap_or(0)).unwrap_or(0);
        let source = source.unwrap_or_default();
        out.push(CopyStatus {
            offline: tables.get(&migration).unwrap_or(false),
            target_exists: tables.get(&migration).is_some(),
            source_exists: tables.get(&source).is_some(),
            target: migration,
            source,
            ranges_done: u32::try_from(done).unwrap_or(u32::MAX),
            ranges,
            ranges_held: holders.iter().map(|h| h.ranges).sum(),
            holders,
            rows: states.iter().filter(|r| r.done).map(|r| r.rows).sum(),
            finished: ranges > 0 && done == ranges as usize,
            verified_clean: verified,
        });
    }
    out.sort_by(|a, b| a.target.cmp(&b.target));
    Ok(out)
}

/// Forgets the record of the copy into `target` (`keyspace.table`), whatever became of its
/// tables: a copy started again afterwards starts from nothing (its first backfill checks the
/// new table first). Refused when no such copy is recorded, and while a process holds one of
/// its ranges and renews the lease (a backfill of it is running: stop it first).
pub async fn forget_copy(db: &Db, target: &str) -> Result<(), MigrationError> {
    let keyspace = target.split_once('.').map_or(target, |(ks, _)| ks);
    let copies = status_in(db, keyspace).await?;
    let Some(copy) = copies.iter().find(|c| c.target == target) else {
        return Err(MigrationError::CopyRefused(format!(
            "no copy into {target} is recorded: nothing to forget (`status` lists the copies)"
        )));
    };
    if let Some(h) = copy.holders.iter().find(|h| h.renewing) {
        return Err(MigrationError::CopyRefused(format!(
            "a backfill of the copy into {target} is running ({h}): stop it, then forget the \
             copy"
        )));
    }
    forget(db, target).await
}

/// Forgets the record of every copy whose new table no longer exists (dropped, or its
/// keyspace): the targets forgotten. The copies of existing tables are kept; forget one of
/// them by name ([`forget_copy`]).
pub async fn forget_dropped(db: &Db) -> Result<Vec<String>, MigrationError> {
    let mut forgotten = Vec::new();
    for copy in status(db).await?.into_iter().filter(|c| !c.target_exists) {
        forget(db, &copy.target).await?;
        forgotten.push(copy.target);
    }
    Ok(forgotten)
}
