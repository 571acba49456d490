//! The backfill: every row of the source, copied into the new table, token range by token
//! range, with the record in the cluster (`record.rs`) telling which ranges are done.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as Context_, Poll};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt, TryStreamExt};
use scylla::frame::response::result::ColumnSpec;
use scylla::serialize::row::SerializeRow;
use scylla::statement::batch::{Batch as DriverBatch, BatchStatement, BatchType};

use super::convert::CopyFrom;
use super::counters::{CounterAdd, Counters};
use super::lease::{HeldRanges, Lease, Watch, holders, owner_name};
use super::pace::Pace;
use super::range_count::range_count;
use super::record::{Claim, Claimant, Record, now_millis, recorded, started};
use super::setup::{Copy, KIND, check_target, copy_of, describe};
use super::source::SourceRow;
use super::write::{CellGroup, EncodedRow, TimedWrite, cell_groups};
use crate::error::{errors::Error, kind::ErrorKind};
use crate::exec::send;
use crate::exec::statement::Stmt;
use crate::mapping::table::Table;
use crate::migrate::error::MigrationError;
use crate::session::db::Db;

/// A backfill's progress callback ([`CopyOptions::progress`]).
pub type ProgressFn = Arc<dyn Fn(&CopyProgress) + Send + Sync>;

/// How a backfill runs. The defaults suit one process on a small cluster; the number of
/// ranges is fixed by the first process that starts a copy.
#[derive(Clone)]
#[non_exhaustive]
pub struct CopyOptions {
    /// Token ranges the source's ring is cut into: the unit of work, of progress and of
    /// resuming. By default (`None`) sized from the source's size estimates, about 2 MiB of
    /// the source each, at least 4 per range in flight and at most 256; a process that joins
    /// a copy takes the number its first process recorded. Set, a copy recorded with
    /// another number is refused.
    pub ranges: Option<u32>,
    /// Ranges this process copies at once (default 8).
    pub ranges_in_flight: usize,
    /// Writes (single rows, or batches of one target partition's rows) in flight per range
    /// (default 16).
    pub writes_in_flight: usize,
    /// Rows per page of the source's scan (default 1000).
    pub page_size: i32,
    /// How long a claimed range stays this process's without a renewal (default 30 s): the
    /// range of a process that stopped is taken again after it at the latest.
    pub lease: Duration,
    /// How often a claimed range's lease is renewed (default 1 s, at most a third of the
    /// lease): a process that misses [`MISSED_HEARTBEATS`](super::MISSED_HEARTBEATS) of them
    /// is taken for stopped, and its ranges are taken over before their leases lapse (not
    /// those of a copy of counters, which wait for the lease).
    pub heartbeat: Duration,
    /// Attempts at one range before the backfill fails with its error (default 5).
    pub attempts: u32,
    /// At most this many rows per second, if set: each write waits for its rows' turn before
    /// it is sent, so that the rows in flight count.
    pub rows_per_second: Option<u32>,
    /// Called when the copy starts, every quarter of a second or so while it copies, after
    /// each range, and while it waits for ranges other processes hold.
    pub progress: Option<ProgressFn>,
}

impl Default for CopyOptions {
    fn default() -> Self {
        CopyOptions {
            ranges: None,
            ranges_in_flight: 8,
            writes_in_flight: 16,
            page_size: 1000,
            lease: Duration::from_secs(30),
            heartbeat: Duration::from_secs(1),
            attempts: 5,
            rows_per_second: None,
            progress: None,
        }
    }
}

impl std::fmt::Debug for CopyOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CopyOptions")
            .field("ranges", &self.ranges)
            .field("ranges_in_flight", &self.ranges_in_flight)
            .field("writes_in_flight", &self.writes_in_flight)
            .field("page_size", &self.page_size)
            .field("lease", &self.lease)
            .field("heartbeat", &self.heartbeat)
            .field("attempts", &self.attempts)
            .field("rows_per_second", &self.rows_per_second)
            .finish_non_exhaustive()
    }
}

