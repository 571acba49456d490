//! Leases of a copy's ranges, and how a holder that renews is told from one that stopped.
//!
//! A process holding a range renews its lease at every heartbeat (1 s by default), writing
//! when it did (`heard`, its clock) and its heartbeat into the lease. A lease lapses when its
//! end passes without a renewal (`CopyOptions::lease`, 30 s by default). A holder that missed
//! [`MISSED_HEARTBEATS`] heartbeats in a row is taken for stopped (killed, or cut off from the
//! cluster): another process that has seen its lease unchanged for that long, on its own
//! clock, takes the range over at once with a lightweight transaction conditioned on the
//! lease it saw, so that a renewal in between wins and a range never has two holders that
//! both think they hold it. If the stopped holder was only slow, its next renewal fails and
//! it stops copying the range; writes of it still in flight land twice, which is harmless:
//! each copied cell keeps its source's write time. A copy of counters, whose increments
//! would count twice, waits for the lease to lapse instead.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Heartbeats a holder may miss before another process takes its ranges over.
pub const MISSED_HEARTBEATS: u32 = 5;

/// A lease as the record has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lease {
    pub owner: String,
    /// When it lapses (milliseconds since the epoch).
    pub until: i64,
    /// When its holder last renewed it, on its clock (milliseconds); `None` from a holder
    /// that records no heartbeat.
    pub heard: Option<i64>,
    /// The holder's heartbeat (milliseconds).
    pub heartbeat: Option<i32>,
}

impl Lease {
    /// The lease of a range nobody holds.
    pub fn nobody() -> Self {
        Lease {
            owner: String::new(),
            until: 0,
            heard: None,
            heartbeat: None,
        }
    }

    /// How long its holder may stay silent before it is taken for stopped; `None` when the
    /// holder records no heartbeat (its lease must lapse).
    pub fn silence_allowed(&self) -> Option<Duration> {
        let beat = u64::try_from(self.heartbeat?).ok().filter(|b| *b > 0)?;
        self.heard?;
        Some(Duration::from_millis(beat) * MISSED_HEARTBEATS)
    }

    /// Whether its holder renews, as far as the clocks of both machines tell at `now`.
    fn renewing(&self, now: i64) -> bool {
        match (self.heard, self.silence_allowed()) {
            (Some(heard), Some(allowed)) => now - heard <= millis(allowed),
            _ => self.until >= now,
        }
    }
}

/// Ranges a process holds: the ranges a backfill waits for, or that `status` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeldRanges {
    /// The holder, as the record names it: `<pid>@<host>/<id>`.
    pub owner: String,
    /// How many ranges it holds.
    pub ranges: u32,
    /// Since it last renewed a lease of them, by its clock and this one; `None` when it
    /// records no heartbeat.
    pub last_heard: Option<Duration>,
    /// Whether it renews its leases (heard within [`MISSED_HEARTBEATS`] heartbeats).
    pub renewing: bool,
    /// Until the last of its leases lapses without a renewal.
    pub lapses_in: Duration,
    /// For a backfill waiting for them: how long until it takes them over if the holder
    /// stays silent; `None` when it waits for the leases to lapse (a copy of counters, or a
    /// holder that records no heartbeat).
    pub taken_over_in: Option<Duration>,
}

impl std::fmt::Display for HeldRanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let heard = self.last_heard.map_or_else(
            || "never heard".to_owned(),
            |d| format!("last heard {} ago", secs(d)),
        );
        if self.renewing && self.taken_over_in.is_none() {
            return write!(
                f,
                "{} being copied now by {} ({heard})",
                self.ranges, self.owner
            );
        }
        write!(f, "{} held by {} ({heard}", self.ranges, self.owner)?;
        if !self.renewing {
            write!(f, ", stopped renewing")?;
        }
        write!(f, "; lapses in {}", secs(self.lapses_in))?;
        if let Some(t) = self.taken_over_in {
            write!(f, "; taken over in {} unless it renews", secs(t))?;
        }
        write!(f, ")")
    }
}

/// `12 s`.
fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64().round())
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn since(now: i64, then: i64) -> Duration {
    Duration::from_millis(u64::try_from(now - then).unwrap_or(0))
}

