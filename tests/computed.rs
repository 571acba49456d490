//! Computed fields of projections (`#[cass(select = ..)]`): write times, TTLs, casts,
//! native functions and aggregates, each read back equal to the same selector in plain CQL
//! on the node.

mod support;

use std::collections::BTreeSet;

use cassmodel::{CassProjection, CassTable, Db, Insert};
use chrono::{DateTime, NaiveDate, TimeZone, Utc};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "computed_readings")]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering(desc)]
    ts: DateTime<Utc>,
    value: f64,
    note: Option<String>,
    tags: BTreeSet<String>,
    #[cass(static)]
    site: Option<String>,
}

/// When and for how long each cell was written.
#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Reading)]
struct Written {
    ts: DateTime<Utc>,
    #[cass(select = writetime(value))]
    value_written: i64,
    #[cass(select = ttl(value))]
    value_ttl: Option<i32>,
    #[cass(select = writetime(note))]
    note_written: Option<i64>,
    #[cass(select = WRITETIME(site))]
    site_written: Option<i64>,
}

/// Casts and native functions.
#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Reading)]
struct Converted {
    ts: DateTime<Utc>,
    #[cass(select = cast(value as text))]
    value_text: String,
    #[cass(select = cast(value as int))]
    value_int: i32,
    #[cass(select = toDate(ts))]
    day: NaiveDate,
    #[cass(select = tounixtimestamp(ts))]
    millis: i64,
    #[cass(select = collection_count(tags))]
    tag_count: Option<i32>,
    #[cass(select = abs(value))]
    magnitude: f64,
}

/// The aggregates of a partition (or of a range of it).
#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Reading)]
struct Stats {
    #[cass(select = min(value))]
    low: Option<f64>,
    #[cass(select = max(value))]
    high: Option<f64>,
    #[cass(select = sum(value))]
    total: f64,
    #[cass(select = avg(value))]
    mean: f64,
    #[cass(select = count(note))]
    notes: i64,
    #[cass(select = max(ts))]
    last: Option<DateTime<Utc>>,
}

fn at(minute: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 23, 0, 0)
        .single()
        .expect("a valid time")
        + chrono::Duration::minutes(minute)
}

fn reading(sensor: i32, minute: i64) -> Reading {
    Reading {
        sensor,
        ts: at(minute),
        value: -1.5 * (minute as f64) + f64::from(sensor),
        note: (minute % 2 == 0).then(|| format!("n{minute}")),
        tags: (0..minute % 3).map(|i| format!("t{i}")).collect(),
        site: None,
    }
}

/// Rows of sensors 1 and 2, sensor 1's at set write times, two with a TTL, and a static
/// value written later.
async fn rows(db: &Db) -> Vec<Reading> {
    db.create_table::<Reading>().await.expect("create");
    let mut all = Vec::new();
    for sensor in [1, 2] {
        for minute in 0..90 {
            let r = reading(sensor, minute);
            let mut insert = Insert::new(&r).using_timestamp(1_700_000_000_000_000 + minute);
            if minute % 30 == 0 {
                insert = insert.using_ttl(86_400);
            }
            insert.execute(db).await.expect("insert");
            all.push(r);
        }
    }
    Reading::update()
        .set_site(&Some("north".to_owned()))
        .sensor(&1)
        .using_timestamp(1_800_000_000_000_000)
        .execute(db)
        .await
        .expect("static");
    all
}

/// `sensor = 1`'s rows of `cql`'s selectors, with plain CQL.
async fn plain<R>(db: &Db, t: &support::TestDb, selectors: &str) -> Vec<R>
where
    R: for<'f, 'm> cassmodel::scylla::deserialize::row::DeserializeRow<'f, 'm>,
{
    let cql = format!(
        "SELECT {selectors} FROM {}.computed_readings WHERE sensor = 1",
        t.keyspace()
    );
    support::plain_rows::<R>(db, cql, ()).await
}

#[tokio::test]
async fn write_times_and_ttls_equal_plain_cql() {
    let t = support::test_db("computed_written").await;
    let db = &t.db;
    rows(db).await;
    let reads_started = std::time::Instant::now();
    let typed = Reading::select()
        .sensor(&1)
        .read_as::<Written>()
        .fetch_all(db)
        .await
        .expect("typed read");
    type Row = (DateTime<Utc>, i64, Option<i32>, Option<i64>, Option<i64>);
    let plain: Vec<Row> = plain(
        db,
        &t,
        "ts, WRITETIME(value), TTL(value), WRITETIME(note), WRITETIME(site)",
    )
    .await;
    assert_eq!(typed.len(), 90);
    let typed_rows: Vec<Row> = typed
        .iter()
        .map(|w| {
            (
                w.ts,
                w.value_written,
                w.value_ttl,
                w.note_written,
                w.site_written,
            )
        })
        .collect();
    // A TTL counts down by the second, and the plain read comes after the typed one: the plain
    // TTL may be lower by the seconds between them (rounded up). Everything else is equal.
    let apart = i32::try_from(reads_started.elapsed().as_secs()).unwrap_or(i32::MAX - 1) + 1;
    let ttl_apart = |(a, b): (&Row, &Row)| match (a.2, b.2) {
        (Some(t), Some(p)) => t - p,
        _ => 0,
    };
    let same_but_ttl = |r: &Row| (r.0, r.1, r.2.is_some(), r.3, r.4);
    assert_eq!(
        typed_rows.iter().map(same_but_ttl).collect::<Vec<_>>(),
        plain.iter().map(same_but_ttl).collect::<Vec<_>>()
    );
    assert!(
        typed_rows
            .iter()
            .zip(&plain)
            .all(|rows| (0..=apart).contains(&ttl_apart(rows))),
        "TTLs more than {apart} s apart: {typed_rows:?} / {plain:?}"
    );
    // What was written: the set write times, a TTL on every 30th row only, a null note's
    // write time null, the static column's own write time on every row.
    for w in &typed {
        let minute = (w.ts - at(0)).num_minutes();
        assert_eq!(w.value_written, 1_700_000_000_000_000 + minute);
        assert_eq!(w.value_ttl.is_some(), minute % 30 == 0, "{w:?}");
        assert!(
            w.value_ttl.is_none_or(|s| s > 86_000 && s <= 86_400),
            "{w:?}"
        );
        assert_eq!(w.note_written.is_some(), minute % 2 == 0, "{w:?}");
        assert_eq!(w.site_written, Some(1_800_000_000_000_000));
    }
    t.drop_all().await;
}

