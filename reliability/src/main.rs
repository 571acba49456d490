//! `cargo xtask chaos`: cassmodel under load and under faults, on the project's own Cassandra
//! node. Each check prints one line with its figures; `--write FILE` also puts them in a
//! section of `FILE` (RELIABILITY.md) and appends them to `reliability/results/chaos.csv`.
//!
//! - `load`: 64 tasks x 2,000 mixed operations (insert, update, delete, read-your-write),
//!   then every key of every task read back and compared with what the task wrote.
//! - `pause`: the node frozen with SIGSTOP for 10 s under writes, then SIGCONT: the errors
//!   are typed time-outs, the same `Db` carries on, no acknowledged write is lost.
//! - `crash`: a table and a user-defined type created, writes in flight, the node killed
//!   with SIGKILL (`kill -9`) and started again: the same `Db` reconnects, the table and the
//!   type are there and every acknowledged write reads back.
//!
//! - `drift`, `hostile`, `migrate`: rows that drifted from their struct (typed errors naming
//!   the table and column, no panic), hostile identifiers and values (read back bit-for-bit,
//!   or refused with typed errors), migrations killed half-way (rerun completes, `validate`
//!   passes) and run twice at once.
//! - `copy`: the backfill of a key change by worker processes, killed with SIGKILL at set
//!   points and replaced, while the application writes through the new model (dual writes);
//!   on the cluster, node 3 killed (SIGKILL) during the copy too. Every range done, `verify` clean, the
//!   new table equal to the old one and to the rows written (see `copy.rs`).
//! - `counters`: the offline copy of a counter table by worker processes, killed with SIGKILL
//!   at set points (increments in flight); on the cluster, node 3 killed during it (a repair,
//!   read at ALL, is refused until it is back). Every range done, some repaired, `verify`
//!   clean, every count equal: nothing lost or counted twice (see `counters.rs`).
//! - `entities`: the drift repair of an entity's tables (drift made with plain CQL) by worker
//!   processes, killed with SIGKILL at set points and replaced; on the cluster, node 3 killed
//!   during the repair too. A new check clean, both tables equal to the entities (see
//!   `entities.rs`).
//!
//! Faults are sent only to the node started from this work dir, by the pid of its pid file
//! (checked to be that node); traffic goes only to its 127.0.0.x address. Every loop is
//! bounded in count and in time. Every check begins with every node up: a node a check left
//! down (it failed before starting it again) is started again, and that check fails.
//! The run ends, on a single node or a cluster, by waiting (up to 240 s) until every node lists
//! the others and all report one schema version, and fails if they do not: what runs next
//! sends DDL, which the driver lets wait 60 s for schema agreement.
//!
//! With `--cluster`, the same checks run on the three-node cluster (127.0.0.1-127.0.0.3,
//! started if needed; the single node must be stopped), in a keyspace with three replicas,
//! pausing and killing node 2; before them, the checks only a cluster has:
//!
//! - `schema`: two concurrent migrations through different coordinators converge; `validate`
//!   passes asked of each node alone; one schema version on all three.
//! - `quorum`: node 3 stopped: QUORUM writes and reads and an LWT keep working, ALL is
//!   refused as `Unavailable`; node 3 restarted: it rejoins, the same `Db` uses it again, and
//!   every acknowledged write reads back at ALL.
//! - `routing`: with one replica per key, every write is coordinated by the key's replica
//!   (each node's own count of coordinated writes equals the keys it owns).
//! - `unavailable`: two nodes killed: once marked down, QUORUM and SERIAL requests fail as
//!   `Unavailable` in well under a second, naming every node tried; ONE works; nothing
//!   acknowledged is lost (see `degraded.rs`).
//! - `lwt`: node 3 killed with SIGKILL under QUORUM writes and lightweight transactions, started
//!   again, the load kept up until it has rejoined: nothing acknowledged lost, every
//!   transaction on a new key applied, the errors counted by phase, kind and answering node
//!   (see `lwt.rs`).
//!
//! With `--cluster --two-dcs`, on the cluster in two data centres (127.0.0.1-2 in dc1,
//! 127.0.0.3 in dc2; keyspaces with two replicas in dc1 and one in dc2): `datacenters` (a
//! wrong local data centre refused; with `local_dc = dc1`, dc1's nodes coordinate every
//! request), `dc-down` (dc2 stopped: LOCAL_QUORUM works, EACH_QUORUM is `Unavailable` naming
//! dc2, a migration applies), then `schema`, `quorum`, `routing` and `load` as above.
//!
//! ```text
//! chaos [--cluster [--two-dcs]] [--only load,pause,crash,...] [--ops N] [--write RELIABILITY.md]
//! ```

#![forbid(unsafe_code)]

