//! The record of a copy, kept in the cluster itself (keyspace `cassmodel_migrations`), so that
//! a copy killed at any point continues where it was, from any machine, and several
//! processes share one copy: the token ring is cut into ranges, and each range is claimed
//! with a lightweight transaction and a lease before it is copied, then marked done. A range
//! whose worker died is taken again when its lease ends; copying it twice is harmless, since
//! every copied cell keeps its source's write time.
//!
//! Tables: `copies` (one row per copy: its source, its number of ranges, the outcome of its
//! last verify), `copy_ranges` (one partition per copy, a row per range: its end, whether it
//! is done and with how many rows; plain writes only) and `copy_leases` (one partition per
//! range: who holds it, until when; lightweight transactions only, so that claims of
//! different ranges never contend in one Paxos partition, and no column is written both
//! ways).

use std::collections::BTreeMap;

use futures::{StreamExt, TryStreamExt};

use scylla::statement::batch::{Batch, BatchStatement, BatchType};
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};

use super::setup;
use crate::error::Error;
use crate::migrate::error::MigrationError;
use crate::schema::ddl::{qualified, string_literal};
use crate::session::db::Db;

/// The keyspace of the records of every copy.
pub const RECORD_KEYSPACE: &str = "cassmodel_migrations";

/// What a claim of a range got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Claim {
    /// Another process holds the range.
    Held,
    /// The range, claimed for the first time: nothing of it was written before.
    First,
    /// The range, claimed before (by a process that died, an attempt that failed, or before a
    /// verify marked it to copy again): part of it may be written already.
    Again,
}

/// One range of the source's token ring, as the record has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RangeState {
    pub start: i64,
    pub end: i64,
    pub done: bool,
    pub rows: i64,
}

/// Where a copy stands: from [`status`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopyStatus {
    /// `keyspace.table` copied into.
    pub target: String,
    /// `keyspace.table` copied from.
    pub source: String,
    /// Token ranges done, and in all.
    pub ranges_done: u32,
    /// Token ranges in all.
    pub ranges: u32,
    /// Ranges held by a worker now (their lease has not ended).
    pub ranges_held: u32,
    /// Rows copied by the ranges done.
    pub rows: i64,
    /// Whether every range is done.
    pub finished: bool,
    /// The outcome of the last verify: `Some(true)` when it found no difference.
    pub verified_clean: Option<bool>,
    /// Whether it is the offline copy of a counter table (its steps differ: no dual writes,
    /// one release at the end).
    pub offline: bool,
}

impl std::fmt::Display for CopyStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} <- {}: {} of {} ranges copied ({} rows)",
            self.target, self.source, self.ranges_done, self.ranges, self.rows
        )?;
        if self.ranges_held > 0 {
            write!(f, ", {} being copied now", self.ranges_held)?;
        }
        let (t, s) = (&self.target, &self.source);
        let of = if self.offline { 6 } else { 7 };
        match (self.finished, self.verified_clean) {
            (false, _) => write!(
                f,
                "; step 3 of {of}, the copy: `backfill` (again, to continue; on more machines, \
                 to share it)"
            ),
            (true, None) => write!(f, "; copied; step 4 of {of}: `verify`"),
            (true, Some(false)) => write!(
                f,
                "; step 4 of {of}: the last verify found rows a copy does not mend (rows of \
                 {t} that {s} lacks, or rows whose conversion failed): `verify` lists them; \
                 mend them, then `verify` again"
            ),
            (true, Some(true)) if self.offline => write!(
                f,
                "; copied and verified; steps 5 and 6: release the application reading and \
                 writing {t} (no more writes to {s}), then `drop-source {t}`"
            ),
            (true, Some(true)) => write!(
                f,
                "; copied and verified; steps 5 to 7: release the application reading {t}, then \
                 writing {t} alone, then `drop-source {t}`"
            ),
        }
    }
}

