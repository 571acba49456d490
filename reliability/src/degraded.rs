//! What a user is told when the cluster is degraded, and where requests go with a local data
//! centre (issue 36):
//!
//! - `unavailable` (one data centre): two of three nodes killed by pid; once the coordinator
//!   has marked them down, a QUORUM insert, a paged QUORUM read, a SERIAL lightweight
//!   transaction and a QUORUM batch each fail as `ErrorKind::Unavailable` in well under a
//!   second, the message naming the consistency, the replicas required and alive and every
//!   node; ONE works; after the restart every acknowledged write reads back at ALL.
//! - `datacenters` (two data centres): a local data centre no node is in is refused by
//!   `connect` and by the `cassmodel` command in under a second, naming the data centres (the right one, in another case,
//!   suggested); with `local_dc = dc1`, every request is coordinated by a node of dc1 (each
//!   node's own count of coordinated requests).
//! - `dc-down` (two data centres): dc2's node stopped: LOCAL_QUORUM writes and reads through
//!   dc1 keep working, EACH_QUORUM fails as `Unavailable` naming dc2, a migration applies to a
//!   keyspace with replicas in both; dc2 back: `validate` passes asked of its node, and every
//!   acknowledged write reads back at ALL.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cassmodel::migrate::Migrator;
use cassmodel::{
    Batch, Consistency, Db, Error, ErrorKind, Insert, Replication, Result as CmResult,
    SerialConsistency,
};
use cassmodel_node::{NodeConfig, Signal};

use crate::cluster::{Kv, coordinated, kv, lost, models, pinned_all, start_again, write_all};
use crate::env::{Env, Outcome};

/// How long a check waits for the coordinator to mark killed nodes down.
const MARK_DOWN_LIMIT: Duration = Duration::from_secs(90);

/// A `Db` on every node of `env` with `consistency` (and `local_dc`, if given).
async fn connect(
    env: &Env,
    consistency: Consistency,
    local_dc: Option<&str>,
) -> Result<Db, String> {
    let mut o = crate::checks::options(env)
        .consistency(consistency)
        .serial_consistency(Some(SerialConsistency::Serial));
    if let Some(dc) = local_dc {
        o = o.local_dc(dc);
    }
    o.connect().await.map_err(|e| e.to_string())
}

/// What one request under test gave: its name, how long it took, and its result.
struct Tried {
    what: &'static str,
    took: Duration,
    result: CmResult<()>,
}

async fn tried(what: &'static str, f: impl std::future::Future<Output = CmResult<()>>) -> Tried {
    let start = Instant::now();
    let result = f.await;
    Tried {
        what,
        took: start.elapsed(),
        result,
    }
}

/// Why `t` is not an `Unavailable` answered in under a second whose message has every one of
/// `parts`; `None` when it is.
fn not_unavailable(t: &Tried, parts: &[&str]) -> Option<String> {
    let e = match &t.result {
        Ok(()) => return Some(format!("{}: succeeded", t.what)),
        Err(e) => e,
    };
    let text = e.to_string();
    let missing: Vec<&&str> = parts.iter().filter(|p| !text.contains(**p)).collect();
    if e.kind() != ErrorKind::Unavailable || t.took >= Duration::from_secs(1) || !missing.is_empty()
    {
        return Some(format!(
            "{}: {:?} in {:.0?}, missing {missing:?}: {text}",
            t.what,
            e.kind(),
            t.took
        ));
    }
    None
}

