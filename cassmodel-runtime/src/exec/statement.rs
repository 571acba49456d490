//! The statement a query runs: found in the `Db`'s cache by its shape, or, on first use, its
//! CQL written ([`cql`](crate::statement::cql)) and prepared; with per-query options applied
//! ([`Stmt`]).

use std::any::TypeId;
use std::sync::Arc;

use scylla::statement::Consistency;
use scylla::statement::prepared::PreparedStatement;

use crate::error::errors::{Error, Result};
use crate::mapping::projection::{Computed, Projection};
use crate::mapping::table::Table;
use crate::schema::model::TableSchema;
use crate::session::cache::{CacheKey, PerTable};
use crate::session::db::Db;
use crate::session::trace::{Returned, in_span, statement_span};
use crate::statement::cql;
use crate::statement::options::QueryOptions;
use crate::statement::spec::{Spec, Statement};

/// The statement kept under `key` in `db`'s cache, or, on first use, the text `cql` writes,
/// prepared there and marked idempotent or not. The text is written only on a miss. A
/// statement on `table` that the server refuses to prepare while it uses what Cassandra 5.0
/// added is told as [`Error::Unsupported`] on an older cluster.
pub(crate) async fn cached(
    db: &Db,
    table: &'static TableSchema,
    computed: &[Computed],
    key: CacheKey,
    idempotent: bool,
    cql: impl FnOnce(&CacheKey) -> Result<String>,
) -> Result<Arc<PreparedStatement>> {
    if let Some(ps) = db.statements().get(&key) {
        // A read's statement found here (its second use, or an options' copy's) is kept in
        // its table's slot too, where the next reads without options borrow it
        // ([`read_statement`]).
        db.statements().keep_query(table.ordinal(), &key, &ps);
        return Ok(ps);
    }
    let text = cql(&key)?;
    let feature = match &key {
        CacheKey::Query { spec, .. } | CacheKey::Mirror { spec, .. } => {
            spec.cassandra_5_feature(table, computed)
        }
        _ => Spec::default().cassandra_5_feature(table, computed),
    };
    // The first call of a shape prepares it: the driver's prepare is a large future, boxed so
    // that every query's future (which holds this one) stays small and cheap to move on the
    // hot path, where the statement is in the cache.
    match Box::pin(db.statements().prepare(db.session(), key, text, idempotent)).await {
        Ok(ps) => Ok(ps),
        Err(e) => Err(Box::pin(db.told_by_version(feature, e)).await),
    }
}

/// The statement of `spec` (a SELECT, DELETE or UPDATE of `T`, reading rows as `R`) on `db`.
pub(crate) async fn prepare<T: Table, R: Projection<T>>(
    db: &Db,
    spec: Spec,
    what: Statement,
) -> Result<Arc<PreparedStatement>> {
    prepare_query::<T, R>(db, query_key::<T, R>(spec, what)).await
}

/// The cache key of `spec`, a statement of `what` on `T` reading rows as `R`.
fn query_key<T: Table, R: Projection<T>>(spec: Spec, what: Statement) -> CacheKey {
    CacheKey::Query {
        table: TypeId::of::<T>(),
        row: TypeId::of::<R>(),
        what,
        spec,
    }
}

/// [`prepare`] of the query whose key is `key` ([`query_key`]).
async fn prepare_query<T: Table, R: Projection<T>>(
    db: &Db,
    key: CacheKey,
) -> Result<Arc<PreparedStatement>> {
    let (idempotent, what) = match &key {
        CacheKey::Query { spec, what, .. } => (spec.is_idempotent(), *what),
        _ => return Err(Error::Invalid("statement cache key mismatch".into())),
    };
    cached(db, T::schema(), R::computed(), key, idempotent, |key| {
        let CacheKey::Query { spec, .. } = key else {
            return Err(Error::Invalid("statement cache key mismatch".into()));
        };
        let schema = T::schema();
        let ks = db.keyspace_of::<T>()?;
        Ok(match what {
            Statement::Delete => cql::delete(schema, ks, spec),
            Statement::Update => cql::update(schema, ks, spec),
            Statement::Select => cql::select(schema, ks, (R::columns(), R::computed()), spec),
            Statement::Count => cql::count(schema, ks, spec),
        })
    })
    .await
}

/// The future `make` makes, a statement of `kind` on `T`'s table, run inside its span
/// ([`in_span`]), with its `shape` (written only when spans are wanted:
/// [`spans_enabled`](crate::session::trace::spans_enabled)). `in_span`'s own future, not one
/// awaiting it: a future that awaits another holds it, and moved it (with the driver's
/// request future inside, about 4 KB) into itself when first polled: two copies per get
/// (counted with `benches/callgrind_ops.sh`, BENCHMARKS.md).
#[inline(always)] // built in place: see `session::trace::in_span`
pub(crate) fn traced<T: Table, F, X>(
    db: &Db,
    kind: &'static str,
    consistency: Option<Consistency>,
    shape: Option<String>,
    make: impl FnOnce() -> F,
) -> impl Future<Output = Result<X>>
where
    F: Future<Output = Result<X>>,
    X: Returned,
{
    in_span(move || span_of::<T>(db, kind, consistency, shape), make)
}

