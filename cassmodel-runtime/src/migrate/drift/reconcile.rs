//! Which copy of a field wins, as Cassandra reconciles the replicas of a cell: the latest
//! write time; at the same write time, the greater value. Pure: the check gives each copy of
//! a field (its table, its bytes, its write time and TTL) and gets the winner back, and
//! whether each copy agrees with it.
//!
//! Two cases the server's rule cannot decide, because CQL reads no write time for them:
//!
//! - a null cell (never written, or deleted: its tombstone's time cannot be read): where the
//!   identity table holds the field, its copy decides; else a value wins over a null;
//! - a collection or user-defined type that is not frozen (many cells, no one write time):
//!   the identity table's copy wins, else the first table's that holds a value.
//!
//! A field that is part of a table's key is decided by the identity table, which holds
//! every key field: its value says where the entity's rows are.

/// One copy of a field.
#[derive(Debug, Clone, Copy)]
pub(super) struct Copy<'a> {
    /// The cell (`None`: null).
    pub cell: Option<&'a [u8]>,
    /// Its write time, µs (`None` for a null cell or a cell of many).
    pub written: Option<i64>,
    /// Its remaining TTL, seconds (`None`: it does not expire).
    pub ttl: Option<i32>,
    /// Whether it is the identity table's copy.
    pub identity: bool,
}

/// The copy every table should hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Winner {
    pub cell: Option<Vec<u8>>,
    pub written: Option<i64>,
    pub ttl: Option<i32>,
}

/// TTLs read a moment apart from copies written together differ by a second or two.
const TTL_SLACK: i32 = 2;

/// The winner among `copies` (`None` without any); `key_field`: the field is part of a
/// table's key.
pub(super) fn winner(copies: &[Copy<'_>], key_field: bool) -> Option<Winner> {
    let identity = copies.iter().find(|c| c.identity);
    let decided = match identity {
        Some(i) if key_field || i.cell.is_none() || i.written.is_none() => Some(*i),
        _ => latest(copies),
    };
    let c = decided.or_else(|| copies.first().copied())?;
    Some(Winner {
        cell: c.cell.map(<[u8]>::to_vec),
        written: c.written,
        ttl: c.ttl,
    })
}

/// The copy with a value and the latest write time (then the greater value, then the one
/// that lives longer), or the first with a value when none has a write time.
fn latest<'a>(copies: &[Copy<'a>]) -> Option<Copy<'a>> {
    let with_value = copies.iter().filter(|c| c.cell.is_some());
    let timed = with_value
        .clone()
        .filter(|c| c.written.is_some())
        .max_by(|a, b| {
            let lives = |c: &Copy<'_>| c.ttl.map_or(i64::MAX, i64::from);
            (a.written, a.cell, lives(a)).cmp(&(b.written, b.cell, lives(b)))
        });
    timed.or_else(|| with_value.clone().next()).copied()
}

/// Whether `copy` holds what `winner` holds: the same value, and both without a TTL or with
/// TTLs a moment apart.
pub(super) fn agrees(copy: &Copy<'_>, winner: &Winner) -> bool {
    let ttl = match (copy.ttl, winner.ttl) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= TTL_SLACK,
        _ => false,
    };
    copy.cell == winner.cell.as_deref() && (ttl || copy.cell.is_none())
}

/// The write time a repair writes `winner` over `copy` with: the winner's, or just after the
/// copy's when that is not earlier (a copy that lost by its value at the same or a later
/// time). Over a null copy, whose delete (if it was one) has a time CQL cannot read, and
/// where neither has a time: `read_at`, when the check read the rows, which a delete made
/// before it loses to. A write made by the application after the check read the rows has a
/// later write time, and wins over the repair.
pub(super) fn repair_time(copy: &Copy<'_>, winner: &Winner, read_at: i64) -> i64 {
    match (winner.written, copy.written) {
        _ if copy.cell.is_none() => read_at,
        (Some(w), Some(c)) if c >= w => c.saturating_add(1),
        (Some(w), _) => w,
        (None, Some(c)) => c.saturating_add(1),
        (None, None) => read_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(cell: Option<&'static [u8]>, written: Option<i64>, identity: bool) -> Copy<'static> {
        Copy {
            cell,
            written,
            ttl: None,
            identity,
        }
    }

    #[test]
    fn the_latest_write_wins_then_the_greater_value() {
        let copies = [
            copy(Some(b"a"), Some(10), true),
            copy(Some(b"b"), Some(20), false),
            copy(Some(b"c"), Some(5), false),
        ];
        assert_eq!(
            winner(&copies, false).and_then(|w| w.cell),
            Some(b"b".to_vec())
        );
        let tie = [
            copy(Some(b"a"), Some(7), true),
            copy(Some(b"z"), Some(7), false),
        ];
        assert_eq!(
            winner(&tie, false).and_then(|w| w.cell),
            Some(b"z".to_vec())
        );
    }

    #[test]
    fn the_identity_decides_a_key_field_and_a_null() {
        let copies = [
            copy(Some(b"a"), Some(10), true),
            copy(Some(b"b"), Some(20), false),
        ];
        assert_eq!(
            winner(&copies, true).and_then(|w| w.cell),
            Some(b"a".to_vec())
        );
        let null = [copy(None, None, true), copy(Some(b"b"), Some(20), false)];
        assert_eq!(winner(&null, false).map(|w| w.cell), Some(None));
        // Without the identity's copy, a value wins over a null.
        let derived = [copy(None, None, false), copy(Some(b"b"), Some(20), false)];
        assert_eq!(
            winner(&derived, false).and_then(|w| w.cell),
            Some(b"b".to_vec())
        );
    }

    #[test]
    fn a_copy_agrees_with_the_same_value_and_ttl_within_two_seconds() {
        let w = Winner {
            cell: Some(b"a".to_vec()),
            written: Some(1),
            ttl: Some(100),
        };
        let mut c = copy(Some(b"a"), Some(1), false);
        assert!(!agrees(&c, &w), "no TTL against a TTL");
        c.ttl = Some(99);
        assert!(agrees(&c, &w));
        c.ttl = Some(90);
        assert!(!agrees(&c, &w));
        c.cell = Some(b"b");
        c.ttl = Some(100);
        assert!(!agrees(&c, &w));
    }

    #[test]
    fn a_repair_is_written_after_the_copy_it_replaces() {
        let w = Winner {
            cell: Some(b"a".to_vec()),
            written: Some(10),
            ttl: None,
        };
        assert_eq!(repair_time(&copy(Some(b"b"), Some(5), false), &w, 99), 10);
        assert_eq!(repair_time(&copy(Some(b"b"), Some(10), false), &w, 99), 11);
        assert_eq!(repair_time(&copy(None, None, false), &w, 99), 99);
        let untimed = Winner { written: None, ..w };
        assert_eq!(
            repair_time(&copy(Some(b"b"), None, false), &untimed, 99),
            99
        );
    }
}
