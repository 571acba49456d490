//! Reading the source table: which columns a copy reads, one token range at a time, each
//! regular cell with its write time and remaining TTL ([`SourceRow`]).

use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
use scylla::deserialize::value::DeserializeValue;
use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::frame::response::result::ColumnSpec;

use cassmodel_schema::quote_ident;

use crate::error::row::RowError;
use crate::mapping::table::Table;
use crate::migrate::live::LiveTable;
use crate::schema::ddl::qualified;
use crate::schema::model::ColumnKind;

/// The source table of a copy as the copy reads it: the columns of the source row type `S`
/// (by name), and, for each of them that is not a key column of the source table, its write
/// time and TTL.
#[derive(Debug, Clone)]
pub(super) struct SourceColumns {
    pub keyspace: String,
    pub table: String,
    /// The source table's partition-key columns, in key order.
    pub partition_key: Vec<String>,
    /// The source table's primary-key columns, in key order.
    pub primary_key: Vec<String>,
    /// The names of the columns `S` reads, in field order.
    pub columns: Vec<String>,
    /// Of those, the ones with a write time (regular and static columns of the source, but
    /// counters), as indices into `columns`.
    pub timed: Vec<usize>,
}

impl SourceColumns {
    /// The columns row type `S` reads from `live`, the source table (`None` for a column
    /// `S` reads that the source table lacks: the copy cannot run).
    pub(super) fn new<S: Table>(keyspace: &str, live: &LiveTable) -> Result<Self, String> {
        let columns: Vec<String> = S::schema()
            .field_columns()
            .iter()
            .map(|c| c.name.to_owned())
            .collect();
        let mut timed = Vec::new();
        for (i, name) in columns.iter().enumerate() {
            let Some(c) = live.column(name) else {
                return Err(format!(
                    "{keyspace}.{} has no column `{name}`, which `{}` reads",
                    live.name,
                    S::schema().rust_name
                ));
            };
            // A counter has no write time to read (and takes none when written).
            if matches!(c.kind, ColumnKind::Regular | ColumnKind::Static)
                && !c.cql_type.is_counter()
            {
                timed.push(i);
            }
        }
        Ok(SourceColumns {
            keyspace: keyspace.to_owned(),
            table: live.name.clone(),
            partition_key: live.partition_key().map(|c| c.name.clone()).collect(),
            primary_key: live
                .partition_key()
                .chain(live.clustering())
                .map(|c| c.name.clone())
                .collect(),
            columns,
            timed,
        })
    }

    /// `keyspace.table`.
    pub(super) fn name(&self) -> String {
        format!("{}.{}", self.keyspace, self.table)
    }

    /// `SELECT <columns>, WRITETIME(c), TTL(c), ... FROM ks.t WHERE token(pk) >= ? AND
    /// token(pk) <= ?`: one token range of the source, each timed cell with its write time
    /// and TTL after the columns.
    pub(super) fn range_scan(&self) -> String {
        let cols: Vec<String> = self
            .columns
            .iter()
            .map(|c| quote_ident(c).into_owned())
            .collect();
        let meta: Vec<String> = self
            .timed
            .iter()
            .map(|&i| {
                let c = &cols[i];
                format!("WRITETIME({c}), TTL({c})")
            })
            .collect();
        let token = self.token();
        let mut select = cols.join(", ");
        if !meta.is_empty() {
            select.push_str(", ");
            select.push_str(&meta.join(", "));
        }
        format!(
            "SELECT {select} FROM {} WHERE {token} >= ? AND {token} <= ?",
            qualified(&self.keyspace, &self.table)
        )
    }

    /// `token(pk, ...)` of the source table.
    fn token(&self) -> String {
        let pk: Vec<String> = self
            .partition_key
            .iter()
            .map(|c| quote_ident(c).into_owned())
            .collect();
        format!("token({})", pk.join(", "))
    }

    /// `SELECT <first key column> FROM ks.t WHERE k1 = ? AND k2 = ? ...`: whether the source
    /// has the row with this primary key.
    pub(super) fn row_exists(&self) -> String {
        let key: Vec<String> = self
            .primary_key
            .iter()
            .map(|c| format!("{} = ?", quote_ident(c)))
            .collect();
        format!(
            "SELECT {} FROM {} WHERE {}",
            quote_ident(&self.primary_key[0]),
            qualified(&self.keyspace, &self.table),
            key.join(" AND ")
        )
    }
}

/// One cell's write time (microseconds) and remaining TTL (seconds); `None` for a null cell.
pub(super) type CellTime = (Option<i64>, Option<i32>);

/// A row of the source as a copy reads it: the row, then the write time and TTL of each of
/// its timed cells, in the order of [`SourceColumns::timed`].
pub(super) struct SourceRow<S> {
    pub row: S,
    pub times: Vec<CellTime>,
}

/// The result of a range scan has another shape than the row type plus pairs of write time
/// and TTL (a cassmodel bug, never a panic).
#[derive(Debug, thiserror::Error)]
#[error(
    "a source row of the copy has {0} columns after its fields: not pairs of write time and TTL"
)]
struct NotPairs(usize);

impl<'f, 'm, S: Table> DeserializeRow<'f, 'm> for SourceRow<S> {
    fn type_check(specs: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
        let n = S::schema().field_columns().len();
        let (fields, meta) = specs.split_at(n.min(specs.len()));
        S::type_check(fields)?;
        if meta.len() % 2 != 0 {
            return Err(TypeCheckError::new(NotPairs(meta.len())));
        }
        for pair in meta.chunks(2) {
            <i64 as DeserializeValue<'_, '_>>::type_check(pair[0].typ())?;
            <i32 as DeserializeValue<'_, '_>>::type_check(pair[1].typ())?;
        }
        Ok(())
    }

    fn deserialize(row: ColumnIterator<'f, 'm>) -> Result<Self, DeserializationError> {
        let n = S::schema().field_columns().len();
        let mut meta = row.clone();
        for _ in 0..n {
            meta.next();
        }
        let row = S::deserialize(row)?;
        let mut times = Vec::with_capacity(meta.columns_remaining() / 2);
        while let Some(written) = meta.next() {
            let written = written?;
            let ttl = meta.next().ok_or_else(|| {
                DeserializationError::new(RowError::Value {
                    table: String::new(),
                    column: written.spec.name().to_owned(),
                    rust_type: "TTL",
                    detail: "a write time without its TTL".into(),
                })
            })??;
            times.push((
                <Option<i64> as DeserializeValue<'f, 'm>>::deserialize(
                    written.spec.typ(),
                    written.slice,
                )?,
                <Option<i32> as DeserializeValue<'f, 'm>>::deserialize(ttl.spec.typ(), ttl.slice)?,
            ));
        }
        Ok(SourceRow { row, times })
    }
}