impl CopyOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Token ranges of the source's ring, instead of a number sized from the source's size
    /// estimates (the first process that starts a copy sets them).
    pub fn ranges(mut self, ranges: u32) -> Self {
        self.ranges = Some(ranges.max(1));
        self
    }

    /// Ranges copied at once by this process.
    pub fn ranges_in_flight(mut self, n: usize) -> Self {
        self.ranges_in_flight = n.max(1);
        self
    }

    /// Writes in flight per range.
    pub fn writes_in_flight(mut self, n: usize) -> Self {
        self.writes_in_flight = n.max(1);
        self
    }

    /// How long a claimed range stays this process's without a renewal.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    /// How often a claimed range's lease is renewed (at least every 10 ms).
    pub fn heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = every.max(Duration::from_millis(10));
        self
    }

    /// At most `rows` rows per second.
    pub fn rows_per_second(mut self, rows: u32) -> Self {
        self.rows_per_second = Some(rows.max(1));
        self
    }

    /// Called with the progress when the copy starts, every quarter of a second or so while it
    /// copies, after each range, and while it waits for ranges other processes hold.
    pub fn progress(mut self, f: impl Fn(&CopyProgress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }
}

/// How far a backfill has got.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CopyProgress {
    /// Rows this process has copied.
    pub rows: u64,
    /// Ranges done, by any process.
    pub ranges_done: u32,
    /// Ranges in all.
    pub ranges: u32,
    /// Since this process started.
    pub elapsed: Duration,
    /// Whether this process is waiting for ranges other processes hold.
    pub waiting: bool,
    /// While it waits: the processes that hold the ranges left, with when each was last
    /// heard from, when its leases lapse and when this process takes them over.
    pub held: Vec<HeldRanges>,
}

impl CopyProgress {
    /// Rows per second of this process.
    pub fn rate(&self) -> f64 {
        self.rows as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }
}

/// A source row that could not be copied: its key and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopyFailure {
    /// The row's key in the source, `column = value, ..`.
    pub key: String,
    /// Why (the conversion's error).
    pub reason: String,
}

/// What a backfill did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CopyReport {
    /// `keyspace.table` copied into.
    pub target: String,
    /// `keyspace.table` copied from.
    pub source: String,
    /// Rows this process copied.
    pub rows: u64,
    /// Ranges this process copied.
    pub ranges_copied: u32,
    /// Ranges in all (all of them are done when the backfill returns).
    pub ranges: u32,
    /// How long this process ran.
    pub elapsed: Duration,
    /// Rows that could not be copied (their conversion failed), the first 100 of them.
    pub failures: Vec<CopyFailure>,
    /// How many rows could not be copied.
    pub failed_rows: u64,
    /// Ranges of a counter table's copy that this process repaired (claimed before, so read
    /// back at consistency ALL and only the differences added).
    pub ranges_repaired: u32,
}

impl std::fmt::Display for CopyReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} <- {}: all {} ranges copied; this process copied {} rows in {} ranges in {:.1} s \
             ({:.0} rows/s)",
            self.target,
            self.source,
            self.ranges,
            self.rows,
            self.ranges_copied,
            self.elapsed.as_secs_f64(),
            self.rows as f64 / self.elapsed.as_secs_f64().max(1e-3)
        )?;
        if self.ranges_repaired > 0 {
            write!(
                f,
                "; {} range(s) claimed before repaired (read at consistency ALL, the \
                 differences added)",
                self.ranges_repaired
            )?;
        }
        if self.failed_rows > 0 {
            write!(f, "\n{} row(s) not copied:", self.failed_rows)?;
            for fail in &self.failures {
                write!(f, "\n  ({}): {}", fail.key, fail.reason)?;
            }
        }
        Ok(())
    }
}

