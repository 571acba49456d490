//! Writing a copied row so that any newer write or delete of the application wins over it:
//! its cells keep their source's write time and remaining TTL. Cells of one row written at
//! different times are written in groups, one statement per write time ([`cell_groups`]).

use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::RowWriter;

use super::source::CellTime;
use crate::error::count_mismatch;
use crate::mapping::table::{Table, write_column};
use crate::schema::model::ColumnKind;

/// Some cells of a target row, with one write time and TTL: the INSERT of every column with
/// the key columns and the columns in `set` bound, the others unset.
pub(super) struct TimedWrite<'r, T> {
    pub row: &'r T,
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
        for (i, spec) in specs.iter().take(n).enumerate() {
            if schema.columns[i].kind.is_key() || self.set.contains(i) {
                write_column(self.row, i, spec, true, writer)?;
            } else {
                writer.make_cell_writer().set_unset();
            }
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
    use super::ColumnSet;

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
