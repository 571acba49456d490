//! A check's token ranges, shared through the record the key-change copy keeps in the
//! cluster (keyspace `cassmodel_migrations`): each pass of a check (the identity table, then
//! each other table) cuts its table's ring into ranges, claims each with a lease before it
//! reads it, stores what it found in the range (`drift_found`) and marks it done. A check or
//! repair killed at any point continues where it was when run again, on any machine, and
//! several processes share one; a range read twice (its process stopped before marking it
//! done) is harmless: its repair wrote cells with the winners' write times, and its findings
//! are written over. A pass found complete when a check starts is an earlier check's: it is
//! forgotten, and the check starts anew.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use futures::StreamExt;
use scylla::statement::prepared::PreparedStatement;

use super::read::KIND;
use super::report::TableDrift;
use crate::exec::send;
use crate::migrate::copy::backfill::{again, transient};
use crate::migrate::copy::keyspace::RECORD_KEYSPACE;
use crate::migrate::copy::lease::{Watch, owner_name};
use crate::migrate::copy::range_count::RangeCount;
use crate::migrate::copy::record::{Claim, Claimant, Record, forget, now_millis, recorded};
use crate::migrate::error::MigrationError;
use crate::migrate::live::LiveSchema;
use crate::progress::{OnProgress, Progress};
use crate::schema::ddl::qualified;
use crate::session::db::Db;

/// The prefix of a check's names in the record (which `migrate status` leaves out).
pub(crate) const PREFIX: &str = "drift:";

/// A range's lease (ms) and how often it is renewed: a process silent for five heartbeats
/// has its ranges taken over.
const LEASE: i64 = 30_000;
const HEARTBEAT: Duration = Duration::from_secs(1);

/// Attempts at a range (or a read of the record) that fails for a reason worth another.
const ATTEMPTS: u32 = 5;

/// What one pass of a check shares: its name in the record, the replication of the record's
/// keyspace if it creates it, its number of ranges, and the tables its findings count.
pub(super) struct Pass<'a> {
    pub name: String,
    pub keyspace: &'a str,
    pub ranges: u32,
    pub ranges_in_flight: usize,
    pub tables: usize,
    pub listed: usize,
    /// `keyspace.table` read, for the progress.
    pub table: &'a str,
    pub progress: Option<&'a OnProgress>,
}

/// Tells `progress` that `done` of the `total` ranges of the pass over `table` are done.
pub(super) fn report(progress: Option<&OnProgress>, table: &str, done: u32, total: u32) {
    if let Some(p) = progress {
        p.report(&Progress::Ranges {
            table: table.to_owned(),
            done,
            total,
        });
    }
}

/// Runs `work` on every range of `pass` not done, shared with the other processes running
/// it, and returns what every range found (this process's and the others').
pub(super) async fn run<F, Fut>(
    db: &Db,
    pass: &Pass<'_>,
    work: F,
) -> Result<Vec<TableDrift>, MigrationError>
where
    F: Fn(i64, i64) -> Fut,
    Fut: Future<Output = Result<Vec<TableDrift>, MigrationError>>,
{
    let name = &pass.name;
    let states = recorded(db, name).await?;
    if !states.is_empty() && states.iter().all(|r| r.done) {
        forget(db, name).await?;
    }
    let live = LiveSchema::read(db, &[pass.keyspace]).await?;
    let replication = live
        .keyspaces
        .get(pass.keyspace)
        .map(|k| k.replication.clone())
        .unwrap_or_default();
    let count = RangeCount::Exactly(pass.ranges);
    let record = again(ATTEMPTS, || {
        Record::open(db, &replication, name, "drift", count)
    })
    .await?;
    let found = qualified(RECORD_KEYSPACE, "drift_found");
    let store = send::prepare(
        db,
        KIND,
        &format!("INSERT INTO {found} (migration, range_start, counts, first) VALUES (?, ?, ?, ?)"),
        true,
    )
    .await?;
    let shared = Shared {
        db,
        record: &record,
        owner: owner_name(),
        watch: Watch::default(),
        store,
        pass,
        done: AtomicU32::new(0),
        total: AtomicU32::new(0),
    };
    shared.rounds(&work).await?;
    read_found(db, pass).await
}

