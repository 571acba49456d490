//! A three-node cluster on this machine: nodes on 127.0.0.1, 127.0.0.2 and 127.0.0.3 with the
//! same ports, seeded by the first and started one after another.

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use crate::config::NodeConfig;
use crate::config::sibling_dir;
use crate::error::NodeError;
use crate::node::{Started, ensure_running, is_ready, peers, running_pid, schema_version, stop};

/// Nodes in the local cluster.
pub const CLUSTER_SIZE: u8 = 3;

/// The heap of each cluster node: three of them share the machine with the tests.
pub const CLUSTER_HEAP: &str = "768M";

/// How long [`start_cluster`] waits for every node to see the others, and agree on one
/// schema, after they answer CQL.
const JOIN_TIMEOUT: Duration = Duration::from_secs(120);

/// How the local cluster's three nodes are placed in data centres.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Topology {
    /// One data centre, `datacenter1` (`SimpleSnitch`); work dirs `<base>-cluster/node<i>`.
    #[default]
    OneDc,
    /// Two data centres (`GossipingPropertyFileSnitch`): 127.0.0.1 and 127.0.0.2 in `dc1`,
    /// 127.0.0.3 in `dc2`; work dirs `<base>-cluster-2dc/node<i>` (a node keeps the data
    /// centre it first started in, so the two clusters keep their data apart).
    TwoDcs,
}

impl Topology {
    /// The data centre of node `i` (1 to 3), `None` for `SimpleSnitch`'s `datacenter1`.
    pub fn datacenter(self, i: u8) -> Option<&'static str> {
        match self {
            Topology::OneDc => None,
            Topology::TwoDcs if i <= 2 => Some("dc1"),
            Topology::TwoDcs => Some("dc2"),
        }
    }
}

/// The nodes of the local cluster in one data centre: [`cluster_nodes_in`] with
/// [`Topology::OneDc`].
pub fn cluster_nodes(base: &NodeConfig) -> Vec<NodeConfig> {
    cluster_nodes_in(base, Topology::OneDc)
}

/// The nodes of the local cluster, derived from `base` (the single node's configuration, e.g.
/// [`NodeConfig::from_env`]): node `i` (1 to 3) listens on the `i - 1`th address after
/// `base`'s (`127.0.0.i` for the default 127.0.0.1) with `base`'s CQL and storage ports, its
/// own JMX port (`base.jmx_port + 10 + i`: Cassandra binds local JMX on 127.0.0.1 whatever the
/// node's address), one token at `i - 1` thirds of the ring, node 1 as seed, a
/// [`CLUSTER_HEAP`] heap, its data centre by `topology` and the work dir
/// `<base work dir>-cluster/node<i>` (`-cluster-2dc` for two data centres).
///
/// Node 1 takes the single node's address and ports: stop the single node (or the cluster of
/// the other topology) before starting the cluster ([`start_cluster`] refuses otherwise), or
/// give the cluster addresses of its own (`CASSMODEL_NODE_HOST`, with `CASSMODEL_NODE_DIR`
/// and `CASSMODEL_NODE_JMX_PORT` apart from the single node's).
pub fn cluster_nodes_in(base: &NodeConfig, topology: Topology) -> Vec<NodeConfig> {
    let root = sibling_dir(
        &base.work_dir,
        match topology {
            Topology::OneDc => "cluster",
            Topology::TwoDcs => "cluster-2dc",
        },
    );
    (1..=CLUSTER_SIZE)
        .map(|i| {
            let mut cfg = base.clone();
            cfg.host = Ipv4Addr::from(u32::from(base.host).wrapping_add(u32::from(i - 1)));
            cfg.jmx_port = base.jmx_port.wrapping_add(10 + u16::from(i));
            cfg.seeds = vec![base.host];
            cfg.initial_token = ring_token(i - 1, CLUSTER_SIZE);
            cfg.datacenter = topology.datacenter(i).map(str::to_owned);
            cfg.authentication = false;
            cfg.tls = false;
            cfg.heap = CLUSTER_HEAP.to_owned();
            cfg.work_dir = root.join(format!("node{i}"));
            cfg
        })
        .collect()
}

/// The token of node `index` of `count` nodes spaced evenly on the Murmur3 ring
/// (`-2^63 + index * 2^64 / count`).
pub fn ring_token(index: u8, count: u8) -> i64 {
    let step = (1i128 << 64) / i128::from(count.max(1));
    let token = i128::from(i64::MIN) + i128::from(index) * step;
    i64::try_from(token).unwrap_or(i64::MAX)
}

/// The CQL contact points of `nodes`.
pub fn contact_points(nodes: &[NodeConfig]) -> Vec<String> {
    nodes.iter().map(NodeConfig::contact_point).collect()
}

