//! [`TestKeyspace`]: a fresh keyspace on a real Cassandra for one test of a user's crate.

use std::sync::atomic::{AtomicU32, Ordering};

use cassmodel_runtime::{ConnectOptions, Db, Replication};

use crate::cluster::{cluster_nodes, contact_points, start_cluster};
use crate::config::NodeConfig;
use crate::error::NodeError;
use crate::node::cluster_or_local_node;

/// A keyspace of its own for one test, on the local node (started or reused), on the cluster
/// `CASSMODEL_CONTACT_POINTS` names, or on the project's three-node cluster
/// ([`on_cluster`](Self::on_cluster)); a [`Db`] whose default keyspace it is.
///
/// Its name is new on every call (`t_<test>_<time>_<pid>_<n>`), so tests run in parallel, and
/// runs one after another, never see each other's rows. The keyspace is dropped when the
/// `TestKeyspace` is, at the end of the test, whether it passed or panicked (the drop waits
/// for it, on a connection of its own); [`drop`](Self::drop) does it explicitly and returns
/// its error. With `CASSMODEL_KEEP_TEST_KEYSPACES=1` in the environment, keyspaces are kept
/// for a look (`DESCRIBE KEYSPACE <name>`; the name is in the panic's output when the test
/// prints it).
///
/// ```text
/// // tests/orders.rs of your crate, with `cassmodel-node` and `tokio` as dev-dependencies
/// // (cassmodel's own `tests/fixture.rs` holds this test, run by its suite).
/// use cassmodel::CassTable;
/// use cassmodel_node::TestKeyspace;
///
/// #[derive(CassTable, Debug, PartialEq)]
/// struct Order {
///     #[partition_key]
///     customer: String,
///     #[clustering(desc)]
///     number: i32,
///     total: f64,
/// }
///
/// #[tokio::test]
/// async fn orders_read_back_newest_first() {
///     let ks = TestKeyspace::new("orders").await.expect("a Cassandra node");
///     let db = ks.db();
///     db.create_table::<Order>().await.expect("create");
///     for number in 1..=3 {
///         let order = Order { customer: "ada".into(), number, total: 9.5 };
///         db.insert(&order).await.expect("insert");
///     }
///     let orders = Order::select().customer("ada").fetch_all(db).await.expect("read");
///     assert_eq!(orders.iter().map(|o| o.number).collect::<Vec<_>>(), [3, 2, 1]);
/// } // the keyspace is dropped here, as it would be if an assertion had failed
/// ```
pub struct TestKeyspace {
    db: Db,
    name: String,
    /// How to connect again, for the drop at the end of a test whose runtime cannot run the
    /// `Db`'s connections any more (a panicking or finished test).
    options: ConnectOptions,
    /// Whether the keyspace is gone already ([`drop`](Self::drop)).
    dropped: bool,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

impl TestKeyspace {
    /// A new keyspace (one replica) for `test` on the cluster of `CASSMODEL_CONTACT_POINTS`
    /// when it is set, else on the local node, started if nothing answers on its address
    /// (the first start takes tens of seconds; later calls, from any process, reuse it).
    /// The other `CASSMODEL_*` settings (credentials, TLS, local data centre) apply.
    pub async fn new(test: &str) -> Result<Self, NodeError> {
        let options = cluster_or_local_node().await?;
        Self::create(options, test, 1).await
    }

    /// A new keyspace with three replicas for `test` on the project's three-node cluster
    /// (127.0.0.1-127.0.0.3, started or reused; the single local node must be stopped, as
    /// both take the same addresses): for a test that must hold with a node's data on the
    /// others too.
    pub async fn on_cluster(test: &str) -> Result<Self, NodeError> {
        let nodes = cluster_nodes(&NodeConfig::try_from_env()?);
        start_cluster(&nodes).await?;
        let options = ConnectOptions::from_env()?.contact_points(contact_points(&nodes));
        Self::create(options, test, 3).await
    }