/// Copies every row of `T`'s source into `T`'s table, and returns once every range of the
/// copy is done (by this process or another). Safe to run again after an interruption, from
/// several processes at once, and beside an application writing to both tables: each copied
/// cell keeps its source's write time and TTL, so a newer write or delete always wins.
///
/// A row whose conversion fails is not copied; it is reported with its key, and the others
/// are. Ranges that fail on a timeout or an unavailable node are tried again, up to
/// [`CopyOptions::attempts`] times each; a range that fails every attempt is set aside, the
/// others are copied, and the backfill then fails naming how many are left (run it again to
/// copy them). The reads and writes of the copy's record in the cluster are tried again the
/// same way, so that a node going down does not end the backfill.
///
/// A range held by another process is waited for (the progress says by whom, when it was
/// last heard from and when its lease lapses). A holder that renews its leases at every
/// [`CopyOptions::heartbeat`] is left alone; one silent for
/// [`MISSED_HEARTBEATS`](super::MISSED_HEARTBEATS) heartbeats (killed, or cut off) has its
/// ranges taken over then, not after its whole lease, each with a lightweight transaction
/// conditioned on the lease as it was seen: a holder that was only slow loses the range at its
/// next renewal and stops copying it; its writes in flight land twice, harmlessly, each cell
/// at its source's write time.
///
/// Refusals ([`MigrationError::CopyRefused`], nothing written): no source declared, the
/// source or the new table missing, rows that cannot be copied, a new table holding rows of
/// its own, a record of another copy under the same name.
///
/// A counter table (`#[cass(from = "old", offline)]`) is copied with every writer of the old
/// table stopped, into a new table that is empty when the copy starts: each old row's counts
/// are added to the new row; the ranges of a stopped process are taken over only once their
/// leases lapse. A range claimed before (its process died, or a write of it
/// failed, or [`verify`](super::verify) found it different) is repaired instead: each new row
/// read at consistency ALL (every replica must answer) and only the difference added, so the
/// copy ends exact however often it was interrupted. No write of a range is sent in the last
/// third of its lease, and each gives up after a third of the lease: keep the lease well
/// above the server's `counter_write_request_timeout` (5 s by default).
pub async fn backfill<T: CopyFrom>(
    db: &Db,
    options: &CopyOptions,
) -> Result<CopyReport, MigrationError> {
    let begun = Instant::now();
    let mut copy = copy_of::<T>(db, options.page_size).await?;
    // Before anything is written, the record included: a new table holding rows of its own.
    // A copy of counters adds to what the new table holds: it starts only into an empty
    // table, and continues only what it started.
    let fresh = match &copy.counters {
        None => !recorded(db, &copy.target).await?.iter().any(|r| r.done),
        Some(_) => !started(db, &copy.target).await?,
    };
    if fresh {
        check_target(db, &copy, T::schema()).await?;
    }
    // A copy of counters: every increment and every read of a repair ends (done or given up)
    // before the lease of its range does.
    let mut repair_read = None;
    if let Some(counters) = &copy.counters {
        let mut update = (*copy.write).clone();
        update.set_request_timeout(Some(options.lease / 3));
        copy.write = Arc::new(update);
        repair_read = Some(counters.read_statement::<T>(db, options.lease / 3).await?);
    }
    let source = copy.source.name();
    let count = again(options.attempts, || {
        range_count(db, &copy.source, options.ranges, options.ranges_in_flight)
    })
    .await?;
    let record = again(options.attempts, || {
        Record::open(db, &copy.replication, &copy.target, &source, count)
    })
    .await?;
    let owner = owner_name();
    let state = Run {
        db,
        copy: &copy,
        record: &record,
        owner: &owner,
        options,
        started: begun,
        rows: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        failures: Mutex::new(Vec::new()),
        ranges_done: AtomicUsize::new(0),
        ranges: AtomicUsize::new(0),
        repaired: AtomicU32::new(0),
        repair_read,
        watch: Watch::default(),
        pace: Pace::new(options.rows_per_second),
        reported: AtomicU64::new(0),
    };
    let (copied, total) = state.rounds::<T>().await?;
    let failures = state.failures.lock().map(|f| f.clone()).unwrap_or_default();
    Ok(CopyReport {
        target: copy.target.clone(),
        source,
        rows: state.rows.load(Ordering::Relaxed),
        ranges_copied: copied,
        ranges: u32::try_from(total).unwrap_or(u32::MAX),
        elapsed: begun.elapsed(),
        failures,
        failed_rows: state.failed.load(Ordering::Relaxed),
        ranges_repaired: state.repaired.load(Ordering::Relaxed),
    })
}

/// Why a range of counters stopped before its writes: its lease ended too soon.
const LEASE_RAN_OUT: &str = "the lease of a range ran out before its counts were written";

/// Whether a failure is worth another attempt at the range: a timeout, too few replicas,
/// an overloaded node, a lost connection, or (counters) a lease that ran out.
pub(crate) fn transient(e: &MigrationError) -> bool {
    match e {
        MigrationError::Db(e) => matches!(
            e.kind(),
            ErrorKind::Timeout
                | ErrorKind::Unavailable
                | ErrorKind::Overloaded
                | ErrorKind::Connection
        ),
        MigrationError::Copy(why) => why.starts_with(LEASE_RAN_OUT),
        _ => false,
    }
}