/// Starts the cluster's nodes one after another (each reused if it already runs from its work
/// dir), then waits until every node lists the others as peers. Refuses, before starting
/// anything, when a node's address and port answer for a node that is not that cluster node
/// (the single local node on 127.0.0.1, say).
pub async fn start_cluster(nodes: &[NodeConfig]) -> Result<Vec<Started>, NodeError> {
    for cfg in nodes {
        if running_pid(cfg).is_none() && is_ready(cfg).await {
            return Err(NodeError::AddressTaken {
                addr: cfg.contact_point(),
                work_dir: cfg.work_dir.clone(),
            });
        }
    }
    let mut started = Vec::with_capacity(nodes.len());
    for cfg in nodes {
        started.push(ensure_running(cfg).await?);
    }
    wait_joined(nodes, JOIN_TIMEOUT).await?;
    Ok(started)
}

/// Waits until each node of `nodes` answers CQL, lists every other one in its
/// `system.peers_v2`, and all of them report one `schema_version` (bounded by `timeout`).
///
/// Schema agreement is part of it because a node restarted under a changing schema can
/// take a minute or more to pull the schema it missed (Cassandra pulls on gossip, with
/// back-off), and DDL sent meanwhile waits for agreement and times out in the driver.
pub async fn wait_joined(nodes: &[NodeConfig], timeout: Duration) -> Result<(), NodeError> {
    let start = Instant::now();
    loop {
        let mut missing = Vec::new();
        let mut versions = Vec::with_capacity(nodes.len());
        for cfg in nodes {
            let peers = peers(cfg).await.unwrap_or_default();
            for other in nodes.iter().filter(|o| o.host != cfg.host) {
                if !peers.contains(&other.host) {
                    missing.push(format!("{} does not list {}", cfg.host, other.host));
                }
            }
            versions.push((cfg.host, schema_version(cfg).await));
        }
        if versions.iter().any(|(_, v)| *v != versions[0].1) {
            let each: Vec<String> = versions
                .iter()
                .map(|(host, v)| match v {
                    Some(v) => format!("{host} {v}"),
                    None => format!("{host} no answer"),
                })
                .collect();
            missing.push(format!("schema versions differ: {}", each.join(", ")));
        }
        if missing.is_empty() {
            return Ok(());
        }
        if start.elapsed() >= timeout {
            return Err(NodeError::NotJoined {
                secs: timeout.as_secs(),
                missing: missing.join("; "),
            });
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Stops the cluster's nodes (those started from their work dirs), last one first; returns
/// how many were stopped.
pub async fn stop_cluster(nodes: &[NodeConfig]) -> Result<usize, NodeError> {
    let mut stopped = 0;
    for cfg in nodes.iter().rev() {
        if stop(cfg).await? {
            stopped += 1;
        }
    }
    Ok(stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_nodes_on_their_own_addresses_and_tokens() {
        let base = NodeConfig::from_env();
        let nodes = cluster_nodes(&base);
        assert_eq!(nodes.len(), 3);
        let hosts: Vec<String> = nodes.iter().map(|n| n.host.to_string()).collect();
        assert_eq!(hosts, ["127.0.0.1", "127.0.0.2", "127.0.0.3"]);
        for n in &nodes {
            assert_eq!(n.native_port, base.native_port);
            assert_eq!(n.storage_port, base.storage_port);
            assert_eq!(n.seeds, [Ipv4Addr::new(127, 0, 0, 1)]);
            assert_ne!(n.work_dir, base.work_dir);
        }
        let jmx: std::collections::BTreeSet<u16> = nodes.iter().map(|n| n.jmx_port).collect();
        assert_eq!(jmx.len(), 3, "JMX binds on 127.0.0.1: one port per node");
        assert!(!jmx.contains(&base.jmx_port));
        assert!(!jmx.contains(&base.password_protected().jmx_port));
        assert!(nodes.iter().all(|n| n.datacenter.is_none()));
        let two = cluster_nodes_in(&base, Topology::TwoDcs);
        let dcs: Vec<Option<&str>> = two.iter().map(|n| n.datacenter.as_deref()).collect();
        assert_eq!(dcs, [Some("dc1"), Some("dc1"), Some("dc2")]);
        for (a, b) in nodes.iter().zip(&two) {
            assert_eq!((a.host, a.initial_token), (b.host, b.initial_token));
            assert_ne!(a.work_dir, b.work_dir, "a node keeps its first data centre");
        }
        let tokens: Vec<i64> = nodes.iter().map(|n| n.initial_token).collect();
        assert_eq!(
            tokens,
            [
                i64::MIN,
                -3_074_457_345_618_258_603,
                3_074_457_345_618_258_602
            ]
        );
    }
}
