//! One operation of each phase, on each side: cassmodel's generated API here, the raw
//! driver's code in `raw.rs` (shared with the charybdis peer).

use std::hint::black_box;

use cassmodel::Db;
use cassmodel::Insert;
use cassmodel::value::Timeuuid;
use chrono::Duration as Days;

use crate::model::*;
use crate::raw::{Raw, RawEvent};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Cassmodel,
    Raw,
}

/// What both sides run on: cassmodel's `Db`, the raw side's own session with its statements,
/// and the keys to draw from.
#[derive(Clone)]
pub struct Ops {
    pub db: Db,
    /// The raw side's session, built as the driver's docs build one (`SessionBuilder` with
    /// its default policies), wrapped in a `Db` only to share the bench's helpers: cassmodel's
    /// recording of attempts is not on it.
    pub raw_db: Db,
    pub raw: Raw,
    /// Query vectors, as each side binds them.
    pub queries: Vec<cassmodel::value::Vector<DIM>>,
    pub raw_queries: Vec<Vec<f32>>,
    /// The rows an indexed read returns, by score (of the scores drawn).
    pub per_score: std::collections::HashMap<i32, usize>,
}

/// The pool of fresh keys of a write on one side (a side never writes the other's keys, so
/// every conditional insert applies).
fn pool(side: Side, phase: Phase) -> u64 {
    (phase as u64) << 8 | side as u64 | 0x100_0000
}

impl Ops {
    /// Operation `i` of a run seeded `seed` (its random keys); `n`, a count unique to the
    /// operation among every write of its side and phase (its fresh key). Returns the rows read
    /// (or 1 for a write that applied).
    pub async fn op(&self, side: Side, phase: Phase, seed: u64, i: usize, n: usize) -> usize {
        let db = &self.db;
        if side == Side::Raw {
            let s = self.raw_db.session();
            let queries = &self.raw_queries;
            let rows = (self.raw)
                .op::<RawEvent>(s, phase, seed, i, pool(side, phase), n, queries)
                .await;
            if phase == Phase::Indexed {
                assert_eq!(rows, self.per_score[&score_of(seed, i)]);
                return 1;
            }
            return rows;
        }
        match phase {
            Phase::Insert => {
                let row = new_event(pool(side, phase), n);
                db.insert(&row).await.expect("insert");
                1
            }
            Phase::Point => {
                let (u, e) = point_key(seed, i);
                let row = Event::get(db, &u, &Timeuuid::from(e)).await.expect("get");
                usize::from(black_box(row).is_some())
            }
            Phase::Latest => {
                let u = user(pick(seed, i, USERS));
                let rows = Event::select()
                    .user_id(&u)
                    .limit(LATEST as i32)
                    .fetch_all(db)
                    .await
                    .expect("latest");
                black_box(rows).len()
            }
            Phase::Partition => {
                let u = user(pick(seed, i, USERS));
                let rows = Event::select()
                    .user_id(&u)
                    .fetch_all(db)
                    .await
                    .expect("partition");
                black_box(rows).len()
            }
            Phase::Bucketed => {
                let (u, from) = range(seed, i);
                let rows = DayEvent::select()
                    .user_id(&u)
                    .at_range(from..from + Days::days(RANGE_DAYS))
                    .fetch_all(db)
                    .await
                    .expect("bucketed");
                black_box(rows).len()
            }
            Phase::Indexed => {
                let sc = score_of(seed, i);
                let rows = Event::select()
                    .score(&sc)
                    .fetch_all(db)
                    .await
                    .expect("indexed");
                assert_eq!(rows.len(), self.per_score[&sc]);
                1
            }
            Phase::Ann => {
                let q = &self.queries[pick(seed, i, self.queries.len())];
                let rows = Doc::select()
                    .ann_embedding(q)
                    .limit(TOP as i32)
                    .fetch_all(db)
                    .await
                    .expect("ann");
                black_box(rows).len()
            }
            Phase::Conditional => {
                let row = new_event(pool(side, phase), n);
                let r = Insert::new(&row)
                    .if_not_exists()
                    .execute(db)
                    .await
                    .expect("conditional insert");
                usize::from(r.applied)
            }
            Phase::Entity => {
                let like = like(pool(side, phase), n);
                like.save(db).await.expect("save");
                1
            }
        }
    }
}