/// `op`, run again after a failure worth another attempt ([`transient`]: a node gone and not
/// yet seen down answers with timeouts), at most `attempts` times in all with a growing pause:
/// for the record's reads and writes outside a range's own copy, which would otherwise end the
/// whole backfill.
pub(crate) async fn again<T, F, Fut>(attempts: u32, mut op: F) -> Result<T, MigrationError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, MigrationError>>,
{
    let mut tried = 1;
    loop {
        match op().await {
            Err(e) if transient(&e) && tried < attempts => {
                tokio::time::sleep(Duration::from_millis(200) * tried).await;
                tried += 1;
            }
            result => return result,
        }
    }
}

/// What the ranges copied by one process share.
struct Run<'a> {
    db: &'a Db,
    copy: &'a Copy,
    record: &'a Record<'a>,
    owner: &'a str,
    options: &'a CopyOptions,
    started: Instant,
    rows: AtomicU64,
    failed: AtomicU64,
    failures: Mutex<Vec<CopyFailure>>,
    /// Ranges done by any process (as last read, plus those this one did since), and in all.
    ranges_done: AtomicUsize,
    ranges: AtomicUsize,
    /// Ranges of counters this process repaired.
    repaired: AtomicU32,
    /// For a copy of counters, the read of a new row by a repair, made once.
    repair_read: Option<Stmt>,
    /// The leases of other processes as this one has seen them.
    watch: Watch,
    /// The rate limit.
    pace: Pace,
    /// When the progress was last reported (milliseconds since `started`).
    reported: AtomicU64,
}

/// A range this process holds.
struct Held {
    /// Whether its rows are repaired rather than added: a range of counters claimed before.
    repair: bool,
    /// When its lease ends (milliseconds since the epoch), as last renewed.
    until: AtomicI64,
}

/// What became of one range of a round.
enum Outcome {
    /// Copied by this process.
    Copied,
    /// Held by another process: its lease, and when this one takes it over if the holder
    /// stays silent.
    Held(Lease, Option<Duration>),
    /// Taken over by another process while this one copied it (its renewals were late).
    Lost,
}

