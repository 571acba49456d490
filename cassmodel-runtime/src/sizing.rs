//! Partition sizing: the last step of the data-modelling guides, before a table is created.
//!
//! A table declares how its partitions grow with `#[cass(expect(...))]`, and the average
//! size of its variable-length columns with `#[cass(avg_bytes = N)]`:
//!
//! ```
//! use cassmodel::CassTable;
//! use chrono::{DateTime, Utc};
//! use uuid::Uuid;
//!
//! /// A customer's orders: about 1,000 a month, kept 10 years.
//! #[derive(CassTable)]
//! #[cass(table = "orders", expect(rows = 1_000, per = "month", horizon = "10 years"))]
//! struct Order {
//!     #[partition_key]
//!     customer_id: Uuid,
//!     #[clustering(desc)]
//!     submitted: DateTime<Utc>,
//!     #[clustering]
//!     order_id: Uuid,
//!     #[cass(avg_bytes = 40)]
//!     status: String,
//!     total: f64,
//! }
//!
//! let report = cassmodel::sizing::analyze(<Order as cassmodel::Table>::schema(), None);
//! let estimate = report.estimate.as_ref().unwrap();
//! assert_eq!(estimate.cells_per_row, 2); // 5 columns - 3 primary-key columns
//! assert!((estimate.rows - 120_000.0).abs() < 1e-6); // 1,000 a month for 120 months
//! assert!(report.exceeds_guidance()); // 240,000 values > 100,000
//! println!("{report}"); // the figures, and the fix: a bucket of `submitted` by year
//! ```
//!
//! # The formula
//!
//! The guides' arithmetic (`Nr` rows per partition, `Nc` columns, `Npk` primary-key columns,
//! `Ns` static columns):
//!
//! - values (cells) per partition: `Nv = Nr * (Nc - Npk - Ns) + Ns`. A row stores one cell
//!   per regular column; a static column is one cell per partition. (A non-frozen collection
//!   really stores one cell per element; like the guides, the analysis counts it as one.)
//! - bytes per partition: `St = sum(partition-key sizes) + sum(static sizes) +
//!   Nr * (sum(clustering sizes) + sum(regular sizes)) + 8 * Nv`, where 8 bytes are each
//!   cell's write timestamp.
//! - sizes: `boolean`/`tinyint` 1, `smallint` 2, `int`/`float`/`date` 4,
//!   `bigint`/`double`/`timestamp`/`time`/`counter` 8, `uuid`/`timeuuid`/`inet` 16,
//!   `vector<float, n>` 4n, tuples and frozen UDTs the sum of their fields plus 4 each; the
//!   others (`text`, `blob`, `varint`, `decimal`, `duration`, collections) vary, and take the
//!   declared `avg_bytes`. A column of varying size without it makes the byte figure a lower
//!   bound, and the report says so.
//! - guidance: at most 100,000 values and 100 MB per partition; the server's hard limit is
//!   2 billion cells.
//!
//! For a rate (`rows = N, per = "month"`), the rows of a partition at the horizon are
//! `N * horizon / period` (months of 365.25 / 12 days), and the report gives the time each
//! threshold is reached. Over the guidance, it names a fix: a time bucket of the first
//! clustering column (`#[cass(bucket(month))]`, see [`BucketRead`](crate::BucketRead)) wide
//! enough to stay under it, an extra
//! partition-key column splitting each partition into `n` parts, or moving the largest
//! columns to a second table.
//!
//! [`live`] compares the estimate with what a node reports about the table's real partitions.

use std::fmt;

use cassmodel_schema::{CqlType, NativeType, Period, Span, fixed_size};
use futures::TryStreamExt;

use crate::error::errors::{Error, Result};
use crate::exec::send::{self, repeatable};
use crate::mapping::literal::cql_literal_or_null;
use crate::progress::Progress;
use crate::schema::ddl::qualified;
use crate::schema::model::{BucketRule, ColumnKind, Growth, TableSchema};
use crate::session::db::Db;
use crate::statement::cql::column_list;

/// The kind of sizing's reads (of system tables and the table counted), in their spans.
const KIND: &str = "sizing";

