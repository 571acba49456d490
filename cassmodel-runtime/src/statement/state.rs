//! [`QueryState`]: a query under construction, its statement shape ([`Spec`]), its bound
//! values ([`QueryValues`]) and its options, kept in step: each clause that binds a value sets
//! the shape and the value together.

use super::options::QueryOptions;
use super::spec::{Op, SetOp, Spec};
use super::values::QueryValues;
use cassmodel_schema::Similarity;

use crate::mapping::erased::Bound;

/// A query under construction: its statement shape, bound values and options.
#[derive(Default)]
pub(crate) struct QueryState<'a> {
    pub(crate) spec: Spec,
    pub(crate) values: QueryValues<'a>,
    pub(crate) options: QueryOptions,
}

impl<'a> QueryState<'a> {
    // Each clause with a bound value sets the statement's shape (the cache key) and the value
    // together, here, so the two cannot disagree.

    /// Adds `column op ?` to the WHERE clause.
    pub(crate) fn restrict(&mut self, column: u16, op: Op, value: Bound<'a>) {
        self.spec.restrictions.push((column, op));
        self.values.where_.push(value);
    }

    /// Compares the timestamps of the WHERE clause and the conditions exactly, though a CQL
    /// timestamp holds milliseconds and a bound `DateTime<Utc>` may hold nanoseconds: each
    /// range bound with digits below the millisecond becomes the millisecond that keeps the
    /// same rows (`> t` and `<= t`: `t`'s millisecond; `>= t` and `< t`: the next one). In
    /// a `read`, an `=` on such a value matches no row (returns false: nothing to send), and
    /// an `IN` leaves such values out (false when none is left). In a write, an `=` or an
    /// `IN` keeps the value, which is written truncated to its millisecond, as an insert
    /// writes it.
    pub(crate) fn exact_timestamps(&mut self, read: bool) -> bool {
        let mut values = self.values.where_.iter_mut();
        for &(_, op) in &self.spec.restrictions {
            // A map entry binds two values.
            let n = if op == Op::Entry { 2 } else { 1 };
            for value in values.by_ref().take(n) {
                if !exact(value, op, read) {
                    return false;
                }
            }
        }
        let conditions = self.spec.conditions.iter().zip(self.values.if_.iter_mut());
        for (&(_, op), value) in conditions {
            exact(value, op, false);
        }
        true
    }

    /// Adds `column[?] = ?`: a map entry, its key then its value.
    pub(crate) fn restrict_entry(&mut self, column: u16, key: Bound<'a>, value: Bound<'a>) {
        self.spec.restrictions.push((column, Op::Entry));
        self.values.where_.push(key);
        self.values.where_.push(value);
    }

    /// Adds `IF column op ?`.
    pub(crate) fn condition(&mut self, column: u16, op: Op, value: Bound<'a>) {
        self.spec.conditions.push((column, op));
        self.values.if_.push(value);
    }

    /// `ORDER BY column ANN OF ?`: a vector search.
    pub(crate) fn ann(&mut self, column: u16, query: Bound<'a>) {
        self.spec.ann = Some(column);
        self.values.ann = Some(query);
    }

    /// Reads `similarity_<function>(column, ?)` of each row before the columns and the
    /// scores read so far, with `query` (`None`: the vector search's query vector).
    pub(crate) fn score(&mut self, column: u16, function: Similarity, query: Option<Bound<'a>>) {
        self.spec.scores.push((column, function));
        self.values.scores.push(query);
    }

    /// Reads no similarity score.
    pub(crate) fn no_scores(&mut self) {
        self.spec.scores.clear();
        self.values.scores.clear();
    }

    /// `LIMIT n` (bound, not spliced).
    pub(crate) fn limit(&mut self, n: i32) {
        self.spec.limit = true;
        self.values.limit = Some(n);
    }

    /// `PER PARTITION LIMIT n`.
    pub(crate) fn per_partition_limit(&mut self, n: i32) {
        self.spec.per_partition_limit = true;
        self.values.per_partition_limit = Some(n);
    }

    /// `USING TTL seconds`.
    pub(crate) fn ttl(&mut self, seconds: i32) {
        self.spec.ttl = true;
        self.values.ttl = Some(seconds);
    }

    /// `USING TIMESTAMP micros`.
    pub(crate) fn timestamp(&mut self, micros: i64) {
        self.spec.timestamp = true;
        self.values.timestamp = Some(micros);
    }

    /// Adds a change of `column` to the SET clause: one value, or two for `c[?] = ?`.
    /// Assigning a column twice keeps the last value.
    pub(crate) fn set(&mut self, column: u16, op: SetOp, values: [Option<Bound<'a>>; 2]) {
        if op == SetOp::Assign
            && let Some(i) = self.spec.sets.iter().position(|&s| s == (column, op))
        {
            // The values of earlier SET entries come first; find this entry's slot.
            let slot: usize = self.spec.sets[..i]
                .iter()
                .map(|&(_, o)| if o == SetOp::AtKey { 2 } else { 1 })
                .sum();
            if let [Some(v), _] = values {
                self.values.set[slot] = v;
            }
            return;
        }
        self.spec.sets.push((column, op));
        self.values.set.extend(values.into_iter().flatten());
    }
}

/// [`QueryState::exact_timestamps`] of one value under `op`: false when it matches no row.
#[inline]
fn exact(value: &mut Bound<'_>, op: Op, read: bool) -> bool {
    match op {
        Op::Gt | Op::Le | Op::Ge | Op::Lt => {
            if let Some(ms) = value.sub_millis() {
                // `> t`, `<= t`: t's millisecond; `>= t`, `< t`: the next one.
                let next = matches!(op, Op::Ge | Op::Lt);
                *value = Bound::Millis(ms.saturating_add(i64::from(next)));
            }
        }
        Op::Eq if read => return value.sub_millis().is_none(),
        Op::In if read => return value.exact_elements_only() != Some(0),
        _ => {}
    }
    true
}