/// The record of one copy (`migration` = the target's `keyspace.table`).
pub(super) struct Record<'d> {
    db: &'d Db,
    migration: String,
    take: PreparedStatement,
    lease_of: PreparedStatement,
    take_over: PreparedStatement,
    renew: PreparedStatement,
    release: PreparedStatement,
    done: PreparedStatement,
    is_done: PreparedStatement,
    list: PreparedStatement,
}

/// The prepared statement of `cql`, lightweight transactions at SERIAL consistency.
async fn prepare(db: &Db, cql: String) -> Result<PreparedStatement, MigrationError> {
    let mut ps = db
        .session()
        .prepare(cql.as_str())
        .await
        .map_err(|e| MigrationError::from(Error::execute(db.session(), &cql, e)))?;
    ps.set_serial_consistency(Some(SerialConsistency::Serial));
    ps.set_consistency(Consistency::Quorum);
    Ok(ps)
}

/// The one column of the row `ps` reads with `values`; `None` when there is no such row (or
/// the value is null).
async fn one_value<V>(
    db: &Db,
    ps: &PreparedStatement,
    values: impl scylla::serialize::row::SerializeRow,
) -> Result<Option<V>, MigrationError>
where
    V: for<'f> scylla::deserialize::value::DeserializeValue<'f, 'f>,
{
    let row: Option<(Option<V>,)> = db
        .session()
        .execute_unpaged(ps, values)
        .await
        .map_err(|e| Error::execute(db.session(), ps.get_statement(), e))?
        .into_rows_result()
        .map_err(Error::from)?
        .maybe_first_row()
        .map_err(Error::from)?;
    Ok(row.and_then(|(v,)| v))
}

/// Runs `ps` with `values`: whether its condition applied.
async fn applied(
    db: &Db,
    ps: &PreparedStatement,
    values: impl scylla::serialize::row::SerializeRow,
) -> Result<bool, MigrationError> {
    let res = db
        .session()
        .execute_unpaged(ps, values)
        .await
        .map_err(|e| Error::execute(db.session(), ps.get_statement(), e))?;
    Ok(crate::exec::write::applied(res)?)
}

/// The tables of the record, created if missing, in a keyspace replicated as `replication`
/// (the target keyspace's map, as `system_schema` has it).
async fn ensure_tables(
    db: &Db,
    replication: &BTreeMap<String, String>,
) -> Result<(), MigrationError> {
    let map: Vec<String> = replication
        .iter()
        .map(|(k, v)| format!("{}: {}", string_literal(k), string_literal(v)))
        .collect();
    // Two `CREATE TABLE IF NOT EXISTS` of one table at the same moment may both create it,
    // under two table ids; statements prepared against the id that lost then fail with
    // "Unknown CF". Copies started at once in one process (tests run in parallel, a job
    // backfilling several tables) create the record one after the other.
    static CREATING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _one_at_a_time = CREATING.lock().await;
    let ddl = [
        format!(
            "CREATE KEYSPACE IF NOT EXISTS {RECORD_KEYSPACE} WITH replication = {{{}}}",
            map.join(", ")
        ),
        format!(
            "CREATE TABLE IF NOT EXISTS {RECORD_KEYSPACE}.copies (migration text PRIMARY KEY, \
             source text, ranges int, verified_clean boolean)"
        ),
        format!(
            "CREATE TABLE IF NOT EXISTS {RECORD_KEYSPACE}.copy_ranges (migration text, \
             range_start bigint, range_end bigint, done boolean, rows bigint, \
             PRIMARY KEY (migration, range_start))"
        ),
        format!(
            "CREATE TABLE IF NOT EXISTS {RECORD_KEYSPACE}.copy_leases (migration text, \
             range_start bigint, owner text, lease_until bigint, \
             PRIMARY KEY ((migration, range_start)))"
        ),
    ];
    for cql in ddl {
        db.execute_ddl(&cql).await?;
    }
    // Created by another process a moment ago, perhaps: every node must know the tables
    // before they are read (else INCOMPATIBLE_SCHEMA).
    db.session()
        .await_schema_agreement()
        .await
        .map_err(|e| MigrationError::from(Error::Driver(Box::new(e))))?;
    Ok(())
}