/// The span of a statement of `kind` on `T`'s table.
fn span_of<T: Table>(
    db: &Db,
    kind: &'static str,
    consistency: Option<Consistency>,
    shape: Option<String>,
) -> tracing::Span {
    let names = || (db.keyspace_of::<T>().unwrap_or_default(), T::schema().name);
    let span = statement_span(db.session(), kind, names, consistency);
    if let Some(shape) = shape {
        span.record("shape", shape);
    }
    span
}

/// A statement from the [`Db`]'s cache, or a copy of it carrying per-query options.
pub(crate) struct Stmt {
    cached: Arc<PreparedStatement>,
    /// Boxed: a `Stmt` lives in the future of every query while its request runs, and a copy
    /// is the rarer case (an option set on the query); inline, its 136 bytes would be in every
    /// one of those futures, moved with them.
    custom: Option<Box<PreparedStatement>>,
}

impl Stmt {
    /// `cached` with `options` applied (copied only when an option is set).
    pub(crate) fn with(cached: Arc<PreparedStatement>, options: &QueryOptions) -> Self {
        let custom = options.apply(&cached).map(Box::new);
        Stmt { cached, custom }
    }

    /// The statement of `spec` for table `T` read as `R`, with `options`.
    pub(crate) async fn prepare<T: Table, R: Projection<T>>(
        db: &Db,
        spec: Spec,
        what: Statement,
        options: &QueryOptions,
    ) -> Result<Self> {
        Ok(Self::with(prepare::<T, R>(db, spec, what).await?, options))
    }

    pub(crate) fn get(&self) -> &PreparedStatement {
        self.custom.as_deref().unwrap_or(&self.cached)
    }

    pub(crate) fn cql(&self) -> &str {
        self.get().get_statement()
    }
}

/// A read's statement: borrowed from its table's slot in the [`Db`]'s cache (a read without
/// options, once its statement is kept there: no lock, no reference count), or a [`Stmt`].
pub(crate) enum ReadStatement<'d> {
    /// Kept in its table's slot ([`StatementCache::kept_query`](crate::session::cache::StatementCache::kept_query)).
    Kept(&'d PreparedStatement),
    /// From the cache's map, or prepared now, with the query's options (a `Stmt` is 16
    /// bytes: unboxed, as before the slots, so that a table's read past its slots
    /// allocates nothing more).
    Made(Stmt),
}

impl ReadStatement<'_> {
    pub(crate) fn get(&self) -> &PreparedStatement {
        match self {
            ReadStatement::Kept(ps) => ps,
            ReadStatement::Made(st) => st.get(),
        }
    }
}

/// Read statement `key` of `T` borrowed from its table's slot, when the read has no options
/// and the statement is kept there.
fn kept_read<'d, T: Table>(
    db: &'d Db,
    key: &CacheKey,
    options: &QueryOptions,
) -> Option<ReadStatement<'d>> {
    if !options.is_default() {
        return None;
    }
    let ps = db.statements().kept_query(T::schema().ordinal(), key)?;
    Some(ReadStatement::Kept(ps))
}

/// The statement of the SELECT `spec` of `T` reading rows as `R`, with `options`:
/// [`ReadStatement::Kept`] when it has no options and its statement is in its table's slot.
pub(crate) async fn read_statement<'d, T: Table, R: Projection<T>>(
    db: &'d Db,
    spec: Spec,
    options: &QueryOptions,
) -> Result<ReadStatement<'d>> {
    let key = query_key::<T, R>(spec, Statement::Select);
    if let Some(kept) = kept_read::<T>(db, &key, options) {
        return Ok(kept);
    }
    let ps = prepare_query::<T, R>(db, key).await?;
    Ok(ReadStatement::Made(Stmt::with(ps, options)))
}

/// The statement that reads whole rows of `T` by `=` on its first `n` primary-key columns
/// (the partition key, then clustering columns): the shape of `get` and `partition`. Its
/// cache key is fixed per table and `n`, so no [`Spec`] is built or hashed per call. With the
/// full key it is also kept in the table's slot for `get` ([`PerTable::Get`]).
pub(crate) async fn key_prefix_statement<T: Table>(
    db: &Db,
    n: usize,
    options: &QueryOptions,
) -> Result<Stmt> {
    let key = CacheKey::KeyPrefix {
        table: TypeId::of::<T>(),
        n,
    };
    let ps = cached(db, T::schema(), &[], key, true, |_| {
        let schema = T::schema();
        let spec = Spec::key_prefix(schema, n);
        Ok(cql::select(
            schema,
            db.keyspace_of::<T>()?,
            (schema.all_columns(), &[]),
            &spec,
        ))
    })
    .await?;
    if n == T::schema().primary_key().len() {
        db.statements().keep::<T>(PerTable::Get, &ps);
    }
    Ok(Stmt::with(ps, options))
}

/// [`key_prefix_statement`] without options, borrowed from its table's slot once kept there
/// ([`ReadStatement`]).
pub(crate) async fn key_prefix_read<'d, T: Table>(
    db: &'d Db,
    n: usize,
    options: &QueryOptions,
) -> Result<ReadStatement<'d>> {
    let key = CacheKey::KeyPrefix {
        table: TypeId::of::<T>(),
        n,
    };
    if let Some(kept) = kept_read::<T>(db, &key, options) {
        return Ok(kept);
    }
    let st = key_prefix_statement::<T>(db, n, options).await?;
    Ok(ReadStatement::Made(st))
}
