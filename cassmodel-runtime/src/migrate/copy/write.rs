//! Writing a copied row so that any newer write or delete of the application wins over it:
//! its cells keep their source's write time and remaining TTL. Cells of one row written at
//! different times are written in groups, one statement per write time ([`cell_groups`]).
//! Each cell is written once, when the row is converted ([`EncodedRow`]); a statement of a
//! group copies the bytes of its cells.

use scylla::frame::response::result::ColumnSpec;
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, RowWriter};

use super::source::CellTime;
use crate::error::row::count_mismatch;
use crate::mapping::table::{Table, write_column};
use crate::schema::model::ColumnKind;

/// The cells of a converted row as the target's INSERT binds them (a `None` field left
/// unset), each written once: every cell in column order, each with its length first (as the
/// protocol has them: negative for null or unset).
pub(super) struct EncodedRow(Vec<u8>);

impl EncodedRow {
    /// The cells of `row`, for the bind markers `specs` of the target's INSERT (its columns
    /// first, in order).
    pub(super) fn of<T: Table>(
        row: &T,
        specs: &[ColumnSpec<'_>],
    ) -> Result<Self, SerializationError> {
        let n = T::schema().columns.len();
        let mut bytes = Vec::new();
        let mut writer = RowWriter::new(&mut bytes);
        for (i, spec) in specs.iter().take(n).enumerate() {
            write_column(row, i, spec, true, &mut writer)?;
        }
        Ok(EncodedRow(bytes))
    }

    /// The bytes of its cells.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Each cell, length first, in column order.
    fn cells(&self) -> impl Iterator<Item = &[u8]> {
        let mut rest = self.0.as_slice();
        std::iter::from_fn(move || {
            let (head, _) = rest.split_first_chunk::<4>()?;
            let len = usize::try_from(i32::from_be_bytes(*head)).unwrap_or(0);
            let (cell, tail) = rest.split_at_checked(4 + len)?;
            rest = tail;
            Some(cell)
        })
    }

    /// Whether `other` has the same partition key (columns `key`), cell for cell.
    pub(super) fn same_partition(&self, other: &EncodedRow, key: &[usize]) -> bool {
        self.cells()
            .zip(other.cells())
            .enumerate()
            .all(|(i, (a, b))| !key.contains(&i) || a == b)
    }
}

/// Writes `cell` (length first, as [`EncodedRow`] keeps it) as it was written.
fn copy_cell(cell: &[u8], writer: CellWriter<'_>) -> Result<(), SerializationError> {
    match cell.split_first_chunk::<4>() {
        Some((head, value)) if i32::from_be_bytes(*head) >= 0 => writer
            .set_value(value)
            .map(drop)
            .map_err(SerializationError::new),
        Some((head, _)) if i32::from_be_bytes(*head) == -1 => {
            writer.set_null();
            Ok(())
        }
        _ => {
            writer.set_unset();
            Ok(())
        }
    }
}

/// Some cells of a target row, with one write time and TTL: the INSERT of every column with
/// the key columns and the columns in `set` bound, the others unset.
pub(super) struct TimedWrite<'r, T> {
    pub row: &'r EncodedRow,
    pub table: std::marker::PhantomData<T>,
    /// The columns of `T` written; the others are left unset (key columns are always written).
    pub set: &'r ColumnSet,
    /// Seconds; 0 for cells that do not expire.
    pub ttl: i32,
    /// Microseconds since the epoch.
    pub timestamp: i64,
}

impl<T: Table> SerializeRow for TimedWrite<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let schema = T::schema();
        let specs = ctx.columns();
        let n = schema.columns.len();
        if specs.len() != n + 2 {
            return Err(count_mismatch(ctx));
        }
        for (i, cell) in self.row.cells().take(n).enumerate() {
            if schema.columns[i].kind.is_key() || self.set.contains(i) {
                copy_cell(cell, writer.make_cell_writer())?;
            } else {
                writer.make_cell_writer().set_unset();
            }
        }
        if writer.value_count() != n {
            return Err(count_mismatch(ctx));
        }
        SerializeValue::serialize(&self.ttl, specs[n].typ(), writer.make_cell_writer())?;
        SerializeValue::serialize(
            &self.timestamp,
            specs[n + 1].typ(),
            writer.make_cell_writer(),
        )?;
        Ok(())
    }

    fn is_empty(&self) -> bool {
        false
    }
}

/// One statement of a copied row: its write time (µs), TTL (s, 0: none) and the columns
/// of the target it writes.
pub(super) type CellGroup = (i64, i32, ColumnSet);

/// Some columns of a table, by index: bits in two words of its own, so that a set of a table
/// of up to 128 columns allocates nothing (a copy makes one or more per row), and in more
/// words beside them past that.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ColumnSet {
    first: [u64; 2],
    more: Vec<u64>,
}

impl ColumnSet {
    pub(super) fn insert(&mut self, i: usize) {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        match self.first.get_mut(word) {
            Some(w) => *w |= bit,
            None => {
                let k = word - self.first.len();
                if self.more.len() <= k {
                    self.more.resize(k + 1, 0);
                }
                self.more[k] |= bit;
            }
        }
    }

    pub(super) fn contains(&self, i: usize) -> bool {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let w = match self.first.get(word) {
            Some(w) => *w,
            None => self.more.get(word - self.first.len()).copied().unwrap_or(0),
        };
        w & bit != 0
    }