impl<'d> Record<'d> {
    /// The record of the copy into `target` (`keyspace.table`) from `source`, with `ranges`
    /// ranges: created by the first process to start it; the others find it. A record of
    /// another source under the same target is an error.
    pub(super) async fn open(
        db: &'d Db,
        replication: &BTreeMap<String, String>,
        target: &str,
        source: &str,
        ranges: &[(i64, i64)],
    ) -> Result<Record<'d>, MigrationError> {
        ensure_tables(db, replication).await?;
        let r = qualified(RECORD_KEYSPACE, "copy_ranges");
        let l = qualified(RECORD_KEYSPACE, "copy_leases");
        let plain = |cql: String| setup::prepare(db, cql, true);
        let record = Record {
            db,
            migration: target.to_owned(),
            take: prepare(
                db,
                format!(
                    "INSERT INTO {l} (migration, range_start, owner, lease_until) \
                     VALUES (?, ?, ?, ?) IF NOT EXISTS"
                ),
            )
            .await?,
            lease_of: prepare(
                db,
                format!("SELECT lease_until FROM {l} WHERE migration = ? AND range_start = ?"),
            )
            .await?,
            take_over: prepare(
                db,
                format!(
                    "UPDATE {l} SET owner = ?, lease_until = ? WHERE migration = ? AND \
                     range_start = ? IF lease_until = ?"
                ),
            )
            .await?,
            renew: prepare(
                db,
                format!(
                    "UPDATE {l} SET lease_until = ? WHERE migration = ? AND range_start = ? \
                     IF owner = ?"
                ),
            )
            .await?,
            release: prepare(
                db,
                format!(
                    "UPDATE {l} SET lease_until = ? WHERE migration = ? AND range_start = ? \
                     IF owner = ?"
                ),
            )
            .await?,
            done: plain(format!(
                "UPDATE {r} SET done = true, rows = ? WHERE migration = ? AND range_start = ?"
            ))
            .await?,
            is_done: plain(format!(
                "SELECT done FROM {r} WHERE migration = ? AND range_start = ?"
            ))
            .await?,
            list: plain(format!(
                "SELECT range_start, range_end, done, rows FROM {r} WHERE migration = ?"
            ))
            .await?,
        };
        let start = prepare(
            db,
            format!(
                "INSERT INTO {} (migration, source, ranges) VALUES (?, ?, ?) IF NOT EXISTS",
                qualified(RECORD_KEYSPACE, "copies")
            ),
        )
        .await?;
        let count = i32::try_from(ranges.len()).unwrap_or(i32::MAX);
        if !applied(db, &start, (target, source, count)).await? {
            let (known, known_ranges) = record.copy_row().await?;
            if known != source {
                return Err(MigrationError::Copy(format!(
                    "{target} is recorded as a copy of {known}, not of {source}: its record is \
                     in {RECORD_KEYSPACE}.copies; delete it there to start a copy from {source}"
                )));
            }
            if known_ranges != count {
                return Err(MigrationError::Copy(format!(
                    "the copy into {target} was started with {known_ranges} ranges, not \
                     {count}: continue it with {known_ranges}"
                )));
            }
        }
        // Every range row, written once by each process that opens the copy (a process
        // killed while writing them left some): only the range's end, which never changes,
        // so that a range done stays done.
        let known: Vec<i64> = record.ranges().await?.iter().map(|r| r.start).collect();
        let create = plain(format!(
            "UPDATE {r} SET range_end = ? WHERE migration = ? AND range_start = ?"
        ))
        .await?;
        let missing: Vec<(i64, i64)> = ranges
            .iter()
            .filter(|(lo, _)| !known.contains(lo))
            .copied()
            .collect();
        for chunk in missing.chunks(64) {
            let mut batch = Batch::new(BatchType::Unlogged);
            for _ in chunk {
                batch.append_statement(BatchStatement::PreparedStatement(create.clone()));
            }
            let values: Vec<(i64, &str, i64)> =
                chunk.iter().map(|&(lo, hi)| (hi, target, lo)).collect();
            db.session()
                .batch(&batch, &values)
                .await
                .map_err(|e| Error::execute(db.session(), create.get_statement(), e))?;
        }
        Ok(record)
    }

    /// The source and the number of ranges the record has for this copy.
    async fn copy_row(&self) -> Result<(String, i32), MigrationError> {
        let cql = format!(
            "SELECT source, ranges FROM {} WHERE migration = ?",
            qualified(RECORD_KEYSPACE, "copies")
        );
        let (source, ranges): (Option<String>, Option<i32>) = self
            .db
            .session()
            .query_unpaged(crate::exec::statement::repeatable(&cql), (&self.migration,))
            .await
            .map_err(|e| Error::execute(self.db.session(), &cql, e))?
            .into_rows_result()
            .map_err(Error::from)?
            .first_row()
            .map_err(|e| Error::Driver(Box::new(e)))?;
        Ok((source.unwrap_or_default(), ranges.unwrap_or(0)))
    }

    /// Every range of the copy.
    pub(super) async fn ranges(&self) -> Result<Vec<RangeState>, MigrationError> {
        list_ranges(self.db, &self.list, &self.migration).await
    }

    /// Claims range `start` for `owner` until `lease_until` if nobody holds it at `now`
    /// (milliseconds) and it is not done: the first claim of a range creates its lease; a
    /// later one takes over a lease that ended (or was given up), if no other process took it
    /// over first.
    pub(super) async fn claim(
        &self,
        start: i64,
        owner: &str,
        lease_until: i64,
        now: i64,
    ) -> Result<Claim, MigrationError> {
        let m = &self.migration;
        if applied(self.db, &self.take, (m, start, owner, lease_until)).await? {
            return Ok(Claim::First);
        }
        let held: Option<i64> = one_value(self.db, &self.lease_of, (m, start)).await?;
        let until = held.unwrap_or(0);
        if until >= now {
            return Ok(Claim::Held);
        }
        let taken = applied(
            self.db,
            &self.take_over,
            (owner, lease_until, m, start, until),
        )
        .await?;
        if !taken {
            return Ok(Claim::Held);
        }
        // A lease ends early when its range is done: taken over from a list of the ranges read
        // before that, the range may be done already.
        let done: Option<bool> = one_value(self.db, &self.is_done, (m, start)).await?;
        if done == Some(true) {
            self.release(start, owner, 0).await?;
            return Ok(Claim::Held);
        }
        Ok(Claim::Again)
    }

    /// Extends `owner`'s lease of range `start`; false when someone else took it.
    pub(super) async fn renew(
        &self,
        start: i64,
        owner: &str,
        lease_until: i64,
    ) -> Result<bool, MigrationError> {
        let values = (lease_until, &self.migration, start, owner);
        applied(self.db, &self.renew, values).await
    }

    /// Marks range `start` done, with `rows` copied.
    pub(super) async fn done(&self, start: i64, rows: i64) -> Result<(), MigrationError> {
        self.db
            .session()
            .execute_unpaged(&self.done, (rows, &self.migration, start))
            .await
            .map_err(|e| Error::execute(self.db.session(), self.done.get_statement(), e))?;
        Ok(())
    }

    /// Gives range `start` up (after a failure, or once it is done): another attempt may take
    /// it from `until` (milliseconds; 0: at once).
    pub(super) async fn release(
        &self,
        start: i64,
        owner: &str,
        until: i64,
    ) -> Result<bool, MigrationError> {
        let values = (until, &self.migration, start, owner);
        applied(self.db, &self.release, values).await
    }
}

