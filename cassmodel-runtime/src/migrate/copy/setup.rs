//! What a backfill and a verify of one copy both start from: the source and target tables
//! on the cluster, checked, with their statements prepared.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};

use scylla::frame::response::result::ColumnSpec;
use scylla::statement::prepared::PreparedStatement;
use scylla::value::{CqlValue, Row};

use cassmodel_schema::quote_ident;

use super::convert::CopyFrom;
use super::counters::Counters;
use super::problem::copy_problem;
use super::source::SourceColumns;
use crate::error::errors::Error;
use crate::exec::insert::insert_statement;
use crate::exec::send;
use crate::mapping::literal::{cql_literal, cql_literal_or_null};
use crate::mapping::table::{Table, write_column};
use crate::migrate::error::MigrationError;
use crate::migrate::live::LiveSchema;
use crate::schema::ddl::qualified;
use crate::schema::model::TableSchema;
use crate::session::db::Db;

/// The kind of a copy's statements (its checks, scans and writes), in their spans.
pub(super) const KIND: &str = "copy";

/// One copy, ready to run.
pub(super) struct Copy {
    /// `keyspace.table` of the target.
    pub target: String,
    pub target_keyspace: String,
    /// The target keyspace's replication (the record's keyspace is created with it).
    pub replication: BTreeMap<String, String>,
    pub source: SourceColumns,
    /// For each column of the target copied by name, the index of the same cell among the
    /// source's timed cells; `None` for a copy converted by a function.
    pub source_cell: Option<Vec<Option<usize>>>,
    /// How a target row is written: the INSERT of a whole row with TTL and write time, or,
    /// for a counter table, the UPDATE adding its counts.
    pub write: Arc<PreparedStatement>,
    /// The bind marker of each column of the target, in column order (to write one column of
    /// a row, as to describe a row's key or compare two rows).
    pub columns: Vec<ColumnSpec<'static>>,
    /// For a counter table (copied offline), its counter and key columns.
    pub counters: Option<Counters>,
    /// The scan of one token range of the source.
    pub scan: PreparedStatement,
}

/// The copy into `T`'s table: both tables found on the cluster and checked.
pub(super) async fn copy_of<T: CopyFrom>(db: &Db, page_size: i32) -> Result<Copy, MigrationError> {
    let schema = T::schema();
    let Some(declared) = schema.source else {
        return Err(MigrationError::CopyRefused(format!(
            "table `{}` declares no source: add #[cass(from = \"old_table\")] to `{}`",
            schema.name, schema.rust_name
        )));
    };
    let target_keyspace = db.keyspace_of::<T>()?.to_owned();
    let source_keyspace = match declared.keyspace {
        Some(k) => db.resolve_keyspace(Some(k)).unwrap_or(k).to_owned(),
        None => target_keyspace.clone(),
    };
    let live = LiveSchema::read(db, &[&target_keyspace, &source_keyspace]).await?;
    let target = format!("{target_keyspace}.{}", schema.name);
    let Some(source_live) = live.table(&source_keyspace, declared.table) else {
        return Err(MigrationError::CopyRefused(format!(
            "the source table {source_keyspace}.{} of {target} does not exist: check \
             #[cass(from = ..)] on `{}`",
            declared.table, schema.rust_name
        )));
    };
    if live.table(&target_keyspace, schema.name).is_none() {
        return Err(MigrationError::CopyRefused(format!(
            "{target} does not exist yet: create it first (`migrate apply`)"
        )));
    }
    if let Some(problem) = copy_problem(schema, &declared, source_live) {
        return Err(MigrationError::CopyRefused(format!(
            "{target} cannot be copied from {source_keyspace}.{}: {problem}",
            declared.table
        )));
    }
    let source = SourceColumns::new::<T::Source>(&source_keyspace, source_live)
        .map_err(MigrationError::CopyRefused)?;
    let source_cell = (!declared.converted).then(|| {
        schema
            .columns
            .iter()
            .map(|c| {
                let i = source.columns.iter().position(|s| s == c.name)?;
                source.timed.iter().position(|&t| t == i)
            })
            .collect()
    });
    let (write, columns, counters) = target_write::<T>(db, &target_keyspace).await?;
    let mut scan = prepare(db, source.range_scan(), true).await?;
    scan.set_page_size(page_size);
    let replication = live
        .keyspaces
        .get(&target_keyspace)
        .map(|k| k.replication.clone())
        .unwrap_or_default();
    Ok(Copy {
        target,
        target_keyspace,
        replication,
        source,
        source_cell,
        write,
        columns,
        counters,
        scan,
    })
}

