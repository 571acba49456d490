//! `counters`: the offline copy of a counter table (`#[cass(from = .., offline)]`) under
//! faults. The counts of `chaos_views` (one partition per site) are copied into
//! `chaos_views_by_page` (one partition per site and page) by backfill worker processes
//! (`chaos counter-worker`), with no writer of either table. Workers are killed with SIGKILL
//! at set points of the copy, increments in flight, and new ones started; on the cluster,
//! node 3 is also killed (SIGKILL) at the last kill of a worker. A range a killed worker held
//! is repaired by the next claim (the new rows read at consistency ALL, the differences
//! added): with node 3 down that read is refused, and the workers end with the error that says
//! to bring every node up. After node 3 is back, one more backfill ends the copy. At the end:
//! every range done, some repaired, `verify` clean, and every count of the new table equal to
//! the old one's: nothing lost, nothing counted twice.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cassmodel::migrate::copy::{self, CopyOptions, VerifyOptions};
use cassmodel::value::Counter;
use cassmodel::{CassTable, Db};
use chrono::NaiveDate;
use futures::{StreamExt, TryStreamExt};

use crate::copy::{copy_with_kills, node_back, worker_db};
use crate::env::{Env, Outcome};

/// Views per site, page and day.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_views")]
pub struct Views {
    #[partition_key]
    site: i32,
    #[clustering]
    page: i32,
    #[clustering(desc)]
    day: NaiveDate,
    views: Counter,
    visitors: Option<Counter>,
}

/// The same counts, one partition per site and page.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_views_by_page", from = Views, offline)]
pub struct ViewsByPage {
    #[partition_key]
    site: i32,
    #[partition_key]
    page: i32,
    #[clustering(desc)]
    day: NaiveDate,
    views: Counter,
    visitors: Option<Counter>,
}

const SITES: i32 = 300;
const PAGES: i32 = 4;
const DAYS: i64 = 5;
const RANGES: u32 = 64;
/// Long enough for a repair read at ALL and a write on a loaded two-core machine (each is given
/// a third of it).
const LEASE: Duration = Duration::from_secs(10);
/// Rows per second of each worker: the copy lasts long enough to be killed at set points.
const WORKER_RATE: u32 = 250;

/// `(site, page, day) -> (views, visitors)`.
type Counts = BTreeMap<(i32, i32, NaiveDate), (i64, Option<i64>)>;

fn options() -> CopyOptions {
    CopyOptions::new().ranges(RANGES).lease(LEASE)
}

/// `chaos counter-worker KEYSPACE CONTACT_POINTS`: one backfill worker process; prints the
/// rows, ranges and ranges repaired it copied.
pub async fn worker(args: &[String]) -> Result<(), String> {
    let db = worker_db(args).await?;
    let report = copy::backfill::<ViewsByPage>(&db, &options().rows_per_second(WORKER_RATE))
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "{} {} {}",
        report.rows, report.ranges_copied, report.ranges_repaired
    );
    Ok(())
}

/// The counts of `table`, with plain CQL.
async fn counts(db: &Db, keyspace: &str, table: &str) -> Result<Counts, String> {
    let cql = format!("SELECT site, page, day, views, visitors FROM {keyspace}.{table}");
    let mut rows = db
        .session()
        .query_iter(cql.as_str(), &[])
        .await
        .map_err(|e| e.to_string())?
        .rows_stream::<(i32, i32, NaiveDate, Counter, Option<Counter>)>()
        .map_err(|e| e.to_string())?;
    let mut out = Counts::new();
    while let Some((site, page, day, v, u)) = rows.try_next().await.map_err(|e| e.to_string())? {
        out.insert((site, page, day), (v.0, u.map(|u| u.0)));
    }
    Ok(out)
}

