//! Integration tests against the real node: they start it if needed (and leave it running), and
//! fail, never skip, when it cannot start.

use std::time::Duration;

use cassmodel_node::{NodeConfig, Started};
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;

fn cfg() -> NodeConfig {
    match NodeConfig::try_from_env() {
        Ok(cfg) => cfg,
        Err(e) => panic!("invalid CASSMODEL_* environment: {e}"),
    }
}

async fn session(cfg: &NodeConfig) -> Session {
    match SessionBuilder::new()
        .known_node(cfg.contact_point())
        .connection_timeout(Duration::from_secs(10))
        .build()
        .await
    {
        Ok(s) => s,
        Err(e) => panic!("cannot connect to {}: {e}", cfg.contact_point()),
    }
}

#[tokio::test]
async fn ensure_running_then_write_and_read_a_row() {
    let cfg = cfg();
    match cassmodel_node::ensure_running(&cfg).await {
        Ok(Started::Reused) => {}
        Ok(Started::StartedNow { pid }) => eprintln!("started Cassandra, pid {pid}"),
        Err(e) => panic!("the Cassandra node did not start: {e}"),
    }
    assert!(cassmodel_node::is_ready(&cfg).await);
    let version = cassmodel_node::release_version(&cfg).await;
    assert_eq!(
        version.as_deref(),
        Some(cfg.version.as_str()),
        "release_version of the node on {}",
        cfg.contact_point()
    );

    let s = session(&cfg).await;
    let ddl = [
        "CREATE KEYSPACE IF NOT EXISTS cassmodel_node_it WITH replication = \
         {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE IF NOT EXISTS cassmodel_node_it.kv (k text PRIMARY KEY, v int)",
    ];
    for q in ddl {
        if let Err(e) = s.query_unpaged(q, &[]).await {
            panic!("{q}: {e}");
        }
    }
    let key = format!("row-{}", std::process::id());
    if let Err(e) = s
        .query_unpaged(
            "INSERT INTO cassmodel_node_it.kv (k, v) VALUES (?, ?)",
            (key.as_str(), 42_i32),
        )
        .await
    {
        panic!("insert: {e}");
    }
    let result = match s
        .query_unpaged(
            "SELECT v FROM cassmodel_node_it.kv WHERE k = ?",
            (key.as_str(),),
        )
        .await
    {
        Ok(r) => r,
        Err(e) => panic!("select: {e}"),
    };
    let rows = match result.into_rows_result() {
        Ok(r) => r,
        Err(e) => panic!("select returned no rows result: {e}"),
    };
    match rows.single_row::<(i32,)>() {
        Ok((v,)) => assert_eq!(v, 42),
        Err(e) => panic!("select: {e}"),
    }
}

/// The blocking form works from plain synchronous code.
#[test]
fn ensure_running_blocking_from_sync_code() {
    if let Err(e) = cassmodel_node::ensure_running_blocking(&cfg()) {
        panic!("the Cassandra node did not start: {e}");
    }
}

/// The blocking form does not panic when called on a runtime thread.
#[tokio::test]
async fn ensure_running_blocking_inside_a_runtime() {
    if let Err(e) = cassmodel_node::ensure_running_blocking(&cfg()) {
        panic!("the Cassandra node did not start: {e}");
    }
}