async fn list_ranges(
    db: &Db,
    list: &PreparedStatement,
    migration: &str,
) -> Result<Vec<RangeState>, MigrationError> {
    let res = db
        .session()
        .execute_unpaged(list, (migration,))
        .await
        .map_err(|e| Error::execute(db.session(), list.get_statement(), e))?;
    range_states(res)
}

/// The ranges of a `copy_ranges` query's answer.
fn range_states(
    res: scylla::response::query_result::QueryResult,
) -> Result<Vec<RangeState>, MigrationError> {
    type Row = (i64, Option<i64>, Option<bool>, Option<i64>);
    let rows: Vec<Row> = res
        .into_rows_result()
        .map_err(Error::from)?
        .rows::<Row>()
        .map_err(Error::from)?
        .collect::<Result<_, _>>()
        .map_err(Error::from)?;
    Ok(rows
        .into_iter()
        .map(|(start, end, done, rows)| RangeState {
            start,
            end: end.unwrap_or(start),
            done: done.unwrap_or(false),
            rows: rows.unwrap_or(0),
        })
        .collect())
}

/// Every range recorded for the copy into `migration`: none when no copy was ever started
/// (on this cluster, or into this table).
pub(super) async fn recorded(db: &Db, migration: &str) -> Result<Vec<RangeState>, MigrationError> {
    let cql = format!(
        "SELECT range_start, range_end, done, rows FROM {} WHERE migration = ?",
        qualified(RECORD_KEYSPACE, "copy_ranges")
    );
    match db
        .session()
        .query_unpaged(crate::exec::statement::repeatable(&cql), (migration,))
        .await
    {
        Ok(res) => range_states(res),
        Err(e) => {
            let e = Error::execute(db.session(), &cql, e);
            if e.is_schema_mismatch() {
                Ok(Vec::new())
            } else {
                Err(e.into())
            }
        }
    }
}