pub async fn check(env: &Env) -> Result<Outcome, String> {
    let db = crate::checks::connect(env, Some(Duration::from_secs(20))).await?;
    let ks = env.keyspace.clone();
    let target = format!("{ks}.chaos_views_by_page");
    db.create_table::<Views>()
        .await
        .map_err(|e| e.to_string())?;
    db.create_table::<ViewsByPage>()
        .await
        .map_err(|e| e.to_string())?;
    let first_day = NaiveDate::from_ymd_opt(2026, 3, 1).ok_or("a day")?;
    let keys: Vec<(i32, i32, NaiveDate)> = (0..SITES)
        .flat_map(|s| (0..PAGES).flat_map(move |p| (0..DAYS).map(move |d| (s, p, d))))
        .map(|(s, p, d)| (s, p, first_day + chrono::Duration::days(d)))
        .collect();
    // One increment per row, visitors on a third of them. A failed increment may have
    // counted or not: the counts to copy are the old table's, read back after.
    futures::stream::iter(keys.iter().enumerate())
        .map(|(i, (site, page, day))| {
            let db = &db;
            let n = (i as i64 * 7919) % 1000 - 100;
            async move {
                let update = Views::update().increment_views(n);
                let update = if i % 3 == 0 {
                    update.increment_visitors(i as i64 % 17)
                } else {
                    update
                };
                update.site(site).page(page).day(day).execute(db).await
            }
        })
        .buffer_unordered(64)
        .try_collect::<Vec<_>>()
        .await
        .map_err(|e| format!("loading: {e}"))?;
    let old = counts(&db, &ks, "chaos_views").await?;
    if old.len() != keys.len() {
        return Err(format!("{} rows counted of {}", old.len(), keys.len()));
    }

    let started = Instant::now();
    // Node 3 goes down at the last kill of a worker: for about 20 s after, until the other
    // nodes see it down, counter writes time out (counted or not: every range they touch is
    // to repair), and a repair needs every replica.
    let run = copy_with_kills(env, &db, &target, "counter-worker", RANGES, 3).await?;
    let restarted = node_back(env, &run.node_stopped).await?;
    // With node 3 down, a repair cannot read every replica: the workers that met one end
    // with the error that says so; any other error fails the check.
    let mut refused = 0;
    for e in run.ended.iter().filter_map(|e| e.as_ref().err()) {
        if run.node_stopped.is_some() && e.contains("bring every node up") {
            refused += 1;
        } else {
            return Err(format!("a worker failed: {e}"));
        }
    }
    // The copy ends here: the ranges the workers could not repair.
    let last = copy::backfill::<ViewsByPage>(&db, &options())
        .await
        .map_err(|e| format!("the last backfill: {e}"))?;
    let copy_took = started.elapsed();
    let reported: Vec<&String> = run.ended.iter().flatten().collect();
    let repaired: u32 = reported
        .iter()
        .filter_map(|r| r.split_whitespace().nth(2)?.parse::<u32>().ok())
        .sum::<u32>()
        + last.ranges_repaired;

    let verify = copy::verify::<ViewsByPage>(&db, &VerifyOptions::new())
        .await
        .map_err(|e| e.to_string())?;
    let new = counts(&db, &ks, "chaos_views_by_page").await?;
    let still = counts(&db, &ks, "chaos_views").await?;
    let status = copy::status(&db).await.map_err(|e| e.to_string())?;
    let finished = status.iter().any(|s| s.target == target && s.finished);
    let same = new == old && still == old;
    let differing = old.iter().filter(|(k, v)| new.get(*k) != Some(*v)).count();
    let ok = verify.is_clean() && same && finished && repaired > 0;
    Ok(Outcome {
        name: "counters",
        ok,
        figures: format!(
            "{} counter rows in {RANGES} ranges copied offline by worker processes killed with \
             SIGKILL (pid at ranges done): {}{}; workers left: {} reported (rows ranges \
             repaired) {}, {refused} refused a repair with a replica down; the last backfill: \
             {} ranges, {} repaired; ranges repaired as reported by the processes that \
             ended well: {repaired}; copy {copy_took:.1?}; \
             all ranges done: {finished}; verify: {} missing, {} different, {} extra; new counts \
             = old counts: {same} ({differing} rows differ)",
            old.len(),
            run.kills.join(", "),
            run.node_stopped
                .as_ref()
                .map_or(String::new(), |(n, pid, at)| format!(
                    "; {} (pid {pid}) killed with SIGKILL at {at} ranges and started again after \
                     the workers ended (rejoined: {restarted})",
                    n.host
                )),
            reported.len(),
            reported
                .iter()
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            last.ranges_copied,
            last.ranges_repaired,
            verify.missing,
            verify.different,
            verify.extra,
        ),
    })
}
