//! How many token ranges a copy cuts its source's ring into: the number a caller sets, or one
//! sized from the source's size estimates (`system.table_estimates`), about
//! [`BYTES_PER_RANGE`] each. The first process that opens the copy records its number; every
//! process that joins it later takes the record's, unless it set another (then it is refused).
//!
//! Each range costs a lightweight transaction to claim and a write to mark done: 256 ranges
//! of a table of 100,000 rows spent a quarter of the copy's time on them. A table the
//! estimates do not know yet (written since the node last counted, every 5 minutes by
//! default, or held in memtables only) gets the fewest ranges, enough to keep every range in
//! flight busy.

use super::source::SourceColumns;
use crate::migrate::error::MigrationError;
use crate::session::db::Db;
use crate::sizing::{RangeEstimate, table_estimates};

/// The bytes of the source in one range, about, when the estimates size the count.
pub(super) const BYTES_PER_RANGE: u64 = 2 << 20;

/// The most ranges the estimates give a copy (a caller may set more).
pub(super) const MAX_RANGES: u32 = 256;

/// How many ranges a copy asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RangeCount {
    /// Set by the caller: a record with another number is refused.
    Exactly(u32),
    /// Sized from the estimates: a record with another number is followed.
    About(u32),
}

impl RangeCount {
    /// The number asked for.
    pub(crate) fn asked(self) -> u32 {
        match self {
            RangeCount::Exactly(n) | RangeCount::About(n) => n,
        }
    }
}

/// The ranges of a copy: `set` if the caller set them, else sized from the estimates of
/// `source` for `in_flight` ranges copied at once.
pub(super) async fn range_count(
    db: &Db,
    source: &SourceColumns,
    set: Option<u32>,
    in_flight: usize,
) -> Result<RangeCount, MigrationError> {
    if let Some(n) = set {
        return Ok(RangeCount::Exactly(n.max(1)));
    }
    let estimates = table_estimates(db, &source.keyspace, &source.table).await?;
    Ok(RangeCount::About(sized(&estimates, in_flight)))
}

/// The whole ring, in tokens.
const RING: i128 = 1 << 64;

/// The number of ranges for a source whose node estimates `estimates` (the ranges of the ring
/// that node is the primary replica of, from which the whole table's size is extrapolated;
/// a range whose bounds are not tokens is left out): one per
/// [`BYTES_PER_RANGE`], at least 4 per range in flight, at most [`MAX_RANGES`].
fn sized(estimates: &[RangeEstimate], in_flight: usize) -> u32 {
    let least = u32::try_from(in_flight.saturating_mul(4))
        .unwrap_or(MAX_RANGES)
        .clamp(1, MAX_RANGES);
    let mut covered: i128 = 0;
    let mut bytes: i128 = 0;
    for e in estimates {
        let Some((start, end)) = e.range else {
            continue;
        };
        let width = i128::from(end) - i128::from(start);
        // A range that wraps around the ring (or is all of it, start = end).
        covered = covered.saturating_add(if width <= 0 { width + RING } else { width });
        let size = i128::from(e.mean_partition_size.max(0)) * i128::from(e.partitions.max(0));
        bytes = bytes.saturating_add(size);
    }
    if covered <= 0 || bytes <= 0 {
        return least;
    }
    let total = bytes.saturating_mul(RING) / covered;
    let per_range = i128::from(BYTES_PER_RANGE);
    let wanted = total.saturating_add(per_range - 1) / per_range;
    u32::try_from(wanted)
        .unwrap_or(MAX_RANGES)
        .clamp(least, MAX_RANGES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(start: i64, end: i64, mean: i64, partitions: i64) -> RangeEstimate {
        RangeEstimate {
            range: Some((start, end)),
            mean_partition_size: mean,
            partitions,
        }
    }

    #[test]
    fn no_estimates_give_four_ranges_per_range_in_flight() {
        assert_eq!(sized(&[], 8), 32);
        assert_eq!(sized(&[], 1), 4);
        assert_eq!(sized(&[], 1000), MAX_RANGES);
        assert_eq!(sized(&[estimate(0, 10, 0, 0)], 8), 32);
    }

    #[test]
    fn a_quarter_of_the_ring_is_extrapolated_to_the_whole() {
        // 25 MiB on a quarter of the ring: 100 MiB in all, 50 ranges of 2 MiB.
        let quarter = estimate(0, 1 << 62, 1 << 10, 25 << 10);
        assert_eq!(sized(&[quarter], 8), 50);
        // The same quarter in two pieces, one wrapping around the ring's end.
        let wrapping = estimate(
            i64::MAX - (1 << 60) + 1,
            i64::MIN + (1 << 60),
            1 << 10,
            12800,
        );
        let rest = estimate(0, 1 << 61, 1 << 10, 12800);
        assert_eq!(sized(&[wrapping, rest], 8), 50);
    }

    #[test]
    fn the_count_stays_between_the_least_and_the_most() {
        let small = estimate(i64::MIN, i64::MIN, 100, 1000);
        assert_eq!(sized(&[small], 8), 32);
        let huge = estimate(i64::MIN, i64::MIN, 1 << 20, 1 << 30);
        assert_eq!(sized(&[huge], 8), MAX_RANGES);
        // Nonsense from a node is not a panic.
        let odd = estimate(5, 5, i64::MAX, i64::MAX);
        assert_eq!(sized(&[odd, odd], 8), MAX_RANGES);
        let negative = estimate(1, 2, -5, -7);
        assert_eq!(sized(&[negative], 2), 8);
    }
}
