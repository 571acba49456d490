//! Waiting for new storage-attached indexes to become queryable on every node.
//!
//! `CREATE INDEX` returns, and schema agreement is reached, before each node has built the
//! index (even on an empty table the build is asynchronous). Until it has, a read that uses
//! the index and reaches that node fails with `INDEX_NOT_AVAILABLE`. So
//! [`Db::create_table`](crate::Db::create_table) and
//! [`Migrator::apply`](crate::migrate::Migrator::apply) wait until every node the session is
//! connected to reports each new index queryable, in its node-local
//! `system_views.sai_column_indexes` table.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use scylla::client::session::Session;
use scylla::cluster::Node;
use scylla::errors::{DbError, ExecutionError, RequestAttemptError};
use scylla::policies::load_balancing::{NodeIdentifier, SingleTargetLoadBalancingPolicy};
use scylla::statement::Consistency;
use scylla::statement::unprepared::Statement;

use crate::error::errors::{Error, Result};

/// How long [`Db::create_table`](crate::Db::create_table) and, unless told otherwise,
/// [`Migrator::apply`](crate::migrate::Migrator::apply) wait for a new index.
pub const INDEX_WAIT: Duration = Duration::from_secs(120);

/// The first pause between two looks at a node; it doubles up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(1);

/// Waits until every connected node reports each index of `indexes` (names in `keyspace`,
/// unquoted) queryable, for at most `limit`: queryable on the node itself
/// (`system_views.sai_column_indexes`), and, as the node sees it through gossip, on every other
/// connected node (`system_views.gossip_info`: a coordinator refuses a read with
/// `INDEX_NOT_AVAILABLE` from a replica whose index status it has not heard yet). An index a
/// node does not know yet (the schema change has not reached it) counts as not queryable.
///
/// A cluster without the `system_views.sai_column_indexes` table (not Cassandra 5), or a role
/// that may not read it, cannot be asked: then this returns at once, as before. Without
/// `gossip_info`'s `index_status`, only the nodes' own reports are waited for.
pub async fn await_queryable(
    session: &Session,
    keyspace: &str,
    indexes: &[&str],
    limit: Duration,
) -> Result<()> {
    await_queryable_reporting(session, keyspace, indexes, limit, &|_| {}).await
}

/// [`await_queryable`], calling `on_wait` with the time waited so far at each pause (about
/// once a second once the pauses have grown).
pub(crate) async fn await_queryable_reporting(
    session: &Session,
    keyspace: &str,
    indexes: &[&str],
    limit: Duration,
    on_wait: &(dyn Fn(Duration) + Sync),
) -> Result<()> {
    if indexes.is_empty() || limit.is_zero() {
        return Ok(());
    }
    let start = Instant::now();
    let deadline = start + limit;
    let cluster = session.get_cluster_state();
    let nodes: Vec<_> = cluster
        .get_nodes_info()
        .iter()
        .filter(|n| n.is_connected())
        .collect();
    let peers: Vec<SocketAddr> = nodes
        .iter()
        .map(|n| SocketAddr::new(n.address.ip(), n.address.port()))
        .collect();
    let mut waiting: Vec<SocketAddr> = Vec::new();
    // One warning per wait, on its first pause.
    let mut warned = false;
    let look = Look {
        session,
        keyspace,
        indexes,
        peers: &peers,
    };
    for (node, &addr) in nodes.iter().zip(&peers) {
        let (local, gossip) = node_statements(node);
        let mut ask_gossip = true;
        let mut pause = FIRST_POLL;
        loop {
            match look.node(&local, &gossip, &mut ask_gossip).await? {
                Seen::Ready => break,
                Seen::CannotAsk => return Ok(()),
                Seen::NotYet => {}
            }
            if Instant::now() + pause > deadline {
                waiting.push(addr);
                break;
            }
            if !warned {
                warned = true;
                tracing::warn!(
                    target: "cassmodel",
                    keyspace,
                    indexes = ?indexes,
                    node = %addr,
                    waited_at_most = ?limit,
                    "an index is still building: reads through it wait until it is queryable"
                );
            }
            on_wait(start.elapsed());
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(MAX_POLL);
        }
    }
    if waiting.is_empty() {
        return Ok(());
    }
    Err(Error::IndexNotReady {
        indexes: indexes.iter().map(|i| format!("{keyspace}.{i}")).collect(),
        nodes: waiting.iter().map(ToString::to_string).collect(),
        waited: limit,
    })
}

/// The two reads of one node's virtual tables (its indexes' own state, and the peers' as it
/// hears them through gossip), each sent to that node alone at `ONE`.
fn node_statements(node: &Arc<Node>) -> (Statement, Statement) {
    let policy = SingleTargetLoadBalancingPolicy::new(NodeIdentifier::Node(Arc::clone(node)), None);
    let mut local = Statement::new(
        "SELECT index_name, is_queryable FROM system_views.sai_column_indexes \
         WHERE keyspace_name = ?",
    );
    let mut gossip = Statement::new(
        "SELECT rpc_address, native_address_and_port, index_status FROM system_views.gossip_info",
    );
    for st in [&mut local, &mut gossip] {
        st.set_consistency(Consistency::One);
        st.set_load_balancing_policy(Some(policy.clone()));
    }
    (local, gossip)
}

/// What one look at a node found.
enum Seen {
    /// Every index is queryable on the node, and on every peer as it hears them.
    Ready,
    /// Not yet (or the look failed: a timeout, a lost connection).
    NotYet,
    /// The node has no `sai_column_indexes` table, or the role may not read it.
    CannotAsk,
}

