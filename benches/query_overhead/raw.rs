//! The raw side: every phase written on the scylla driver as its documentation shows, each
//! statement prepared once, run with `execute_unpaged` (a read with a limit, a write) or
//! `execute_iter` + `rows_stream` (a read of unknown size), rows read into
//! `#[derive(DeserializeRow)]` structs with the default attributes (columns matched by name),
//! a logged batch for the two tables of an entity.
//!
//! Only `scylla`, `futures`, `uuid`, `chrono` and `keys.rs`: the charybdis peer includes this
//! file and runs the same raw code in its own process, so that each mapper is compared with
//! the raw driver in the process it runs in.

use chrono::{DateTime, Duration as Days, Utc};
use futures::TryStreamExt;
use scylla::DeserializeRow;
use scylla::client::session::Session;
use scylla::deserialize::row::DeserializeRow as DeserializeRowTrait;
use scylla::errors::NextRowError;
use scylla::serialize::row::SerializeRow;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::prepared::PreparedStatement;
use scylla::value::CqlTimeuuid;
use uuid::Uuid;

use crate::keys::*;

/// A row of `events`.
#[derive(DeserializeRow, Debug, Clone, PartialEq)]
pub struct RawEvent {
    pub user_id: Uuid,
    pub event_id: CqlTimeuuid,
    pub body: String,
    pub score: i32,
    pub tags: Vec<String>,
}

/// A row of `events_by_day`.
#[derive(DeserializeRow, Debug, Clone, PartialEq)]
pub struct RawDayEvent {
    pub user_id: Uuid,
    pub at: DateTime<Utc>,
    pub body: String,
    pub score: i32,
}

/// A row of `docs`.
#[derive(DeserializeRow, Debug, Clone, PartialEq)]
pub struct RawDoc {
    pub id: i32,
    pub title: String,
    pub embedding: Vec<f32>,
}

/// The statements, prepared once.
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

/// The rows of a statement of unknown result size, as the driver's docs read them:
/// `execute_iter`, `rows_stream`.
pub async fn rows<R>(
    s: &Session,
    ps: &PreparedStatement,
    values: impl SerializeRow,
) -> impl futures::Stream<Item = Result<R, NextRowError>>
where
    R: for<'f, 'm> DeserializeRowTrait<'f, 'm> + Send + 'static,
{
    s.execute_iter(ps.clone(), values)
        .await
        .expect("execute_iter")
        .rows_stream::<R>()
        .expect("rows_stream")
}

/// Every row of [`rows`], collected.
pub async fn all<R>(s: &Session, ps: &PreparedStatement, values: impl SerializeRow) -> Vec<R>
where
    R: for<'f, 'm> DeserializeRowTrait<'f, 'm> + Send + 'static,
{
    rows(s, ps, values).await.try_collect().await.expect("rows")
}