impl Run<'_> {
    /// The lease in milliseconds.
    fn lease_millis(&self) -> i64 {
        i64::try_from(self.options.lease.as_millis()).unwrap_or(i64::MAX)
    }

    /// How often a lease is renewed: the heartbeat, at most a third of the lease.
    fn heartbeat(&self) -> Duration {
        self.options.heartbeat.min(self.options.lease / 3)
    }

    /// When a range this process gives up may be claimed again: at once for a copy whose
    /// writes can be repeated; for a copy of counters, once its increments still in flight
    /// have ended (each gives up after a third of the lease).
    fn released_until(&self) -> i64 {
        match self.copy.counters {
            Some(_) => now_millis() + self.lease_millis() / 3,
            None => 0,
        }
    }

    /// Claims and copies the ranges not done, round after round, until every range is done:
    /// the ranges this process copied, and the ranges in all. A round that copies nothing
    /// (every range left is held by other processes) is followed by a pause, and reported
    /// with who holds what.
    async fn rounds<T: CopyFrom>(&self) -> Result<(u32, usize), MigrationError> {
        let options = self.options;
        let mut attempts: HashMap<i64, u32> = HashMap::new();
        // Ranges that failed every attempt: left for another run, with their last error.
        let mut set_aside: Vec<(i64, MigrationError)> = Vec::new();
        let mut copied = 0u32;
        let mut held: Vec<(Lease, Option<Duration>)> = Vec::new();
        loop {
            let states = again(options.attempts, || self.record.ranges()).await?;
            let done = states.iter().filter(|r| r.done).count();
            self.ranges_done.store(done, Ordering::Relaxed);
            self.ranges.store(states.len(), Ordering::Relaxed);
            if done == states.len() {
                return Ok((copied, states.len()));
            }
            let mut free: Vec<(i64, i64)> = states
                .iter()
                .filter(|r| !r.done && !set_aside.iter().any(|(lo, _)| *lo == r.start))
                .map(|r| (r.start, r.end))
                .collect();
            if free.is_empty() {
                // Every range left failed every attempt here; all the others are done.
                return Err(self.gave_up(set_aside));
            }
            self.report(holders(&held, now_millis()));
            if !held.is_empty() {
                tokio::time::sleep((options.lease / 4).min(Duration::from_secs(1))).await;
            }
            // Spread the processes over the ring (and over the replicas).
            let turn = usize::try_from(now_millis().rem_euclid(free.len() as i64)).unwrap_or(0);
            free.rotate_left(turn);
            let results: Vec<(i64, Result<Outcome, MigrationError>)> = futures::stream::iter(free)
                .map(|(lo, hi)| async move { (lo, self.range::<T>(lo, hi).await) })
                .buffer_unordered(options.ranges_in_flight)
                .collect()
                .await;
            held.clear();
            let mut any_copied = false;
            // One pause before the next round, as long as the longest backoff of its failures.
            let mut backoff = Duration::ZERO;
            for (lo, result) in results {
                match result {
                    Ok(Outcome::Copied) => {
                        copied += 1;
                        any_copied = true;
                    }
                    Ok(Outcome::Held(lease, wait)) => held.push((lease, wait)),
                    Ok(Outcome::Lost) => {}
                    Err(e) if transient(&e) => {
                        let n = attempts.entry(lo).or_default();
                        *n += 1;
                        // A release that fails leaves the lease to end by itself (no write of
                        // the range outlives it), so the range is only taken later.
                        let _ = self
                            .record
                            .release(lo, self.owner, self.released_until())
                            .await;
                        if *n >= options.attempts {
                            set_aside.push((lo, e));
                        } else {
                            backoff = backoff.max(Duration::from_millis(200) * *n);
                        }
                    }
                    Err(e) => {
                        let _ = self
                            .record
                            .release(lo, self.owner, self.released_until())
                            .await;
                        return Err(e);
                    }
                }
            }
            if any_copied {
                held.clear();
            }
            tokio::time::sleep(backoff).await;
        }
    }

    /// The error of a backfill that copied every range but `left`, which failed every
    /// attempt (with their last errors): for a copy of counters, a replica down says that a
    /// repair reads every replica.
    fn gave_up(&self, left: Vec<(i64, MigrationError)>) -> MigrationError {
        let unavailable = |e: &MigrationError| matches!(e, MigrationError::Db(db) if db.kind() == ErrorKind::Unavailable);
        let advice = if self.copy.counters.is_some() && left.iter().any(|(_, e)| unavailable(e)) {
            "a range of counters claimed before is repaired from a read at consistency ALL, \
             which every replica must answer: bring every node up, then"
        } else {
            "when the cluster answers again,"
        };
        let last = left
            .last()
            .map_or_else(String::new, |(_, e)| format!(" (the last error: {e})"));
        MigrationError::Copy(format!(
            "{} range(s) of the copy into {} failed {} times each{last}; every other range is \
             copied. {advice} run `backfill` again: it copies what is left",
            left.len(),
            self.copy.target,
            self.options.attempts
        ))
    }

    /// Reports the progress; `held`: the ranges this process waits for, by holder.
    fn report(&self, held: Vec<HeldRanges>) {
        let Some(progress) = &self.options.progress else {
            return;
        };
        let elapsed = self.started.elapsed();
        let millis = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        self.reported.store(millis, Ordering::Relaxed);
        let count = |n: &AtomicUsize| u32::try_from(n.load(Ordering::Relaxed)).unwrap_or(u32::MAX);
        progress(&CopyProgress {
            rows: self.rows.load(Ordering::Relaxed),
            ranges_done: count(&self.ranges_done),
            ranges: count(&self.ranges),
            elapsed,
            waiting: !held.is_empty(),
            held,
        });
    }

    /// Reports the progress if the last report is a quarter of a second old.
    fn tick(&self) {
        let millis = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last = self.reported.load(Ordering::Relaxed);
        if millis >= last + 250
            && self
                .reported
                .compare_exchange(last, millis, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.report(Vec::new());
        }
    }

    /// Claims range `lo..=hi` and copies it, renewing its lease at every heartbeat.
    async fn range<T: CopyFrom>(&self, lo: i64, hi: i64) -> Result<Outcome, MigrationError> {
        let me = Claimant {
            owner: self.owner,
            lease: self.lease_millis(),
            heartbeat: i32::try_from(self.heartbeat().as_millis()).unwrap_or(i32::MAX),
        };
        let now = now_millis();
        // A copy of counters waits for a stopped holder's lease to lapse: an increment of it
        // still in flight would count twice.
        let watch = self.copy.counters.is_none().then_some(&self.watch);
        let repair = match self.record.claim(lo, me, now, watch).await? {
            Claim::Held(lease, wait) => return Ok(Outcome::Held(lease, wait)),
            Claim::First => false,
            Claim::Again => self.copy.counters.is_some(),
        };
        let held = Held {
            repair,
            until: AtomicI64::new(now + me.lease),
        };
        let copy = self.copy_rows::<T>(lo, hi, &held);
        let renewal = (me.lease, self.heartbeat());
        let renewed = |until| held.until.store(until, Ordering::Relaxed);
        let Some(rows) = self
            .record
            .while_held(lo, self.owner, renewal, renewed, copy)
            .await?
        else {
            // Another process took the range over (this one was too slow to renew): its
            // copy is as good as this one.
            return Ok(Outcome::Lost);
        };
        // Done, whoever holds the lease now: every row of the range was copied. Its lease is
        // left to lapse: a range a verify marks to copy again is given up then.
        self.record
            .done(lo, i64::try_from(rows).unwrap_or(i64::MAX))
            .await?;
        if held.repair {
            self.repaired.fetch_add(1, Ordering::Relaxed);
        }
        self.ranges_done.fetch_add(1, Ordering::Relaxed);
        self.report(Vec::new());
        Ok(Outcome::Copied)
    }

    /// Copies the rows of range `lo..=hi`: how many. Consecutive rows of one target
    /// partition go in one unlogged batch (one mutation on the server, however many rows), up
    /// to [`BATCH_ROWS`] rows or [`BATCH_BYTES`] of values; `writes_in_flight` batches or
    /// single writes are sent at once.
    async fn copy_rows<T: CopyFrom>(
        &self,
        lo: i64,
        hi: i64,
        held: &Held,
    ) -> Result<u64, MigrationError> {
        let read_at = now_micros();
        let scan = &self.copy.scan;
        let pager = send::pager(self.db, KIND, scan, (lo, hi)).await?;
        let guard = scan.get_current_result_set_col_specs();
        let specs: Vec<ColumnSpec<'static>> =
            guard.get().iter().map(|s| s.clone().into_owned()).collect();
        let source_key: Vec<usize> = <T::Source as Table>::schema()
            .field_columns()
            .iter()
            .enumerate()
            .filter(|(_, c)| self.copy.source.primary_key.iter().any(|k| k == c.name))
            .map(|(i, _)| i)
            .collect();
        let context = Context {
            read_at,
            specs: &specs,
            source_key: &source_key,
        };
        let rows = pager
            .rows_stream::<SourceRow<T::Source>>()
            .map_err(Error::from)?
            .map_err(row_error);
        let chunks = Chunks {
            rows: Box::pin(rows),
            pending: Chunk::<T>::default(),
            ended: false,
            run: self,
            cx: &context,
        };
        chunks
            .map_ok(|chunk| self.write_chunk(chunk, held))
            .try_buffer_unordered(self.options.writes_in_flight)
            .try_fold(0u64, |n, copied| std::future::ready(Ok(n + copied)))
            .await
    }

    /// One source row converted, its cells written once and its statements; `None` when
    /// its conversion failed (it is then recorded as a failure).
    fn convert<T: CopyFrom>(
        &self,
        source: SourceRow<T::Source>,
        cx: &Context<'_>,
    ) -> Result<Option<Ready<T>>, MigrationError> {
        // The key is described before the conversion consumes the row, only when a function
        // converts it (copies by name cannot fail to convert).
        let key = self
            .copy
            .source_cell
            .is_none()
            .then(|| describe(&source.row, cx.source_key, cx.specs));
        let row = match T::convert(source.row) {
            Ok(row) => row,
            Err(reason) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut f) = self.failures.lock()
                    && f.len() < 100
                {
                    f.push(CopyFailure {
                        key: key.unwrap_or_default(),
                        reason,
                    });
                }
                return Ok(None);
            }
        };
        let cells = EncodedRow::of(&row, &self.copy.columns)
            .map_err(|e| Error::unsent(self.copy.write.get_statement(), e))?;
        // A counter has no write time: its row is one UPDATE, of its counts.
        let (groups, counts) = match self.copy.counters {
            Some(_) => (Vec::new(), Some(row)),
            None => {
                let times = &source.times;
                let map = self.copy.source_cell.as_deref();
                (cell_groups::<T>(times, map, cx.read_at), None)
            }
        };
        Ok(Some(Ready {
            cells,
            groups,
            counts,
        }))
    }

    /// Writes the rows of `chunk` (one target partition): one statement alone, else an
    /// unlogged batch (a counter batch for counters). Returns how many rows.
    async fn write_chunk<T: CopyFrom>(
        &self,
        chunk: Chunk<T>,
        held: &Held,
    ) -> Result<u64, MigrationError> {
        self.pace(chunk.rows.len() as u64).await;
        if let Some(counters) = &self.copy.counters {
            return self.add_counts(chunk, counters, held).await;
        }
        let values: Vec<TimedWrite<'_, T>> = chunk
            .rows
            .iter()
            .flat_map(|r| {
                r.groups.iter().map(|(timestamp, ttl, set)| TimedWrite {
                    row: &r.cells,
                    table: PhantomData,
                    set,
                    ttl: *ttl,
                    timestamp: *timestamp,
                })
            })
            .collect();
        self.send(&values, BatchType::Unlogged).await?;
        let n = chunk.rows.len() as u64;
        self.rows.fetch_add(n, Ordering::Relaxed);
        self.tick();
        Ok(n)
    }

    /// Adds the counts of the rows of `chunk` to the new table: all of them, or, in a range
    /// repaired, the difference between each old row and the new one read at consistency ALL.
    async fn add_counts<T: CopyFrom>(
        &self,
        chunk: Chunk<T>,
        counters: &Counters,
        held: &Held,
    ) -> Result<u64, MigrationError> {
        // Every row of a copy of counters keeps its counts (`convert`).
        let rows: Vec<&T> = chunk
            .rows
            .iter()
            .filter_map(|r| r.counts.as_ref())
            .collect();
        let values: Vec<CounterAdd<'_, T>> = match &self.repair_read {
            Some(read) if held.repair => {
                // Read 8 at a time. (Not a stream of futures: the compiler cannot prove that
                // one `Send` for every lifetime its closure is called with.)
                let mut new: Vec<Option<T>> = Vec::with_capacity(rows.len());
                for some in rows.chunks(8) {
                    let reads = some.iter().map(|&r| counters.read_all(self.db, read, r));
                    new.extend(futures::future::try_join_all(reads).await?);
                }
                // Only the rows that differ, by the difference.
                rows.iter()
                    .zip(&new)
                    .filter_map(|(&row, new)| {
                        Some(CounterAdd {
                            row,
                            amounts: Some(counters.difference(
                                row,
                                new.as_ref(),
                                &self.copy.columns,
                            )?),
                            counters,
                        })
                    })
                    .collect()
            }
            _ => rows
                .iter()
                .map(|&row| CounterAdd {
                    row,
                    amounts: None,
                    counters,
                })
                .collect(),
        };
        if self.ran_out(held) {
            // Its renewals are late: the next claim repairs the range.
            return Err(MigrationError::Copy(format!(
                "{LEASE_RAN_OUT} (its renewals were late): give the copy a longer lease than {:?}",
                self.options.lease
            )));
        }
        self.send(&values, BatchType::Counter).await?;
        let n = chunk.rows.len() as u64;
        self.rows.fetch_add(n, Ordering::Relaxed);
        self.tick();
        Ok(n)
    }

    /// Whether the lease of `held` is in its last third (or over), when a copy of counters
    /// sends no more writes: each of them ends before the lease does.
    fn ran_out(&self, held: &Held) -> bool {
        self.copy.counters.is_some()
            && now_millis() > held.until.load(Ordering::Relaxed) - self.lease_millis() / 3
    }

    /// Sends the copy's write with each of `values`: one statement alone, else a batch of
    /// `kind` (an unlogged batch may be sent again; a counter batch may not).
    async fn send<V: SerializeRow>(&self, values: &[V], kind: BatchType) -> Result<(), Error> {
        let write = &*self.copy.write;
        match values {
            [] => {}
            [one] => {
                send::run(self.db, KIND, write, one).await?;
            }
            _ => {
                let mut batch = DriverBatch::new(kind);
                batch.set_is_idempotent(kind == BatchType::Unlogged);
                for _ in values {
                    batch.append_statement(BatchStatement::PreparedStatement(write.clone()));
                }
                if let Some(timeout) = write.get_request_timeout() {
                    batch.set_request_timeout(Some(timeout));
                }
                send::batch_of(self.db, KIND, &batch, values, write.get_statement()).await?;
            }
        }
        Ok(())
    }

    /// Waits for the turn of `rows` more rows, if there is a rate limit.
    async fn pace(&self, rows: u64) {
        if let Some(at) = self.pace.turn(rows) {
            tokio::time::sleep_until(at.into()).await;
        }
    }
}

