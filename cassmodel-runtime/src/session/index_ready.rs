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
use std::time::{Duration, Instant};

use scylla::client::session::Session;
use scylla::errors::{DbError, ExecutionError, RequestAttemptError};
use scylla::policies::load_balancing::{NodeIdentifier, SingleTargetLoadBalancingPolicy};
use scylla::statement::Consistency;
use scylla::statement::unprepared::Statement;

use crate::error::{Error, Result};

/// How long [`Db::create_table`](crate::Db::create_table) and, unless told otherwise,
/// [`Migrator::apply`](crate::migrate::Migrator::apply) wait for a new index.
pub const INDEX_WAIT: Duration = Duration::from_secs(120);

/// The first pause between two looks at a node; it doubles up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(1);

/// Waits until every connected node reports each index of `indexes` (names in `keyspace`,
/// unquoted) queryable, for at most `limit`. An index a node does not know yet (the schema
/// change has not reached it) counts as not queryable.
///
/// A cluster without the `system_views.sai_column_indexes` table (not Cassandra 5), or a role
/// that may not read it, cannot be asked: then this returns at once, as before.
pub async fn await_queryable(
    session: &Session,
    keyspace: &str,
    indexes: &[&str],
    limit: Duration,
) -> Result<()> {
    if indexes.is_empty() || limit.is_zero() {
        return Ok(());
    }
    let deadline = Instant::now() + limit;
    let cluster = session.get_cluster_state();
    let mut waiting: Vec<SocketAddr> = Vec::new();
    let mut query = Statement::new(
        "SELECT index_name, is_queryable FROM system_views.sai_column_indexes \
         WHERE keyspace_name = ?",
    );
    query.set_consistency(Consistency::One);
    for node in cluster.get_nodes_info().iter().filter(|n| n.is_connected()) {
        let addr = SocketAddr::new(node.address.ip(), node.address.port());
        // A node-local virtual table: asked of each node in turn.
        let mut statement = query.clone();
        statement.set_load_balancing_policy(Some(SingleTargetLoadBalancingPolicy::new(
            NodeIdentifier::Node(node.clone()),
            None,
        )));
        let mut pause = FIRST_POLL;
        loop {
            match session.query_unpaged(statement.clone(), (keyspace,)).await {
                Ok(result) => {
                    let rows: Vec<(String, Option<bool>)> = result
                        .into_rows_result()?
                        .rows::<(String, Option<bool>)>()?
                        .collect::<std::result::Result<_, _>>()?;
                    let ready = |name: &&str| {
                        rows.iter()
                            .any(|(n, queryable)| n == name && *queryable == Some(true))
                    };
                    if indexes.iter().all(ready) {
                        break;
                    }
                }
                Err(e) if cannot_ask(&e) => return Ok(()),
                // A timeout or a lost connection: look again until the deadline.
                Err(_) => {}
            }
            if Instant::now() + pause > deadline {
                waiting.push(addr);
                break;
            }
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

/// Whether the node says the table does not exist (not Cassandra 5) or the role may not
/// read it: nothing to wait for that this session can see.
fn cannot_ask(e: &ExecutionError) -> bool {
    let ExecutionError::LastAttemptError(RequestAttemptError::DbError(db, _)) = e else {
        return false;
    };
    matches!(db, DbError::Invalid | DbError::Unauthorized)
}
