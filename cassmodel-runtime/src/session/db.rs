//! [`Db`]: a scylla session, the keyspaces its tables live in, and its prepared statements
//! ([`StatementCache`], which the execution layer fills).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use cassmodel_schema::validate_schema_name;
use scylla::client::session::Session;

use super::cache::StatementCache;
use super::index_ready::{INDEX_WAIT, await_queryable};
use super::schema_watch;
use super::trace::{in_span, statement_span};
use super::version::{self, ServerVersion};
use super::warnings::{ServerWarning, Warnings};
use crate::config::attempts;
use crate::config::options::DEFAULT_MAX_REQUEST_SIZE;
use crate::error::errors::{Error, Result};
use crate::mapping::table::Table;
use crate::schema::ddl::{self, Replication};

struct Inner {
    session: Arc<Session>,
    keyspace: Option<String>,
    keyspace_map: HashMap<String, String>,
    /// The largest serialized values a write may send ([`ConnectOptions::max_request_size`]).
    max_request_size: usize,
    /// Every statement prepared on this `Db`, by shape.
    statements: StatementCache,
    /// The program's handler of server warnings, shared by every `Db` of the connection.
    warnings: Warnings,
    /// The cluster's oldest Cassandra release, once read ([`Db::server_version`]).
    server: OnceLock<ServerVersion>,
}

impl schema_watch::Watched for Inner {
    fn session(&self) -> &Session {
        &self.session
    }
    fn prepared(&self) -> Vec<Arc<scylla::statement::prepared::PreparedStatement>> {
        self.statements.prepared()
    }
}