/// Guidance: at most this many values (cells) per partition.
const VALUES_GUIDANCE: u64 = 100_000;
/// Guidance: at most this many bytes per partition (100 MB).
const BYTES_GUIDANCE: u64 = 100_000_000;
/// Cassandra's hard limit of cells per partition.
const CELL_LIMIT: u64 = 2_000_000_000;
/// Bytes per cell beyond its value: the write timestamp.
const CELL_OVERHEAD: u64 = 8;

/// The analysis of one table.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TableSize {
    /// `keyspace.table`, or the table name if it has no keyspace.
    pub table: String,
    /// The estimate; `None` if the table declares no growth (`#[cass(expect(...))]`).
    pub estimate: Option<Estimate>,
}

/// The estimated size of one partition of a table, from its declared growth.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Estimate {
    /// Columns (`Nc`).
    pub columns: u64,
    /// Primary-key columns (`Npk`).
    pub key_columns: u64,
    /// Static columns (`Ns`).
    pub static_columns: u64,
    /// Cells per row: `Nc - Npk - Ns`.
    pub cells_per_row: u64,
    /// Bytes per row: its clustering and regular values, and 8 per cell.
    pub row_bytes: u64,
    /// Bytes per partition besides its rows: the partition key, the static values, and 8
    /// per static cell.
    pub partition_bytes: u64,
    /// Columns of varying size without `avg_bytes` (counted as 0 bytes: the byte figures
    /// are then lower bounds).
    pub unsized_columns: Vec<&'static str>,
    /// The declared growth.
    pub growth: Growth,
    /// The period of the table's time bucket (`#[cass(bucket(month))]`), which closes a
    /// partition at its end.
    pub bucket: Option<Period>,
    /// Rows per partition at the horizon (infinite if a rate has no horizon).
    pub rows: f64,
    /// Values (cells) per partition at the horizon: `Nv`.
    pub values: f64,
    /// Bytes per partition at the horizon: `St`.
    pub bytes: f64,
    /// For a rate: days until a partition holds the guidance's 100,000 values.
    pub days_to_values_guidance: Option<f64>,
    /// For a rate: days until a partition holds the guidance's 100 MB.
    pub days_to_bytes_guidance: Option<f64>,
    /// For a rate: days until a partition reaches the server's limit of 2 billion cells.
    pub days_to_cell_limit: Option<f64>,
    /// What is over the guidance and how to fix it, one line each.
    pub warnings: Vec<String>,
}

impl Estimate {
    /// Values per partition with `rows` rows.
    pub fn values_at(&self, rows: f64) -> f64 {
        rows * self.cells_per_row as f64 + self.static_columns as f64
    }

    /// Bytes per partition with `rows` rows.
    pub fn bytes_at(&self, rows: f64) -> f64 {
        self.partition_bytes as f64 + rows * self.row_bytes as f64
    }

    /// The most rows a partition may hold within the guidance.
    pub fn max_rows_within_guidance(&self) -> f64 {
        let by_values = if self.cells_per_row == 0 {
            f64::INFINITY
        } else {
            (VALUES_GUIDANCE as f64 - self.static_columns as f64) / self.cells_per_row as f64
        };
        let by_bytes = if self.row_bytes == 0 {
            f64::INFINITY
        } else {
            (BYTES_GUIDANCE as f64 - self.partition_bytes as f64) / self.row_bytes as f64
        };
        by_values.min(by_bytes).max(0.0)
    }
}

impl TableSize {
    /// Whether a partition outgrows the guidance (values or bytes) at the horizon.
    pub fn exceeds_guidance(&self) -> bool {
        self.estimate
            .as_ref()
            .is_some_and(|e| !e.warnings.is_empty())
    }
}

/// The analysis of several tables ([`analyze_all`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SizeReport {
    /// One entry per table, in the order given.
    pub tables: Vec<TableSize>,
}

impl SizeReport {
    /// Whether any table outgrows the guidance.
    pub fn exceeds_guidance(&self) -> bool {
        self.tables.iter().any(TableSize::exceeds_guidance)
    }
}