/// How the copy writes a target row: the statement, the bind marker of each column of the
/// target in column order, and a counter table's counter and key columns.
async fn target_write<T: CopyFrom>(
    db: &Db,
    target_keyspace: &str,
) -> Result<
    (
        Arc<PreparedStatement>,
        Vec<ColumnSpec<'static>>,
        Option<Counters>,
    ),
    MigrationError,
> {
    let schema = T::schema();
    let (write, counters) = if schema.is_counter_table() {
        let counters = Counters::of(schema);
        // Not repeatable: an increment sent twice counts twice.
        let update = prepare(db, counters.update(schema, target_keyspace), false).await?;
        (Arc::new(update), Some(counters))
    } else {
        (insert_statement::<T>(db, true, true, false).await?, None)
    };
    let markers = write.get_variable_col_specs();
    let columns = match &counters {
        Some(c) => c.column_specs(schema.columns.len(), markers.as_slice()),
        None => markers
            .iter()
            .take(schema.columns.len())
            .map(|s| s.clone().into_owned())
            .collect(),
    };
    Ok((write, columns, counters))
}

/// `cql` prepared once for a whole backfill or verify; `repeatable`: marked as a statement the
/// driver may run again on another node (a read, or a write that changes nothing when
/// repeated).
pub(super) async fn prepare(
    db: &Db,
    cql: String,
    repeatable: bool,
) -> Result<PreparedStatement, MigrationError> {
    Ok(send::prepare(db, KIND, &cql, repeatable).await?)
}

