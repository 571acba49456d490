//! The record of a copy, kept in the cluster itself (keyspace `cassmodel_migrations`), so that
//! a copy killed at any point continues where it was, from any machine, and several
//! processes share one copy: the token ring is cut into ranges, and each range is claimed
//! with a lightweight transaction and a lease before it is copied, then marked done. A range
//! whose worker stopped is taken again (`lease.rs` says when); copying it twice is harmless,
//! since every copied cell keeps its source's write time.
//!
//! Tables: `copies` (one row per copy: its source, its number of ranges, the outcome of its
//! last verify), `copy_ranges` (one partition per copy, a row per range: its end, whether it
//! is done and with how many rows; plain writes only) and `copy_leases` (one partition per
//! range: who holds it, until when, when it was last renewed and how often it is;
//! lightweight transactions only, so that claims of different ranges never contend in one
//! Paxos partition, and no column is written both ways). The drift check of an entity's
//! tables shares its ranges the same way (`migrate/drift/shared.rs`), each range's findings
//! in `drift_found`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};

use scylla::statement::batch::{Batch, BatchStatement, BatchType};
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};

use super::keyspace::RECORD_KEYSPACE;
use super::lease::{Lease, Watch};
use super::range_count::RangeCount;
use super::setup;
use crate::error::errors::Error;
use crate::exec::read::token_ranges;
use crate::exec::send;
use crate::migrate::error::MigrationError;
use crate::migrate::live::LiveSchema;
use crate::schema::ddl::{qualified, string_literal};
use crate::session::db::Db;

/// The kind of the record's statements, in their spans.
pub(crate) const KIND: &str = "record";

/// What a claim of a range got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Claim {
    /// Another process holds the range: its lease, and, when this process takes ranges of a
    /// stopped holder over, how long until it does if the holder stays silent.
    Held(Lease, Option<Duration>),
    /// The range, claimed for the first time: nothing of it was written before.
    First,
    /// The range, claimed before (by a process that stopped, an attempt that failed, or before
    /// a verify marked it to copy again): part of it may be written already.
    Again,
}

/// Who claims a range, for how long, and how often it renews (milliseconds).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Claimant<'a> {
    pub owner: &'a str,
    pub lease: i64,
    pub heartbeat: i32,
}

/// One range of the source's token ring, as the record has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RangeState {
    pub start: i64,
    pub end: i64,
    pub done: bool,
    pub rows: i64,
}

/// The record of one copy (`migration` = the target's `keyspace.table`).
pub(crate) struct Record<'d> {
    db: &'d Db,
    migration: String,
    take: PreparedStatement,
    lease_of: PreparedStatement,
    take_over: PreparedStatement,
    take_stopped: PreparedStatement,
    renew: PreparedStatement,
    release: PreparedStatement,
    done: PreparedStatement,
    is_done: PreparedStatement,
    list: PreparedStatement,
}

/// The prepared statement of `cql`, lightweight transactions at SERIAL consistency.
async fn prepare(db: &Db, cql: String) -> Result<PreparedStatement, MigrationError> {
    let mut ps = send::prepare(db, KIND, &cql, false).await?;
    ps.set_serial_consistency(Some(SerialConsistency::Serial));
    ps.set_consistency(Consistency::Quorum);
    Ok(ps)
}

/// The row `ps` reads with `values`, if any.
async fn one_row<R>(
    db: &Db,
    ps: &PreparedStatement,
    values: impl scylla::serialize::row::SerializeRow,
) -> Result<Option<R>, MigrationError>
where
    R: for<'f, 'm> scylla::deserialize::row::DeserializeRow<'f, 'm>,
{
    Ok(send::first(db, KIND, ps, values).await?)
}

/// Runs `ps` with `values`: whether its condition applied.
async fn applied(
    db: &Db,
    ps: &PreparedStatement,
    values: impl scylla::serialize::row::SerializeRow,
) -> Result<bool, MigrationError> {
    let res = send::run(db, KIND, ps, values).await?;
    Ok(crate::exec::write::applied(res)?)
}

/// Every column of keyspace `ks` as `system_schema` has it: table, column, type.
pub(super) async fn keyspace_columns(
    db: &Db,
    ks: &str,
) -> Result<Vec<(String, String, String)>, MigrationError> {
    let cql = "SELECT table_name, column_name, type FROM system_schema.columns WHERE \
               keyspace_name = ?";
    Ok(send::rows(db, KIND, send::repeatable(cql), (ks,)).await?)
}

