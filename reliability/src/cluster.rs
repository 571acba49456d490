//! The checks that need the three-node cluster: migrations and schema agreement through
//! different coordinators, QUORUM reads and writes and LWT with a node stopped (and ALL
//! refused), the stopped node rejoining, and token-aware routing.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cassmodel::migrate::{Migrator, Models};
use cassmodel::{CassTable, CassUdt, Consistency, Db, ErrorKind, Insert, Replication};
use cassmodel_node::NodeConfig;

use crate::env::{Env, Outcome};

/// A user-defined type the schema check creates by migration.
#[derive(CassUdt, Debug, Clone, PartialEq)]
#[cass(name = "cluster_place")]
pub struct Place {
    name: String,
    floor: i32,
}

/// A table the schema check creates by migration.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "cluster_events")]
pub struct Event {
    #[partition_key]
    id: i32,
    #[clustering(desc)]
    seq: i32,
    body: String,
    place: Option<Place>,
    #[cass(index)]
    kind: String,
}

/// The table of the quorum and routing checks.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "cluster_kv")]
pub struct Kv {
    #[partition_key]
    pub(crate) key: i32,
    pub(crate) value: String,
}

/// A `Db` whose session talks to `node` only (the driver's other nodes filtered out), so
/// that `node` coordinates every request: how a check asks one node what it sees.
async fn pinned(node: &NodeConfig, keyspace: &str) -> Result<Db, String> {
    let session = cassmodel_node::pinned_session(node)
        .await
        .map_err(|e| e.to_string())?;
    Db::new(session)
        .with_keyspace(keyspace)
        .map_err(|e| e.to_string())
}

/// A pinned `Db` ([`pinned`]) for each of `nodes`, with the node's address.
pub(crate) async fn pinned_all(
    nodes: &[NodeConfig],
    keyspace: &str,
) -> Result<Vec<(String, Db)>, String> {
    let mut out = Vec::with_capacity(nodes.len());
    for node in nodes {
        out.push((node.host.to_string(), pinned(node, keyspace).await?));
    }
    Ok(out)
}

/// The rows of a hand-written statement (system tables, virtual tables, `token()`).
pub(crate) async fn rows_of(
    db: &Db,
    cql: &str,
    values: impl scylla::serialize::row::SerializeRow,
) -> Result<scylla::response::query_result::QueryRowsResult, String> {
    db.session()
        .query_unpaged(cql, values)
        .await
        .map_err(|e| format!("{cql}: {e}"))?
        .into_rows_result()
        .map_err(|e| format!("{cql}: {e}"))
}

pub(crate) fn models() -> Models {
    Models::new().udt::<Place>().table::<Event>()
}

