//! `entities`: the drift repair of an entity's tables by worker processes killed with SIGKILL.
//! Videos are saved (by id, and once per tag), then drift is made with plain CQL: by-tag rows
//! deleted, rows under tags a video does not have, rows of videos that do not exist, titles
//! changed in the identity table (the latest write: the repair copies it to the by-tag rows).
//! Worker processes (this binary, `chaos entity-worker`) run the repair
//! (`check_entity` with `repair` and `delete_extra`), sharing its ranges through the record;
//! one is killed with SIGKILL (by the pid of the process this check started) at each of 1/8,
//! 1/3 and 1/2 of the identity table's ranges, and another started; on the cluster, node 3 is
//! also killed at the first kill and started again after the repair. At the end: a new check
//! is clean, and both tables, read with plain CQL, hold exactly the rows the videos give.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use cassmodel::migrate::drift::{DriftOptions, check_entity};
use cassmodel::{CassEntity, CassTable, Db};
use futures::{StreamExt, TryStreamExt};
use uuid::Uuid;

use crate::copy::{copy_with_kills, node_back, worker_db};
use crate::env::{Env, Outcome};

/// A video: stored by id (its identity) and once per tag.
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(ChaosVideoById, ChaosVideosByTag), identity = ChaosVideoById)]
pub struct ChaosVideo {
    video_id: Uuid,
    title: String,
    tags: BTreeSet<String>,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = ChaosVideo)]
pub struct ChaosVideoById {
    #[partition_key]
    video_id: Uuid,
    title: String,
    tags: BTreeSet<String>,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = ChaosVideo)]
pub struct ChaosVideosByTag {
    #[partition_key]
    #[cass(each = tags)]
    tag: String,
    #[clustering]
    video_id: Uuid,
    title: String,
}

const RANGES: u32 = 64;

/// Videos on `nodes` nodes: the repair lasts long enough to be killed at set points (every
/// row is written and read on three replicas of the same two cores on the cluster).
fn videos(nodes: usize) -> usize {
    if nodes > 1 { 4_000 } else { 20_000 }
}

fn video(i: usize) -> ChaosVideo {
    let tags = (0..1 + i % 3).map(|k| format!("tag{}", (i * 7 + k * 13) % 50));
    ChaosVideo {
        video_id: Uuid::from_u128(0x5eed_0000_0000 + i as u128),
        title: format!("video {i}"),
        tags: tags.collect(),
    }
}

/// `chaos entity-worker KEYSPACE CONTACT_POINTS`: one repair worker process.
pub async fn worker(args: &[String]) -> Result<(), String> {
    let db = worker_db(args).await?;
    let mut options = DriftOptions::new().repair().delete_extra();
    options.ranges = RANGES;
    let report = check_entity::<ChaosVideo>(&db, &options)
        .await
        .map_err(|e| e.to_string())?;
    let found: Vec<String> = report
        .tables
        .iter()
        .map(|t| format!("{}/{}/{}", t.missing, t.extra, t.different))
        .collect();
    println!("{}", found.join(" "));
    Ok(())
}

