//! One operation of each phase, on each side. The raw side is written as the scylla driver's
//! documentation shows: each statement prepared once, run with `execute_unpaged` (a read with
//! a limit, a write) or `execute_iter` + `rows_stream` (a read of unknown size), rows read
//! into `#[derive(DeserializeRow)]` structs with the default attributes, a logged batch for
//! the two tables of an entity.

use std::hint::black_box;

use cassmodel::Db;
use cassmodel::Insert;
use cassmodel::value::Timeuuid;
use chrono::{DateTime, Duration as Days, Utc};
use futures::TryStreamExt;
use scylla::deserialize::row::DeserializeRow;
use scylla::errors::NextRowError;
use scylla::serialize::row::SerializeRow;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::prepared::PreparedStatement;
use uuid::Uuid;

use crate::model::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Cassmodel,
    Raw,
}

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
}

/// The raw side's statements, prepared once.
#[derive(Clone)]
pub struct Raw {
    pub insert: PreparedStatement,
    pub point: PreparedStatement,
    pub latest: PreparedStatement,
    pub partition: PreparedStatement,
    pub bucket: PreparedStatement,
    pub indexed: PreparedStatement,
    pub ann: PreparedStatement,
    pub conditional: PreparedStatement,
    pub entity: Batch,
}

impl Raw {
    /// The CQL of each statement (keyspace-qualified), in the order of the fields.
    pub fn cql(ks: &str) -> [String; 10] {
        let ev = "user_id, event_id, body, score, tags";
        let day = "user_id, at, body, score";
        [
            format!("INSERT INTO {ks}.events ({ev}) VALUES (?, ?, ?, ?, ?)"),
            format!("SELECT {ev} FROM {ks}.events WHERE user_id = ? AND event_id = ?"),
            format!("SELECT {ev} FROM {ks}.events WHERE user_id = ? LIMIT ?"),
            format!("SELECT {ev} FROM {ks}.events WHERE user_id = ?"),
            format!(
                "SELECT {day} FROM {ks}.events_by_day WHERE user_id = ? AND at_day = ? \
                 AND at >= ? AND at < ?"
            ),
            format!("SELECT {ev} FROM {ks}.events WHERE score = ?"),
            format!(
                "SELECT id, title, embedding FROM {ks}.docs ORDER BY embedding ANN OF ? LIMIT ?"
            ),
            format!("INSERT INTO {ks}.events ({ev}) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS"),
            format!(
                "INSERT INTO {ks}.likes_by_user (user_id, liked_at, item_id, note) \
                 VALUES (?, ?, ?, ?)"
            ),
            format!(
                "INSERT INTO {ks}.likes_by_item (item_id, liked_at, user_id, note) \
                 VALUES (?, ?, ?, ?)"
            ),
        ]
    }

    pub async fn prepare(db: &Db, ks: &str) -> Raw {
        let s = db.session();
        let mut ps = Vec::new();
        for cql in Raw::cql(ks) {
            ps.push(s.prepare(cql).await.expect("prepare"));
        }
        let mut ps = ps.into_iter();
        let mut next = || ps.next().expect("ten statements");
        let (insert, point, latest, partition, bucket) = (next(), next(), next(), next(), next());
        let (indexed, ann, conditional) = (next(), next(), next());
        let mut entity = Batch::new(BatchType::Logged);
        entity.append_statement(next());
        entity.append_statement(next());
        Raw {
            insert,
            point,
            latest,
            partition,
            bucket,
            indexed,
            ann,
            conditional,
            entity,
        }
    }
}

/// What both sides run on: cassmodel's `Db`, the raw side's own session with its statements,
/// and the keys to draw from.
#[derive(Clone)]
pub struct Ops {
    pub db: Db,
    /// The raw side's session, built as the driver's docs build one (`SessionBuilder` with
    /// its default policies), wrapped only to share the helpers: cassmodel's recording of
    /// attempts is not on it.
    pub raw_db: Db,
    pub raw: Raw,
    /// Query vectors, as each side binds them.
    pub queries: Vec<cassmodel::value::Vector<DIM>>,
    pub raw_queries: Vec<Vec<f32>>,
    /// The rows an indexed read returns, by score (of the scores drawn).
    pub per_score: std::collections::HashMap<i32, usize>,
}