/// Analyses every table of `tables` (e.g. [`Models::tables`](crate::migrate::Models::tables)),
/// `default_keyspace` naming the keyspace of those that declare none.
pub fn analyze_all(tables: &[&TableSchema], default_keyspace: Option<&str>) -> SizeReport {
    SizeReport {
        tables: tables
            .iter()
            .map(|t| analyze(t, default_keyspace))
            .collect(),
    }
}

/// Analyses one table: see the [module docs](self) for the formula.
pub fn analyze(schema: &TableSchema, default_keyspace: Option<&str>) -> TableSize {
    let table = match schema.keyspace.or(default_keyspace) {
        Some(ks) => format!("{ks}.{}", schema.name),
        None => schema.name.to_owned(),
    };
    let estimate = schema.growth.map(|g| estimate(schema, g));
    TableSize { table, estimate }
}

/// The bytes of a column's value: fixed by its type, else its `avg_bytes`.
fn column_bytes(schema: &TableSchema, index: usize) -> Option<u64> {
    let col = schema.column(index)?;
    let udt = |name: &str| -> Option<u64> {
        let u = col.udts().iter().find(|u| u.name == name)?;
        u.fields
            .iter()
            .map(|f| fixed_size(&f.cql_type, &|_| None).map(|n| n + 4))
            .sum()
    };
    fixed_size(&col.cql_type, &udt).or(col.avg_bytes.map(u64::from))
}

fn estimate(schema: &TableSchema, growth: Growth) -> Estimate {
    let n = schema.columns.len();
    let mut unsized_columns = Vec::new();
    let (mut key_columns, mut static_columns) = (0u64, 0u64);
    let (mut partition_values, mut row_values) = (0u64, 0u64);
    for i in 0..n {
        let col = &schema.columns[i];
        let bytes = column_bytes(schema, i).unwrap_or_else(|| {
            unsized_columns.push(col.name);
            0
        });
        match col.kind {
            ColumnKind::PartitionKey => {
                key_columns += 1;
                partition_values += bytes;
            }
            ColumnKind::Clustering(_) => {
                key_columns += 1;
                row_values += bytes;
            }
            ColumnKind::Static => {
                static_columns += 1;
                partition_values += bytes + CELL_OVERHEAD;
            }
            ColumnKind::Regular => row_values += bytes,
        }
    }
    let columns = n as u64;
    let cells_per_row = columns - key_columns - static_columns;
    let mut e = Estimate {
        columns,
        key_columns,
        static_columns,
        cells_per_row,
        row_bytes: row_values + CELL_OVERHEAD * cells_per_row,
        partition_bytes: partition_values,
        unsized_columns,
        growth,
        bucket: schema.bucket().and_then(|(_, b)| match b.rule {
            BucketRule::Period(p) => Some(p),
            BucketRule::Width(_) => None,
        }),
        rows: 0.0,
        values: 0.0,
        bytes: 0.0,
        days_to_values_guidance: None,
        days_to_bytes_guidance: None,
        days_to_cell_limit: None,
        warnings: Vec::new(),
    };
    match growth {
        Growth::Rows(rows) => e.rows = rows as f64,
        Growth::Rate { rows, per, horizon } => grow_at_rate(&mut e, schema, rows, per, horizon),
    }
    e.values = e.values_at(e.rows);
    e.bytes = e.bytes_at(e.rows);
    e.warnings = warnings(schema, &e);
    e
}

/// The rows, and the days to each limit, of a partition that grows by `rows` per `per` for
/// its life: the `horizon`, else the table's default TTL, cut at the end of its time bucket.
fn grow_at_rate(
    e: &mut Estimate,
    schema: &TableSchema,
    rows: u64,
    per: Period,
    horizon: Option<Span>,
) {
    let per_day = rows as f64 / per.days();
    let horizon_days = horizon.map(|h| h.days()).or_else(|| {
        schema
            .options
            .default_ttl
            .map(|ttl| f64::from(ttl) / 86_400.0)
    });
    // A time bucket closes a partition at the end of its period.
    let bucket_days = e.bucket.map(Period::days);
    let life = match (horizon_days, bucket_days) {
        (Some(h), Some(b)) => Some(h.min(b)),
        (h, b) => h.or(b),
    };
    e.rows = life.map_or(f64::INFINITY, |d| per_day * d);
    let days_to = |rows: f64| {
        (per_day > 0.0)
            .then(|| rows / per_day)
            .filter(|d| bucket_days.is_none_or(|b| *d <= b))
    };
    let rows_for_values = |v: u64| {
        (e.cells_per_row > 0).then(|| (v as f64 - e.static_columns as f64) / e.cells_per_row as f64)
    };
    e.days_to_values_guidance = rows_for_values(VALUES_GUIDANCE).and_then(days_to);
    e.days_to_cell_limit = rows_for_values(CELL_LIMIT).and_then(days_to);
    e.days_to_bytes_guidance = (e.row_bytes > 0)
        .then(|| (BYTES_GUIDANCE as f64 - e.partition_bytes as f64) / e.row_bytes as f64)
        .and_then(days_to);
}

