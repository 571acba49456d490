//! The rate limit of a backfill (`CopyOptions::rows_per_second`): each write takes its rows'
//! turn before it is sent, so the rows in flight count, and the turns follow each other at
//! the rate whatever the number of writes in flight. A copy that waited (for other processes'
//! ranges) does not make up for it in a burst: turns start from now, never from the past.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The turns of one process's writes.
pub(super) struct Pace {
    /// Rows per second; `None`: no limit.
    rate: Option<f64>,
    /// When the next turn starts.
    next: Mutex<Option<Instant>>,
}

impl Pace {
    pub fn new(rows_per_second: Option<u32>) -> Self {
        Pace {
            rate: rows_per_second.map(|r| f64::from(r.max(1))),
            next: Mutex::new(None),
        }
    }

    /// When a write of `rows` rows may be sent (`None`: at once, there is no limit); the turn
    /// after it starts as much later as `rows` take at the rate.
    pub fn turn(&self, rows: u64) -> Option<Instant> {
        let rate = self.rate?;
        let mut next = self.next.lock().ok()?;
        let now = Instant::now();
        let start = next.map_or(now, |n| n.max(now));
        *next = Some(start + Duration::from_secs_f64(rows as f64 / rate));
        Some(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_in_flight_take_turns_at_the_rate() {
        let pace = Pace::new(Some(1000));
        let first = pace.turn(100).expect("a turn");
        // Nine more writes of 100 rows sent at once: each a tenth of a second after the one
        // before, whether the one before has ended or not.
        let last = (0..9).map(|_| pace.turn(100).expect("a turn")).last();
        let spread = last.expect("turns").duration_since(first);
        assert!(
            (Duration::from_millis(899)..=Duration::from_millis(901)).contains(&spread),
            "{spread:?}"
        );
        assert_eq!(Pace::new(None).turn(100), None);
    }

    #[test]
    fn a_pause_is_not_made_up_for() {
        let pace = Pace::new(Some(1_000_000));
        pace.turn(1);
        std::thread::sleep(Duration::from_millis(20));
        let turn = pace.turn(1).expect("a turn");
        assert!(
            turn + Duration::from_millis(5) >= Instant::now(),
            "from now, not the past"
        );
    }
}