/// Whether any range of the copy into `migration` was ever claimed (and so may have been
/// written in part): a copy of counters starts only into an empty table, and continues
/// only what it started.
pub(super) async fn started(db: &Db, migration: &str) -> Result<bool, MigrationError> {
    let ranges = recorded(db, migration).await?;
    if ranges.iter().any(|r| r.done) {
        return Ok(true);
    }
    if ranges.is_empty() {
        // Nothing recorded (perhaps not even the record's keyspace).
        return Ok(false);
    }
    let starts: Vec<i64> = ranges.iter().map(|r| r.start).collect();
    let leases = leases(db, &lease_lookup(db).await?, migration, &starts).await?;
    Ok(leases.iter().any(Option::is_some))
}

/// The read of one range's lease end, prepared once for every lookup of [`leases`].
async fn lease_lookup(db: &Db) -> Result<PreparedStatement, MigrationError> {
    let cql = format!(
        "SELECT lease_until FROM {} WHERE migration = ? AND range_start = ?",
        qualified(RECORD_KEYSPACE, "copy_leases")
    );
    setup::prepare(db, cql, true).await
}

/// The end of the lease of each range `starts` of the copy into `migration` (milliseconds;
/// `None`: never claimed), looked up 16 at a time with `lease` ([`lease_lookup`]).
async fn leases(
    db: &Db,
    lease: &PreparedStatement,
    migration: &str,
    starts: &[i64],
) -> Result<Vec<Option<i64>>, MigrationError> {
    // Owned: a `&str` captured by the stream's futures is not `Send` for every lifetime.
    let migration = &migration.to_owned();
    futures::stream::iter(starts.iter().copied())
        .map(|start| one_value::<i64>(db, lease, (migration, start)))
        .buffered(16)
        .try_collect()
        .await
}

/// Marks the recorded ranges of the copy into `migration` that overlap `ranges` (inclusive
/// token bounds, which a verify found rows missing or different in) as not done, so that the
/// next backfill copies them again: how many.
pub(super) async fn copy_again(
    db: &Db,
    migration: &str,
    ranges: &[(i64, i64)],
) -> Result<u32, MigrationError> {
    if ranges.is_empty() {
        return Ok(0);
    }
    let cql = format!(
        "UPDATE {} SET done = false WHERE migration = ? AND range_start = ?",
        qualified(RECORD_KEYSPACE, "copy_ranges")
    );
    let mut marked = 0;
    for r in recorded(db, migration).await? {
        if !ranges.iter().any(|&(lo, hi)| r.start <= hi && lo <= r.end) {
            continue;
        }
        db.session()
            .query_unpaged(
                crate::exec::statement::repeatable(&cql),
                (migration, r.start),
            )
            .await
            .map_err(|e| Error::execute(db.session(), &cql, e))?;
        marked += 1;
    }
    Ok(marked)
}