mod checks;
mod cluster;
mod copy;
mod counters;
mod data;
mod degraded;
mod entities;
mod env;
mod lwt;
mod report;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use cassmodel::{ConnectOptions, Replication};
use cassmodel_node::{NodeConfig, Topology};

use env::{Env, Outcome};

struct Args {
    cluster: bool,
    two_dcs: bool,
    only: Vec<String>,
    ops: usize,
    write: Option<std::path::PathBuf>,
}

const CHECKS: [&str; 9] = [
    "drift", "hostile", "migrate", "copy", "counters", "entities", "load", "pause", "crash",
];
const CLUSTER_CHECKS: [&str; 14] = [
    "schema",
    "quorum",
    "routing",
    "unavailable",
    "lwt",
    "drift",
    "hostile",
    "migrate",
    "copy",
    "counters",
    "entities",
    "load",
    "pause",
    "crash",
];
/// How long the run waits, after its checks, for every node to list the others and report
/// one schema version (a restarted node pulls the schema it missed with back-off).
const SETTLE_TIMEOUT: Duration = Duration::from_secs(240);

/// On two data centres: the checks of data centres, then those whose outcome depends on
/// where replicas are (the others are the same on one data centre or two).
const TWO_DC_CHECKS: [&str; 6] = [
    "datacenters",
    "dc-down",
    "schema",
    "quorum",
    "routing",
    "load",
];

impl Args {
    /// The checks of this run's target, in order.
    fn all(&self) -> &'static [&'static str] {
        match (self.cluster, self.two_dcs) {
            (true, true) => &TWO_DC_CHECKS,
            (true, false) => &CLUSTER_CHECKS,
            _ => &CHECKS,
        }
    }

    fn topology(&self) -> Topology {
        if self.two_dcs {
            Topology::TwoDcs
        } else {
            Topology::OneDc
        }
    }
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        cluster: false,
        two_dcs: false,
        only: Vec::new(),
        ops: 2_000,
        write: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--cluster" => args.cluster = true,
            "--two-dcs" => args.two_dcs = true,
            "--only" => {
                let v = it.next().ok_or("--only needs a list, e.g. load,crash")?;
                args.only = v.split(',').map(|s| s.trim().to_owned()).collect();
            }
            "--ops" => {
                let v = it.next().ok_or("--ops needs a number")?;
                args.ops = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or(format!("--ops {v}: expected a positive number"))?;
            }
            "--write" => args.write = Some(it.next().ok_or("--write needs a file")?.into()),
            "-h" | "--help" => {
                return Err(
                    "usage: chaos [--cluster [--two-dcs]] [--only load,pause,crash] [--ops N] \
                            [--write FILE]"
                        .into(),
                );
            }
            other => return Err(format!("unknown argument `{other}` (see --help)")),
        }
    }
    if args.two_dcs && !args.cluster {
        return Err("--two-dcs goes with --cluster".into());
    }
    let all = args.all();
    if args.only.is_empty() {
        args.only = all.iter().map(|s| (*s).to_owned()).collect();
    } else if let Some(bad) = args.only.iter().find(|c| !all.contains(&c.as_str())) {
        return Err(format!("unknown check `{bad}`: the checks are {all:?}"));
    }
    Ok(args)
}