/// Reads key 0 at `consistency` (a client timeout of 8 s, past the server's 5 s) until the
/// coordinator answers `Unavailable` (at most [`MARK_DOWN_LIMIT`]): it has marked the killed
/// nodes down. Returns how long that took and the kinds of the answers before (with the
/// first one's message).
async fn await_marked_down(
    db: &Db,
    consistency: Consistency,
) -> Result<(Duration, Vec<ErrorKind>, Option<String>), String> {
    let start = Instant::now();
    let mut before = Vec::new();
    let mut first = None;
    while start.elapsed() < MARK_DOWN_LIMIT {
        let read = Kv::select()
            .key(&0)
            .consistency(consistency)
            // Well above the server's own read timeout (5 s): its ReadTimeout, which names
            // what was received and required, must answer first even on a loaded machine
            // (with 8 s, the client's timeout came first once, at load 10).
            .timeout(Duration::from_secs(20))
            .fetch_first(db)
            .await;
        match read {
            Err(e) if e.kind() == ErrorKind::Unavailable => {
                return Ok((start.elapsed(), before, first));
            }
            Err(e) => {
                first.get_or_insert_with(|| e.to_string());
                before.push(e.kind());
            }
            Ok(_) => before.push(ErrorKind::Other),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    Err(format!(
        "the coordinator did not answer Unavailable within {MARK_DOWN_LIMIT:?}; answers: \
         {before:?}, the first: {}",
        first.unwrap_or_default()
    ))
}

/// Two of three nodes killed (SIGKILL, by pid): once the coordinator has marked them down,
/// QUORUM and SERIAL requests fail as `Unavailable`, fast, naming every node; ONE works; no
/// acknowledged write is lost.
pub async fn unavailable(env: &Env) -> Result<Outcome, String> {
    const N: i32 = 100;
    let db = connect(env, Consistency::Quorum, None).await?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let mut expected = BTreeMap::new();
    let mut errors = write_all(&db, 0..N, "up", Consistency::Quorum, &mut expected).await;
    let (n2, n3) = (&env.nodes[1], &env.nodes[2]);
    let mut pids = Vec::new();
    for n in [n2, n3] {
        pids.push(cassmodel_node::signal(n, Signal::Kill).map_err(|e| e.to_string())?);
    }
    let outcome = async {
        let (marked, before, first) = await_marked_down(&db, Consistency::Quorum).await?;
        // Before the nodes were marked down: timeouts naming what was received and required,
        // in cassmodel's words however many nodes were tried ("read timeout at QUORUM: 1 of 2
        // replica answers in time"), never in the driver's ("Not enough nodes responded").
        let timeouts_told = first.as_deref().is_none_or(|m| {
            m.contains("read timeout at QUORUM: ") && m.contains(" of 2 replica answers in time")
        });
        let before_ok = before.iter().all(|k| *k == ErrorKind::Timeout) && timeouts_told;
        // What the first answer said, when it is why the check fails.
        let first_told = if timeouts_told {
            String::new()
        } else {
            format!(
                " (WRONG: the first timeout does not name what was received and required: {})",
                first.as_deref().unwrap_or_default()
            )
        };
        let row = kv(N, "down");
        let lwt = kv(N + 1, "lwt");
        let (batch_a, batch_b) = (kv(N + 2, "batch"), kv(N + 3, "batch"));
        let ops = [
            tried("QUORUM insert", db.insert(&row)).await,
            tried("paged QUORUM read", async {
                Kv::select()
                    .key(&0)
                    .page_size(10)
                    .fetch_all(&db)
                    .await
                    .map(drop)
            })
            .await,
            tried("SERIAL lightweight transaction", async {
                Insert::new(&lwt)
                    .if_not_exists()
                    .execute(&db)
                    .await
                    .map(drop)
            })
            .await,
            tried("logged QUORUM batch", async {
                let batch = Batch::logged().insert(&batch_a).insert(&batch_b);
                batch.execute(&db).await.map(drop)
            })
            .await,
            tried("unlogged QUORUM batch", async {
                let batch = Batch::unlogged().insert(&batch_a).insert(&batch_b);
                batch.execute(&db).await.map(drop)
            })
            .await,
        ];
        let every_node = ["127.0.0.1:9042", "127.0.0.2:9042", "127.0.0.3:9042"];
        let mut wrong = Vec::new();
        for t in &ops {
            // What the coordinator answers: a logged batch first writes its batch log on two
            // other live nodes of the data centre, and there are none.
            let level = match t.what {
                "SERIAL lightweight transaction" => "SERIAL needs 2 replicas alive, 1 is",
                "logged QUORUM batch" => {
                    "TWO needs 2 replicas alive, 0 are (Cannot achieve \
                                          consistency level TWO for batchlog"
                }
                _ => "QUORUM needs 2 replicas alive, 1 is",
            };
            let mut parts = vec!["Unavailable: ", level];
            parts.extend(every_node);
            wrong.extend(not_unavailable(t, &parts));
        }
        // ONE: the node that is up is enough.
        let one_row = kv(N + 4, "one");
        let one = Insert::new(&one_row)
            .with_options(|o| o.consistency = Some(Consistency::One))
            .execute(&db)
            .await;
        let one_read = Kv::select()
            .key(&(N + 4))
            .consistency(Consistency::One)
            .fetch_first(&db)
            .await;
        let one_ok = one.is_ok() && matches!(&one_read, Ok(Some(r)) if *r == one_row);
        if one.is_ok() {
            expected.insert(N + 4, one_row);
        }
        let sample = ops
            .first()
            .and_then(|t| t.result.as_ref().err())
            .map(Error::to_string)
            .unwrap_or_default();
        Ok::<_, String>((
            marked, before, before_ok, first_told, ops, wrong, one_ok, sample,
        ))
    }
    .await;
    // Whatever happened, the nodes come back.
    let restart = Instant::now();
    start_again(env, &[n2, n3]).await?;
    let rejoined = restart.elapsed();
    let (marked, before, before_ok, first_told, ops, wrong, one_ok, sample) = outcome?;
    errors.extend(
        write_all(
            &db,
            N + 10..N + 20,
            "after",
            Consistency::Quorum,
            &mut expected,
        )
        .await,
    );
    let lost_all = lost(&db, &expected, Consistency::All).await?;
    let ok = errors.is_empty() && before_ok && wrong.is_empty() && one_ok && lost_all == 0;
    let times: Vec<String> = ops
        .iter()
        .map(|t| {
            let kind = t
                .result
                .as_ref()
                .map_or_else(|e| format!("{:?}", e.kind()), |()| "succeeded".to_owned());
            format!("{} {kind} in {:.1?}", t.what, t.took)
        })
        .collect();
    Ok(Outcome {
        name: "unavailable",
        ok,
        figures: format!(
            "127.0.0.2 and 127.0.0.3 killed (SIGKILL, pids {pids:?}); marked down by the \
             coordinator after {marked:.1?} (answers before: {before:?}{first_told}); then {}{}; ONE: \
             {}; restarted and joined in {rejoined:.1?}; {} writes failed with all up; \
             {lost_all} of {} acknowledged writes lost at ALL. The insert's message: {sample}",
            times.join(", "),
            if wrong.is_empty() {
                String::new()
            } else {
                format!(" (WRONG: {})", wrong.join(" | "))
            },
            if one_ok {
                "insert and read work"
            } else {
                "failed (wrong)"
            },
            errors.len(),
            expected.len(),
        ),
    })
}

/// Each node's own count of the writes and reads it coordinated for `keyspace.cluster_kv`.
async fn coordinated_by(
    dbs: &[(String, Db)],
    keyspace: &str,
) -> Result<BTreeMap<String, (i64, i64)>, String> {
    let mut out = BTreeMap::new();
    for (host, db) in dbs {
        let writes = coordinated(db, keyspace, "coordinator_write_latency").await?;
        let reads = coordinated(db, keyspace, "coordinator_read_latency").await?;
        out.insert(host.clone(), (writes, reads));
    }
    Ok(out)
}

/// Two data centres: a wrong local data centre refused by `connect`; with `local_dc = dc1`
/// every request coordinated in dc1.
pub async fn datacenters(env: &Env) -> Result<Outcome, String> {
    const N: i32 = 300;
    // A local data centre in the wrong case.
    let start = Instant::now();
    let refused = env.options.clone().local_dc("DC1").connect().await.err();
    let refused_in = start.elapsed();
    let refusal = refused.as_ref().map(Error::to_string).unwrap_or_default();
    let told = [
        "`DC1`",
        "`dc1` (2 nodes)",
        "`dc2` (1 node)",
        "Did you mean `dc1`",
    ];
    let refused_ok = refused
        .as_ref()
        .is_some_and(|e| e.kind() == ErrorKind::Configuration)
        && refused_in < Duration::from_secs(1)
        && told.iter().all(|p| refusal.contains(p));
    // The same through the installable command.
    let points = cassmodel_node::contact_points(&env.nodes).join(",");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = [
        "cassmodel",
        "--contact-points",
        &points,
        "--local-dc",
        "DC1",
        "check",
    ];
    let start = Instant::now();
    let exit = cassmodel_cli::tool::run(argv, &mut out, &mut err).await;
    let cli_in = start.elapsed();
    let cli_err = String::from_utf8_lossy(&err).into_owned();
    let cli_ok = exit == cassmodel_cli::Exit::Error
        && cli_in < Duration::from_secs(1)
        && told.iter().all(|p| cli_err.contains(p));
    // Routing: dc1's nodes coordinate everything.
    let db = connect(env, Consistency::LocalQuorum, Some("dc1")).await?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let dbs = pinned_all(&env.nodes, &env.keyspace).await?;
    let before = coordinated_by(&dbs, &env.keyspace).await?;
    let mut expected = BTreeMap::new();
    let errors = write_all(&db, 0..N, "routed", Consistency::LocalQuorum, &mut expected).await;
    let lost = lost(&db, &expected, Consistency::LocalQuorum).await?;
    let after = coordinated_by(&dbs, &env.keyspace).await?;
    let counted: BTreeMap<String, (i64, i64)> = after
        .iter()
        .map(|(h, (w, r))| {
            let (bw, br) = before.get(h).copied().unwrap_or_default();
            (h.clone(), (w - bw, r - br))
        })
        .collect();
    let dc2 = env.nodes[2].host.to_string();
    let in_dc1: (i64, i64) = counted
        .iter()
        .filter(|(h, _)| **h != dc2)
        .fold((0, 0), |(w, r), (_, (cw, cr))| (w + cw, r + cr));
    let outside = counted.get(&dc2).copied().unwrap_or_default();
    let routed_ok = outside == (0, 0) && in_dc1 == (i64::from(N), i64::from(N));
    let ok = refused_ok && cli_ok && routed_ok && errors.is_empty() && lost == 0;
    Ok(Outcome {
        name: "datacenters",
        ok,
        figures: format!(
            "local data centre `DC1` refused by connect in {refused_in:.1?} ({}): {refusal}; by \
             `cassmodel check --local-dc DC1` in {cli_in:.1?} (exit {}{}); with local_dc = \
             dc1, {N} inserts and {N} reads at LOCAL_QUORUM ({} failed, {lost} lost) coordinated \
             (writes, reads) per node {counted:?}: dc2's node {dc2} coordinated {outside:?}",
            refused
                .as_ref()
                .map_or("accepted (wrong)".to_owned(), |e| format!("{:?}", e.kind())),
            exit.code(),
            if cli_ok {
                String::new()
            } else {
                format!(", WRONG: {cli_err}")
            },
            errors.len(),
        ),
    })
}

/// dc2 (its one node) stopped: LOCAL_QUORUM through dc1 works, EACH_QUORUM is `Unavailable`
/// naming dc2, a migration applies; dc2 back: `validate` passes on its node and nothing
/// acknowledged is lost.
pub async fn dc_down(env: &Env) -> Result<Outcome, String> {
    const N: i32 = 200;
    let db = connect(env, Consistency::LocalQuorum, Some("dc1")).await?;
    db.create_table::<Kv>().await.map_err(|e| e.to_string())?;
    let mut expected = BTreeMap::new();
    let mut errors = write_all(&db, 0..N, "up", Consistency::LocalQuorum, &mut expected).await;
    let dc2 = &env.nodes[2];
    let pid = cassmodel_node::running_pid(dc2).ok_or("dc2's node is not running")?;
    cassmodel_node::stop(dc2)
        .await
        .map_err(|e| format!("stopping {}: {e}", dc2.host))?;
    let migrated_ks = format!("{}_dcdown", env.keyspace);
    let outcome = async {
        // LOCAL_QUORUM through dc1, with dc2 down.
        let down_errors = write_all(
            &db,
            N..2 * N,
            "down",
            Consistency::LocalQuorum,
            &mut expected,
        )
        .await;
        let lost_down = lost(&db, &expected, Consistency::LocalQuorum).await?;
        // EACH_QUORUM needs dc2.
        let each_db = connect(env, Consistency::EachQuorum, Some("dc1")).await?;
        let (marked, _, _) = await_marked_down(&each_db, Consistency::EachQuorum).await?;
        let each = tried("EACH_QUORUM insert", each_db.insert(&kv(-1, "each"))).await;
        let each_wrong = not_unavailable(
            &each,
            &["Unavailable: EACH_QUORUM", "in DC dc2", "127.0.0.1:9042"],
        );
        let each_text = each
            .result
            .as_ref()
            .err()
            .map(Error::to_string)
            .unwrap_or_default();
        // A migration with one data centre down, to a keyspace with replicas in both.
        let admin = connect(env, Consistency::LocalQuorum, Some("dc1")).await?;
        admin
            .create_keyspace(&migrated_ks, &env.replication)
            .await
            .map_err(|e| format!("CREATE KEYSPACE with dc2 down: {e}"))?;
        let migrated = admin
            .with_keyspace(&migrated_ks)
            .map_err(|e| e.to_string())?;
        let report = Migrator::new(&migrated, models())
            .replication(env.replication.clone())
            .apply()
            .await
            .map_err(|e| format!("apply with dc2 down: {e}"))?;
        Ok::<_, String>((
            down_errors,
            lost_down,
            marked,
            each,
            each_wrong,
            each_text,
            report.applied.len(),
        ))
    }
    .await;
    let restart = Instant::now();
    start_again(env, &[dc2]).await?;
    let rejoined = restart.elapsed();
    let (down_errors, lost_down, marked, each, each_wrong, each_text, applied) = outcome?;
    // dc2's node, asked alone, sees the migration.
    let on_dc2 = pinned_all(std::slice::from_ref(dc2), &migrated_ks).await?;
    let validated = match Migrator::new(&on_dc2[0].1, models()).validate().await {
        Ok(()) => "passes".to_owned(),
        Err(e) => format!("FAILS: {e}"),
    };
    errors.extend(
        write_all(
            &db,
            2 * N..2 * N + 10,
            "after",
            Consistency::LocalQuorum,
            &mut expected,
        )
        .await,
    );
    let lost_all = lost(&db, &expected, Consistency::All).await?;
    let _ = db
        .execute_ddl(&format!("DROP KEYSPACE IF EXISTS {migrated_ks}"))
        .await;
    let ok = errors.is_empty()
        && down_errors.is_empty()
        && lost_down == 0
        && each_wrong.is_none()
        && applied > 0
        && validated == "passes"
        && lost_all == 0;
    Ok(Outcome {
        name: "dc-down",
        ok,
        figures: format!(
            "dc2's node {} stopped (SIGTERM, pid {pid}): {N} writes at LOCAL_QUORUM through dc1, \
             {} failed, {lost_down} of {} keys lost at LOCAL_QUORUM; EACH_QUORUM insert after \
             {marked:.1?}: {} in {:.1?}{}; apply with dc2 down: {applied} statements run; \
             restarted and joined in {rejoined:.1?}; validate asked of {} alone {validated}; \
             {lost_all} of {} acknowledged writes lost at ALL. EACH_QUORUM's message: {each_text}",
            dc2.host,
            down_errors.len(),
            2 * N,
            each.result
                .as_ref()
                .map_or_else(|e| format!("{:?}", e.kind()), |()| "accepted".to_owned()),
            each.took,
            each_wrong
                .map(|w| format!(" (WRONG: {w})"))
                .unwrap_or_default(),
            dc2.host,
            expected.len(),
        ),
    })
}

/// The replication of the cluster checks' keyspaces on `nodes`: every node's data centre
/// with as many replicas as it has nodes (three copies in all).
pub fn replication_of(nodes: &[NodeConfig]) -> Replication {
    let mut dcs: BTreeMap<&str, u32> = BTreeMap::new();
    for n in nodes {
        *dcs.entry(n.datacenter_name()).or_default() += 1;
    }
    Replication::network_topology(dcs)
}