/// Records the outcome of a verify of the copy into `migration`.
pub(super) async fn record_verified(
    db: &Db,
    migration: &str,
    clean: bool,
) -> Result<(), MigrationError> {
    let cql = format!(
        "UPDATE {} SET verified_clean = ? WHERE migration = ?",
        qualified(RECORD_KEYSPACE, "copies")
    );
    db.session()
        .query_unpaged(crate::exec::statement::repeatable(&cql), (clean, migration))
        .await
        .map_err(|e| Error::execute(db.session(), &cql, e))?;
    Ok(())
}

/// Milliseconds since the epoch, now.
pub(super) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Whether `table` (`keyspace.table`) is a counter table: the copy into it is offline, with
/// steps of its own. A table that no longer exists is not.
async fn counters(db: &Db, table: &str) -> Result<bool, MigrationError> {
    let Some((ks, t)) = table.split_once('.') else {
        return Ok(false);
    };
    let cql = "SELECT type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?";
    let types: Vec<(String,)> = db
        .session()
        .query_unpaged(crate::exec::statement::repeatable(cql), (ks, t))
        .await
        .map_err(|e| Error::execute(db.session(), cql, e))?
        .into_rows_result()
        .map_err(Error::from)?
        .rows()
        .map_err(Error::from)?
        .collect::<Result<_, _>>()
        .map_err(Error::from)?;
    Ok(types.iter().any(|(t,)| t == "counter"))
}

/// Where every copy recorded on the cluster of `db` stands: one line each, by target.
pub async fn status(db: &Db) -> Result<Vec<CopyStatus>, MigrationError> {
    let copies_cql = format!(
        "SELECT migration, source, ranges, verified_clean FROM {}",
        qualified(RECORD_KEYSPACE, "copies")
    );
    let answer = db
        .session()
        .query_unpaged(crate::exec::statement::repeatable(&copies_cql), &[])
        .await
        .map_err(|e| Error::execute(db.session(), &copies_cql, e));
    type CopyRow = (String, Option<String>, Option<i32>, Option<bool>);
    let copies: Vec<CopyRow> = match answer {
        Ok(res) => res
            .into_rows_result()
            .map_err(Error::from)?
            .rows()
            .map_err(Error::from)?
            .collect::<Result<_, _>>()
            .map_err(Error::from)?,
        // No copy was ever started on this cluster.
        Err(e) if e.is_schema_mismatch() => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let lease = lease_lookup(db).await?;
    let now = now_millis();
    let mut out = Vec::new();
    for (migration, source, ranges, verified) in copies {
        let states = recorded(db, &migration).await?;
        let done = states.iter().filter(|r| r.done).count();
        let not_done: Vec<i64> = states.iter().filter(|r| !r.done).map(|r| r.start).collect();
        let leases = leases(db, &lease, &migration, &not_done).await?;
        let held = leases
            .iter()
            .flatten()
            .filter(|&&until| until > now)
            .count();
        let ranges = u32::try_from(ranges.unwrap_or(0)).unwrap_or(0);
        out.push(CopyStatus {
            offline: counters(db, &migration).await?,
            target: migration,
            source: source.unwrap_or_default(),
            ranges_done: u32::try_from(done).unwrap_or(u32::MAX),
            ranges,
            ranges_held: u32::try_from(held).unwrap_or(u32::MAX),
            rows: states.iter().filter(|r| r.done).map(|r| r.rows).sum(),
            finished: ranges > 0 && done == ranges as usize,
            verified_clean: verified,
        });
    }
    out.sort_by(|a, b| a.target.cmp(&b.target));
    Ok(out)
}