/// What is over the guidance, and the fix.
fn warnings(schema: &TableSchema, e: &Estimate) -> Vec<String> {
    let over_values = e.values > VALUES_GUIDANCE as f64;
    let over_bytes = e.bytes > BYTES_GUIDANCE as f64;
    if !over_values && !over_bytes {
        return Vec::new();
    }
    let mut out = Vec::new();
    if e.rows.is_infinite() {
        out.push(
            "partitions grow without end: no horizon and no default_ttl; declare \
             `horizon = \"5 years\"` (how long rows are kept), or split the partition as below"
                .to_owned(),
        );
    } else {
        let mut what = Vec::new();
        if over_values {
            what.push(format!(
                "{} values (guidance {})",
                count(e.values),
                count(VALUES_GUIDANCE as f64)
            ));
        }
        if over_bytes {
            what.push(format!(
                "{} (guidance {})",
                bytes(e.bytes),
                bytes(BYTES_GUIDANCE as f64)
            ));
        }
        let limit = if e.values > CELL_LIMIT as f64 {
            ", over Cassandra's hard limit of 2 billion cells"
        } else {
            ""
        };
        out.push(format!("a partition reaches {}{limit}", what.join(" and ")));
    }
    out.push(fix(schema, e));
    out
}

/// The fix for a partition over the guidance.
fn fix(schema: &TableSchema, e: &Estimate) -> String {
    let max_rows = e.max_rows_within_guidance();
    let parts = |rows: f64| (rows / max_rows.max(1.0)).ceil().max(2.0) as u64;
    let first_clustering = schema
        .clustering
        .first()
        .and_then(|&i| schema.column(i))
        .filter(|c| {
            matches!(
                c.cql_type,
                CqlType::Native(NativeType::Timestamp | NativeType::Date)
            )
        });
    let split_columns = {
        let mut cols: Vec<(u64, &str)> = schema
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind == ColumnKind::Regular)
            .filter_map(|(i, c)| column_bytes(schema, i).map(|b| (b, c.name)))
            .collect();
        cols.sort_by_key(|c| std::cmp::Reverse(c.0));
        let names: Vec<String> = cols.iter().take(2).map(|(_, n)| format!("`{n}`")).collect();
        if names.is_empty() {
            String::new()
        } else {
            format!(
                "; or, if the bytes are the problem, move the largest columns ({}) to a second \
                 table",
                names.join(", ")
            )
        }
    };
    if let Growth::Rate { rows, per, .. } = e.growth {
        let per_day = rows as f64 / per.days();
        let bucket = Period::ALL
            .into_iter()
            .rev()
            .find(|p| per_day * p.days() <= max_rows * (1.0 + 1e-9));
        let bucket_rows = |p: Period| per_day * p.days();
        return match (bucket, first_clustering) {
            (Some(p), Some(c)) => format!(
                "fix: bucket the partition by {p}: `#[cass(bucket({p}))]` on `{}` adds its {p} \
                 to the partition key (about {} rows per partition); reads then give \
                 `.{}_range(from..to)`{split_columns}",
                c.name,
                count(bucket_rows(p)),
                c.field
            ),
            (Some(p), None) => format!(
                "fix: bucket the partition by {p} (about {} rows per partition): make a \
                 `timestamp` or `date` column the first clustering column and put \
                 `#[cass(bucket({p}))]` on it; or add a partition-key column that splits each \
                 partition into {} parts{split_columns}",
                count(bucket_rows(p)),
                parts(e.rows)
            ),
            (None, c) => format!(
                "fix: even one day of rows ({}) is over the guidance: add a partition-key \
                 column that splits each day's rows into {} parts (e.g. a hash of a column \
                 modulo {}), together with {}{split_columns}",
                count(bucket_rows(Period::Day)),
                parts(bucket_rows(Period::Day)),
                parts(bucket_rows(Period::Day)),
                match c {
                    Some(c) => format!("`#[cass(bucket(day))]` on `{}`", c.field),
                    None => "a day bucket (`#[cass(bucket(day))]` on a `timestamp` or `date` \
                             column made the first clustering column)"
                        .to_owned(),
                }
            ),
        };
    }
    format!(
        "fix: add a partition-key column that splits each partition into {} parts{split_columns}",
        parts(e.rows)
    )
}