impl Ops {
    /// The rows of a raw statement of unknown result size, as the driver's docs read them:
    /// `execute_iter`, `rows_stream`.
    pub async fn raw_rows<R>(
        &self,
        ps: &PreparedStatement,
        values: impl SerializeRow,
    ) -> impl futures::Stream<Item = Result<R, NextRowError>>
    where
        R: for<'f, 'm> DeserializeRow<'f, 'm> + Send + 'static,
    {
        self.raw_db
            .session()
            .execute_iter(ps.clone(), values)
            .await
            .expect("execute_iter")
            .rows_stream::<R>()
            .expect("rows_stream")
    }

    /// Every row of [`raw_rows`](Self::raw_rows), collected.
    pub async fn raw_all<R>(&self, ps: &PreparedStatement, values: impl SerializeRow) -> Vec<R>
    where
        R: for<'f, 'm> DeserializeRow<'f, 'm> + Send + 'static,
    {
        self.raw_rows(ps, values)
            .await
            .try_collect()
            .await
            .expect("rows")
    }

    /// Every row of a raw statement with a limit: one `execute_unpaged`, its rows collected.
    pub async fn raw_unpaged<R>(&self, ps: &PreparedStatement, values: impl SerializeRow) -> Vec<R>
    where
        R: for<'f, 'm> DeserializeRow<'f, 'm>,
    {
        self.raw_db
            .session()
            .execute_unpaged(ps, values)
            .await
            .expect("execute")
            .into_rows_result()
            .expect("rows")
            .rows::<R>()
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows")
    }