/// Two migrators, through 127.0.0.1 and 127.0.0.2 as coordinators, apply the same models
/// to a new keyspace at the same time; then `validate` passes asked of each node alone, and
/// the three nodes report one schema version.
pub async fn schema(env: &Env) -> Result<Outcome, String> {
    let keyspace = format!("{}_schema", env.keyspace);
    let (a, b) = (&env.nodes[0], &env.nodes[1]);
    let dbs = pinned_all(&env.nodes, &keyspace).await?;
    let (db_a, db_b) = (dbs[0].1.clone(), dbs[1].1.clone());
    let started = Instant::now();
    let run = |db: Db| async move {
        Migrator::new(&db, models())
            .replication(env.replication.clone())
            .apply()
            .await
            .map_err(|e| e.to_string())
    };
    let (ra, rb) = tokio::join!(run(db_a), run(db_b));
    let applied = started.elapsed();
    let (ra, rb) = (
        ra.map_err(|e| format!("apply via {}: {e}", a.host))?,
        rb.map_err(|e| format!("apply via {}: {e}", b.host))?,
    );
    // Schema agreement: every node reports one schema version (bounded).
    let agreement = Instant::now();
    let versions = loop {
        let versions = schema_versions(&dbs).await?;
        let distinct: std::collections::BTreeSet<_> = versions.values().collect();
        if distinct.len() == 1 || agreement.elapsed() > Duration::from_secs(60) {
            break versions;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let agreed = agreement.elapsed();
    let one_version = versions
        .values()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        == 1;
    let mut invalid = Vec::new();
    let mut table_ids = BTreeMap::new();
    let mut written = 0;
    for (i, (host, db)) in dbs.iter().enumerate() {
        if let Err(e) = Migrator::new(db, models()).validate().await {
            invalid.push(format!("{host}: {e}"));
        }
        let (id,): (uuid::Uuid,) = rows_of(
            db,
            "SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?",
            (keyspace.as_str(), "cluster_events"),
        )
        .await?
        .single_row()
        .map_err(|e| e.to_string())?;
        table_ids.insert(host.clone(), id);
        // A row written through each node as coordinator, at ALL: every replica takes it.
        let event = event(i32::try_from(i).unwrap_or_default());
        Insert::new(&event)
            .with_options(|o| o.consistency = Some(Consistency::All))
            .execute(db)
            .await
            .map_err(|e| format!("write through {host}: {e}"))?;
        written += 1;
    }
    // Each node, as coordinator, reads every row at ALL.
    let mut read_back = 0;
    for (host, db) in &dbs {
        for i in 0..written {
            let back = Event::select()
                .id(&i)
                .consistency(Consistency::All)
                .fetch_first(db)
                .await
                .map_err(|e| format!("read through {host}: {e}"))?;
            if back == Some(event(i)) {
                read_back += 1;
            }
        }
    }
    let one_id = table_ids
        .values()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        == 1;
    let ok = invalid.is_empty() && one_version && one_id && read_back == written * 3;
    Ok(Outcome {
        name: "schema",
        ok,
        figures: format!(
            "2 concurrent applies via {} and {} in {applied:.1?}: {} + {} statements run, {} + {} \
             found already applied; schema agreement {agreed:.1?} later ({}); table id {}; \
             validate on each node alone: {}; {read_back} of {} rows written at ALL through each \
             node read back through each node",
            a.host,
            b.host,
            ra.applied.len(),
            rb.applied.len(),
            ra.already_applied.len(),
            rb.already_applied.len(),
            if one_version {
                "one version on 3 nodes".to_owned()
            } else {
                format!("{versions:?}")
            },
            if one_id {
                "the same on 3 nodes".to_owned()
            } else {
                format!("differs: {table_ids:?}")
            },
            if invalid.is_empty() {
                "3 of 3 pass".to_owned()
            } else {
                invalid.join("; ")
            },
            written * 3,
        ),
    })
}

fn event(id: i32) -> Event {
    Event {
        id,
        seq: 1,
        body: format!("event {id}"),
        place: Some(Place {
            name: "hall".into(),
            floor: id,
        }),
        kind: "check".into(),
    }
}

/// The `schema_version` each node reports for itself.
async fn schema_versions(dbs: &[(String, Db)]) -> Result<BTreeMap<String, uuid::Uuid>, String> {
    let mut versions = BTreeMap::new();
    for (host, db) in dbs {
        let (version,): (uuid::Uuid,) = rows_of(db, "SELECT schema_version FROM system.local", ())
            .await?
            .single_row()
            .map_err(|e| e.to_string())?;
        versions.insert(host.clone(), version);
    }
    Ok(versions)
}

pub(crate) fn kv(key: i32, round: &str) -> Kv {
    Kv {
        key,
        value: format!("{round}-{key}"),
    }
}

/// Writes `keys` (value `round-key`) at `consistency`, recording each acknowledged row in
/// `expected`; returns the failures.
pub(crate) async fn write_all(
    db: &Db,
    keys: std::ops::Range<i32>,
    round: &str,
    consistency: Consistency,
    expected: &mut BTreeMap<i32, Kv>,
) -> Vec<String> {
    let mut errors = Vec::new();
    for key in keys {
        let row = kv(key, round);
        match Insert::new(&row)
            .with_options(|o| o.consistency = Some(consistency))
            .execute(db)
            .await
        {
            Ok(()) => {
                expected.insert(key, row);
            }
            Err(e) => errors.push(format!("{:?}: {e}", e.kind())),
        }
    }
    errors
}

/// The keys of `expected` that do not read back equal at `consistency`.
pub(crate) async fn lost(
    db: &Db,
    expected: &BTreeMap<i32, Kv>,
    consistency: Consistency,
) -> Result<usize, String> {
    let mut lost = 0;
    for (key, row) in expected {
        let back = Kv::select()
            .key(key)
            .consistency(consistency)
            .fetch_first(db)
            .await
            .map_err(|e| format!("read of {key} at {consistency:?}: {e}"))?;
        if back.as_ref() != Some(row) {
            lost += 1;
        }
    }
    Ok(lost)
}

/// Starts `down`, nodes of the cluster that were stopped, and waits until every node sees
/// every other (at most 120 s).
pub(crate) async fn start_again(env: &Env, down: &[&NodeConfig]) -> Result<(), String> {
    for node in down {
        cassmodel_node::ensure_running(node)
            .await
            .map_err(|e| format!("restarting {}: {e}", node.host))?;
    }
    cassmodel_node::wait_joined(&env.nodes, Duration::from_secs(120))
        .await
        .map_err(|e| e.to_string())
}

/// The nodes of `env` found not running (a check that failed midway may leave the node it
/// stopped down), each started again: their hosts, or why one did not start. Every check
/// begins with every node up.
pub(crate) async fn restart_down(env: &Env) -> Result<Vec<String>, String> {
    let mut restarted = Vec::new();
    for node in &env.nodes {
        if cassmodel_node::running_pid(node).is_none() {
            start_again(env, &[node]).await?;
            restarted.push(node.host.to_string());
        }
    }
    Ok(restarted)
}

/// Writes and reads at QUORUM with all nodes up, with 127.0.0.3 stopped (SIGTERM, by its
/// pid) and after it is started again, all through one `Db`: every acknowledged write reads
/// back at QUORUM and, at the end, at ALL; an LWT applies with the node down; ALL is refused
/// as `Unavailable` while it is down; the restarted node coordinates requests of the same
/// `Db` again.
pub async fn quorum(env: &Env) -> Result<Outcome, String> {
    const N: i32 = 300;
    let db = crate::checks::connect(env, None).await?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let down = &env.nodes[2];
    let mut expected = BTreeMap::new();
    let mut errors = write_all(&db, 0..N, "up", Consistency::Quorum, &mut expected).await;

    let stopped_pid = cassmodel_node::running_pid(down).ok_or("node 3 is not running")?;
    let stop_started = Instant::now();
    cassmodel_node::stop(down)
        .await
        .map_err(|e| format!("stopping {}: {e}", down.host))?;
    let stop_took = stop_started.elapsed();
    // With the node down: writes at QUORUM (2 of 3), then every key read at QUORUM.
    let down_errors = write_all(&db, N..2 * N, "down", Consistency::Quorum, &mut expected).await;
    let lost_down = lost(&db, &expected, Consistency::Quorum).await?;
    // A lightweight transaction needs a quorum of replicas for Paxos: 2 of 3 will do.
    let lwt_row = kv(-1, "lwt");
    let lwt_first = Insert::new(&lwt_row)
        .if_not_exists()
        .execute(&db)
        .await
        .map_err(|e| format!("LWT with a node down: {e}"))?;
    let lwt_again = Insert::new(&kv(-1, "other"))
        .if_not_exists()
        .execute(&db)
        .await
        .map_err(|e| format!("second LWT with a node down: {e}"))?;
    let lwt_ok =
        lwt_first.applied && !lwt_again.applied && lwt_again.current.as_ref() == Some(&lwt_row);
    expected.insert(-1, lwt_row);
    // ALL cannot be met: the coordinator refuses before trying.
    let all_kind = match Kv::select()
        .key(&0)
        .consistency(Consistency::All)
        .fetch_first(&db)
        .await
    {
        Ok(_) => None,
        Err(e) => Some(e.kind()),
    };

    // Started again: it rejoins, and the same `Db` sends it requests again.
    let restart = Instant::now();
    start_again(env, &[down]).await?;
    let rejoined = restart.elapsed();
    let used_again = coordinates_again(&db, down, Duration::from_secs(60)).await?;
    errors.extend(
        write_all(
            &db,
            2 * N..3 * N,
            "after",
            Consistency::Quorum,
            &mut expected,
        )
        .await,
    );
    let lost_all = lost(&db, &expected, Consistency::All).await?;

    let ok = errors.is_empty()
        && down_errors.is_empty()
        && lost_down == 0
        && lwt_ok
        && all_kind == Some(ErrorKind::Unavailable)
        && used_again.is_some()
        && lost_all == 0;
    Ok(Outcome {
        name: "quorum",
        ok,
        figures: format!(
            "{} stopped (pid {stopped_pid}, SIGTERM, {stop_took:.1?}): {N} writes at QUORUM with \
             it down, {} failed{}; {lost_down} of {} keys lost at QUORUM; LWT applied once and \
             refused once with the current row: {lwt_ok}; ALL: {}; restarted and joined in \
             {rejoined:.1?}, coordinating requests of the same Db again after {}; {} writes with \
             all up failed; {lost_all} of {} keys lost at ALL after the restart",
            down.host,
            down_errors.len(),
            down_errors
                .first()
                .map_or(String::new(), |e| format!(" (first: {e})")),
            2 * N,
            all_kind.map_or("accepted (wrong)".to_owned(), |k| format!("{k:?}")),
            used_again.map_or("never (wrong)".to_owned(), |d| format!("{d:.1?}")),
            errors.len(),
            3 * N + 1,
        ),
    })
}

/// How many requests the node of `db` (a [`pinned`] `Db`) has coordinated for
/// `keyspace.cluster_kv`, from its own metrics (`system_views.coordinator_write_latency` or
/// `..._read_latency`).
pub(crate) async fn coordinated(db: &Db, keyspace: &str, view: &str) -> Result<i64, String> {
    let cql =
        format!("SELECT count FROM system_views.{view} WHERE keyspace_name = ? AND table_name = ?");
    Ok(rows_of(db, &cql, (keyspace, "cluster_kv"))
        .await?
        .maybe_first_row::<(i64,)>()
        .map_err(|e| e.to_string())?
        .map_or(0, |(n,)| n))
}

/// The time until `node` (restarted) has coordinated a read of `db`, reads being sent all
/// the while (bounded by `timeout`); `None` if it never did.
async fn coordinates_again(
    db: &Db,
    node: &NodeConfig,
    timeout: Duration,
) -> Result<Option<Duration>, String> {
    let keyspace = db.keyspace().ok_or("no keyspace")?.to_owned();
    let view = "coordinator_read_latency";
    let own = pinned(node, &keyspace).await?;
    let before = coordinated(&own, &keyspace, view).await?;
    let start = Instant::now();
    while start.elapsed() < timeout {
        for key in 0..30 {
            // Errors count as not coordinated yet; the end check catches lost writes.
            let _ = Kv::select().key(&key).fetch_first(db).await;
        }
        if coordinated(&own, &keyspace, view).await? > before {
            return Ok(Some(start.elapsed()));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(None)
}

/// Token-aware routing: in a keyspace with one replica per key, the node that owns each
/// key's token (computed from the nodes' tokens, not asked of the driver) coordinates its
/// write. Each node's own count of coordinated writes must equal the keys it owns; a driver
/// choosing coordinators without the token would send each node about a third of them.
pub async fn routing(env: &Env) -> Result<Outcome, String> {
    const N: i32 = 300;
    let keyspace = format!("{}_rf1", env.keyspace);
    let admin = crate::checks::connect(env, None).await?;
    // One replica, in the first node's data centre: its nodes own the keys.
    let dc = env.nodes[0].datacenter_name();
    let owners: Vec<NodeConfig> = env
        .nodes
        .iter()
        .filter(|n| n.datacenter_name() == dc)
        .cloned()
        .collect();
    admin
        .create_keyspace(&keyspace, &Replication::network_topology([(dc, 1)]))
        .await
        .map_err(|e| e.to_string())?;
    let db = admin.with_keyspace(&keyspace).map_err(|e| e.to_string())?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let dbs = pinned_all(&env.nodes, &keyspace).await?;
    let before = coordinator_writes(&dbs, &keyspace).await?;
    for key in 0..N {
        db.insert(&kv(key, "routed"))
            .await
            .map_err(|e| format!("insert {key}: {e}"))?;
    }
    let after = coordinator_writes(&dbs, &keyspace).await?;
    // Each key's token as the server computes it (one scan, after the writes were counted).
    let mut owned: BTreeMap<String, i64> = BTreeMap::new();
    let tokens = rows_of(
        &db,
        &format!("SELECT token(key) FROM {keyspace}.cluster_kv"),
        (),
    )
    .await?;
    for t in tokens.rows::<(i64,)>().map_err(|e| e.to_string())? {
        let (token,) = t.map_err(|e| e.to_string())?;
        *owned.entry(owner(&owners, token)).or_default() += 1;
    }
    let counted: BTreeMap<String, i64> = after
        .iter()
        .map(|(h, n)| (h.clone(), n - before.get(h).copied().unwrap_or(0)))
        .collect();
    let matched: i64 = owned
        .iter()
        .map(|(h, n)| (*n).min(counted.get(h).copied().unwrap_or(0)))
        .sum();
    // A node of another data centre owns no key and coordinates no write.
    let owned_all: BTreeMap<String, i64> = env
        .nodes
        .iter()
        .map(|n| {
            let host = n.host.to_string();
            let keys = owned.get(&host).copied().unwrap_or(0);
            (host, keys)
        })
        .collect();
    let ok = counted == owned_all && owned.values().all(|&n| n > 0);
    let _ = admin
        .execute_ddl(&format!("DROP KEYSPACE IF EXISTS {keyspace}"))
        .await;
    Ok(Outcome {
        name: "routing",
        ok,
        figures: format!(
            "{N} inserts, 1 replica per key (in {dc}): writes coordinated per node {counted:?}, \
             keys owned per node {owned_all:?}; {matched} of {N} coordinated by their replica (by \
             chance: one in {})",
            owners.len()
        ),
    })
}

/// Each node's count of writes it coordinated for `keyspace.cluster_kv`.
async fn coordinator_writes(
    dbs: &[(String, Db)],
    keyspace: &str,
) -> Result<BTreeMap<String, i64>, String> {
    let mut out = BTreeMap::new();
    for (host, db) in dbs {
        let n = coordinated(db, keyspace, "coordinator_write_latency").await?;
        out.insert(host.clone(), n);
    }
    Ok(out)
}

/// The node owning `token` with one replica: the first node whose token is at or after it,
/// around the ring.
fn owner(nodes: &[NodeConfig], token: i64) -> String {
    let mut by_token: Vec<&NodeConfig> = nodes.iter().collect();
    by_token.sort_by_key(|n| n.initial_token);
    by_token
        .iter()
        .find(|n| n.initial_token >= token)
        .or_else(|| by_token.first())
        .map_or_else(String::new, |n| n.host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_the_next_node_around_the_ring() {
        let nodes = cassmodel_node::cluster_nodes(&NodeConfig::from_env());
        let t: Vec<i64> = nodes.iter().map(|n| n.initial_token).collect();
        assert_eq!(owner(&nodes, t[0]), "127.0.0.1");
        assert_eq!(owner(&nodes, t[0] + 1), "127.0.0.2");
        assert_eq!(owner(&nodes, t[1]), "127.0.0.2");
        assert_eq!(owner(&nodes, t[2]), "127.0.0.3");
        assert_eq!(owner(&nodes, t[2] + 1), "127.0.0.1");
        assert_eq!(owner(&nodes, i64::MAX), "127.0.0.1");
    }
}