/// `1,234,567`.
fn count(n: f64) -> String {
    if !n.is_finite() {
        return "unbounded".to_owned();
    }
    let digits = format!("{:.0}", n.round());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `12.3 MB` (decimal units, as the guidance's 100 MB).
fn bytes(n: f64) -> String {
    if !n.is_finite() {
        return "unbounded".to_owned();
    }
    const UNITS: [&str; 5] = ["bytes", "kB", "MB", "GB", "TB"];
    let mut v = n;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    if unit == 0 || v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// `3.5 hours`, `12 days`, `4.2 months`, `16.7 years`.
pub fn duration(days: f64) -> String {
    if !days.is_finite() {
        return "never".to_owned();
    }
    if days < 1.0 {
        format!("{:.1} hours", days * 24.0)
    } else if days < 62.0 {
        format!("{days:.1} days")
    } else if days < 730.0 {
        format!("{:.1} months", days / Period::Month.days())
    } else {
        format!("{:.1} years", days / Period::Year.days())
    }
}

impl fmt::Display for TableSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(e) = &self.estimate else {
            return writeln!(f, "{}: not declared (no #[cass(expect(...))])", self.table);
        };
        writeln!(
            f,
            "{}: {} columns - {} primary-key - {} static = {} cells per row",
            self.table, e.columns, e.key_columns, e.static_columns, e.cells_per_row
        )?;
        match e.growth {
            Growth::Rows(n) => writeln!(f, "  rows per partition: {}", count(n as f64))?,
            Growth::Rate { rows, per, horizon } => {
                let mut kept = match horizon {
                    Some(h) => format!("kept {h}"),
                    None if e.rows.is_finite() => "kept for the default_ttl".to_owned(),
                    None => "kept forever".to_owned(),
                };
                if let Some(p) = e.bucket {
                    kept.push_str(&format!(", one partition per {p} (bucket)"));
                }
                writeln!(
                    f,
                    "  growth: {} rows per {per} per partition, {kept}: {} rows",
                    count(rows as f64),
                    count(e.rows)
                )?;
            }
        }
        let lower = if e.unsized_columns.is_empty() {
            String::new()
        } else {
            format!(
                " (at least: no avg_bytes on {})",
                e.unsized_columns.join(", ")
            )
        };
        writeln!(
            f,
            "  per partition: {} values, {}{lower}; per row: {}",
            count(e.values),
            bytes(e.bytes),
            bytes(e.row_bytes as f64)
        )?;
        if let Growth::Rate { .. } = e.growth {
            let when =
                |d: Option<f64>| d.map_or("never".to_owned(), |d| format!("after {}", duration(d)));
            writeln!(
                f,
                "  100,000 values: {}; 100 MB: {}; 2 billion cells: {}",
                when(e.days_to_values_guidance),
                when(e.days_to_bytes_guidance),
                when(e.days_to_cell_limit)
            )?;
        }
        for w in &e.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        Ok(())
    }
}

impl fmt::Display for SizeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for t in &self.tables {
            write!(f, "{t}")?;
        }
        let over = self.tables.iter().filter(|t| t.exceeds_guidance()).count();
        let undeclared = self.tables.iter().filter(|t| t.estimate.is_none()).count();
        writeln!(
            f,
            "-- {} table(s): {over} over the guidance, {undeclared} not declared",
            self.tables.len()
        )?;
        if undeclared > 0 {
            writeln!(
                f,
                "-- declare a table's growth with #[cass(expect(rows = N))] or \
                 #[cass(expect(rows = N, per = \"month\", horizon = \"5 years\"))]"
            )?;
        }
        Ok(())
    }
}

