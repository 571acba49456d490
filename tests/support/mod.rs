//! Shared set-up of the integration tests: a real Cassandra node (started once per test run
//! and reused by every test binary, or the cluster in `CASSMODEL_CONTACT_POINTS`) and a fresh
//! keyspace per test, so that tests run in parallel without seeing each other's data.

#![allow(dead_code)] // each test binary uses a different part of this module

use cassmodel::{Db, Replication, write::Insertable};
use futures::{StreamExt, TryStreamExt};

/// Inserts `rows`, 64 in flight, made as they are sent (a large load need not sit in memory);
/// panics on the first failure.
pub async fn insert_all<T: Insertable>(db: &Db, rows: impl IntoIterator<Item = T>) {
    futures::stream::iter(rows)
        .map(|row| async move { db.insert(&row).await })
        .buffer_unordered(64)
        .try_collect::<()>()
        .await
        .unwrap_or_else(|e| panic!("inserting the test rows: {e}"));
}

/// The table, column and detail of a value refused before it was sent: a
/// `RowError::Refused`, of kind `InvalidRequest`. Any other error fails the test.
pub fn refused(err: &cassmodel::Error) -> (&str, &str, &str) {
    use cassmodel::{Error, ErrorKind, errors::RowError};
    assert_eq!(err.kind(), ErrorKind::InvalidRequest, "{err}");
    match err {
        Error::Row(RowError::Refused {
            table,
            column,
            detail,
            ..
        }) => (table, column, detail),
        other => panic!("expected RowError::Refused, got {other:?}"),
    }
}

/// The indexes of `keyspace.table` on the node, as `system_schema.indexes` lists them: each
/// name with the option `option` (`target`, `similarity_function`), sorted by name.
pub async fn index_options(
    db: &Db,
    keyspace: &str,
    table: &str,
    option: &str,
) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = db
        .session()
        .query_unpaged(
            "SELECT index_name, options FROM system_schema.indexes WHERE keyspace_name = ? \
             AND table_name = ?",
            (keyspace, table),
        )
        .await
        .expect("indexes")
        .into_rows_result()
        .expect("rows")
        .rows::<(String, std::collections::HashMap<String, String>)>()
        .expect("typed")
        .map(|r| {
            let (name, options) = r.expect("row");
            (name, options.get(option).cloned())
        })
        .collect();
    out.sort();
    out
}

/// A connection whose default keyspace is new and belongs to one test.
pub struct TestDb {
    pub db: Db,
    /// Every keyspace this test created (default first), dropped by [`TestDb::drop_all`].
    pub keyspaces: Vec<String>,
}

/// A keyspace (or role) name no other test or run uses: `t_<test>_<time>_<pid>_<n>`.
pub use cassmodel_node::unique_name;

/// The password-protected node (127.0.0.4, CassandraAuthorizer), started if nothing answers
/// there.
pub async fn password_node() -> cassmodel_node::NodeConfig {
    let base = cassmodel_node::NodeConfig::try_from_env()
        .unwrap_or_else(|e| panic!("CASSMODEL_* environment: {e}"));
    let cfg = base.password_protected();
    if let Err(e) = cassmodel_node::ensure_running(&cfg).await {
        panic!(
            "the password-protected node on {} did not start: {e}",
            cfg.contact_point()
        );
    }
    cfg
}

/// Connects to the cluster (starting the local node if needed) and creates a keyspace for
/// `test`. Panics with instructions when no node can be had: a test that needs Cassandra
/// never passes without one.
pub async fn test_db(test: &str) -> TestDb {
    test_db_with(test, 1).await
}

/// [`test_db`] with `replicas` copies of every row.
async fn test_db_with(test: &str, replicas: u32) -> TestDb {
    let options = match cassmodel_node::cluster_or_local_node().await {
        Ok(o) => o,
        Err(e) => panic!(
            "this test needs a Cassandra node and none could be started: {e}\n\
             Start one with `cargo run -p cassmodel-node -- start`, or set \
             CASSMODEL_CONTACT_POINTS=host:port to use an existing cluster."
        ),
    };
    let db = match options.connect().await {
        Ok(db) => db,
        Err(e) => panic!("cannot connect ({options:?}): {e}"),
    };
    let ks = unique_name(test);
    create(&db, &ks, replicas).await;
    let db = db.with_keyspace(&ks).expect("valid keyspace name");
    TestDb {
        db,
        keyspaces: vec![ks],
    }
}