/// A connection to a cluster, with the keyspace that tables without
/// `#[cass(keyspace = "...")]` live in.
///
/// Every statement cassmodel runs is prepared once per `Db` (and statement shape) and
/// reused; values are always bound. Cloning a `Db` is cheap and shares the cache.
///
/// ```no_run
/// # async fn f() -> cassmodel_runtime::Result<()> {
/// use cassmodel_runtime::{Db, Replication};
/// let db = Db::connect_from_env().await?.with_keyspace("blog")?;
/// db.create_keyspace("blog", &Replication::Simple(1)).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("keyspace", &self.inner.keyspace)
            .field("keyspace_map", &self.inner.keyspace_map)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Wraps an existing scylla session.
    pub fn new(session: Session) -> Self {
        Self::from_parts(
            Arc::new(session),
            None,
            HashMap::new(),
            DEFAULT_MAX_REQUEST_SIZE,
        )
    }

    pub(crate) fn from_parts(
        session: Arc<Session>,
        keyspace: Option<String>,
        keyspace_map: HashMap<String, String>,
        max_request_size: usize,
    ) -> Self {
        Self::sharing(
            session,
            keyspace,
            keyspace_map,
            max_request_size,
            Warnings::default(),
        )
    }

    /// A `Db` on the same session and warning handler as this one, with its own statement
    /// cache (the statements name the keyspaces).
    fn derived(
        &self,
        keyspace: Option<String>,
        keyspace_map: HashMap<String, String>,
        max_request_size: usize,
    ) -> Self {
        Self::sharing(
            Arc::clone(&self.inner.session),
            keyspace,
            keyspace_map,
            max_request_size,
            self.inner.warnings.clone(),
        )
    }

    fn sharing(
        session: Arc<Session>,
        keyspace: Option<String>,
        keyspace_map: HashMap<String, String>,
        max_request_size: usize,
        warnings: Warnings,
    ) -> Self {
        let inner = Arc::new(Inner {
            session,
            keyspace,
            keyspace_map,
            max_request_size,
            statements: StatementCache::new(),
            warnings,
            server: OnceLock::new(),
        });
        schema_watch::spawn(Arc::downgrade(&inner));
        Db { inner }
    }

    /// Hands every warning the server attaches to an answer to `handler`, on this `Db` and
    /// every `Db` of the same connection ([`with_keyspace`](Self::with_keyspace) and the
    /// others): a batch over `batch_size_warn_threshold`, a read over the tombstone warning
    /// threshold, an aggregation without a partition key, a replication factor above a data
    /// centre's node count, a guardrail. Each is also logged as a `tracing` warn event
    /// (fields `statement`, `table`, `warning`), with or without a handler. A warning names
    /// the statement's kind and table, never its values. Replaces an earlier handler.
    ///
    /// ```no_run
    /// # async fn f() -> cassmodel_runtime::Result<()> {
    /// use cassmodel_runtime::Db;
    /// let db = Db::connect_from_env().await?;
    /// db.on_server_warning(|w| eprintln!("Cassandra warns: {w}"));
    /// # Ok(()) }
    /// ```
    pub fn on_server_warning(&self, handler: impl Fn(&ServerWarning) + Send + Sync + 'static) {
        self.inner.warnings.set(Arc::new(handler));
    }

    /// Where the execution layer reports the warnings of each answer.
    pub(crate) fn warnings(&self) -> &Warnings {
        &self.inner.warnings
    }

    /// A `Db` on the same session whose writes may send up to `bytes` of values in one
    /// request (default 16 MiB, Cassandra's `native_transport_max_frame_size`): larger writes
    /// are refused with [`Error::RequestTooLarge`] before anything is sent. Raise it only with
    /// the server's limit. [`ConnectOptions::max_request_size`](crate::ConnectOptions::max_request_size) sets it when connecting.
    pub fn with_max_request_size(&self, bytes: usize) -> Self {
        self.derived(
            self.inner.keyspace.clone(),
            self.inner.keyspace_map.clone(),
            bytes,
        )
    }

    /// The largest serialized values a write may send ([`Db::with_max_request_size`]).
    pub fn max_request_size(&self) -> usize {
        self.inner.max_request_size
    }

    /// A `Db` on the same session whose tables without a keyspace of their own live in
    /// `keyspace`. It has its own statement cache (the statements name the keyspace).
    pub fn with_keyspace(&self, keyspace: &str) -> Result<Self> {
        validate_schema_name(keyspace)
            .map_err(|e| Error::Invalid(format!("keyspace `{keyspace}`: {e}")))?;
        Ok(self.derived(
            Some(keyspace.to_owned()),
            self.inner.keyspace_map.clone(),
            self.inner.max_request_size,
        ))
    }

    /// A `Db` on the same session where tables declared in keyspace `from` use keyspace `to`
    /// instead: for tests that isolate fixed-keyspace models, or for per-environment names.
    pub fn map_keyspace(&self, from: &str, to: &str) -> Result<Self> {
        validate_schema_name(to).map_err(|e| Error::Invalid(format!("keyspace `{to}`: {e}")))?;
        let mut map = self.inner.keyspace_map.clone();
        map.insert(from.to_owned(), to.to_owned());
        Ok(self.derived(
            self.inner.keyspace.clone(),
            map,
            self.inner.max_request_size,
        ))
    }

    /// The prepared statements of this `Db`.
    pub(crate) fn statements(&self) -> &StatementCache {
        &self.inner.statements
    }

    /// The underlying scylla session, for statements cassmodel does not generate.
    pub fn session(&self) -> &Session {
        &self.inner.session
    }

    /// The default keyspace, if any.
    pub fn keyspace(&self) -> Option<&str> {
        self.inner.keyspace.as_deref()
    }

    /// The keyspace `T` lives in on this `Db`: its declared keyspace (after
    /// [`map_keyspace`](Self::map_keyspace)) or the default one.
    pub fn keyspace_of<T: Table>(&self) -> Result<&str> {
        self.resolve_keyspace(T::schema().keyspace)
            .ok_or(Error::NoKeyspace {
                table: T::schema().name,
            })
    }

    /// A declared keyspace after mapping, or the default one.
    pub fn resolve_keyspace<'a>(&'a self, declared: Option<&'a str>) -> Option<&'a str> {
        match declared {
            Some(k) => Some(self.inner.keyspace_map.get(k).map_or(k, String::as_str)),
            None => self.inner.keyspace.as_deref(),
        }
    }

    /// The oldest Cassandra release among the cluster's nodes (`release_version` of
    /// `system.local` and `system.peers`), read on the first call and kept; `None` when no
    /// node tells one.
    ///
    /// ```no_run
    /// # async fn f(db: &cassmodel_runtime::Db) -> cassmodel_runtime::Result<()> {
    /// use cassmodel_runtime::ServerVersion;
    /// if db.server_version().await? < Some(ServerVersion::CASSANDRA_5_0) {
    ///     println!("no vector search on this cluster");
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn server_version(&self) -> Result<Option<ServerVersion>> {
        if let Some(v) = self.inner.server.get() {
            return Ok(Some(*v));
        }
        let read = version::read(&self.inner.session).await?;
        Ok(read.map(|v| *self.inner.server.get_or_init(|| v)))
    }

    /// `e`, or [`Error::Unsupported`] around it when the refused statement uses `feature`
    /// and the cluster runs a Cassandra older than 5.0 (the server's words would be a syntax
    /// error, an unknown function or table). Called on the error path only.
    pub(crate) async fn told_by_version(&self, feature: Option<String>, e: Error) -> Error {
        let Some(feature) = feature else {
            return e;
        };
        match self.server_version().await {
            Ok(Some(server)) if server < ServerVersion::CASSANDRA_5_0 => Error::Unsupported {
                feature,
                needs: "5.0",
                server: server.to_string(),
                source: Box::new(e),
            },
            _ => e,
        }
    }

    /// Runs one unprepared statement without values (DDL). On a cluster older than
    /// Cassandra 5.0, a refused statement that uses what 5.0 added (an SAI index, the vector
    /// type, a mask) fails with [`Error::Unsupported`].
    pub async fn execute_ddl(&self, cql: &str) -> Result<()> {
        let span = || {
            let span = statement_span(
                self.session(),
                "ddl",
                || (self.keyspace().unwrap_or_default(), ""),
                None,
            );
            span.record("cql", cql);
            span
        };
        let ddl = || async {
            let res = self.inner.session.query_unpaged(cql, &[]).await;
            let res = match res {
                Err(e) if agreement_timed_out(&e) => {
                    // The coordinator applied the statement; the other nodes have not all
                    // taken it yet (a busy cluster). One more of the driver's waits before
                    // the statement's error is the caller's.
                    tracing::warn!(
                        cql,
                        "no schema agreement yet after a DDL statement; waiting once more"
                    );
                    return match self.inner.session.await_schema_agreement().await {
                        Ok(_) => Ok(()),
                        Err(_) => Err(Error::execute(
                            &self.inner.session,
                            cql,
                            e,
                            attempts::take(),
                        )),
                    };
                }
                res => {
                    res.map_err(|e| Error::execute(&self.inner.session, cql, e, attempts::take()))
                }
            };
            let res = match res {
                Ok(res) => res,
                Err(e) => {
                    let feature = version::ddl_feature(cql).map(str::to_owned);
                    return Err(Box::pin(self.told_by_version(feature, e)).await);
                }
            };
            self.warnings().check(&res, cql, None);
            Ok(())
        };
        in_span(span, ddl).await
    }

    /// Waits until every node reports the same schema version (the driver's wait, up to its
    /// schema agreement timeout).
    #[cfg(feature = "migrate")]
    pub(crate) async fn await_schema_agreement(&self) -> Result<()> {
        self.inner
            .session
            .await_schema_agreement()
            .await
            .map(drop)
            .map_err(|e| Error::Driver(Box::new(e)))
    }

    /// `CREATE KEYSPACE IF NOT EXISTS` (after [`map_keyspace`](Self::map_keyspace)).
    pub async fn create_keyspace(&self, name: &str, replication: &Replication) -> Result<()> {
        let name = self
            .inner
            .keyspace_map
            .get(name)
            .map_or(name, String::as_str);
        validate_schema_name(name)
            .map_err(|e| Error::Invalid(format!("keyspace `{name}`: {e}")))?;
        self.execute_ddl(&ddl::create_keyspace(name, replication))
            .await
    }

    /// Waits until every node this `Db` is connected to can answer reads that use the
    /// storage-attached indexes `indexes` of `keyspace` (names as the server stores them),
    /// for at most `limit`; past it, [`Error::IndexNotReady`] names the indexes and the nodes.
    /// An index is built after `CREATE INDEX` returns, node by node; until then a read that
    /// uses it fails with `INDEX_NOT_AVAILABLE`. (On a cluster without Cassandra 5.0's
    /// `system_views.sai_column_indexes` this returns at once.)
    pub async fn await_indexes(
        &self,
        keyspace: &str,
        indexes: &[&str],
        limit: std::time::Duration,
    ) -> Result<()> {
        await_queryable(self.session(), keyspace, indexes, limit).await
    }

    /// [`await_indexes`](Self::await_indexes), calling `on_wait` with the time waited so far
    /// at each pause (a migration's progress).
    #[cfg(feature = "migrate")]
    pub(crate) async fn await_indexes_reporting(
        &self,
        keyspace: &str,
        indexes: &[&str],
        limit: std::time::Duration,
        on_wait: &(dyn Fn(std::time::Duration) + Sync),
    ) -> Result<()> {
        super::index_ready::await_queryable_reporting(
            self.session(),
            keyspace,
            indexes,
            limit,
            on_wait,
        )
        .await
    }

    /// Creates `T`'s user-defined types (dependencies first), then its table, then its
    /// indexes (`#[cass(index)]`), each `IF NOT EXISTS`. The driver waits for schema
    /// agreement after each statement; then, if the table has indexes, this waits until
    /// every node can answer reads that use them (at most two minutes, else
    /// [`Error::IndexNotReady`]).
    pub async fn create_table<T: Table>(&self) -> Result<()> {
        let ks = self.keyspace_of::<T>()?;
        for cql in ddl::create_table_with_types(T::schema(), ks) {
            self.execute_ddl(&cql).await?;
        }
        let indexes: Vec<&str> = T::schema().indexes().map(|(_, i)| i.name).collect();
        self.await_indexes(ks, &indexes, INDEX_WAIT).await
    }
}

/// Each statement `db` has prepared: its CQL, and whether its results are read with the
/// column descriptions it was prepared with (the server asked to leave them out), sorted by
/// the CQL. For the project's tests (`__private::testing`).
#[cfg(feature = "testing")]
pub fn prepared_statements(db: &Db) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = db
        .statements()
        .prepared()
        .iter()
        .map(|ps| {
            (
                ps.get_statement().to_owned(),
                ps.get_use_cached_result_metadata(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Whether a statement failed only in the driver's wait for every node to take its schema
/// change (the statement itself was applied).
fn agreement_timed_out(e: &scylla::errors::ExecutionError) -> bool {
    matches!(
        e,
        scylla::errors::ExecutionError::SchemaAgreementError(
            scylla::errors::SchemaAgreementError::Timeout(_)
        )
    )
}