/// What a node reports about the real partitions of a table ([`live`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LiveSize {
    /// `keyspace.table`.
    pub table: String,
    /// `system_views.max_partition_size` (whole mebibytes, rounded down) on the node that
    /// answered: the largest partition in its SSTables. Data still in memtables is not
    /// counted until it is flushed.
    pub max_partition_mib: Option<i64>,
    /// `system.table_estimates` (`local_primary` ranges, refreshed every few minutes):
    /// partitions on the node.
    pub partitions: Option<i64>,
    /// The same: mean partition size in bytes.
    pub mean_partition_bytes: Option<i64>,
    /// With a row count ([`live`]'s `count_rows`): the partition with the most rows, its
    /// key (each column's value as a CQL literal, `'O''Brien', '2024-03-01'`, to paste into
    /// `cqlsh`: `WHERE token(city, day) = token(<key>)`) and its row count.
    pub largest: Option<(String, i64)>,
}

/// Reads what the node answering `db` reports about the partitions of `schema`'s table:
/// the largest partition's size (`system_views.max_partition_size`), the number and mean
/// size of partitions (`system.table_estimates`), and, with `count_rows`, the partition
/// with the most rows (`SELECT <partition key>, COUNT(*) ... GROUP BY <partition key>`: a
/// paged scan of the whole table, for small tables or maintenance windows).
///
/// The node's figures cover flushed data only (`nodetool flush`), and the estimates are
/// refreshed every few minutes (`nodetool refreshsizeestimates`).
pub async fn live(db: &Db, schema: &TableSchema, count_rows: bool) -> Result<LiveSize> {
    live_with_progress(db, schema, count_rows, &|_| {}).await
}

/// [`live`], telling `progress` how far the count of each partition's rows has come
/// ([`Progress::Scanned`], every 1,000 partitions and when it ends): the count reads the
/// whole table.
pub async fn live_with_progress(
    db: &Db,
    schema: &TableSchema,
    count_rows: bool,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<LiveSize> {
    let keyspace = db
        .resolve_keyspace(schema.keyspace)
        .ok_or(Error::NoKeyspace { table: schema.name })?;
    let cql = "SELECT mebibytes FROM system_views.max_partition_size \
               WHERE keyspace_name = ? AND table_name = ?";
    let max_partition_mib =
        send::first::<(Option<i64>,)>(db, KIND, repeatable(cql), (keyspace, schema.name))
            .await?
            .and_then(|(m,)| m);
    let (mut partitions, mut weighted) = (None::<i64>, 0i128);
    for e in table_estimates(db, keyspace, schema.name).await? {
        *partitions.get_or_insert(0) += e.partitions;
        weighted += i128::from(e.partitions) * i128::from(e.mean_partition_size);
    }
    let mean_partition_bytes = partitions
        .filter(|&p| p > 0)
        .map(|p| i64::try_from(weighted / i128::from(p)).unwrap_or(i64::MAX));
    let largest = if count_rows {
        largest_partition(db, schema, keyspace, progress).await?
    } else {
        None
    };
    Ok(LiveSize {
        table: format!("{keyspace}.{}", schema.name),
        max_partition_mib,
        partitions,
        mean_partition_bytes,
        largest,
    })
}

/// One row of a node's `system.table_estimates` for a table (`local_primary`): a token range
/// the node is the primary replica of (`None` if its bounds are not Murmur3 tokens), the
/// table's partitions in it and their mean size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RangeEstimate {
    pub range: Option<(i64, i64)>,
    pub partitions: i64,
    pub mean_partition_size: i64,
}