/// Refuses a copy into a table that holds rows no source row gives (checked before the first
/// range of a copy is copied, so nothing has been written yet): the new table of a key
/// change starts empty, and holds only the source's rows and the application's dual writes,
/// which reach the source too. For a copy by name, a sample of the new table's rows (100) is
/// looked up in the source by key; a converted copy (which has no dual writes) and a copy of
/// counters (which adds to what is there) need an empty table. A dual write in flight can show
/// a row in one table and not yet in the other: a row is refused only when it is found so
/// three times, a second apart.
pub(super) async fn check_target(
    db: &Db,
    copy: &Copy,
    schema: &TableSchema,
) -> Result<(), MigrationError> {
    let mut last = None;
    for attempt in 0..3 {
        if attempt > 0 {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
        match foreign_row(db, copy, schema).await? {
            None => return Ok(()),
            Some(found) if attempt > 0 && last.as_ref() != Some(&found) => return Ok(()),
            Some(found) => last = Some(found),
        }
    }
    let Some(what) = last else { return Ok(()) };
    Err(MigrationError::CopyRefused(format!(
        "{} already has rows that do not come from {} ({what}): a key change copies into a \
         new, empty table; give the struct another table name, or empty {} if it holds \
         nothing to keep",
        copy.target,
        copy.source.name(),
        copy.target
    )))
}

/// A row of the new table that the source lacks, described, if the sample has one.
async fn foreign_row(
    db: &Db,
    copy: &Copy,
    schema: &TableSchema,
) -> Result<Option<String>, MigrationError> {
    let target = qualified(&copy.target_keyspace, schema.name);
    let query = |cql: String| async move {
        send::run(db, KIND, send::repeatable(&cql), ())
            .await?
            .into_rows_result()
            .map_err(|e| MigrationError::from(Error::from(e)))
    };
    let empty_first = if copy.counters.is_some() {
        Some("a copy of counters adds to what is there, so it starts empty")
    } else if copy.source_cell.is_none() {
        Some("a copy converted by a function starts empty")
    } else {
        None
    };
    if let Some(why) = empty_first {
        let first = query(format!("SELECT * FROM {target} LIMIT 1")).await?;
        return Ok((first.rows_num() > 0).then(|| why.to_owned()));
    }
    let key = &copy.source.primary_key;
    let columns: Vec<String> = key.iter().map(|c| quote_ident(c).into_owned()).collect();
    let sample = query(format!(
        "SELECT {} FROM {target} LIMIT 100",
        columns.join(", ")
    ))
    .await?;
    let exists = prepare(db, copy.source.row_exists(), true).await?;
    let rows: Vec<Row> = sample
        .rows::<Row>()
        .map_err(|e| MigrationError::from(Error::from(e)))?
        .collect::<Result<_, _>>()
        .map_err(|e| MigrationError::from(Error::from(e)))?;
    let describe = |row: &Row| {
        key.iter()
            .zip(&row.columns)
            .map(|(k, v)| format!("{k} = {}", cql_literal_or_null(v.as_ref(), None)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let exists = &exists;
    // Looked up 16 at a time; the first row the source lacks, in the sample's order.
    let describe = &describe;
    let missing: Vec<Option<String>> = futures::stream::iter(rows)
        .map(|row| async move {
            let Some(values) = row
                .columns
                .iter()
                .cloned()
                .collect::<Option<Vec<CqlValue>>>()
            else {
                return Ok(Some(format!(
                    "a row with {} has no source key",
                    describe(&row)
                )));
            };
            let found = send::run(db, KIND, exists, values)
                .await?
                .into_rows_result()
                .map_err(|e| MigrationError::from(Error::from(e)))?
                .rows_num();
            Ok::<_, MigrationError>(
                (found == 0).then(|| format!("e.g. the row with {}", describe(&row))),
            )
        })
        .buffered(16)
        .try_collect()
        .await?;
    if let Some(first) = missing.into_iter().flatten().next() {
        return Ok(Some(first));
    }
    Ok(None)
}

/// `name = value, ..` of columns `columns` of `row`, for messages; `specs` are the bind
/// markers or result columns of `R`'s columns, in order.
pub(super) fn describe<R: Table>(row: &R, columns: &[usize], specs: &[ColumnSpec<'_>]) -> String {
    let schema = R::schema();
    columns
        .iter()
        .filter_map(|&i| {
            let spec = specs.get(i)?;
            let name = schema.columns.get(i)?.name;
            Some(format!("{name} = {}", value_text(row, i, spec)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Column `index` of `row` as a CQL literal (`'text'`, `123`, a uuid...).
fn value_text<R: Table>(row: &R, index: usize, spec: &ColumnSpec<'_>) -> String {
    let mut buf = Vec::new();
    let mut writer = scylla::serialize::writers::RowWriter::new(&mut buf);
    if write_column(row, index, spec, false, &mut writer).is_err() || buf.len() < 4 {
        return "?".to_owned();
    }
    let (len, value) = buf.split_at(4);
    if i32::from_be_bytes([len[0], len[1], len[2], len[3]]) < 0 {
        return "null".to_owned();
    }
    let slice = scylla::deserialize::FrameSlice::new_borrowed(value);
    <CqlValue as scylla::deserialize::value::DeserializeValue<'_, '_>>::deserialize(
        spec.typ(),
        Some(slice),
    )
    .map_or_else(|_| "?".to_owned(), |v| cql_literal(&v, Some(spec.typ())))
}

/// The bytes of every column of `row`, as the INSERT of `T` writes them: two rows with the
/// same bytes hold the same values.
pub(super) fn encoded<T: Table>(row: &T, specs: &[ColumnSpec<'_>]) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut writer = scylla::serialize::writers::RowWriter::new(&mut buf);
    for (i, spec) in specs.iter().take(T::schema().columns.len()).enumerate() {
        if write_column(row, i, spec, false, &mut writer).is_err() {
            buf.clear();
            break;
        }
    }
    buf
}