/// [`test_db`] with a keyspace of three replicas when `CASSMODEL_CONTACT_POINTS` names three
/// or more nodes (one on the local node): for the tests that must hold on a cluster as users
/// run one, with a node's data on the others too.
pub async fn test_db_replicated(test: &str) -> TestDb {
    test_db_with(test, replicas()).await
}

/// The replicas of [`test_db_replicated`]'s keyspace: 3 when `CASSMODEL_CONTACT_POINTS` names
/// three or more nodes, else 1.
#[allow(dead_code)]
pub fn replicas() -> u32 {
    let points = std::env::var("CASSMODEL_CONTACT_POINTS").unwrap_or_default();
    let nodes = points.split(',').filter(|p| !p.trim().is_empty()).count();
    if nodes >= 3 { 3 } else { 1 }
}

/// Creates keyspace `ks` with `replicas` copies of every row: `SimpleStrategy`, or, with a
/// local data centre (`CASSMODEL_LOCAL_DC`), `NetworkTopologyStrategy` with the copies in that
/// data centre (at most one per node of it), as a user of DC-aware routing writes it: with
/// `SimpleStrategy` a key's only replica may be in another data centre, and `LOCAL_QUORUM`
/// is then unavailable.
async fn create(db: &Db, ks: &str, replicas: u32) {
    let replication = match std::env::var("CASSMODEL_LOCAL_DC") {
        Ok(dc) if !dc.trim().is_empty() => {
            let state = db.session().get_cluster_state();
            let nodes = state
                .get_nodes_info()
                .iter()
                .filter(|n| n.datacenter.as_deref() == Some(dc.as_str()))
                .count();
            let copies = replicas
                .min(u32::try_from(nodes).unwrap_or(u32::MAX))
                .max(1);
            Replication::network_topology([(dc, copies)])
        }
        _ => Replication::Simple(replicas),
    };
    db.create_keyspace(ks, &replication)
        .await
        .unwrap_or_else(|e| panic!("CREATE KEYSPACE {ks}: {e}"));
}

impl TestDb {
    /// Maps a model's fixed keyspace (e.g. `customer`) to a new one of this test.
    pub async fn map_keyspace(&mut self, declared: &str) {
        let ks = self.sub_keyspace(declared);
        create(&self.db, &ks, 1).await;
        self.db = self
            .db
            .map_keyspace(declared, &ks)
            .expect("valid keyspace name");
        self.keyspaces.push(ks);
    }

    /// A `Db` on a new keyspace of this test with `replicas` copies of every row (`SimpleStrategy`),
    /// e.g. more than the cluster has nodes, so that ALL and QUORUM cannot be met.
    pub async fn with_replicas(&mut self, replicas: u32) -> Db {
        let ks = self.sub_keyspace(&format!("rf{replicas}"));
        create(&self.db, &ks, replicas).await;
        self.keyspaces.push(ks.clone());
        self.db.with_keyspace(&ks).expect("valid keyspace name")
    }

    /// The name of another keyspace of this test: `<its keyspace>_<suffix>`, cut to the 48
    /// characters Cassandra takes.
    fn sub_keyspace(&self, suffix: &str) -> String {
        format!("{}_{suffix}", self.keyspaces[0])
            .chars()
            .take(48)
            .collect()
    }

    /// The default keyspace of this test.
    pub fn keyspace(&self) -> &str {
        &self.keyspaces[0]
    }

    /// Drops the test's keyspaces (call at the end of a test that passed). First, every
    /// keyspace is pulled (`cassmodel pull`): every table and type a test of the suite
    /// leaves must be expressible as a model, with nothing left undeclared.
    pub async fn drop_all(self) {
        self.drop_all_pulled(true).await;
    }

    /// [`drop_all`](Self::drop_all) for a test that made something cassmodel cannot model
    /// on purpose (pull's own tests): pulling must still work.
    pub async fn drop_all_unmodelled(self) {
        self.drop_all_pulled(false).await;
    }

