//! The workload's tables as cassmodel's models (the raw side's row types are in `raw.rs`), and
//! the data, generated from seeds so that every key can be computed again (`keys.rs`).

use cassmodel::value::{Timeuuid, Vector};
use cassmodel::{CassEntity, CassTable};
use chrono::{DateTime, Duration as Days, Utc};
use uuid::Uuid;

pub use crate::keys::*;

/// An event of a user, newest first: a timeuuid clustering key in descending order, a text
/// of about 100 bytes, an int with a storage-attached index, and a list.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "events")]
pub struct Event {
    #[partition_key]
    pub user_id: Uuid,
    #[clustering(desc)]
    pub event_id: Timeuuid,
    pub body: String,
    #[cass(index)]
    pub score: i32,
    pub tags: Vec<String>,
}

/// The same kind of events in day buckets: the partition is (user, day), the day filled in
/// from `at` on every write.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "events_by_day")]
pub struct DayEvent {
    #[partition_key]
    pub user_id: Uuid,
    #[clustering(desc)]
    #[cass(bucket(day))]
    pub at: DateTime<Utc>,
    pub body: String,
    pub score: i32,
}

/// Documents with an embedding and a vector index (cosine).
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "docs")]
pub struct Doc {
    #[partition_key]
    pub id: i32,
    pub title: String,
    #[cass(index)]
    pub embedding: Vector<DIM>,
}

/// A like, stored in two query tables: `like.save(&db)` writes both in one logged batch.
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(LikeByUser, LikeByItem))]
pub struct Like {
    pub user_id: Uuid,
    pub item_id: Uuid,
    pub liked_at: DateTime<Utc>,
    pub note: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "likes_by_user", entity = Like)]
pub struct LikeByUser {
    #[partition_key]
    pub user_id: Uuid,
    #[clustering(desc)]
    pub liked_at: DateTime<Utc>,
    #[clustering]
    pub item_id: Uuid,
    pub note: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "likes_by_item", entity = Like)]
pub struct LikeByItem {
    #[partition_key]
    pub item_id: Uuid,
    #[clustering(desc)]
    pub liked_at: DateTime<Utc>,
    #[clustering]
    pub user_id: Uuid,
    pub note: String,
}

/// Event `j` of user `u` (loaded).
pub fn event(u: usize, j: usize) -> Event {
    let i = u * EVENTS_PER_USER + j;
    let (user_id, event_id) = event_key(u, j);
    Event {
        user_id,
        event_id: Timeuuid::from(event_id),
        body: body(i),
        score: score(i),
        tags: tags(i),
    }
}

/// A row to write, with a new random key: row `i` of pool `pool` (a side and a phase).
pub fn new_event(pool: u64, i: usize) -> Event {
    let (user_id, event_id, body, score, tags) = new_row(pool, i);
    Event {
        user_id,
        event_id: Timeuuid::from(event_id),
        body,
        score,
        tags,
    }
}

/// Row `k` of day `d` of user `u` in `events_by_day`.
pub fn day_event(u: usize, d: i64, k: usize) -> DayEvent {
    let i = (u * DAYS as usize + d as usize) * PER_DAY + k;
    DayEvent {
        user_id: user(u),
        at: first_day() + Days::days(d) + Days::minutes(k as i64 * 97 + 5),
        body: body(i),
        score: score(i),
    }
}

pub fn doc(i: usize) -> Doc {
    Doc {
        id: i as i32,
        title: format!("document {i}"),
        embedding: Vector::new(embedding(0xd0c5, i)),
    }
}

pub fn like(pool: u64, i: usize) -> Like {
    let (user_id, item_id, liked_at, note) = new_like(pool, i);
    Like {
        user_id,
        item_id,
        liked_at,
        note,
    }
}