    async fn create(options: ConnectOptions, test: &str, replicas: u32) -> Result<Self, NodeError> {
        let db = options
            .clone()
            .connect()
            .await
            .map_err(|e| fixture("connecting".into(), e))?;
        let name = unique_name(test);
        db.create_keyspace(&name, &Replication::Simple(replicas))
            .await
            .map_err(|e| fixture(format!("CREATE KEYSPACE {name}"), e))?;
        let db = db.with_keyspace(&name)?;
        Ok(TestKeyspace {
            db,
            name,
            options,
            dropped: false,
        })
    }

    /// The connection, with this keyspace as its default: tables without a keyspace of their
    /// own are created and read there.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// The keyspace's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Drops the keyspace and everything in it now, and says whether that failed (dropping
    /// the `TestKeyspace` does the same, and can only print a failure).
    pub async fn drop(mut self) -> Result<(), NodeError> {
        self.dropped = true;
        drop_keyspace(&self.db, &self.name).await
    }
}

/// `DROP KEYSPACE IF EXISTS name` on `db`.
async fn drop_keyspace(db: &Db, name: &str) -> Result<(), NodeError> {
    db.session()
        .query_unpaged(format!("DROP KEYSPACE IF EXISTS {name}"), ())
        .await
        .map_err(|e| fixture(format!("DROP KEYSPACE {name}"), e))?;
    Ok(())
}

impl Drop for TestKeyspace {
    /// Drops the keyspace, unless [`drop`](TestKeyspace::drop) did or
    /// `CASSMODEL_KEEP_TEST_KEYSPACES` is set. The test's own runtime cannot be used here (a
    /// `#[tokio::test]` runs on one thread, which is this one, dropping the test's future or
    /// unwinding its panic), so a thread of its own connects again and waits for the drop.
    fn drop(&mut self) {
        if self.dropped || keep_keyspaces() {
            return;
        }
        let (options, name) = (self.options.clone(), std::mem::take(&mut self.name));
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| fixture("starting a runtime".into(), e))?;
            runtime.block_on(async {
                let db = options
                    .connect()
                    .await
                    .map_err(|e| fixture("connecting".into(), e))?;
                drop_keyspace(&db, &name).await
            })
        })
        .join();
        match dropped {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("cassmodel_node::TestKeyspace: {e}"),
            Err(_) => eprintln!("cassmodel_node::TestKeyspace: the drop of its keyspace panicked"),
        }
    }
}

/// Whether `CASSMODEL_KEEP_TEST_KEYSPACES` asks to keep test keyspaces (set, not `0`).
fn keep_keyspaces() -> bool {
    std::env::var_os("CASSMODEL_KEEP_TEST_KEYSPACES").is_some_and(|v| !v.is_empty() && v != "0")
}

fn fixture(what: String, e: impl std::fmt::Display) -> NodeError {
    NodeError::Fixture {
        what,
        reason: e.to_string(),
    }
}

/// A keyspace (or role) name no other test, process or run uses: `t_<test>_<time>_<pid>_<n>`,
/// the test's name cut to its letters, digits and `_` (lower case, at most 20); at most 48
/// characters, as Cassandra's keyspace names.
pub fn unique_name(test: &str) -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 100_000_000)
        .unwrap_or_default();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut test: String = test
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    test.truncate(20);
    format!("t_{test}_{millis}_{}_{n}", std::process::id() % 10_000)
}

#[cfg(test)]
mod tests {
    use super::unique_name;

    #[test]
    fn names_are_valid_keyspace_names_and_unique() {
        let a = unique_name("Orders read-back: newest first, with a very long name");
        let b = unique_name("Orders read-back: newest first, with a very long name");
        assert_ne!(a, b);
        for n in [&a, &b] {
            assert!(n.len() <= 48, "{n}");
            assert!(n.starts_with("t_ordersreadbacknewest_"), "{n}");
            assert!(cassmodel_schema_name_ok(n), "{n}");
        }
    }

    fn cassmodel_schema_name_ok(n: &str) -> bool {
        n.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    }
}
