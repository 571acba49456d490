//! The offline copy of a counter table (`#[cass(from = "old", offline)]`), with every writer
//! of the old table stopped: each old row's counts are added to the same row of the new table
//! (`UPDATE .. SET c = c + ? WHERE <key>`), which starts empty.
//!
//! A counter takes no write time, and an increment applied twice counts twice, so a range is
//! added blindly only the first time it is claimed. A range claimed before (its worker died, a
//! write of it failed, or `verify` found it different) may hold part of its counts already:
//! it is repaired instead, row by row, the new row read at consistency ALL (every replica: a
//! write that reached one replica only is seen) and only the difference from the old row
//! added. With the old table unchanged, that ends with the new table equal to it, however
//! often a range was interrupted.

use scylla::frame::response::result::ColumnSpec;
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::RowWriter;
use scylla::statement::Consistency;

use crate::error::row::count_mismatch;
use crate::exec::read::first_row;
use crate::exec::statement::{Stmt, key_prefix_statement};
use crate::mapping::table::{Columns, Table, write_column};
use crate::migrate::error::MigrationError;
use crate::schema::model::TableSchema;
use crate::session::db::Db;
use crate::statement::cql;
use crate::statement::options::QueryOptions;
use crate::statement::spec::{Op, SetOp, Spec};

/// The columns of a counter table's UPDATE: its counters (SET, in column order), then its
/// primary key (WHERE, in key order); the bind order of [`Counters::update`].
#[derive(Debug, Clone)]
pub(super) struct Counters {
    set: Vec<usize>,
    key: Vec<usize>,
}

impl Counters {
    pub(super) fn of(schema: &TableSchema) -> Self {
        let set = (0..schema.columns.len())
            .filter(|&i| schema.columns[i].cql_type.is_counter())
            .collect();
        Counters {
            set,
            key: schema.primary_key().to_vec(),
        }
    }

    /// `UPDATE ks.t SET c1 = c1 + ?, .. WHERE k1 = ? AND ..`
    pub(super) fn update(&self, schema: &TableSchema, keyspace: &str) -> String {
        let column = |i: usize| u16::try_from(i).unwrap_or(u16::MAX);
        let spec = Spec {
            sets: self
                .set
                .iter()
                .map(|&i| (column(i), SetOp::Increment))
                .collect(),
            restrictions: self.key.iter().map(|&i| (column(i), Op::Eq)).collect(),
            ..Spec::default()
        };
        cql::update(schema, keyspace, &spec)
    }

    /// The bind marker of each column of the table, in column order, out of the UPDATE's
    /// `markers` (in bind order).
    pub(super) fn column_specs(
        &self,
        columns: usize,
        markers: &[ColumnSpec<'_>],
    ) -> Vec<ColumnSpec<'static>> {
        (0..columns)
            .filter_map(|i| {
                let at = match self.set.iter().position(|&c| c == i) {
                    Some(j) => j,
                    None => self.set.len() + self.key.iter().position(|&k| k == i)?,
                };
                Some(markers.get(at)?.clone().into_owned())
            })
            .collect()
    }

    /// How much to add to the new table's row, in SET order, for `old` (a row of the old
    /// table, read as the new table's struct) when the new table has `new` (`None`: no such
    /// row); `None` when nothing is to be added. A counter the old row lacks is not written;
    /// one the new row lacks gets the old count, zero included (a counter at zero exists).
    pub(super) fn difference<T: Table>(
        &self,
        old: &T,
        new: Option<&T>,
        specs: &[ColumnSpec<'_>],
    ) -> Option<Vec<Option<i64>>> {
        let amounts: Vec<Option<i64>> = self
            .set
            .iter()
            .map(|&i| {
                let spec = specs.get(i)?;
                let old = count(old, i, spec)?;
                match new.and_then(|n| count(n, i, spec)) {
                    None => Some(old),
                    Some(new) => Some(old.wrapping_sub(new)).filter(|d| *d != 0),
                }
            })
            .collect();
        amounts.iter().any(Option::is_some).then_some(amounts)
    }

    /// The read of a row of the new table by its key, from every replica, given up after
    /// `timeout`: made once for all the reads of a repair ([`read_all`](Self::read_all)).
    pub(super) async fn read_statement<T: Table>(
        &self,
        db: &Db,
        timeout: std::time::Duration,
    ) -> Result<Stmt, MigrationError> {
        let options = QueryOptions {
            consistency: Some(Consistency::All),
            timeout: Some(timeout),
            ..QueryOptions::default()
        };
        Ok(key_prefix_statement::<T>(db, self.key.len(), &options).await?)
    }

    /// The new table's row with the key of `row`, read with `read` ([`read_statement`](
    /// Self::read_statement)).
    pub(super) async fn read_all<T: Table>(
        &self,
        db: &Db,
        read: &Stmt,
        row: &T,
    ) -> Result<Option<T>, MigrationError> {
        Ok(first_row::<T>(db, read, Columns::new(row, &self.key)).await?)
    }
}

/// Counter `index` of `row` (written for the marker `spec`, read back), `None` when null.
fn count<T: Table>(row: &T, index: usize, spec: &ColumnSpec<'_>) -> Option<i64> {
    let mut buf = Vec::with_capacity(12);
    let mut writer = RowWriter::new(&mut buf);
    write_column(row, index, spec, false, &mut writer).ok()?;
    let (len, value) = buf.split_first_chunk::<4>()?;
    if i32::from_be_bytes(*len) != 8 {
        return None;
    }
    Some(i64::from_be_bytes(*value.first_chunk::<8>()?))
}

/// The values of the UPDATE that adds to one row of a counter table: its counts, or
/// `amounts` (in SET order; `None` leaves a counter unset; a repair's [`Counters::difference`]),
/// then its key.
pub(super) struct CounterAdd<'r, T> {
    pub row: &'r T,
    pub amounts: Option<Vec<Option<i64>>>,
    pub counters: &'r Counters,
}

impl<T: Table> SerializeRow for CounterAdd<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let (set, key) = (&self.counters.set, &self.counters.key);
        let specs = ctx.columns();
        if specs.len() != set.len() + key.len() {
            return Err(count_mismatch(ctx));
        }
        for (j, (&i, spec)) in set.iter().zip(specs).enumerate() {
            match &self.amounts {
                // A first copy: the row's own counts, a null one unset.
                None => write_column(self.row, i, spec, true, writer)?,
                Some(amounts) => match amounts.get(j).copied().flatten() {
                    Some(n) => {
                        SerializeValue::serialize(
                            &scylla::value::Counter(n),
                            spec.typ(),
                            writer.make_cell_writer(),
                        )?;
                    }
                    None => {
                        writer.make_cell_writer().set_unset();
                    }
                },
            }
        }
        for (&i, spec) in key.iter().zip(&specs[set.len()..]) {
            write_column(self.row, i, spec, false, writer)?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        false
    }
}