#[tokio::test]
async fn casts_and_functions_equal_plain_cql() {
    let t = support::test_db("computed_converted").await;
    let db = &t.db;
    rows(db).await;
    let typed = Reading::select()
        .sensor(&1)
        .read_as::<Converted>()
        .fetch_all(db)
        .await;
    // collection_count and abs came with Cassandra 5.0: before, the read is refused by name.
    let server = support::server(db).await;
    if server < cassmodel::schema::ServerVersion::CASSANDRA_5_0 {
        let e = typed.expect_err("5.0's functions before 5.0");
        assert_eq!(e.kind(), cassmodel::ErrorKind::Unsupported, "{e}");
        assert!(
            e.to_string()
                .starts_with("the function collection_count(tags) needs Cassandra 5.0"),
            "{e}"
        );
        return t.drop_all().await;
    }
    let typed = typed.expect("typed read");
    type Row = (DateTime<Utc>, String, i32, NaiveDate, i64, Option<i32>, f64);
    let plain: Vec<Row> = plain(
        db,
        &t,
        "ts, CAST(value AS text), CAST(value AS int), toDate(ts), toUnixTimestamp(ts), \
         collection_count(tags), abs(value)",
    )
    .await;
    assert_eq!(typed.len(), 90);
    let typed_rows: Vec<Row> = typed
        .iter()
        .map(|c| {
            (
                c.ts,
                c.value_text.clone(),
                c.value_int,
                c.day,
                c.millis,
                c.tag_count,
                c.magnitude,
            )
        })
        .collect();
    assert_eq!(typed_rows, plain);
    // Rows on both sides of midnight: two days.
    let days: BTreeSet<NaiveDate> = typed.iter().map(|c| c.day).collect();
    assert_eq!(days.len(), 2, "{days:?}");
    assert!(typed.iter().any(|c| c.value_text.contains('.')));
    t.drop_all().await;
}

#[tokio::test]
async fn aggregates_of_a_partition_and_a_range_equal_plain_cql() {
    let t = support::test_db("computed_stats").await;
    let db = &t.db;
    let all = rows(db).await;
    type Row = (
        Option<f64>,
        Option<f64>,
        f64,
        f64,
        i64,
        Option<DateTime<Utc>>,
    );
    let tuple = |s: &Stats| (s.low, s.high, s.total, s.mean, s.notes, s.last);
    let stats = Reading::select()
        .sensor(&1)
        .read_as::<Stats>()
        .fetch_all(db)
        .await
        .expect("typed aggregate");
    let plain: Vec<Row> = plain(
        db,
        &t,
        "min(value), max(value), sum(value), avg(value), count(note), max(ts)",
    )
    .await;
    assert_eq!(stats.iter().map(tuple).collect::<Vec<_>>(), plain);
    // One row, the partition's figures.
    let mine: Vec<&Reading> = all.iter().filter(|r| r.sensor == 1).collect();
    let [s] = stats.as_slice() else {
        panic!("one row of aggregates, got {stats:?}");
    };
    let values: Vec<f64> = mine.iter().map(|r| r.value).collect();
    assert_eq!(s.low, values.iter().copied().reduce(f64::min));
    assert_eq!(s.high, values.iter().copied().reduce(f64::max));
    assert_eq!(
        s.notes,
        mine.iter().filter(|r| r.note.is_some()).count() as i64
    );
    assert_eq!(s.last, Some(at(89)));

    // Over a range of the clustering column: the rows of the first hour.
    let hour = Reading::select()
        .sensor(&1)
        .ts_lt(&at(60))
        .read_as::<Stats>()
        .fetch_first(db)
        .await
        .expect("range aggregate")
        .expect("a row");
    assert_eq!(hour.last, Some(at(59)));
    assert_eq!(hour.notes, 30);
    // An empty range: no rows to aggregate, the server's empty answers (null, 0).
    let none = Reading::select()
        .sensor(&3)
        .read_as::<Stats>()
        .fetch_first(db)
        .await
        .expect("empty aggregate")
        .expect("a row");
    assert_eq!((none.low, none.notes, none.total), (None, 0, 0.0));
    t.drop_all().await;
}