#[tokio::main]
async fn main() -> ExitCode {
    // A worker of the `copy`, `counters` or `entities` check, started (and killed) by it.
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let worker = match raw.first().map(String::as_str) {
        Some("copy-worker") => Some(copy::worker(&raw[1..]).await),
        Some("counter-worker") => Some(counters::worker(&raw[1..]).await),
        Some("entity-worker") => Some(entities::worker(&raw[1..]).await),
        _ => None,
    };
    if let Some(result) = worker {
        return match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{}: {e}", raw[0]);
                ExitCode::FAILURE
            }
        };
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&args).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("chaos FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &Args) -> Result<bool, String> {
    if cassmodel::config::contact_points_from_env().is_some() {
        return Err(
            "the chaos checks pause and kill the project's own node, so they never run \
                    on the cluster in CASSMODEL_CONTACT_POINTS: unset it"
                .into(),
        );
    }
    let base = NodeConfig::try_from_env().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let info = report::results::RunInfo::start(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    let (node, nodes, replication) = if args.cluster {
        let nodes = cassmodel_node::cluster_nodes_in(&base, args.topology());
        cassmodel_node::start_cluster(&nodes)
            .await
            .map_err(|e| format!("the cluster did not start: {e}"))?;
        let replication = degraded::replication_of(&nodes);
        (nodes[1].clone(), nodes, replication)
    } else {
        cassmodel_node::ensure_running(&base)
            .await
            .map_err(|e| format!("the node did not start: {e}"))?;
        (base.clone(), vec![base], Replication::Simple(1))
    };
    let options = ConnectOptions::from_env()
        .map_err(|e| e.to_string())?
        .contact_points(cassmodel_node::contact_points(&nodes));
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 1_000_000_000)
        .unwrap_or_default();
    let keyspace = format!("chaos_{millis}");
    let admin = options.connect().await.map_err(|e| e.to_string())?;
    admin
        .create_keyspace(&keyspace, &replication)
        .await
        .map_err(|e| e.to_string())?;
    let env = Env {
        node,
        nodes,
        options,
        keyspace: keyspace.clone(),
        ops_per_task: args.ops,
        replication: replication.clone(),
    };
    println!(
        "chaos: {} ({}), faults to {} (pid {}), keyspace {keyspace} ({}), load average {}",
        target(args),
        cassmodel_node::contact_points(&env.nodes).join(","),
        env.node.contact_point(),
        cassmodel_node::running_pid(&env.node).map_or("?".into(), |p| p.to_string()),
        replication.to_cql(),
        cassmodel_node::load_average()
    );
    let mut outcomes = Vec::new();
    let mut seconds = Vec::new();
    for name in args
        .all()
        .iter()
        .filter(|c| args.only.iter().any(|o| o == *c))
    {
        let t = Instant::now();
        let outcome = match *name {
            "schema" => cluster::schema(&env).await,
            "quorum" => cluster::quorum(&env).await,
            "routing" => cluster::routing(&env).await,
            "unavailable" => degraded::unavailable(&env).await,
            "lwt" => lwt::check(&env).await,
            "datacenters" => degraded::datacenters(&env).await,
            "dc-down" => degraded::dc_down(&env).await,
            "drift" => data::drift(&env).await,
            "hostile" => data::hostile(&env).await,
            "migrate" => data::migration(&env).await,
            "copy" => copy::check(&env).await,
            "counters" => counters::check(&env).await,
            "entities" => entities::check(&env).await,
            "load" => checks::load(&env).await,
            "pause" => checks::pause(&env).await,
            _ => checks::crash(&env).await,
        };
        let mut outcome = outcome.unwrap_or_else(|e| Outcome {
            name,
            ok: false,
            figures: format!("error: {e}"),
        });
        // A node a check left down is started again for the next one, and fails the check.
        match cluster::restart_down(&env).await {
            Ok(hosts) if hosts.is_empty() => {}
            Ok(hosts) => {
                outcome.ok = false;
                outcome.figures += &format!(
                    "; left down after the check, started again: {}",
                    hosts.join(", ")
                );
            }
            Err(e) => {
                outcome.ok = false;
                outcome.figures += &format!("; a node left down did not start again: {e}");
            }
        }
        println!(
            "{:<7} {:<4} {} ({:.0?})",
            outcome.name,
            if outcome.ok { "ok" } else { "FAIL" },
            outcome.figures,
            t.elapsed()
        );
        outcomes.push(outcome);
        seconds.push(t.elapsed().as_secs_f64());
    }
    let all_ok = outcomes.iter().all(|o| o.ok);
    if all_ok {
        // Reconnect: the crash check restarted the node under the first session.
        if let Ok(db) = env.options.connect().await {
            for ks in [keyspace.clone(), format!("{keyspace}_schema")] {
                let _ = db
                    .execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
                    .await;
            }
        }
    } else {
        println!("keyspace {keyspace} is kept for inspection");
    }
    // The nodes are handed on settled: what runs next sends DDL, which waits for schema
    // agreement (60 s in the driver), and a node a check restarted, or one slow to apply the
    // drops above, may still be pulling the schema it missed.
    let settling = Instant::now();
    let settled = cassmodel_node::wait_joined(&env.nodes, SETTLE_TIMEOUT).await;
    match &settled {
        Ok(()) => println!(
            "every node up and on one schema version {:.0?} after the checks",
            settling.elapsed()
        ),
        Err(e) => println!("FAIL after the checks: {e}"),
    }
    let all_ok = all_ok && settled.is_ok();
    println!(
        "chaos: {} of {} checks passed in {:.0?}; load average {}",
        outcomes.iter().filter(|o| o.ok).count(),
        outcomes.len(),
        started.elapsed(),
        cassmodel_node::load_average()
    );
    if let Some(path) = &args.write {
        let command = match (args.cluster, args.two_dcs) {
            (true, true) => "cargo xtask chaos --cluster --two-dcs",
            (true, false) => "cargo xtask chaos --cluster",
            _ => "cargo xtask chaos",
        };
        let target = target(args);
        report::write_section(
            path,
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/chaos.csv"),
            &info,
            target,
            command,
            &outcomes,
            &seconds,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote the figures to {}", path.display());
    }
    Ok(all_ok)
}

/// What the checks run on, in words.
fn target(args: &Args) -> &'static str {
    match (args.cluster, args.two_dcs) {
        (true, true) => "three-node cluster in two data centres",
        (true, false) => "three-node cluster",
        _ => "single node",
    }
}
