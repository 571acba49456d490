//! The workload's phases, sizes, keys and values, drawn from seeds so that any side (this
//! bench's two, and the peer in `benches/peers/charybdis`, which includes this file) computes
//! the same ones. Only `uuid` and `chrono`.

use chrono::{DateTime, Duration as Days, TimeZone, Utc};
use uuid::Uuid;

/// The operations measured; the bench and the peer name them by their `Debug` form.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Phase {
    Insert,
    Point,
    Latest,
    Partition,
    Bucketed,
    Indexed,
    Ann,
    Conditional,
    Entity,
}

impl Phase {
    pub const ALL: [Phase; 9] = [
        Phase::Insert,
        Phase::Point,
        Phase::Latest,
        Phase::Partition,
        Phase::Bucketed,
        Phase::Indexed,
        Phase::Ann,
        Phase::Conditional,
        Phase::Entity,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Phase::Insert => "insert",
            Phase::Point => "point read",
            Phase::Latest => "latest 20",
            Phase::Partition => "partition of 100 rows",
            Phase::Bucketed => "bucketed range, 3 days",
            Phase::Indexed => "indexed read (SAI)",
            Phase::Ann => "ANN top 10",
            Phase::Conditional => "conditional insert",
            Phase::Entity => "entity, two tables",
        }
    }

    /// The rows an operation of the phase reads (1 for a write, or an indexed read, whose
    /// count the bench checks itself).
    pub fn expected(self) -> usize {
        match self {
            Phase::Latest => LATEST,
            Phase::Partition => EVENTS_PER_USER,
            Phase::Bucketed => RANGE_DAYS as usize * PER_DAY,
            Phase::Ann => TOP,
            _ => 1,
        }
    }
}

/// Users (partitions of `events`) loaded.
pub const USERS: usize = 1_000;
/// Rows per user in `events`: a whole-partition read returns this many.
pub const EVENTS_PER_USER: usize = 100;
/// Distinct `score` values: an indexed read by score returns about
/// `USERS * EVENTS_PER_USER / SCORES` rows.
pub const SCORES: i32 = 10_000;
/// Users of `events_by_day`, days each, rows per day.
pub const DAY_USERS: usize = 200;
pub const DAYS: i64 = 30;
pub const PER_DAY: usize = 4;
/// Rows of `docs` (the vector table) and the vectors' dimension.
pub const DOCS: usize = 5_000;
pub const DIM: usize = 16;
/// Rows of the latest-N read, of the ANN read.
pub const LATEST: usize = 20;
pub const TOP: usize = 10;
/// Buckets (days) of the bucketed range read.
pub const RANGE_DAYS: i64 = 3;

/// SplitMix64: the random number of `seed`, cheap enough to draw per operation on both sides.
pub fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random index below `n` for operation `i` of a run seeded `seed`.
pub fn pick(seed: u64, i: usize, n: usize) -> usize {
    (mix(seed ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d)) % n as u64) as usize
}

pub fn user(u: usize) -> Uuid {
    Uuid::from_u128(0x5eed_0000_0000_0000_0000_0000_0000_0000 | u as u128)
}

/// A version-1 UUID at second `secs` after 2023-11-14, with `seq` in its node bytes.
pub fn time_uuid(secs: u64, seq: u32) -> Uuid {
    let ts = uuid::Timestamp::from_unix(uuid::NoContext, 1_700_000_000 + secs, 0);
    let b = seq.to_be_bytes();
    Uuid::new_v1(ts, &[0x02, 0x42, b[0], b[1], b[2], b[3]])
}

/// The key of event `j` of user `u` (loaded).
pub fn event_key(u: usize, j: usize) -> (Uuid, Uuid) {
    (user(u), time_uuid(j as u64 * 60, u as u32))
}

/// The key of a loaded event for operation `i` of a run seeded `seed`.
pub fn point_key(seed: u64, i: usize) -> (Uuid, Uuid) {
    event_key(pick(seed, i, USERS), pick(seed ^ 1, i, EVENTS_PER_USER))
}

/// A new random key: row `i` of pool `pool` (a side and a phase).
pub fn new_key(pool: u64, i: usize) -> (Uuid, Uuid) {
    let r = mix(pool << 32 | i as u64);
    (
        Uuid::from_u64_pair(pool, r),
        time_uuid(r % 10_000_000, i as u32),
    )
}

/// The values of new row `i` of pool `pool` (a side and a phase): its key, body, score (never
/// asked for by an indexed read) and tags.
pub fn new_row(pool: u64, i: usize) -> (Uuid, Uuid, String, i32, Vec<String>) {
    let (user_id, event_id) = new_key(pool, i);
    (user_id, event_id, body(i), new_score(i), tags(i))
}

/// The values of new like `i` of pool `pool`: user, item, when, note.
pub fn new_like(pool: u64, i: usize) -> (Uuid, Uuid, DateTime<Utc>, String) {
    let r = mix(pool << 32 | i as u64);
    (
        Uuid::from_u64_pair(pool, r),
        Uuid::from_u64_pair(r, pool),
        first_day() + Days::seconds((r % 10_000_000) as i64),
        body(i),
    )
}

/// About 100 bytes of text.
pub fn body(i: usize) -> String {
    format!(
        "event {i:>8}: a user did something worth keeping; the body is text of about a hundred b"
    )
}

pub fn tags(i: usize) -> Vec<String> {
    (0..(i % 3 + 1))
        .map(|t| format!("tag{}", (i + t) % 50))
        .collect()
}

pub fn score(i: usize) -> i32 {
    (mix(i as u64 ^ 0x5c0e) % SCORES as u64) as i32
}

/// The score of new row `i`: negative, never asked for, so writes leave the indexed reads'
/// results as loaded.
pub fn new_score(i: usize) -> i32 {
    -1 - (i % 1_000) as i32
}

/// The score an indexed read of operation `i` asks for (one some loaded row has).
pub fn score_of(seed: u64, i: usize) -> i32 {
    score(pick(seed, i, USERS * EVENTS_PER_USER))
}

pub fn first_day() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

/// The user and first instant of a bucketed range read: three whole days.
pub fn range(seed: u64, i: usize) -> (Uuid, DateTime<Utc>) {
    let u = user(pick(seed, i, DAY_USERS));
    let d = pick(seed ^ 2, i, (DAYS - RANGE_DAYS + 1) as usize) as i64;
    (u, first_day() + Days::days(d))
}

/// The embedding of document `i` (or of query `i`, from another seed): never all zero.
pub fn embedding(seed: u64, i: usize) -> [f32; DIM] {
    let mut v = [0.0f32; DIM];
    for (k, x) in v.iter_mut().enumerate() {
        let r = mix(seed ^ ((i * DIM + k) as u64).wrapping_mul(0x9e37));
        *x = (r % 2_000) as f32 / 1_000.0 - 0.999;
    }
    v
}