    /// The raw bucketed range read from `from` for three days: one query per day bucket,
    /// newest day first, merged.
    pub async fn raw_bucketed(&self, u: Uuid, from: DateTime<Utc>) -> Vec<RawDayEvent> {
        let to = from + Days::days(RANGE_DAYS);
        let mut rows = Vec::new();
        for d in (0..RANGE_DAYS).rev() {
            let day = (from + Days::days(d)).date_naive();
            let part = self.raw_rows(&self.raw.bucket, (u, day, from, to)).await;
            futures::pin_mut!(part);
            while let Some(r) = part.try_next().await.expect("row") {
                rows.push(r);
            }
        }
        rows
    }
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
        let s = self.raw_db.session();
        match (side, phase) {
            (Side::Cassmodel, Phase::Insert) => {
                let row = new_event(pool(side, phase), n);
                db.insert(&row).await.expect("insert");
                1
            }
            (Side::Raw, Phase::Insert) => {
                let row = new_event(pool(side, phase), n);
                s.execute_unpaged(
                    &self.raw.insert,
                    (&row.user_id, &row.event_id, &row.body, row.score, &row.tags),
                )
                .await
                .expect("insert");
                1
            }
            (Side::Cassmodel, Phase::Point) => {
                let (u, e) = point_key(seed, i);
                let row = Event::get(db, &u, &Timeuuid::from(e)).await.expect("get");
                usize::from(black_box(row).is_some())
            }
            (Side::Raw, Phase::Point) => {
                let (u, e) = point_key(seed, i);
                let row = s
                    .execute_unpaged(&self.raw.point, (u, Timeuuid::from(e)))
                    .await
                    .expect("execute")
                    .into_rows_result()
                    .expect("rows")
                    .maybe_first_row::<RawEvent>()
                    .expect("row");
                usize::from(black_box(row).is_some())
            }
            (Side::Cassmodel, Phase::Latest) => {
                let u = user(pick(seed, i, USERS));
                let rows = Event::select()
                    .user_id(&u)
                    .limit(LATEST as i32)
                    .fetch_all(db)
                    .await
                    .expect("latest");
                black_box(rows).len()
            }
            (Side::Raw, Phase::Latest) => {
                let u = user(pick(seed, i, USERS));
                let rows: Vec<RawEvent> =
                    self.raw_unpaged(&self.raw.latest, (u, LATEST as i32)).await;
                black_box(rows).len()
            }
            (Side::Cassmodel, Phase::Partition) => {
                let u = user(pick(seed, i, USERS));
                let rows = Event::select()
                    .user_id(&u)
                    .fetch_all(db)
                    .await
                    .expect("partition");
                black_box(rows).len()
            }
            (Side::Raw, Phase::Partition) => {
                let u = user(pick(seed, i, USERS));
                let rows: Vec<RawEvent> = self.raw_all(&self.raw.partition, (u,)).await;
                black_box(rows).len()
            }
            (Side::Cassmodel, Phase::Bucketed) => {
                let (u, from) = range(seed, i);
                let rows = DayEvent::select()
                    .user_id(&u)
                    .at_range(from..from + Days::days(RANGE_DAYS))
                    .fetch_all(db)
                    .await
                    .expect("bucketed");
                black_box(rows).len()
            }
            (Side::Raw, Phase::Bucketed) => {
                let (u, from) = range(seed, i);
                black_box(self.raw_bucketed(u, from).await).len()
            }
            (Side::Cassmodel, Phase::Indexed) => {
                let sc = score_of(seed, i);
                let rows = Event::select()
                    .score(&sc)
                    .fetch_all(db)
                    .await
                    .expect("indexed");
                assert_eq!(rows.len(), self.per_score[&sc]);
                1
            }
            (Side::Raw, Phase::Indexed) => {
                let sc = score_of(seed, i);
                let rows: Vec<RawEvent> = self.raw_all(&self.raw.indexed, (sc,)).await;
                assert_eq!(rows.len(), self.per_score[&sc]);
                1
            }
            (Side::Cassmodel, Phase::Ann) => {
                let q = &self.queries[pick(seed, i, self.queries.len())];
                let rows = Doc::select()
                    .ann_embedding(q)
                    .limit(TOP as i32)
                    .fetch_all(db)
                    .await
                    .expect("ann");
                black_box(rows).len()
            }
            (Side::Raw, Phase::Ann) => {
                let q = &self.raw_queries[pick(seed, i, self.raw_queries.len())];
                let rows: Vec<RawDoc> = self.raw_unpaged(&self.raw.ann, (q, TOP as i32)).await;
                black_box(rows).len()
            }
            (Side::Cassmodel, Phase::Conditional) => {
                let row = new_event(pool(side, phase), n);
                let r = Insert::new(&row)
                    .if_not_exists()
                    .execute(db)
                    .await
                    .expect("conditional insert");
                usize::from(r.applied)
            }
            (Side::Raw, Phase::Conditional) => {
                let row = new_event(pool(side, phase), n);
                let (applied,) = s
                    .execute_unpaged(
                        &self.raw.conditional,
                        (&row.user_id, &row.event_id, &row.body, row.score, &row.tags),
                    )
                    .await
                    .expect("conditional insert")
                    .into_rows_result()
                    .expect("rows")
                    .first_row::<(bool,)>()
                    .expect("[applied]");
                usize::from(applied)
            }
            (Side::Cassmodel, Phase::Entity) => {
                let like = like(pool(side, phase), n);
                like.save(db).await.expect("save");
                1
            }
            (Side::Raw, Phase::Entity) => {
                let l = like(pool(side, phase), n);
                s.batch(
                    &self.raw.entity,
                    (
                        (&l.user_id, &l.liked_at, &l.item_id, &l.note),
                        (&l.item_id, &l.liked_at, &l.user_id, &l.note),
                    ),
                )
                .await
                .expect("batch");
                1
            }
        }
    }

    /// The rows operation `i` of `phase` reads (1 for a write, or an indexed read, whose
    /// count the operation checks itself).
    pub fn expected(phase: Phase) -> usize {
        match phase {
            Phase::Latest => LATEST,
            Phase::Partition => EVENTS_PER_USER,
            Phase::Bucketed => RANGE_DAYS as usize * PER_DAY,
            Phase::Ann => TOP,
            _ => 1,
        }
    }
}