    async fn drop_all_pulled(self, modelled: bool) {
        for ks in &self.keyspaces {
            let options = cassmodel_cli::pull::PullOptions::new();
            let pulled = cassmodel_cli::pull::pull(&self.db, ks, &options)
                .await
                .unwrap_or_else(|e| panic!("cassmodel pull of {ks}: {e}"));
            assert!(
                !modelled || pulled.warnings.is_empty(),
                "cassmodel pull of {ks} cannot model everything the test made:\n{}",
                pulled.warnings.join("\n")
            );
            if modelled && let Some(dir) = std::env::var_os(PULL_DUMP) {
                dump(&self.db, ks, &pulled, std::path::Path::new(&dir)).await;
            }
        }
        for ks in &self.keyspaces {
            // On a loaded cluster the drop can outlast the request timeout or the schema
            // agreement that follows it (seen on the three-node cluster after a view's
            // build): the statement is idempotent, so it is sent again, three times at most.
            let drop = format!("DROP KEYSPACE IF EXISTS {ks}");
            let mut tries = 1;
            while let Err(e) = self.db.execute_ddl(&drop).await {
                assert!(tries < 3, "DROP KEYSPACE {ks}, {tries} tries: {e}");
                eprintln!("DROP KEYSPACE {ks} (try {tries}): {e}; trying again");
                tries += 1;
            }
        }
    }
}

/// Set by `cargo xtask test`: a directory where [`TestDb::drop_all`] leaves, for each keyspace
/// it drops, what `tests/pull_suite.rs` needs to check that keyspace's pulled models after the
/// suite: `<keyspace>.rs` (the module `cassmodel pull` writes), `<keyspace>.cql` (the server's
/// `DESCRIBE KEYSPACE`: the keyspace as the test made it) and `<keyspace>.tables` (the table
/// structs, one per line).
pub const PULL_DUMP: &str = "CASSMODEL_PULL_DUMP";

/// The statements of the server's `DESCRIBE KEYSPACE ks`: the keyspace, then its types,
/// tables, indexes and views, each as CQL that makes it.
pub async fn describe(db: &Db, ks: &str) -> Vec<String> {
    db.session()
        .query_unpaged(format!("DESCRIBE KEYSPACE {ks}"), ())
        .await
        .unwrap_or_else(|e| panic!("DESCRIBE KEYSPACE {ks}: {e}"))
        .into_rows_result()
        .expect("DESCRIBE returns rows")
        .rows::<(String, String, String, String)>()
        .expect("keyspace_name, type, name, create_statement")
        .map(|r| r.map(|(_, _, _, statement)| statement))
        .collect::<Result<Vec<_>, _>>()
        .expect("DESCRIBE rows")
}