/// A failure reading the next source row.
fn row_error(e: scylla::errors::NextRowError) -> MigrationError {
    MigrationError::from(Error::from(e))
}

/// The most rows in one batch.
const BATCH_ROWS: usize = 100;
/// The most bytes of values in one batch (by the bytes of each row's cells).
const BATCH_BYTES: usize = 256 * 1024;

/// What every row of one range's copy needs.
struct Context<'a> {
    /// When the range was read (the write time of rows without a timed cell).
    read_at: i64,
    /// The scan's result columns.
    specs: &'a [ColumnSpec<'static>],
    /// The source row's key fields.
    source_key: &'a [usize],
}

/// A converted row, ready to write.
struct Ready<T> {
    /// Its cells, written once.
    cells: EncodedRow,
    /// Its statements: one per write time and TTL of its cells (none for counters).
    groups: Vec<CellGroup>,
    /// The row itself, for a copy of counters (their counts are added, or repaired).
    counts: Option<T>,
}

/// Consecutive rows of one target partition.
struct Chunk<T> {
    rows: Vec<Ready<T>>,
    bytes: usize,
}

impl<T> Default for Chunk<T> {
    fn default() -> Self {
        Chunk {
            rows: Vec::new(),
            bytes: 0,
        }
    }
}

impl<T: Table> Chunk<T> {
    /// Whether `next` joins this chunk: the same partition, and room for it.
    fn takes(&self, next: &Ready<T>) -> bool {
        let Some(first) = self.rows.first() else {
            return true;
        };
        self.rows.len() < BATCH_ROWS
            && self.bytes + next.cells.len() <= BATCH_BYTES
            && first
                .cells
                .same_partition(&next.cells, &T::schema().partition_key)
    }