/// One wait's question, asked of each node in turn.
struct Look<'a> {
    session: &'a Session,
    keyspace: &'a str,
    indexes: &'a [&'a str],
    peers: &'a [SocketAddr],
}

impl Look<'_> {
    /// Asks one node (through its two statements) whether the indexes are queryable;
    /// `ask_gossip` turns false for good when its gossip cannot be read.
    async fn node(
        &self,
        local: &Statement,
        gossip: &Statement,
        ask_gossip: &mut bool,
    ) -> Result<Seen> {
        let result = match self
            .session
            .query_unpaged(local.clone(), (self.keyspace,))
            .await
        {
            Ok(result) => result,
            Err(e) if cannot_ask(&e) => return Ok(Seen::CannotAsk),
            Err(_) => return Ok(Seen::NotYet),
        };
        let rows: Vec<(String, Option<bool>)> = result
            .into_rows_result()?
            .rows::<(String, Option<bool>)>()?
            .collect::<std::result::Result<_, _>>()?;
        let ready = |name: &&str| {
            rows.iter()
                .any(|(n, queryable)| n == name && *queryable == Some(true))
        };
        if !self.indexes.iter().all(ready) {
            return Ok(Seen::NotYet);
        }
        if !*ask_gossip {
            return Ok(Seen::Ready);
        }
        match self.session.query_unpaged(gossip.clone(), &[]).await {
            Ok(result) => {
                let rows: Vec<GossipRow> = result
                    .into_rows_result()?
                    .rows::<GossipRow>()?
                    .collect::<std::result::Result<_, _>>()?;
                if peers_ready(&rows, self.peers, self.keyspace, self.indexes) {
                    return Ok(Seen::Ready);
                }
            }
            Err(e) if cannot_ask(&e) => *ask_gossip = false,
            Err(_) => {}
        }
        Ok(if *ask_gossip {
            Seen::NotYet
        } else {
            Seen::Ready
        })
    }
}

/// A row of `system_views.gossip_info`: a peer's RPC address, its native address and port,
/// and its index statuses as it gossips them (`{"ks":{"index":3}}`).
type GossipRow = (Option<String>, Option<String>, Option<String>);

/// The index status code of a built index (`Index.Status.BUILD_SUCCEEDED`).
const BUILD_SUCCEEDED: &str = "3";

/// Whether the gossip `rows` of one node show every index of `indexes` built on every node of
/// `peers`.
fn peers_ready(rows: &[GossipRow], peers: &[SocketAddr], keyspace: &str, indexes: &[&str]) -> bool {
    peers.iter().all(|peer| {
        let row = rows.iter().find(|(rpc, native, _)| {
            native.as_deref() == Some(peer.to_string().as_str())
                || (native.is_none() && rpc.as_deref() == Some(peer.ip().to_string().as_str()))
        });
        let Some((_, _, Some(status))) = row else {
            return false;
        };
        indexes
            .iter()
            .all(|i| index_status(status, keyspace, i) == Some(BUILD_SUCCEEDED))
    })
}

/// The status of `keyspace.index` in a gossiped `index_status` (`{"ks":{"index":3},..}`).
/// Keyspace and index names are letters, digits and `_`, so they need no unescaping.
fn index_status<'s>(status: &'s str, keyspace: &str, index: &str) -> Option<&'s str> {
    let ks = status.find(&format!("\"{keyspace}\":{{"))?;
    let rest = &status[ks + keyspace.len() + 4..];
    let indexes = &rest[..rest.find('}')?];
    let at = indexes.find(&format!("\"{index}\":"))?;
    let value = &indexes[at + index.len() + 3..];
    let end = value.find(',').unwrap_or(value.len());
    Some(value[..end].trim())
}

/// Whether the node says the table does not exist (not Cassandra 5) or the role may not
/// read it: nothing to wait for that this session can see.
fn cannot_ask(e: &ExecutionError) -> bool {
    let ExecutionError::LastAttemptError(RequestAttemptError::DbError(db, _)) = e else {
        return false;
    };
    matches!(db, DbError::Invalid | DbError::Unauthorized)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gossiped_index_statuses() {
        let status = r#"{"system":{"PaxosUncommittedIndex":3},"shop":{"by_email":3,"by_tag":1}}"#;
        assert_eq!(index_status(status, "shop", "by_email"), Some("3"));
        assert_eq!(index_status(status, "shop", "by_tag"), Some("1"));
        assert_eq!(index_status(status, "shop", "by"), None);
        assert_eq!(index_status(status, "sho", "by_email"), None);
        assert_eq!(index_status(status, "other", "by_email"), None);
        let peer = |ip: &str| SocketAddr::new(ip.parse().expect("ip"), 9042);
        let row = |ip: &str, s: &str| -> GossipRow {
            (Some(ip.into()), Some(format!("{ip}:9042")), Some(s.into()))
        };
        let rows = [
            row("127.0.0.1", status),
            row("127.0.0.2", r#"{"shop":{"by_email":3}}"#),
        ];
        let peers = [peer("127.0.0.1"), peer("127.0.0.2")];
        assert!(peers_ready(&rows, &peers, "shop", &["by_email"]));
        assert!(!peers_ready(&rows, &peers, "shop", &["by_email", "by_tag"]));
        assert!(
            !peers_ready(&rows[..1], &peers, "shop", &["by_email"]),
            "a peer not heard of"
        );
    }
}