/// The columns of each table of the record.
async fn record_columns(db: &Db) -> Result<BTreeMap<String, BTreeSet<String>>, MigrationError> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (table, column, _) in keyspace_columns(db, RECORD_KEYSPACE).await? {
        out.entry(table).or_default().insert(column);
    }
    Ok(out)
}

/// The tables of the record and the DDL that creates each.
fn record_ddl() -> [(&'static str, String); 4] {
    [
        (
            "copies",
            "(migration text PRIMARY KEY, source text, ranges int, verified_clean boolean)",
        ),
        (
            "copy_ranges",
            "(migration text, range_start bigint, range_end bigint, done boolean, rows bigint, \
             PRIMARY KEY (migration, range_start))",
        ),
        (
            "copy_leases",
            "(migration text, range_start bigint, owner text, lease_until bigint, heard bigint, \
             heartbeat int, PRIMARY KEY ((migration, range_start)))",
        ),
        (
            "drift_found",
            "(migration text, range_start bigint, counts list<bigint>, first list<text>, \
             PRIMARY KEY (migration, range_start))",
        ),
    ]
    .map(|(t, columns)| {
        let cql = format!("CREATE TABLE IF NOT EXISTS {RECORD_KEYSPACE}.{t} {columns}");
        (t, cql)
    })
}

/// Whether the record has every table, and the leases their heartbeat.
fn complete(have: &BTreeMap<String, BTreeSet<String>>) -> bool {
    record_ddl().iter().all(|(t, _)| have.contains_key(*t)) && leases_have_heartbeats(have)
}

fn leases_have_heartbeats(have: &BTreeMap<String, BTreeSet<String>>) -> bool {
    have.get("copy_leases")
        .is_some_and(|c| c.contains("heard") && c.contains("heartbeat"))
}

/// The tables of the record, created if missing (the tables at once), in a keyspace
/// replicated as `replication` (the target keyspace's map, as `system_schema` has it); the
/// heartbeat of the leases added to a record made before it was kept. Nothing is run when
/// the record is complete, as it is after the first copy on a cluster.
pub(super) async fn ensure_tables(
    db: &Db,
    replication: &BTreeMap<String, String>,
) -> Result<(), MigrationError> {
    if complete(&record_columns(db).await?) {
        return Ok(());
    }
    // Two `CREATE TABLE IF NOT EXISTS` of one table at the same moment may both create it,
    // under two table ids; statements prepared against the id that lost then fail with
    // "Unknown CF". Copies started at once in one process (tests run in parallel, a job
    // backfilling several tables) create the record one after the other.
    static CREATING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _one_at_a_time = CREATING.lock().await;
    let have = record_columns(db).await?;
    if complete(&have) {
        return Ok(());
    }
    let map: Vec<String> = replication
        .iter()
        .map(|(k, v)| format!("{}: {}", string_literal(k), string_literal(v)))
        .collect();
    db.execute_ddl(&format!(
        "CREATE KEYSPACE IF NOT EXISTS {RECORD_KEYSPACE} WITH replication = {{{}}}",
        map.join(", ")
    ))
    .await?;
    let missing = record_ddl()
        .into_iter()
        .filter(|(t, _)| !have.contains_key(*t))
        .map(|(_, cql)| async move { db.execute_ddl(&cql).await });
    futures::future::try_join_all(missing).await?;
    if have.contains_key("copy_leases") && !leases_have_heartbeats(&have) {
        let alter =
            format!("ALTER TABLE {RECORD_KEYSPACE}.copy_leases ADD (heard bigint, heartbeat int)");
        if let Err(e) = db.execute_ddl(&alter).await {
            // Added by another process a moment ago.
            if !leases_have_heartbeats(&record_columns(db).await?) {
                return Err(e.into());
            }
        }
    }
    // Created by another process a moment ago, perhaps: every node must know the tables
    // before they are read (else INCOMPATIBLE_SCHEMA).
    Ok(db.await_schema_agreement().await?)
}

/// The record of the copies, created if it is missing (or lacks the leases' heartbeat), in a
/// keyspace replicated as `keyspace` (the keyspace of a new table) is: step 1 of a key change
/// (`migrate apply`), so that the first `backfill` creates nothing.
pub(crate) async fn create_record(db: &Db, keyspace: &str) -> Result<(), MigrationError> {
    let live = LiveSchema::read(db, &[keyspace]).await?;
    let replication = live
        .keyspaces
        .get(keyspace)
        .map(|k| k.replication.clone())
        .unwrap_or_default();
    ensure_tables(db, &replication).await
}

/// The statements of a record's leases, prepared at once.
async fn lease_statements(db: &Db) -> Result<[PreparedStatement; 6], MigrationError> {
    let l = qualified(RECORD_KEYSPACE, "copy_leases");
    let set = "owner = ?, lease_until = ?, heard = ?, heartbeat = ? WHERE migration = ? AND \
               range_start = ?";
    let cqls = [
        format!(
            "INSERT INTO {l} (owner, lease_until, heard, heartbeat, migration, range_start) \
             VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS"
        ),
        format!(
            "SELECT owner, lease_until, heard, heartbeat FROM {l} WHERE migration = ? AND \
             range_start = ?"
        ),
        format!("UPDATE {l} SET {set} IF lease_until = ?"),
        format!("UPDATE {l} SET {set} IF owner = ? AND heard = ?"),
        format!(
            "UPDATE {l} SET lease_until = ?, heard = ? WHERE migration = ? AND range_start = ? \
             IF owner = ?"
        ),
        format!(
            "UPDATE {l} SET lease_until = ? WHERE migration = ? AND range_start = ? IF owner = ?"
        ),
    ];
    let prepared = futures::future::try_join_all(cqls.map(|cql| prepare(db, cql))).await?;
    prepared
        .try_into()
        .map_err(|_| MigrationError::Copy("six statements prepared, not six".into()))
}

impl<'d> Record<'d> {
    /// The record of the copy into `target` (`keyspace.table`) from `source`, with `count`
    /// ranges: created by the first process to start it; the others find it and take its
    /// number of ranges. A record of another source under the same target is refused, and one
    /// of another number of ranges than a number the caller set.
    pub(crate) async fn open(
        db: &'d Db,
        replication: &BTreeMap<String, String>,
        target: &str,
        source: &str,
        count: RangeCount,
    ) -> Result<Record<'d>, MigrationError> {
        ensure_tables(db, replication).await?;
        let r = qualified(RECORD_KEYSPACE, "copy_ranges");
        let plain = |cql: String| setup::prepare(db, cql, true);
        let (leases, done, is_done, list, create, start) = futures::try_join!(
            lease_statements(db),
            plain(format!(
                "UPDATE {r} SET done = true, rows = ? WHERE migration = ? AND range_start = ?"
            )),
            plain(format!(
                "SELECT done FROM {r} WHERE migration = ? AND range_start = ?"
            )),
            plain(format!(
                "SELECT range_start, range_end, done, rows FROM {r} WHERE migration = ?"
            )),
            plain(format!(
                "UPDATE {r} SET range_end = ? WHERE migration = ? AND range_start = ?"
            )),
            prepare(
                db,
                format!(
                    "INSERT INTO {} (migration, source, ranges) VALUES (?, ?, ?) IF NOT EXISTS",
                    qualified(RECORD_KEYSPACE, "copies")
                ),
            ),
        )?;
        let [take, lease_of, take_over, take_stopped, renew, release] = leases;
        let record = Record {
            db,
            migration: target.to_owned(),
            take,
            lease_of,
            take_over,
            take_stopped,
            renew,
            release,
            done,
            is_done,
            list,
        };
        let asked = i32::try_from(count.asked()).unwrap_or(i32::MAX);
        let count = if applied(db, &start, (target, source, asked)).await? {
            count.asked()
        } else {
            record.same_copy(source, count).await?
        };
        let ranges = token_ranges(count);
        // Every range row, written once by each process that opens the copy (a process
        // killed while writing them left some): only the range's end, which never changes,
        // so that a range done stays done.
        let known: BTreeSet<i64> = record.ranges().await?.iter().map(|r| r.start).collect();
        let missing: Vec<(i64, i64)> = ranges
            .iter()
            .filter(|(lo, _)| !known.contains(lo))
            .copied()
            .collect();
        let create = &create;
        let chunks: Vec<Vec<(i64, i64)>> = missing.chunks(64).map(<[_]>::to_vec).collect();
        futures::stream::iter(chunks)
            .map(|chunk| async move {
                let mut batch = Batch::new(BatchType::Unlogged);
                for _ in &chunk {
                    batch.append_statement(BatchStatement::PreparedStatement(create.clone()));
                }
                let values: Vec<(i64, &str, i64)> =
                    chunk.iter().map(|&(lo, hi)| (hi, target, lo)).collect();
                send::batch_of(db, KIND, &batch, &values, create.get_statement()).await?;
                Ok::<(), MigrationError>(())
            })
            .buffer_unordered(4)
            .try_collect::<()>()
            .await?;
        Ok(record)
    }

    /// The number of ranges of the copy recorded for this target; refuses a record made for
    /// another source, or for another number of ranges than one the caller set.
    async fn same_copy(&self, source: &str, count: RangeCount) -> Result<u32, MigrationError> {
        let target = &self.migration;
        let (known, known_ranges) = self.copy_row().await?;
        if known != source {
            return Err(MigrationError::CopyRefused(format!(
                "{target} is recorded as a copy of {known}, not of {source}: forget that \
                 record (`migrate forget-copy {target}`) to start a copy from {source}"
            )));
        }
        let known_ranges = u32::try_from(known_ranges).unwrap_or(0);
        match count {
            RangeCount::Exactly(n) if n != known_ranges => {
                Err(MigrationError::CopyRefused(format!(
                    "the copy into {target} was started with {known_ranges} ranges, not {n}: \
                     continue it with {known_ranges}, or without a number of ranges"
                )))
            }
            _ if known_ranges == 0 => Err(MigrationError::CopyRefused(format!(
                "the record of the copy into {target} has no number of ranges: forget it \
                 (`migrate forget-copy {target}`) and start the copy again"
            ))),
            _ => Ok(known_ranges),
        }
    }

    /// The source and the number of ranges the record has for this copy.
    async fn copy_row(&self) -> Result<(String, i32), MigrationError> {
        let cql = format!(
            "SELECT source, ranges FROM {} WHERE migration = ?",
            qualified(RECORD_KEYSPACE, "copies")
        );
        let row: Option<(Option<String>, Option<i32>)> =
            send::first(self.db, KIND, send::repeatable(&cql), (&self.migration,)).await?;
        let (source, ranges) = row.ok_or_else(|| {
            Error::Invalid(format!(
                "the record's row of the copy into {} was there when this process tried to \
                 create it, and is gone now (forgotten meanwhile?): run the copy again",
                self.migration
            ))
        })?;
        Ok((source.unwrap_or_default(), ranges.unwrap_or(0)))
    }

    /// Every range of the copy.
    pub(crate) async fn ranges(&self) -> Result<Vec<RangeState>, MigrationError> {
        list_ranges(self.db, &self.list, &self.migration).await
    }

    /// Claims range `start` for `me` at `now` (milliseconds) if nobody holds it and it is not
    /// done: the first claim of a range creates its lease; a later one takes over a lease that
    /// lapsed (or was given up), or, with `watch`, the lease of a holder seen silent for
    /// [`MISSED_HEARTBEATS`](super::lease::MISSED_HEARTBEATS) of its heartbeats, if no other
    /// process took it over first and the holder did not renew it in between.
    pub(crate) async fn claim(
        &self,
        start: i64,
        me: Claimant<'_>,
        now: i64,
        watch: Option<&Watch>,
    ) -> Result<Claim, MigrationError> {
        let m = &self.migration;
        let mine = (me.owner, now + me.lease, now, me.heartbeat, m, start);
        if applied(self.db, &self.take, mine).await? {
            return Ok(Claim::First);
        }
        type Row = (Option<String>, Option<i64>, Option<i64>, Option<i32>);
        let Some((owner, until, heard, heartbeat)) =
            one_row::<Row>(self.db, &self.lease_of, (m, start)).await?
        else {
            // Forgotten a moment ago: claimed again at the next round.
            return Ok(Claim::Held(Lease::nobody(), None));
        };
        let lease = Lease {
            owner: owner.unwrap_or_default(),
            until: until.unwrap_or(0),
            heard,
            heartbeat,
        };
        let taken = if lease.until < now {
            let values = (mine.0, mine.1, mine.2, mine.3, m, start, lease.until);
            applied(self.db, &self.take_over, values).await?
        } else {
            let wait = match (watch, lease.silence_allowed()) {
                (Some(w), Some(allowed)) => allowed.checked_sub(w.unchanged_for(start, &lease)),
                _ => return Ok(Claim::Held(lease, None)),
            };
            if let Some(wait) = wait.filter(|w| !w.is_zero()) {
                return Ok(Claim::Held(lease, Some(wait)));
            }
            let values = (
                mine.0,
                mine.1,
                mine.2,
                mine.3,
                m,
                start,
                &lease.owner,
                lease.heard,
            );
            applied(self.db, &self.take_stopped, values).await?
        };
        if !taken {
            return Ok(Claim::Held(lease, None));
        }
        // Taken over from a list of the ranges read a moment ago: the range may be done
        // since.
        let done: Option<(Option<bool>,)> = one_row(self.db, &self.is_done, (m, start)).await?;
        if done.and_then(|(d,)| d) == Some(true) {
            self.release(start, me.owner, 0).await?;
            return Ok(Claim::Held(lease, None));
        }
        Ok(Claim::Again)
    }

    /// Extends `owner`'s lease of range `start` to `lease_until`, heard at `now`; false when
    /// someone else took it.
    pub(crate) async fn renew(
        &self,
        start: i64,
        owner: &str,
        lease_until: i64,
        now: i64,
    ) -> Result<bool, MigrationError> {
        let values = (lease_until, now, &self.migration, start, owner);
        applied(self.db, &self.renew, values).await
    }

    /// Marks range `start` done, with `rows` copied.
    pub(crate) async fn done(&self, start: i64, rows: i64) -> Result<(), MigrationError> {
        send::run(self.db, KIND, &self.done, (rows, &self.migration, start)).await?;
        Ok(())
    }

    /// Runs `work` on range `start`, which `owner` holds, renewing its lease every
    /// `heartbeat` to `lease` milliseconds past the renewal (`renewed` is told the lease's new
    /// end): the work's output, or `None` when another process took the range over (this one
    /// renewed too late).
    pub(crate) async fn while_held<T>(
        &self,
        start: i64,
        owner: &str,
        (lease, heartbeat): (i64, Duration),
        renewed: impl Fn(i64),
        work: impl Future<Output = Result<T, MigrationError>>,
    ) -> Result<Option<T>, MigrationError> {
        let renew = async {
            loop {
                tokio::time::sleep(heartbeat).await;
                let now = now_millis();
                if !self.renew(start, owner, now + lease, now).await? {
                    return Ok::<(), MigrationError>(());
                }
                renewed(now + lease);
            }
        };
        futures::pin_mut!(work);
        futures::pin_mut!(renew);
        match futures::future::select(work, renew).await {
            futures::future::Either::Left((out, _)) => out.map(Some),
            futures::future::Either::Right((lost, _)) => lost.map(|()| None),
        }
    }

    /// Gives range `start` up (after a failure): another attempt may take it from `until`
    /// (milliseconds; 0: at once).
    pub(crate) async fn release(
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
    range_states(send::run(db, KIND, list, (migration,)).await?)
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
pub(crate) async fn recorded(db: &Db, migration: &str) -> Result<Vec<RangeState>, MigrationError> {
    let cql = format!(
        "SELECT range_start, range_end, done, rows FROM {} WHERE migration = ?",
        qualified(RECORD_KEYSPACE, "copy_ranges")
    );
    match send::run(db, KIND, send::repeatable(&cql), (migration,)).await {
        Ok(res) => range_states(res),
        Err(e) if e.is_schema_mismatch() => Ok(Vec::new()),
        Err(e) => Err(e.into()),
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

/// The read of one range's lease, prepared once for every lookup of [`leases`].
pub(super) async fn lease_lookup(db: &Db) -> Result<PreparedStatement, MigrationError> {
    let cql = format!(
        "SELECT owner, lease_until, heard, heartbeat FROM {} WHERE migration = ? AND \
         range_start = ?",
        qualified(RECORD_KEYSPACE, "copy_leases")
    );
    setup::prepare(db, cql, true).await
}

/// The lease of each range `starts` of the copy into `migration` (`None`: never claimed),
/// looked up 16 at a time with `lease` ([`lease_lookup`]).
pub(super) async fn leases(
    db: &Db,
    lease: &PreparedStatement,
    migration: &str,
    starts: &[i64],
) -> Result<Vec<Option<Lease>>, MigrationError> {
    type Row = (Option<String>, Option<i64>, Option<i64>, Option<i32>);
    // Owned: a `&str` captured by the stream's futures is not `Send` for every lifetime.
    let migration = &migration.to_owned();
    futures::stream::iter(starts.iter().copied())
        .map(|start| async move {
            let row = one_row::<Row>(db, lease, (migration, start)).await?;
            Ok::<_, MigrationError>(row.map(|(owner, until, heard, heartbeat)| Lease {
                owner: owner.unwrap_or_default(),
                until: until.unwrap_or(0),
                heard,
                heartbeat,
            }))
        })
        .buffered(16)
        .try_collect()
        .await
}

/// Marks the recorded ranges of the copy into `migration` that overlap `ranges` (inclusive
/// token bounds, which a verify found rows missing or different in) as not done, so that the
/// next backfill copies them again, and gives their leases up (the lease of a range done is
/// kept until it lapses), so that it takes them at once: how many.
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
    // Only the leases of ranges done: no write of them is in flight any more (a copy of
    // counters must not have two holders writing one range).
    let free = prepare(
        db,
        format!(
            "UPDATE {} SET lease_until = 0 WHERE migration = ? AND range_start = ? IF EXISTS",
            qualified(RECORD_KEYSPACE, "copy_leases")
        ),
    )
    .await?;
    let mut marked = 0;
    for r in recorded(db, migration).await? {
        if !ranges.iter().any(|&(lo, hi)| r.start <= hi && lo <= r.end) {
            continue;
        }
        send::run(db, KIND, send::repeatable(&cql), (migration, r.start)).await?;
        if r.done {
            applied(db, &free, (migration, r.start)).await?;
        }
        marked += 1;
    }
    Ok(marked)
}

/// Records the outcome of a verify of the copy into `migration` from `source`; nothing when
/// no copy was ever started on this cluster.
pub(super) async fn record_verified(
    db: &Db,
    migration: &str,
    source: &str,
    clean: bool,
) -> Result<(), MigrationError> {
    let cql = format!(
        "UPDATE {} SET verified_clean = ?, source = ? WHERE migration = ?",
        qualified(RECORD_KEYSPACE, "copies")
    );
    let values = (clean, source, migration);
    match send::run(db, KIND, send::repeatable(&cql), values).await {
        Ok(_) => Ok(()),
        Err(e) if e.is_schema_mismatch() => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Forgets the record of the copy into `migration`: its leases (each with a lightweight
/// transaction, as they are written), its ranges, then the copy itself.
pub(crate) async fn forget(db: &Db, migration: &str) -> Result<(), MigrationError> {
    let remove = prepare(
        db,
        format!(
            "DELETE FROM {} WHERE migration = ? AND range_start = ? IF EXISTS",
            qualified(RECORD_KEYSPACE, "copy_leases")
        ),
    )
    .await?;
    let starts: Vec<i64> = recorded(db, migration)
        .await?
        .iter()
        .map(|r| r.start)
        .collect();
    let remove = &remove;
    futures::stream::iter(starts)
        .map(|start| async move { applied(db, remove, (migration, start)).await })
        .buffer_unordered(16)
        .try_collect::<Vec<bool>>()
        .await?;
    for table in ["copy_ranges", "drift_found", "copies"] {
        let cql = format!(
            "DELETE FROM {} WHERE migration = ?",
            qualified(RECORD_KEYSPACE, table)
        );
        send::run(db, KIND, send::repeatable(&cql), (migration,)).await?;
    }
    Ok(())
}

/// Milliseconds since the epoch, now.
pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(tables: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
        tables
            .iter()
            .map(|(t, c)| ((*t).to_owned(), c.iter().map(|c| (*c).to_owned()).collect()))
            .collect()
    }

    #[test]
    fn a_record_without_heartbeats_or_a_table_is_not_complete() {
        let old_leases: &[&str] = &["migration", "range_start", "owner", "lease_until"];
        let leases: &[&str] = &[
            "migration",
            "range_start",
            "owner",
            "lease_until",
            "heard",
            "heartbeat",
        ];
        let rest: [(&str, &[&str]); 3] = [
            ("copies", &["migration"]),
            ("copy_ranges", &["migration"]),
            ("drift_found", &["migration"]),
        ];
        let with = |l: &'static [&'static str]| {
            let mut t = rest.to_vec();
            t.push(("copy_leases", l));
            columns(&t)
        };
        assert!(complete(&with(leases)));
        assert!(!complete(&with(old_leases)), "the heartbeat is added");
        assert!(!complete(&columns(&rest)), "a table is missing");
        assert!(
            !complete(&columns(&rest[..2])),
            "the drift check's table is missing"
        );
        assert!(!complete(&BTreeMap::new()));
        // Every table the DDL creates is one `complete` asks for, with the leases' heartbeat.
        for (table, cql) in record_ddl() {
            assert!(
                cql.contains(&format!("{RECORD_KEYSPACE}.{table} (")),
                "{cql}"
            );
        }
        assert!(record_ddl()[2].1.contains("heard bigint, heartbeat int"));
    }
}
