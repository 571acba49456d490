//! The offline copy of a counter table (`all --counters`): `views` (one partition per sensor,
//! 500 hourly counts each: `sensor int, day date, hour int, views counter`) into
//! `views_by_day`, whose partition is `(sensor, day)` (24 rows each).
//!
//! Variants:
//! - `counters-cassmodel`: `cassmodel::migrate::copy::backfill` with its defaults (256 token
//!   ranges, 8 ranges in flight and 16 writes in flight per range, rows of one target partition
//!   in one counter batch; `BACKFILL_RANGES_IN_FLIGHT`, `BACKFILL_WRITES_IN_FLIGHT` change
//!   them), including its record in `cassmodel_migrations`; `counters-cassmodel:4x4`: the same
//!   with 4 ranges and 4 writes each in flight, as many batches as `counters-raw:16`;
//! - `counters-raw:C`: by hand, as the driver's documentation shows: the ring in 256 token
//!   ranges, 4 at a time, each read with `execute_iter` + `rows_stream`, consecutive rows of one
//!   target partition (up to 100) in one counter batch of the prepared `UPDATE .. SET views =
//!   views + ?`, C batches in flight in all.
//!
//! Neither repairs anything: the target is empty before every run. After each run, the
//! target's rows and the sum of its counts must equal the source's.

use super::*;
use cassmodel::value::Counter;

/// The counter table, as the application had it.
#[derive(CassTable, Debug, Clone)]
#[cass(keyspace = "cassmodel_bench_copy", table = "views")]
pub struct Views {
    #[partition_key]
    sensor: i32,
    #[clustering]
    day: NaiveDate,
    #[clustering]
    hour: i32,
    views: Counter,
}

/// The new table: `day` moved into the partition key.
#[derive(CassTable, Debug, Clone)]
#[cass(
    keyspace = "cassmodel_bench_copy",
    table = "views_by_day",
    from = Views,
    offline
)]
pub struct ViewsByDay {
    #[partition_key]
    sensor: i32,
    #[partition_key]
    day: NaiveDate,
    #[clustering]
    hour: i32,
    views: Counter,
}

/// The variants of `all --counters`.
pub const VARIANTS: [&str; 5] = [
    "counters-cassmodel",
    "counters-cassmodel:4x4",
    "counters-raw:16",
    "counters-raw:32",
    "counters-raw:64",
];