    fn push(&mut self, row: Ready<T>) {
        self.bytes += row.cells.len();
        self.rows.push(row);
    }
}

/// The source rows of a range, converted, in chunks of one target partition.
struct Chunks<'a, S, T> {
    rows: Pin<Box<S>>,
    /// The rows read since the last chunk was returned.
    pending: Chunk<T>,
    ended: bool,
    run: &'a Run<'a>,
    cx: &'a Context<'a>,
}

// No field is ever pinned through the stream (the rows stream is boxed).
impl<S, T> Unpin for Chunks<'_, S, T> {}

impl<S, T> Stream for Chunks<'_, S, T>
where
    S: Stream<Item = Result<SourceRow<T::Source>, MigrationError>>,
    T: CopyFrom,
{
    type Item = Result<Chunk<T>, MigrationError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context_<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        loop {
            match this.rows.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(e))) => {
                    this.ended = true;
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(None) => {
                    this.ended = true;
                    let last = std::mem::take(&mut this.pending);
                    return Poll::Ready((!last.rows.is_empty()).then_some(Ok(last)));
                }
                Poll::Ready(Some(Ok(source))) => {
                    let ready = match this.run.convert::<T>(source, this.cx) {
                        Ok(Some(ready)) => ready,
                        Ok(None) => continue,
                        Err(e) => {
                            this.ended = true;
                            return Poll::Ready(Some(Err(e)));
                        }
                    };
                    if this.pending.takes(&ready) {
                        this.pending.push(ready);
                        continue;
                    }
                    let full = std::mem::take(&mut this.pending);
                    this.pending.push(ready);
                    return Poll::Ready(Some(Ok(full)));
                }
            }
        }
    }
}

