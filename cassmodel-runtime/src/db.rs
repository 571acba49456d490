//! [`Db`]: a scylla session plus cassmodel's keyspace resolution and prepared-statement cache.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use cassmodel_schema::validate_schema_name;
use scylla::client::session::Session;
use scylla::statement::prepared::PreparedStatement;

use crate::connect::{ConnectOptions, env_var, split_list};
use crate::ddl::{self, Replication};
use crate::error::{Error, Result};
use crate::table::Table;

/// Environment variable with the contact points of the cluster to use: comma-separated
/// `host:port` pairs, e.g. `10.0.0.1:9042,10.0.0.2:9042`. Unset means the local node
/// (127.0.0.1 on the port in `CASSMODEL_NODE_PORT`, default 9042).
pub const CONTACT_POINTS_ENV: &str = "CASSMODEL_CONTACT_POINTS";

/// The contact points from [`CONTACT_POINTS_ENV`], or `None` when it is unset or empty.
pub fn contact_points_from_env() -> Option<Vec<String>> {
    let points = split_list(&env_var(CONTACT_POINTS_ENV)?);
    (!points.is_empty()).then_some(points)
}

/// The local node's contact point: `$CASSMODEL_NODE_HOST:$CASSMODEL_NODE_PORT` (default
/// `127.0.0.1:9042`), as `cassmodel-node` starts it.
pub fn local_contact_point() -> String {
    format!(
        "{}:{}",
        env_var("CASSMODEL_NODE_HOST")
            .as_deref()
            .unwrap_or("127.0.0.1"),
        env_var("CASSMODEL_NODE_PORT").as_deref().unwrap_or("9042")
    )
}

/// Identifies one prepared statement in a [`Db`]'s cache.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum CacheKey {
    /// The INSERT of a whole row of a table, with its options.
    Insert {
        table: TypeId,
        ttl: bool,
        timestamp: bool,
        if_not_exists: bool,
    },
    /// A query of `table` returning rows of type `row` (`what`: select, delete, update).
    Query {
        table: TypeId,
        row: TypeId,
        what: crate::query::Statement,
        spec: crate::query::Spec,
    },
    /// Whole rows of a table by `=` on its first `n` primary-key columns (`get`, `partition`).
    KeyPrefix { table: TypeId, n: usize },
    /// The token-range scan of a table.
    Scan { table: TypeId, row: TypeId },
}

struct Inner {
    session: Arc<Session>,
    keyspace: Option<String>,
    keyspace_map: HashMap<String, String>,
    /// The largest serialized values a write may send ([`ConnectOptions::max_request_size`]).
    max_request_size: usize,
    statements: RwLock<HashMap<CacheKey, Arc<PreparedStatement>, rustc_hash::FxBuildHasher>>,
    /// The INSERT of each derived table without a condition, once prepared, in its four
    /// shapes (with or without TTL, with or without write time), at
    /// [`insert_slot`]`(`[`TableSchema::ordinal`](crate::TableSchema)`, ..)`: read without a
    /// lock or a reference count, and borrowed for as long as the `Db`, so that an insert's
    /// future holds the driver's request future and a reference, no `Arc` of ours. The
    /// `TypeId` guards against two descriptions sharing a number.
    inserts: Box<[OnceLock<(TypeId, PreparedStatement)>]>,
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

/// The INSERT shapes without a condition kept per table: with or without TTL, with or
/// without write time.
const INSERT_SHAPES: usize = 4;

/// Empty slots for the INSERT shapes of every derived table of the program (registered by
/// the derive), numbered by their descriptions' ordinals ([`insert_slot`]).
fn insert_slots() -> Box<[OnceLock<(TypeId, PreparedStatement)>]> {
    let tables = inventory::iter::<crate::migrate::TableEntry>
        .into_iter()
        .map(|entry| (entry.0)().ordinal() + 1)
        .max()
        .unwrap_or(0);
    (0..tables * INSERT_SHAPES)
        .map(|_| OnceLock::new())
        .collect()
}

/// Where the INSERT of table number `ordinal` in this shape is kept.
fn insert_slot(ordinal: usize, ttl: bool, timestamp: bool) -> usize {
    ordinal * INSERT_SHAPES + usize::from(ttl) * 2 + usize::from(timestamp)
}

impl Db {
    /// Wraps an existing scylla session.
    pub fn new(session: Session) -> Self {
        Self::from_parts(
            Arc::new(session),
            None,
            HashMap::new(),
            crate::connect::DEFAULT_MAX_REQUEST_SIZE,
        )
    }

    pub(crate) fn from_parts(
        session: Arc<Session>,
        keyspace: Option<String>,
        keyspace_map: HashMap<String, String>,
        max_request_size: usize,
    ) -> Self {
        Db {
            inner: Arc::new(Inner {
                session,
                keyspace,
                keyspace_map,
                max_request_size,
                statements: RwLock::new(HashMap::default()),
                inserts: insert_slots(),
            }),
        }
    }

    /// A `Db` on the same session whose writes may send up to `bytes` of values in one
    /// request (default 16 MiB, Cassandra's `native_transport_max_frame_size`): larger writes
    /// are refused with [`Error::RequestTooLarge`] before anything is sent. Raise it only with
    /// the server's limit. [`ConnectOptions::max_request_size`] sets it when connecting.
    pub fn with_max_request_size(&self, bytes: usize) -> Self {
        Self::from_parts(
            Arc::clone(&self.inner.session),
            self.inner.keyspace.clone(),
            self.inner.keyspace_map.clone(),
            bytes,
        )
    }