/// The estimates the node answering `db` keeps of `keyspace.table` (refreshed every few
/// minutes, of flushed data).
pub(crate) async fn table_estimates(
    db: &Db,
    keyspace: &str,
    table: &str,
) -> Result<Vec<RangeEstimate>> {
    let cql = "SELECT range_start, range_end, partitions_count, mean_partition_size \
               FROM system.table_estimates \
               WHERE keyspace_name = ? AND table_name = ? AND range_type = 'local_primary'";
    type Row = (Option<String>, Option<String>, Option<i64>, Option<i64>);
    let rows: Vec<Row> = send::rows(db, KIND, repeatable(cql), (keyspace, table)).await?;
    let mut estimates = Vec::new();
    for (start, end, count, mean) in rows {
        let token = |t: Option<String>| t.and_then(|t| t.parse::<i64>().ok());
        estimates.push(RangeEstimate {
            range: token(start).zip(token(end)),
            partitions: count.unwrap_or(0).max(0),
            mean_partition_size: mean.unwrap_or(0).max(0),
        });
    }
    Ok(estimates)
}

async fn largest_partition(
    db: &Db,
    schema: &TableSchema,
    keyspace: &str,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Option<(String, i64)>> {
    use scylla::frame::response::result::ColumnType;
    use scylla::value::{CqlValue, Row};
    let pk = column_list(schema, &schema.partition_key);
    let cql = format!(
        "SELECT {pk}, COUNT(*) FROM {} GROUP BY {pk}",
        qualified(keyspace, schema.name)
    );
    let mut rows = send::pager(db, KIND, repeatable(&cql), ())
        .await?
        .rows_stream::<Row>()
        .map_err(|e| Error::Driver(Box::new(e)))?;
    // The key columns' types, which name the type of an empty value (`blobAsint(0x)`).
    let types: Vec<ColumnType<'static>> = rows
        .column_specs()
        .iter()
        .map(|spec| spec.typ().clone().into_owned())
        .collect();
    let mut best: Option<(String, i64)> = None;
    let (mut partitions, mut counted) = (0u64, 0u64);
    let scanned = |partitions, rows| Progress::Scanned {
        table: format!("{keyspace}.{}", schema.name),
        partitions,
        rows,
    };
    while let Some(row) = rows
        .try_next()
        .await
        .map_err(|e| Error::Driver(Box::new(e)))?
    {
        let mut cols = row.columns;
        let Some(Some(CqlValue::BigInt(n))) = cols.pop() else {
            continue;
        };
        partitions += 1;
        counted += u64::try_from(n).unwrap_or(0);
        if partitions.is_multiple_of(1000) {
            progress(&scanned(partitions, counted));
        }
        if best.as_ref().is_none_or(|(_, m)| n > *m) {
            let key: Vec<String> = cols
                .iter()
                .enumerate()
                .map(|(i, v)| cql_literal_or_null(v.as_ref(), types.get(i)))
                .collect();
            best = Some((key.join(", "), n));
        }
    }
    progress(&scanned(partitions, counted));
    Ok(best)
}

impl LiveSize {
    /// The live figures next to `estimate` (the model's), one line each.
    pub fn compare(&self, estimate: Option<&Estimate>) -> String {
        let mut out = format!("{} on the node:", self.table);
        match self.max_partition_mib {
            Some(m) => out.push_str(&format!(" largest partition {m} MiB (flushed data);")),
            None => out.push_str(" no flushed data yet;"),
        }
        if let (Some(p), Some(m)) = (self.partitions, self.mean_partition_bytes) {
            out.push_str(&format!(
                " {} partitions of {} on average;",
                count(p as f64),
                bytes(m as f64)
            ));
        }
        if let Some((key, rows)) = &self.largest {
            out.push_str(&format!(
                " most rows: {} in partition ({key})",
                count(*rows as f64)
            ));
            if let Some(e) = estimate {
                out.push_str(&format!(
                    ", so {} values and about {} by the model's row size",
                    count(e.values_at(*rows as f64)),
                    bytes(e.bytes_at(*rows as f64))
                ));
            }
        }
        if let Some(e) = estimate {
            out.push_str(&format!(
                "; the model expects {} rows, {} per partition",
                count(e.rows),
                bytes(e.bytes)
            ));
        }
        out
    }
}