/// Microseconds since the epoch, now: the write time of copied rows that have no cell to take
/// it from.
fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn timeout() -> MigrationError {
        MigrationError::from(Error::IndexNotReady {
            indexes: vec!["ks.i".into()],
            nodes: vec!["127.0.0.3".into()],
            waited: Duration::ZERO,
        })
    }

    /// `again` with an operation that fails `failures` times with `error`, then succeeds:
    /// what it returned and how many times the operation ran.
    async fn run(failures: u32, error: fn() -> MigrationError) -> (Result<u32, String>, u32) {
        let calls = Cell::new(0);
        let result = again(3, || {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move { if n <= failures { Err(error()) } else { Ok(n) } }
        })
        .await;
        (result.map_err(|e| e.to_string()), calls.get())
    }

    #[tokio::test]
    async fn again_retries_transient_failures_only_and_at_most_attempts_times() {
        assert_eq!(run(0, timeout).await, (Ok(1), 1));
        assert_eq!(run(2, timeout).await, (Ok(3), 3));
        let (gave_up, calls) = run(5, timeout).await;
        assert!(
            gave_up.is_err_and(|e| e.contains("127.0.0.3")),
            "the last error"
        );
        assert_eq!(calls, 3);
        let (refused, calls) = run(5, || MigrationError::Copy("not transient".into())).await;
        assert_eq!((refused, calls), (Err("not transient".into()), 1));
    }
}