    /// The largest serialized values a write may send ([`Db::with_max_request_size`]).
    pub fn max_request_size(&self) -> usize {
        self.inner.max_request_size
    }

    /// Connects to the given `host:port` contact points, with the other settings at their
    /// defaults ([`ConnectOptions::new`]); [`ConnectOptions`] sets credentials, TLS, the local
    /// data centre, time-outs and consistency.
    pub async fn connect(contact_points: &[String]) -> Result<Self> {
        ConnectOptions::new()
            .contact_points(contact_points.iter().cloned())
            .connect()
            .await
    }

    /// Connects with the settings of the environment ([`ConnectOptions::from_env`]: contact
    /// points, credentials, TLS, local data centre, time-outs, consistency, keyspace), to the
    /// local node when `CASSMODEL_CONTACT_POINTS` is unset. (This does not start a node:
    /// `cargo run -p cassmodel-node -- start` does.)
    pub async fn connect_from_env() -> Result<Self> {
        ConnectOptions::from_env()?.connect().await
    }

    /// A `Db` on the same session whose tables without a keyspace of their own live in
    /// `keyspace`. It has its own statement cache (the statements name the keyspace).
    pub fn with_keyspace(&self, keyspace: &str) -> Result<Self> {
        validate_schema_name(keyspace)
            .map_err(|e| Error::Invalid(format!("keyspace `{keyspace}`: {e}")))?;
        Ok(Self::from_parts(
            Arc::clone(&self.inner.session),
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
        Ok(Self::from_parts(
            Arc::clone(&self.inner.session),
            self.inner.keyspace.clone(),
            map,
            self.inner.max_request_size,
        ))
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

    /// Runs one unprepared statement without values (DDL).
    pub async fn execute_ddl(&self, cql: &str) -> Result<()> {
        self.inner
            .session
            .query_unpaged(cql, &[])
            .await
            .map_err(|e| Error::execute(cql, e))?;
        Ok(())
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
        crate::index_ready::await_queryable(
            self.session(),
            ks,
            &indexes,
            crate::index_ready::INDEX_WAIT,
        )
        .await
    }

    /// The prepared statement for `key`, preparing `cql(&key)` on first use and marking
    /// whether the driver may retry it.
    pub(crate) async fn prepared(
        &self,
        key: CacheKey,
        idempotent: bool,
        cql: impl FnOnce(&CacheKey) -> Result<String>,
    ) -> Result<Arc<PreparedStatement>> {
        if let Some(p) = self.read_cache(&key) {
            return Ok(p);
        }
        let text = cql(&key)?;
        // The first call of a shape prepares it: the driver's prepare is a large future,
        // boxed so that every query's future (which holds this one) stays small and cheap to
        // move on the hot path, where the statement is in the cache.
        Box::pin(self.prepare_into_cache(key, text, idempotent)).await
    }

    async fn prepare_into_cache(
        &self,
        key: CacheKey,
        text: String,
        idempotent: bool,
    ) -> Result<Arc<PreparedStatement>> {
        let mut prepared = self
            .inner
            .session
            .prepare(text.as_str())
            .await
            .map_err(|source| Error::Prepare {
                cql: text,
                source: Box::new(source),
            })?;
        prepared.set_is_idempotent(idempotent);
        let prepared = Arc::new(prepared);
        let mut cache = self
            .inner
            .statements
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(Arc::clone(cache.entry(key).or_insert(prepared)))
    }

    fn read_cache(&self, key: &CacheKey) -> Option<Arc<PreparedStatement>> {
        self.inner
            .statements
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    /// The INSERT of table `T` without a condition (every column, then TTL and write time
    /// if asked for), if this `Db` has prepared it.
    pub(crate) fn prepared_insert<T: Table>(
        &self,
        ttl: bool,
        timestamp: bool,
    ) -> Option<&PreparedStatement> {
        let slot = insert_slot(T::schema().ordinal(), ttl, timestamp);
        let (table, ps) = self.inner.inserts.get(slot)?.get()?;
        (*table == TypeId::of::<T>()).then_some(ps)
    }

    /// Keeps `ps`, an INSERT of `T` without a condition, for
    /// [`prepared_insert`](Self::prepared_insert).
    pub(crate) fn keep_insert<T: Table>(&self, ttl: bool, timestamp: bool, ps: &PreparedStatement) {
        let slot = insert_slot(T::schema().ordinal(), ttl, timestamp);
        if let Some(slot) = self.inner.inserts.get(slot) {
            // Cloned only while the slot is empty: batches and inserts with options come here
            // on every call. Already set: the same statement, or another table's with the
            // same number.
            slot.get_or_init(|| (TypeId::of::<T>(), ps.clone()));
        }
    }

    /// Writes a whole row: an upsert (`INSERT` replaces the row's columns). `None` fields are
    /// left unset (no tombstone; an existing value stays): see [`Insert`](crate::Insert) for
    /// TTL, write time, `IF NOT EXISTS` and writing nulls.
    ///
    /// The future is not boxed (unlike [`QueryFuture`](crate::QueryFuture)): after the first
    /// insert of a table on this `Db` (which prepares its statement), an insert allocates
    /// nothing beyond what the driver does.
    // Here rather than beside `Insert`, so that a compile error about it names `Db::insert`.
    pub fn insert<'d, T: crate::Insertable>(
        &'d self,
        row: &'d T,
    ) -> impl Future<Output = crate::Result<()>> + Send + 'd {
        crate::Insert::new(row).execute(self)
    }
}