/// The holders of `leases` (each with its range start) at `now` (milliseconds), each with
/// its ranges, the leases lapsed left out; `taken_over_in` of each lease as a waiting
/// backfill has it (`None` from `status`).
pub(crate) fn holders(leases: &[(Lease, Option<Duration>)], now: i64) -> Vec<HeldRanges> {
    let mut by_owner: BTreeMap<&str, HeldRanges> = BTreeMap::new();
    for (lease, taken_over_in) in leases.iter().filter(|(l, _)| l.until >= now) {
        let heard = lease.heard.map(|h| since(now, h));
        let lapses_in = since(lease.until, now);
        let h = by_owner.entry(&lease.owner).or_insert_with(|| HeldRanges {
            owner: lease.owner.clone(),
            ranges: 0,
            last_heard: heard,
            renewing: false,
            lapses_in,
            taken_over_in: *taken_over_in,
        });
        h.ranges += 1;
        h.renewing |= lease.renewing(now);
        h.last_heard = match (h.last_heard, heard) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        h.lapses_in = h.lapses_in.max(lapses_in);
        h.taken_over_in = match (h.taken_over_in, taken_over_in) {
            (Some(a), Some(b)) => Some(a.max(*b)),
            _ => None,
        };
    }
    by_owner.into_values().collect()
}

/// What a backfill has seen of the leases other processes hold: each range's holder and
/// heartbeat, and since when (on this process's clock) it has seen them unchanged.
#[derive(Default)]
pub(crate) struct Watch {
    seen: Mutex<HashMap<i64, (String, i64, Instant)>>,
}

impl Watch {
    /// How long `lease` of range `start` has been seen unchanged (zero the first time).
    pub fn unchanged_for(&self, start: i64, lease: &Lease) -> Duration {
        let Some(heard) = lease.heard else {
            return Duration::ZERO;
        };
        let Ok(mut seen) = self.seen.lock() else {
            return Duration::ZERO;
        };
        let now = Instant::now();
        match seen.get(&start) {
            Some((owner, h, since)) if *owner == lease.owner && *h == heard => {
                now.duration_since(*since)
            }
            _ => {
                seen.insert(start, (lease.owner.clone(), heard, now));
                Duration::ZERO
            }
        }
    }
}

/// A name for one backfill in the record, unique across processes and machines, that says
/// where it runs: `<pid>@<host>/<time in nanoseconds, hex>.<count of the backfills this
/// process started>`.
pub(crate) fn owner_name() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STARTED: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = STARTED.fetch_add(1, Ordering::Relaxed);
    format!("{}@{}/{nanos:x}.{n}", std::process::id(), host_name())
}

/// This machine's name, as the kernel has it (`?` when it cannot be read).
fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| {
            let name = std::fs::read_to_string(p).ok()?;
            let name = name.trim();
            (!name.is_empty()).then(|| name.to_owned())
        })
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "?".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(owner: &str, until: i64, heard: Option<i64>) -> Lease {
        Lease {
            owner: owner.into(),
            until,
            heard,
            heartbeat: Some(1000),
        }
    }

    #[test]
    fn a_holder_silent_for_five_heartbeats_stopped_renewing() {
        let now = 100_000;
        let leases = [
            (lease("a", now + 20_000, Some(now - 300)), None),
            (lease("a", now + 25_000, Some(now - 800)), None),
            (lease("b", now + 10_000, Some(now - 7_000)), None),
            (lease("c", now - 1, Some(now - 40_000)), None),
        ];
        let held = holders(&leases, now);
        assert_eq!(held.len(), 2, "the lapsed lease of c is held by nobody");
        assert_eq!(
            (held[0].ranges, held[0].renewing, held[0].last_heard),
            (2, true, Some(Duration::from_millis(300)))
        );
        assert_eq!(held[0].lapses_in, Duration::from_secs(25));
        assert!(held[0].to_string().starts_with("2 being copied now by a"));
        assert!(!held[1].renewing);
        assert_eq!(
            held[1].to_string(),
            "1 held by b (last heard 7 s ago, stopped renewing; lapses in 10 s)"
        );
    }

    #[test]
    fn a_lease_seen_unchanged_counts_from_its_first_sight() {
        let watch = Watch::default();
        let l = lease("a", 1, Some(5));
        assert_eq!(watch.unchanged_for(7, &l), Duration::ZERO);
        std::thread::sleep(Duration::from_millis(20));
        assert!(watch.unchanged_for(7, &l) >= Duration::from_millis(20));
        let renewed = lease("a", 1, Some(6));
        assert_eq!(watch.unchanged_for(7, &renewed), Duration::ZERO);
        assert_eq!(lease("a", 1, None).silence_allowed(), None);
        assert_eq!(l.silence_allowed(), Some(Duration::from_secs(5)));
    }
}