/// Runs `cql` (with `KS.` for the keyspace) and `values` as another program would.
async fn plain_cql(
    db: &Db,
    ks: &str,
    cql: &str,
    values: impl cassmodel::scylla::serialize::row::SerializeRow,
) -> Result<(), String> {
    let cql = cql.replace("KS.", &format!("{ks}."));
    db.session()
        .query_unpaged(cql, values)
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Makes the drift, and changes `all` to the videos as the repair should leave them: how
/// many rows of each kind were deleted, made stale, renamed, and made of no video.
async fn drift(db: &Db, ks: &str, all: &mut [ChaosVideo]) -> Result<[usize; 4], String> {
    let mut made = [0; 4];
    for (i, v) in all.iter_mut().enumerate() {
        let id = v.video_id;
        if i % 97 == 0 {
            let tag = v.tags.iter().next().cloned().unwrap_or_default();
            let cql = "DELETE FROM KS.chaos_videos_by_tag WHERE tag = ? AND video_id = ?";
            plain_cql(db, ks, cql, (tag, id)).await?;
            made[0] += 1;
        }
        if i % 89 == 1 {
            let cql = "INSERT INTO KS.chaos_videos_by_tag (tag, video_id, title) VALUES (?, ?, ?)";
            plain_cql(db, ks, cql, (format!("stale{i}"), id, &v.title)).await?;
            made[1] += 1;
        }
        if i % 83 == 2 {
            v.title = format!("renamed {i}");
            let cql = "UPDATE KS.chaos_video_by_id SET title = ? WHERE video_id = ?";
            plain_cql(db, ks, cql, (&v.title, id)).await?;
            made[2] += 1;
        }
    }
    for i in 0..20u128 {
        let cql =
            "INSERT INTO KS.chaos_videos_by_tag (tag, video_id, title) VALUES ('tag1', ?, 'none')";
        plain_cql(db, ks, cql, (Uuid::from_u128(0xdead_0000 + i),)).await?;
        made[3] += 1;
    }
    Ok(made)
}

type Tables = (
    BTreeMap<Uuid, (String, BTreeSet<String>)>,
    BTreeMap<(String, Uuid), String>,
);

/// Both tables, read with plain CQL.
async fn read_back(db: &Db, ks: &str) -> Result<Tables, String> {
    let mut by_id = BTreeMap::new();
    let mut rows = db
        .session()
        .query_iter(
            format!("SELECT video_id, title, tags FROM {ks}.chaos_video_by_id"),
            &[],
        )
        .await
        .map_err(|e| e.to_string())?
        .rows_stream::<(Uuid, String, Option<BTreeSet<String>>)>()
        .map_err(|e| e.to_string())?;
    while let Some((id, title, tags)) = rows.try_next().await.map_err(|e| e.to_string())? {
        by_id.insert(id, (title, tags.unwrap_or_default()));
    }
    let mut by_tag = BTreeMap::new();
    let mut rows = db
        .session()
        .query_iter(
            format!("SELECT tag, video_id, title FROM {ks}.chaos_videos_by_tag"),
            &[],
        )
        .await
        .map_err(|e| e.to_string())?
        .rows_stream::<(String, Uuid, String)>()
        .map_err(|e| e.to_string())?;
    while let Some((tag, id, title)) = rows.try_next().await.map_err(|e| e.to_string())? {
        by_tag.insert((tag, id), title);
    }
    Ok((by_id, by_tag))
}

/// What both tables hold for `all`.
fn expected(all: &[ChaosVideo]) -> Tables {
    let by_id = all
        .iter()
        .map(|v| (v.video_id, (v.title.clone(), v.tags.clone())))
        .collect();
    let by_tag = all
        .iter()
        .flat_map(|v| {
            v.tags
                .iter()
                .map(|t| ((t.clone(), v.video_id), v.title.clone()))
        })
        .collect();
    (by_id, by_tag)
}

pub async fn check(env: &Env) -> Result<Outcome, String> {
    let db = crate::checks::connect(env, Some(Duration::from_secs(20))).await?;
    let ks = env.keyspace.clone();
    db.create_table::<ChaosVideoById>()
        .await
        .map_err(|e| e.to_string())?;
    db.create_table::<ChaosVideosByTag>()
        .await
        .map_err(|e| e.to_string())?;
    let mut all: Vec<ChaosVideo> = (0..videos(env.nodes.len())).map(video).collect();
    let loading = Instant::now();
    futures::stream::iter(&all)
        .map(|v| {
            let db = &db;
            async move { v.save(db).await }
        })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .map_err(|e| format!("loading: {e}"))?;
    let made = drift(&db, &ks, &mut all).await?;
    let load_took = loading.elapsed();

    let started = Instant::now();
    let first = format!("drift:repair+delete:{ks}.chaos_video_by_id>{ks}.chaos_video_by_id");
    let run = copy_with_kills(env, &db, &first, "entity-worker", RANGES, 1).await?;
    let repair_took = started.elapsed();
    let restarted = node_back(env, &run.node_stopped).await?;
    if let Some(Err(e)) = run.ended.iter().find(|e| e.is_err()) {
        return Err(format!("a worker failed: {e}"));
    }
    let checking = Instant::now();
    let after = check_entity::<ChaosVideo>(&db, &DriftOptions::new())
        .await
        .map_err(|e| e.to_string())?;
    let same = read_back(&db, &ks).await? == expected(&all);
    let check_took = checking.elapsed();
    Ok(Outcome {
        name: "entities",
        ok: after.is_clean() && same,
        figures: format!(
            "{} videos in 2 tables; drift made with plain CQL: {} by-tag rows deleted, {} rows \
             under tags not the video's, {} titles changed in the identity table, {} rows of no \
             video; repaired in {RANGES} ranges by worker processes killed with SIGKILL (pid at \
             identity ranges done): {}{}; the workers left reported (missing/extra/different \
             per table): {}; repair {repair_took:.1?}; a new check clean: {} ({} entities); \
             both tables = the videos: {same}; load {load_took:.0?}, check and reads \
             {check_took:.0?}",
            all.len(),
            made[0],
            made[1],
            made[2],
            made[3],
            run.kills.join(", "),
            run.node_stopped
                .as_ref()
                .map_or(String::new(), |(n, pid, at)| format!(
                    "; {} (pid {pid}) killed with SIGKILL at {at} ranges and started again after \
                     the repair (rejoined: {restarted})",
                    n.host
                )),
            run.ended
                .iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            after.is_clean(),
            after.entities,
        ),
    })
}