    /// Adds every column of `other`.
    pub(super) fn extend(&mut self, other: &ColumnSet) {
        for (w, o) in self.first.iter_mut().zip(other.first) {
            *w |= o;
        }
        if self.more.len() < other.more.len() {
            self.more.resize(other.more.len(), 0);
        }
        for (w, o) in self.more.iter_mut().zip(&other.more) {
            *w |= o;
        }
    }
}

/// The statements that write a copied row of `T`: one per distinct (write time, TTL) of its
/// cells. `source_cell[i]` is, for column `i` of `T` copied by name, the index of the same
/// cell in `times` (`None` for a key column of the source, which has no write time);
/// `source_cell` is `None` for a row converted by a function, whose cells all take the newest
/// write time of the source row and, when every one of its cells expires, the soonest TTL.
/// Null source cells are not written. A row without any timed cell is written at `read_at`
/// (the time its range was read), so that a write or delete made after the read still wins.
pub(super) fn cell_groups<T: Table>(
    times: &[CellTime],
    source_cell: Option<&[Option<usize>]>,
    read_at: i64,
) -> Vec<CellGroup> {
    let columns = &T::schema().columns;
    let n = columns.len();
    let regular = |i: usize| matches!(columns[i].kind, ColumnKind::Regular | ColumnKind::Static);
    let newest = times.iter().filter_map(|(w, _)| *w).max();
    let Some(map) = source_cell else {
        let live: Vec<&CellTime> = times.iter().filter(|(w, _)| w.is_some()).collect();
        let ttl = if !live.is_empty() && live.iter().all(|(_, t)| t.is_some_and(|t| t > 0)) {
            live.iter().filter_map(|(_, t)| *t).min().unwrap_or(0)
        } else {
            0
        };
        let mut set = ColumnSet::default();
        for i in (0..n).filter(|&i| regular(i)) {
            set.insert(i);
        }
        return vec![(newest.unwrap_or(read_at), ttl, set)];
    };
    let mut groups: Vec<CellGroup> = Vec::new();
    let mut untimed = ColumnSet::default();
    for i in (0..n).filter(|&i| regular(i)) {
        match map.get(i).copied().flatten() {
            Some(k) => {
                let Some(&(Some(written), ttl)) = times.get(k) else {
                    continue; // a null cell: nothing to write
                };
                let ttl = ttl.unwrap_or(0);
                match groups.iter_mut().find(|g| g.0 == written && g.1 == ttl) {
                    Some(g) => g.2.insert(i),
                    None => {
                        let mut set = ColumnSet::default();
                        set.insert(i);
                        groups.push((written, ttl, set));
                    }
                }
            }
            None => untimed.insert(i),
        }
    }
    // Cells copied from the source's key: written with the newest group (or alone).
    groups.sort_by_key(|g| std::cmp::Reverse(g.0));
    match groups.first_mut() {
        Some(first) => first.2.extend(&untimed),
        None => groups.push((newest.unwrap_or(read_at), 0, untimed)),
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::{ColumnSet, EncodedRow, copy_cell};
    use scylla::serialize::writers::RowWriter;

    /// Cells as the protocol writes them: a value (length first), null (-1), unset (-2).
    fn cells(values: &[Option<&[u8]>], unset: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, v) in values.iter().enumerate() {
            match v {
                Some(v) => {
                    out.extend(i32::try_from(v.len()).unwrap_or(i32::MAX).to_be_bytes());
                    out.extend_from_slice(v);
                }
                None if i == unset => out.extend((-2i32).to_be_bytes()),
                None => out.extend((-1i32).to_be_bytes()),
            }
        }
        out
    }

    #[test]
    fn an_encoded_row_gives_each_cell_back_as_it_was_written() {
        let bytes = cells(&[Some(b"abc"), None, None, Some(b"")], 2);
        let row = EncodedRow(bytes.clone());
        let found: Vec<&[u8]> = row.cells().collect();
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!(found.concat(), bytes);
        assert_eq!(found[0], &[0, 0, 0, 3, b'a', b'b', b'c']);
        // Each copied cell is written exactly as it was: value, null, unset, empty value.
        for cell in found {
            let mut out = Vec::new();
            let mut writer = RowWriter::new(&mut out);
            copy_cell(cell, writer.make_cell_writer()).expect("copied");
            assert_eq!(out, cell);
        }
    }

    #[test]
    fn rows_share_a_partition_only_when_every_key_cell_is_equal() {
        let a = EncodedRow(cells(&[Some(b"k1"), Some(b"c1"), Some(b"v")], 9));
        let b = EncodedRow(cells(&[Some(b"k1"), Some(b"c2"), None], 9));
        let c = EncodedRow(cells(&[Some(b"k2"), Some(b"c1"), Some(b"v")], 9));
        assert!(a.same_partition(&b, &[0]));
        assert!(!a.same_partition(&c, &[0]));
        assert!(!a.same_partition(&b, &[0, 1]));
        assert!(a.same_partition(&c, &[1, 2]));
    }

    #[test]
    fn a_column_set_holds_columns_past_the_first_two_words() {
        let mut set = ColumnSet::default();
        for i in [0, 63, 64, 127, 128, 300] {
            set.insert(i);
        }
        let held: Vec<usize> = (0..400).filter(|&i| set.contains(i)).collect();
        assert_eq!(held, [0, 63, 64, 127, 128, 300]);
        let mut other = ColumnSet::default();
        other.insert(5);
        other.insert(200);
        other.extend(&set);
        let held: Vec<usize> = (0..400).filter(|&i| other.contains(i)).collect();
        assert_eq!(held, [0, 5, 63, 64, 127, 128, 200, 300]);
    }
}
