//! `cassmodel-node`: start, stop, reset and inspect the local Cassandra test node.
//!
//! Configuration comes from the environment; see the `cassmodel_node` crate docs.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use cassmodel_node::{NodeConfig, NodeError, Started, Topology};
use clap::{Parser, Subcommand};

/// Manage the local single-node Apache Cassandra used by cassmodel's tests and demo.
///
/// Settings come from CASSMODEL_* environment variables (port, work dir, Java home, heap,
/// Cassandra version, start time-out).
#[derive(Debug, Parser)]
#[command(name = "cassmodel-node", version)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Start the node unless one already answers; prints "reused" or "started pid N".
    Start,
    /// Stop the node started from this work dir (SIGTERM, SIGKILL after 60 s).
    Stop,
    /// Stop the node and delete its data and logs (the downloaded jars are kept).
    Reset,
    /// Tell whether a node answers CQL; exit status 0 if it does, 3 if not.
    Status,
    /// Run Cassandra's nodetool against the node, e.g. `nodetool flush ks table`.
    Nodetool {
        /// nodetool's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        args: Vec<String>,
    },
    /// Print the last lines of the node's logs.
    Logs {
        /// Number of lines.
        #[arg(default_value_t = 60)]
        lines: usize,
    },
    /// The three-node cluster on 127.0.0.1-127.0.0.3 (same ports as the single node, which must
    /// be stopped first).
    Cluster {
        /// Two data centres: 127.0.0.1 and 127.0.0.2 in `dc1`, 127.0.0.3 in `dc2`
        /// (GossipingPropertyFileSnitch), in work dirs of their own; without it, one data
        /// centre, `datacenter1`. Stop the one cluster before starting the other.
        #[arg(long)]
        two_dcs: bool,
        #[command(subcommand)]
        command: ClusterCmd,
    },
}

#[derive(Debug, Subcommand)]
enum ClusterCmd {
    /// Start the nodes one after another (each reused if running) and wait until they see each
    /// other; prints the contact points.
    Start,
    /// Stop the nodes started from the cluster's work dirs.
    Stop,
    /// Stop the nodes and delete their data and logs.
    Reset,
    /// Tell which nodes answer and which peers each one lists; exit status 3 unless all do.
    Status,
    /// Print the last lines of each node's logs.
    Logs {
        /// Number of lines per node.
        #[arg(default_value_t = 30)]
        lines: usize,
    },
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cassmodel-node: error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cmd: Cmd) -> Result<ExitCode, NodeError> {
    let cfg = NodeConfig::try_from_env()?;
    match cmd {
        Cmd::Start => {
            match cassmodel_node::ensure_running(&cfg).await? {
                Started::Reused => println!("reused"),
                Started::StartedNow { pid } => println!("started pid {pid}"),
            }
            println!("contact point: {}", cfg.contact_point());
        }
        Cmd::Stop => {
            let pid = cassmodel_node::running_pid(&cfg);
            if cassmodel_node::stop(&cfg).await? {
                match pid {
                    Some(pid) => println!("stopped pid {pid}"),
                    None => println!("stopped"),
                }
            } else {
                println!(
                    "nothing to stop (no live node in {})",
                    cfg.work_dir.display()
                );
                if cassmodel_node::is_ready(&cfg).await {
                    println!(
                        "note: a node still answers on {} but was not started from this work dir \
                         (CASSMODEL_NODE_DIR / CARGO_TARGET_DIR)",
                        cfg.contact_point()
                    );
                }
            }
        }
        Cmd::Reset => {
            cassmodel_node::reset(&cfg).await?;
            println!("reset: node stopped, {} wiped", cfg.work_dir.display());
        }
        Cmd::Status => {
            let pid = cassmodel_node::running_pid(&cfg);
            let owner = match pid {
                Some(pid) => format!("pid {pid}, work dir {}", cfg.work_dir.display()),
                None => format!("not started from {}", cfg.work_dir.display()),
            };
            match cassmodel_node::release_version(&cfg).await {
                Some(v) => {
                    println!(
                        "running: Cassandra {v} answers on {} ({owner})",
                        cfg.contact_point()
                    );
                }
                None => {
                    match pid {
                        Some(pid) => println!(
                            "starting or stuck: pid {pid} is alive but {} does not answer yet",
                            cfg.contact_point()
                        ),
                        None => println!("not running: nothing answers on {}", cfg.contact_point()),
                    }
                    return Ok(ExitCode::from(3));
                }
            }
        }
        Cmd::Logs { lines } => print!("{}", cassmodel_node::log_tail(&cfg, lines)),
        Cmd::Cluster { two_dcs, command } => {
            let topology = if two_dcs {
                Topology::TwoDcs
            } else {
                Topology::OneDc
            };
            return cluster(&cfg, topology, command).await;
        }
        Cmd::Nodetool { args } => {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            print!("{}", cassmodel_node::nodetool(&cfg, &args)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn cluster(
    base: &NodeConfig,
    topology: Topology,
    cmd: ClusterCmd,
) -> Result<ExitCode, NodeError> {
    let nodes = cassmodel_node::cluster_nodes_in(base, topology);
    match cmd {
        ClusterCmd::Start => {
            let started = cassmodel_node::start_cluster(&nodes).await?;
            for (cfg, s) in nodes.iter().zip(started) {
                match s {
                    Started::Reused => println!("{}: reused", cfg.contact_point()),
                    Started::StartedNow { pid } => {
                        println!("{}: started pid {pid}", cfg.contact_point())
                    }
                }
                if let Some(dc) = &cfg.datacenter {
                    println!("{}: data centre {dc}", cfg.contact_point());
                }
            }
            println!(
                "contact points: {}",
                cassmodel_node::contact_points(&nodes).join(",")
            );
        }
        ClusterCmd::Stop => {
            let n = cassmodel_node::stop_cluster(&nodes).await?;
            println!("stopped {n} node(s)");
        }
        ClusterCmd::Reset => {
            for cfg in nodes.iter().rev() {
                cassmodel_node::reset(cfg).await?;
            }
            println!("reset: cluster stopped, its data and logs wiped");
        }
        ClusterCmd::Status => {
            let mut all = true;
            for cfg in &nodes {
                let pid = cassmodel_node::running_pid(cfg)
                    .map_or_else(|| "not started here".to_owned(), |p| format!("pid {p}"));
                match cassmodel_node::peers(cfg).await {
                    Some(peers) => {
                        let peers: Vec<String> = peers.iter().map(|p| p.to_string()).collect();
                        println!(
                            "{}: answers ({pid}), peers: {}",
                            cfg.contact_point(),
                            peers.join(", ")
                        );
                        all &= peers.len() + 1 == nodes.len();
                    }
                    None => {
                        println!("{}: does not answer ({pid})", cfg.contact_point());
                        all = false;
                    }
                }
            }
            if !all {
                return Ok(ExitCode::from(3));
            }
        }
        ClusterCmd::Logs { lines } => {
            for cfg in &nodes {
                println!("#### node {}", cfg.host);
                print!("{}", cassmodel_node::log_tail(cfg, lines));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