/// Creates the tables, and counts `rows` source rows unless they are there.
pub async fn load(db: &Db, rows: u64) -> Res<()> {
    let s = db.session();
    super::create_keyspace(s).await?;
    db.create_table::<ViewsByDay>()
        .await
        .map_err(|e| e.to_string())?;
    if super::loaded(s, 1).await? == Some(rows as i64) {
        eprintln!("{rows} counter rows already loaded");
        return Ok(());
    }
    cql(s, &format!("DROP TABLE IF EXISTS {KEYSPACE}.views")).await?;
    db.create_table::<Views>()
        .await
        .map_err(|e| e.to_string())?;
    let add = s
        .prepare(format!(
            "UPDATE {KEYSPACE}.views SET views = views + ? WHERE sensor = ? AND day = ? AND \
             hour = ?"
        ))
        .await
        .map_err(|e| e.to_string())?;
    let first = NaiveDate::from_ymd_opt(2026, 1, 1).ok_or("a day")?;
    let mut rng = Lcg(43);
    let mut made = Vec::with_capacity(rows as usize);
    while (made.len() as u64) < rows {
        let sensor = (rng.next() % i32::MAX as u64) as i32;
        for i in 0..500i64 {
            if made.len() as u64 == rows {
                break;
            }
            let day = first + chrono::Duration::days(i / 24);
            let n = (rng.next() % 10_000) as i64 - 100;
            made.push((Counter(n), sensor, day, (i % 24) as i32));
        }
    }
    let t = Instant::now();
    futures::stream::iter(made)
        .map(|row| {
            let add = &add;
            async move { s.execute_unpaged(add, row).await.map(drop) }
        })
        .buffer_unordered(256)
        .try_collect::<()>()
        .await
        .map_err(|e| e.to_string())?;
    super::mark_loaded(s, 1, rows).await?;
    eprintln!("counted {rows} rows in {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// Empties the target and forgets cassmodel's record of the copy.
pub async fn reset(db: &Db) -> Res<()> {
    super::empty(db.session(), "views_by_day").await
}

/// The rows and the sum of the counts of `table`, token range by token range.
pub async fn totals(db: &Db, table: &str, key: &str) -> Res<(u64, i64)> {
    let s = db.session();
    let ps = s
        .prepare(format!(
            "SELECT COUNT(*), SUM(views) FROM {KEYSPACE}.{table} WHERE token({key}) >= ? AND \
             token({key}) <= ?"
        ))
        .await
        .map_err(|e| e.to_string())?;
    let parts: Vec<(i64, Counter)> = futures::stream::iter(ranges(64))
        .map(|range| {
            let ps = &ps;
            async move {
                s.execute_unpaged(ps, range)
                    .await
                    .map_err(|e| e.to_string())?
                    .into_rows_result()
                    .map_err(|e| e.to_string())?
                    .first_row::<(i64, Counter)>()
                    .map_err(|e| e.to_string())
            }
        })
        .buffer_unordered(8)
        .try_collect()
        .await?;
    Ok((
        parts.iter().map(|(n, _)| *n as u64).sum(),
        parts.iter().map(|(_, c)| c.0).sum(),
    ))
}

/// One copy in this process: the rows copied.
pub async fn run(db: &Db, variant: &str) -> Res<u64> {
    let options = match variant.split_once(':') {
        None => super::options_from_env()?,
        // `R x W`: R ranges in flight, W writes in flight each.
        Some(("counters-cassmodel", rw)) => {
            let (r, w) = rw.split_once('x').ok_or("RxW")?;
            CopyOptions::new()
                .ranges_in_flight(r.parse().map_err(|_| "R")?)
                .writes_in_flight(w.parse().map_err(|_| "W")?)
        }
        Some((_, c)) => return raw(db, c.parse().map_err(|_| "C")?).await,
    };
    Ok(copy::backfill::<ViewsByDay>(db, &options)
        .await
        .map_err(|e| e.to_string())?
        .rows)
}

/// The copy by hand: 256 token ranges, 4 at a time, `in_flight` counter batches in all.
async fn raw(db: &Db, in_flight: usize) -> Res<u64> {
    let s = db.session();
    let mut scan = s
        .prepare(format!(
            "SELECT sensor, day, hour, views FROM {KEYSPACE}.views WHERE token(sensor) >= ? \
             AND token(sensor) <= ?"
        ))
        .await
        .map_err(|e| e.to_string())?;
    scan.set_page_size(1000);
    let add = s
        .prepare(format!(
            "UPDATE {KEYSPACE}.views_by_day SET views = views + ? WHERE sensor = ? AND day = ? \
             AND hour = ?"
        ))
        .await
        .map_err(|e| e.to_string())?;
    let per_range = in_flight.div_ceil(4).max(1);
    let counts: Vec<u64> = futures::stream::iter(ranges(256))
        .map(|range| copy_range(s, &scan, &add, range, per_range))
        .buffer_unordered(4)
        .try_collect()
        .await?;
    Ok(counts.iter().sum())
}

type Row = (i32, NaiveDate, i32, Counter);

async fn copy_range(
    s: &Session,
    scan: &PreparedStatement,
    add: &PreparedStatement,
    range: (i64, i64),
    in_flight: usize,
) -> Res<u64> {
    let rows = s
        .execute_iter(scan.clone(), range)
        .await
        .map_err(|e| e.to_string())?
        .rows_stream::<Row>()
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string());
    // Consecutive rows of one (sensor, day), up to 100, in one counter batch.
    let adds = rows.map_ok(|(sensor, day, hour, views)| (views, sensor, day, hour));
    grouped(
        s,
        add,
        adds,
        |a, b| a.1 == b.1 && a.2 == b.2,
        BatchType::Counter,
        in_flight,
    )
    .await
}