struct Shared<'a> {
    db: &'a Db,
    record: &'a Record<'a>,
    owner: String,
    watch: Watch,
    store: PreparedStatement,
    pass: &'a Pass<'a>,
    /// Ranges done (as the record said at the round's start, and by this process since).
    done: AtomicU32,
    total: AtomicU32,
}

impl Shared<'_> {
    /// Claims and runs the ranges not done, round after round, until every range is done;
    /// after a round in which every range left was held by other processes, a pause.
    async fn rounds<F, Fut>(&self, work: &F) -> Result<(), MigrationError>
    where
        F: Fn(i64, i64) -> Fut,
        Fut: Future<Output = Result<Vec<TableDrift>, MigrationError>>,
    {
        let mut failures: std::collections::HashMap<i64, u32> = Default::default();
        loop {
            let states = again(ATTEMPTS, || self.record.ranges()).await?;
            let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            self.total.store(count(states.len()), Ordering::Relaxed);
            self.done.store(
                count(states.iter().filter(|r| r.done).count()),
                Ordering::Relaxed,
            );
            self.tell();
            let mut free: Vec<(i64, i64)> = states
                .iter()
                .filter(|r| !r.done)
                .map(|r| (r.start, r.end))
                .collect();
            if free.is_empty() {
                return Ok(());
            }
            let turn = usize::try_from(now_millis().rem_euclid(free.len() as i64)).unwrap_or(0);
            free.rotate_left(turn);
            let results: Vec<(i64, Result<bool, MigrationError>)> = futures::stream::iter(free)
                .map(|(lo, hi)| async move { (lo, self.range(lo, hi, work).await) })
                .buffer_unordered(self.pass.ranges_in_flight)
                .collect()
                .await;
            let mut any = false;
            for (lo, result) in results {
                match result {
                    Ok(done) => any |= done,
                    Err(e) => {
                        // A release that fails leaves the lease to lapse by itself.
                        let _ = self.record.release(lo, &self.owner, 0).await;
                        let n = failures.entry(lo).or_default();
                        *n += 1;
                        if !transient(&e) || *n >= ATTEMPTS {
                            return Err(e);
                        }
                    }
                }
            }
            if !any {
                tokio::time::sleep(HEARTBEAT).await;
            }
        }
    }

    /// Claims range `lo..=hi` and runs `work` on it, renewing its lease: whether this process
    /// did it (not when another holds it or took it over).
    async fn range<F, Fut>(&self, lo: i64, hi: i64, work: &F) -> Result<bool, MigrationError>
    where
        F: Fn(i64, i64) -> Fut,
        Fut: Future<Output = Result<Vec<TableDrift>, MigrationError>>,
    {
        let heartbeat = i32::try_from(HEARTBEAT.as_millis()).unwrap_or(i32::MAX);
        let me = Claimant {
            owner: &self.owner,
            lease: LEASE,
            heartbeat,
        };
        if let Claim::Held(..) = self
            .record
            .claim(lo, me, now_millis(), Some(&self.watch))
            .await?
        {
            return Ok(false);
        }
        let renewal = (LEASE, HEARTBEAT);
        let found = self
            .record
            .while_held(lo, &self.owner, renewal, |_| {}, work(lo, hi))
            .await?;
        let Some(found) = found else {
            return Ok(false);
        };
        let (counts, first) = encode(&found);
        let values = (&self.pass.name, lo, counts, first);
        send::run(self.db, KIND, &self.store, values).await?;
        let rows = found.iter().map(|t| t.rows).sum::<u64>();
        self.record
            .done(lo, i64::try_from(rows).unwrap_or(i64::MAX))
            .await?;
        self.done.fetch_add(1, Ordering::Relaxed);
        self.tell();
        Ok(true)
    }

    fn tell(&self) {
        let (done, total) = (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        );
        report(self.pass.progress, self.pass.table, done, total);
    }
}