/// Every row of a statement with a limit: one `execute_unpaged`, its rows collected.
pub async fn unpaged<R>(s: &Session, ps: &PreparedStatement, values: impl SerializeRow) -> Vec<R>
where
    R: for<'f, 'm> DeserializeRowTrait<'f, 'm>,
{
    s.execute_unpaged(ps, values)
        .await
        .expect("execute")
        .into_rows_result()
        .expect("rows")
        .rows::<R>()
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows")
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

    pub async fn prepare(s: &Session, ks: &str) -> Raw {
        let mut ps = Vec::new();
        for cql in Raw::cql(ks) {
            ps.push(s.prepare(cql).await.expect("prepare"));
        }
        let mut ps = ps.into_iter();
        let mut next = || ps.next().expect("ten statements");
        let (insert, mut point, mut latest, mut partition, mut bucket) =
            (next(), next(), next(), next(), next());
        let (mut indexed, mut ann, conditional) = (next(), next(), next());
        // `QUERY_OVERHEAD_RAW_CACHED_METADATA=1`: the reads as a user who opts in to the
        // driver's `set_use_cached_result_metadata` writes them (off by default, as in the
        // driver's docs): results without their column descriptions, as cassmodel's reads are.
        if std::env::var("QUERY_OVERHEAD_RAW_CACHED_METADATA").is_ok_and(|v| v == "1") {
            for st in [
                &mut point,
                &mut latest,
                &mut partition,
                &mut bucket,
                &mut indexed,
                &mut ann,
            ] {
                st.set_use_cached_result_metadata(true);
            }
        }
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

    /// The bucketed range read from `from` for three days: one query per day bucket, newest
    /// day first, merged.
    pub async fn bucketed(&self, s: &Session, u: Uuid, from: DateTime<Utc>) -> Vec<RawDayEvent> {
        let to = from + Days::days(RANGE_DAYS);
        let mut out = Vec::new();
        for d in (0..RANGE_DAYS).rev() {
            let day = (from + Days::days(d)).date_naive();
            let part = rows(s, &self.bucket, (u, day, from, to)).await;
            futures::pin_mut!(part);
            while let Some(r) = part.try_next().await.expect("row") {
                out.push(r);
            }
        }
        out
    }

    /// Operation `i` of `phase` in a run seeded `seed` (its random keys); a write's fresh key
    /// is row `n` of key pool `pool`; an ANN read's vector is one of `queries`. Returns the
    /// rows read (1 for a write that applied). The reads of `events` read their rows into `E`:
    /// [`RawEvent`] in the bench's process; the charybdis peer passes its own model, a
    /// `#[derive(DeserializeRow)]` struct of the same columns, so that its two sides run one
    /// copy of the rows' deserialisation (two copies of the same derive cost up to 15% apart
    /// at 64 in flight, by where the linker puts them: BENCHMARKS.md).
    #[allow(clippy::too_many_arguments)]
    pub async fn op<E>(
        &self,
        s: &Session,
        phase: Phase,
        seed: u64,
        i: usize,
        pool: u64,
        n: usize,
        queries: &[Vec<f32>],
    ) -> usize
    where
        E: for<'f, 'm> DeserializeRowTrait<'f, 'm> + Send + 'static,
    {
        match phase {
            Phase::Insert => {
                let (user_id, event_id, body, score, tags) = new_row(pool, n);
                let event_id = CqlTimeuuid::from(event_id);
                s.execute_unpaged(&self.insert, (&user_id, &event_id, &body, score, &tags))
                    .await
                    .expect("insert");
                1
            }
            Phase::Point => {
                let (u, e) = point_key(seed, i);
                let row = s
                    .execute_unpaged(&self.point, (u, CqlTimeuuid::from(e)))
                    .await
                    .expect("execute")
                    .into_rows_result()
                    .expect("rows")
                    .maybe_first_row::<E>()
                    .expect("row");
                usize::from(std::hint::black_box(row).is_some())
            }
            Phase::Latest => {
                let u = user(pick(seed, i, USERS));
                let rows: Vec<E> = unpaged(s, &self.latest, (u, LATEST as i32)).await;
                std::hint::black_box(rows).len()
            }
            Phase::Partition => {
                let u = user(pick(seed, i, USERS));
                let rows: Vec<E> = all(s, &self.partition, (u,)).await;
                std::hint::black_box(rows).len()
            }
            Phase::Bucketed => {
                let (u, from) = range(seed, i);
                std::hint::black_box(self.bucketed(s, u, from).await).len()
            }
            Phase::Indexed => {
                let rows: Vec<E> = all(s, &self.indexed, (score_of(seed, i),)).await;
                std::hint::black_box(rows).len()
            }
            Phase::Ann => {
                let q = &queries[pick(seed, i, queries.len())];
                let rows: Vec<RawDoc> = unpaged(s, &self.ann, (q, TOP as i32)).await;
                std::hint::black_box(rows).len()
            }
            Phase::Conditional => {
                let (user_id, event_id, body, score, tags) = new_row(pool, n);
                let event_id = CqlTimeuuid::from(event_id);
                let (applied,) = s
                    .execute_unpaged(
                        &self.conditional,
                        (&user_id, &event_id, &body, score, &tags),
                    )
                    .await
                    .expect("conditional insert")
                    .into_rows_result()
                    .expect("rows")
                    .first_row::<(bool,)>()
                    .expect("[applied]");
                usize::from(applied)
            }
            Phase::Entity => {
                let (user_id, item_id, liked_at, note) = new_like(pool, n);
                s.batch(
                    &self.entity,
                    (
                        (&user_id, &liked_at, &item_id, &note),
                        (&item_id, &liked_at, &user_id, &note),
                    ),
                )
                .await
                .expect("batch");
                1
            }
        }
    }
}