async fn dump(db: &Db, ks: &str, pulled: &cassmodel_cli::pull::Pulled, dir: &std::path::Path) {
    let described = describe(db, ks).await;
    let tables: Vec<&str> = pulled
        .structs
        .iter()
        .filter(|s| s.is_table)
        .map(|s| s.ident.as_str())
        .collect();
    for (ext, text) in [
        ("rs", pulled.module.clone()),
        ("cql", described.join("\n\n")),
        ("tables", tables.join("\n")),
    ] {
        let path = dir.join(format!("{ks}.{ext}"));
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// Whether the cluster runs a Cassandra older than 5.0 and `m`'s models, which use what 5.0
/// added (SAI or vector indexes, vector types, masks), are refused there as they must be:
/// `plan`, `validate` and `apply` each fail with `MigrationError::Unsupported` naming the
/// server's version. A test of those features checks this first and ends when it is true
/// (on 4.1 its point is the refusal); on 5.0 it is false and the test goes on.
#[allow(dead_code)]
pub async fn refused_before_cassandra_5(db: &Db, m: &cassmodel::migrate::Migrator) -> bool {
    let server = server(db).await;
    if server >= cassmodel::schema::ServerVersion::CASSANDRA_5_0 {
        return false;
    }
    let refused = |what: &str, e: cassmodel::migrate::MigrationError| {
        let text = e.to_string();
        assert!(
            matches!(e, cassmodel::migrate::MigrationError::Unsupported { .. })
                && text.contains(&format!("the cluster runs Cassandra {server}")),
            "{what} on Cassandra {server}: not refused by version: {text}"
        );
    };
    refused("plan", m.plan().await.expect_err("plan"));
    refused("validate", m.validate().await.expect_err("validate"));
    refused("apply", m.apply().await.expect_err("apply"));
    eprintln!("Cassandra {server}: the models are refused by name, as they must be");
    true
}

/// `db.create_table::<T>()` for a table with storage-attached indexes: `false` once created
/// (Cassandra 5.0 and later); before 5.0, `true` once the refusal is checked
/// (`ErrorKind::Unsupported`, naming SAI and the server's version), and the test ends there.
#[allow(dead_code)]
pub async fn create_table_refused_before_cassandra_5<T: cassmodel::Table>(db: &Db) -> bool {
    let server = server(db).await;
    let created = db.create_table::<T>().await;
    if server >= cassmodel::schema::ServerVersion::CASSANDRA_5_0 {
        created.expect("create");
        return false;
    }
    let e = created.expect_err("an SAI index before Cassandra 5.0");
    let text = e.to_string();
    assert!(
        e.kind() == cassmodel::ErrorKind::Unsupported
            && text.starts_with("a storage-attached index")
            && text.contains(&format!("the cluster runs Cassandra {server}")),
        "{text}"
    );
    true
}

/// The Cassandra release the cluster runs (its oldest node's).
#[allow(dead_code)]
pub async fn server(db: &Db) -> cassmodel::schema::ServerVersion {
    db.server_version()
        .await
        .expect("the server's version")
        .expect("a release_version")
}

/// A migrator of `models` that creates keyspaces with one replica.
pub fn migrator(db: &Db, models: cassmodel::migrate::Models) -> cassmodel::migrate::Migrator {
    cassmodel::migrate::Migrator::new(db, models).replication(cassmodel::Replication::Simple(1))
}

/// A migrator of `models` that creates keyspaces with [`replicas`] replicas.
///
/// For views: on the three-node cluster, three replicas: a view built from existing rows is built by each
/// node from its own base rows, and a node that learns of the new view after another node has
/// sent it view rows drops them ("Attempting to mutate non-existant table", seen in CI at
/// `730dc7c`: 31 of 40 rows of a site after 60 s with one replica). With three, each node has
/// every base row and a quorum read repairs a replica that dropped some (README, "Materialized
/// views").
pub fn replicated_migrator(
    db: &Db,
    models: cassmodel::migrate::Models,
) -> cassmodel::migrate::Migrator {
    cassmodel::migrate::Migrator::new(db, models)
        .replication(cassmodel::Replication::Simple(replicas()))
}

/// What plain CQL `cql` reads with `values`, through the driver alone: what a test compares
/// cassmodel's reads and descriptions with.
async fn plain(
    db: &Db,
    cql: impl Into<cassmodel::scylla::statement::unprepared::Statement>,
    values: impl cassmodel::scylla::serialize::row::SerializeRow,
) -> cassmodel::scylla::response::query_result::QueryRowsResult {
    db.session()
        .query_unpaged(cql, values)
        .await
        .expect("plain CQL")
        .into_rows_result()
        .expect("rows")
}

/// The rows [`plain`] CQL reads.
pub async fn plain_rows<R>(
    db: &Db,
    cql: impl Into<cassmodel::scylla::statement::unprepared::Statement>,
    values: impl cassmodel::scylla::serialize::row::SerializeRow,
) -> Vec<R>
where
    R: for<'f, 'm> cassmodel::scylla::deserialize::row::DeserializeRow<'f, 'm>,
{
    plain(db, cql, values)
        .await
        .rows::<R>()
        .expect("the rows' types")
        .collect::<Result<_, _>>()
        .expect("rows read")
}

/// The one row [`plain`] CQL reads, or the test fails.
pub async fn plain_row<R>(
    db: &Db,
    cql: impl Into<cassmodel::scylla::statement::unprepared::Statement>,
    values: impl cassmodel::scylla::serialize::row::SerializeRow,
) -> R
where
    R: for<'f, 'm> cassmodel::scylla::deserialize::row::DeserializeRow<'f, 'm>,
{
    plain(db, cql, values)
        .await
        .single_row::<R>()
        .expect("one row")
}

/// The migration command of `models` (`migrate <args>`) on the test's node: its exit code,
/// and what it printed (stdout, then stderr).
pub async fn migrate_command(
    models: cassmodel::migrate::Models,
    args: &[&str],
) -> (cassmodel_cli::Exit, String) {
    let points = cassmodel_node::cluster_or_local_node()
        .await
        .expect("node")
        .get_contact_points()
        .join(",");
    let mut argv = vec!["migrate", "--contact-points", &points];
    argv.extend_from_slice(args);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let exit = cassmodel_cli::run(argv, models, &mut out, &mut err).await;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&err)
    );
    (exit, text)
}