/// The counts of each table, in order, and its first keys (`table index`, kind, key).
fn encode(found: &[TableDrift]) -> (Vec<i64>, Vec<String>) {
    let mut counts = Vec::new();
    let mut first = Vec::new();
    for (i, t) in found.iter().enumerate() {
        let n = [
            t.rows,
            t.missing,
            t.extra,
            t.different,
            t.cells_different,
            t.written,
            t.deleted,
        ];
        counts.extend(n.map(|n| i64::try_from(n).unwrap_or(i64::MAX)));
        for (kind, keys) in [
            ('m', &t.first_missing),
            ('e', &t.first_extra),
            ('d', &t.first_different),
        ] {
            first.extend(keys.iter().map(|k| format!("{i}\t{kind}\t{k}")));
        }
    }
    (counts, first)
}

/// Adds `counts` and `first` (as [`encode`] wrote them) to `into`, each list of keys kept to
/// `listed`.
fn decode(into: &mut [TableDrift], counts: &[i64], first: &[String], listed: usize) {
    for (t, n) in into.iter_mut().zip(counts.chunks(7)) {
        let n: Vec<u64> = n.iter().map(|&v| u64::try_from(v).unwrap_or(0)).collect();
        if let [rows, missing, extra, different, cells, written, deleted] = n[..] {
            t.rows += rows;
            t.missing += missing;
            t.extra += extra;
            t.different += different;
            t.cells_different += cells;
            t.written += written;
            t.deleted += deleted;
        }
    }
    for line in first {
        let mut parts = line.splitn(3, '\t');
        let (Some(i), Some(kind), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Some(t) = i.parse::<usize>().ok().and_then(|i| into.get_mut(i)) else {
            continue;
        };
        let keys = match kind {
            "m" => &mut t.first_missing,
            "e" => &mut t.first_extra,
            _ => &mut t.first_different,
        };
        if keys.len() < listed {
            keys.push(key.to_owned());
        }
    }
}

/// What every range of `pass` found.
async fn read_found(db: &Db, pass: &Pass<'_>) -> Result<Vec<TableDrift>, MigrationError> {
    let cql = format!(
        "SELECT counts, first FROM {} WHERE migration = ?",
        qualified(RECORD_KEYSPACE, "drift_found")
    );
    type Row = (Option<Vec<i64>>, Option<Vec<String>>);
    let rows: Vec<Row> = send::rows(db, KIND, send::repeatable(&cql), (&pass.name,)).await?;
    let mut out = vec![TableDrift::default(); pass.tables];
    for (counts, first) in rows {
        decode(
            &mut out,
            &counts.unwrap_or_default(),
            &first.unwrap_or_default(),
            pass.listed,
        );
    }
    Ok(out)
}

/// The findings of ranges, added together (each list of keys kept to `listed`).
pub(super) fn merge(into: &mut [TableDrift], found: &[TableDrift], listed: usize) {
    let (counts, first) = encode(found);
    decode(into, &counts, &first, listed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_read_back_as_they_were_stored_and_add_up() {
        let t = TableDrift {
            rows: 5,
            missing: 1,
            extra: 2,
            different: 3,
            cells_different: 4,
            written: 4,
            deleted: 2,
            first_missing: vec!["k = 1".into()],
            first_extra: vec!["k = 2\twith a tab".into()],
            ..TableDrift::default()
        };
        let found = vec![TableDrift::default(), t.clone()];
        let mut into = vec![TableDrift::default(); 2];
        merge(&mut into, &found, 2);
        merge(&mut into, &found, 2);
        merge(&mut into, &found, 2);
        assert_eq!(into[0], TableDrift::default());
        assert_eq!(into[1].rows, 15);
        assert_eq!(into[1].deleted, 6);
        assert_eq!(
            into[1].first_missing,
            ["k = 1", "k = 1"],
            "two listed at most"
        );
        assert_eq!(
            into[1].first_extra,
            ["k = 2\twith a tab", "k = 2\twith a tab"]
        );
    }
}
