//! Batches built from the same typed statements as single writes.
//!
//! - [`Batch::logged`] (the default kind): all statements apply or none, across partitions and
//!   tables, through the batch log. For keeping denormalised tables in step.
//! - [`Batch::unlogged`]: no batch log; for several writes to one partition.
//! - [`Batch::counter`]: counter updates only. Counter and other statements cannot be
//!   mixed: the compiler refuses it (`RegularStatement` / `CounterStatement`).
//!
//! A batch with a lightweight transaction must stay in one partition of one table; since
//! partitions are known only from the values, that is checked before the batch is sent, and
//! a batch that breaks it is refused with an error that names the tables and keys.

use std::any::TypeId;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::writers::RowWriter;
use scylla::statement::batch::{Batch as DriverBatch, BatchStatement, BatchType};
use scylla::statement::prepared::PreparedStatement;

use super::insert::{InsertValues, Insertable, insert_statement};
use super::mirror;
use super::result::QueryFuture;
use super::send;
use super::statement::prepare;
use super::write::{applied, check_request_size, refuse_bad_lwt, serialize_for};
use crate::error::errors::{Error, Result};
use crate::mapping::table::{Columns, RowFields, Table, write_column};
use crate::session::db::Db;
use crate::session::mirror::MirrorTable;
use crate::session::trace::{in_span, statement_span};
use crate::statement::options::QueryOptions;
use crate::statement::spec::{Op, Spec, Statement};
use crate::statement::state::QueryState;
use crate::statement::values::QueryValues;

type PrepareFuture<'d> = Pin<Box<dyn Future<Output = Result<Arc<PreparedStatement>>> + Send + 'd>>;
type MirrorFuture<'s> =
    Pin<Box<dyn Future<Output = Result<Option<Box<dyn BatchEntry + 's>>>> + Send + 's>>;

/// One statement of a batch: how to prepare it, and its values.
#[doc(hidden)]
pub trait BatchEntry: SerializeRow + Send + Sync {
    /// The prepared statement (from the [`Db`]'s cache).
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d>;
    /// The table written.
    fn table(&self) -> (TypeId, &'static str);
    /// Whether the statement is a lightweight transaction (a plain write is not).
    fn is_lwt(&self) -> bool {
        false
    }
    /// Whether it may be retried (a plain write may).
    fn is_idempotent(&self) -> bool {
        true
    }
    /// The same write to the old table of a key change, when this table has dual writes.
    fn mirror<'s>(&'s self, _db: &'s Db) -> MirrorFuture<'s> {
        Box::pin(std::future::ready(Ok(None)))
    }
}

/// A typed statement that can go in a logged or unlogged batch: an insert, or an update or
/// delete of a non-counter table with its key complete.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot go in a logged or unlogged batch",
    label = "not a complete statement of a regular table",
    note = "a batch takes complete statements: give the key the statement needs (the whole primary key for an update) before adding it",
    note = "counter updates go in `Batch::counter()`, which takes nothing else"
)]
pub trait RegularStatement<'a> {
    /// The statement as a batch entry.
    #[doc(hidden)]
    fn into_entry(self) -> Box<dyn BatchEntry + 'a>;
}

/// A typed statement that can go in a counter batch: an update or delete of a counter table
/// with its whole primary key.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot go in a counter batch",
    label = "not a complete counter update",
    note = "a counter batch takes only counter updates (`.increment_<column>(n)` with the whole primary key); other statements go in `Batch::logged()` or `Batch::unlogged()`"
)]
pub trait CounterStatement<'a> {
    /// The statement as a batch entry.
    #[doc(hidden)]
    fn into_entry(self) -> Box<dyn BatchEntry + 'a>;
}

/// Logged and unlogged batches.
pub struct Regular;
/// Counter batches.
pub struct Counters;

/// A batch of typed statements.
///
/// ```no_run
/// # use cassmodel::{Batch, CassTable, Db};
/// # #[derive(CassTable)] struct ByItem { #[partition_key] item: i32, #[clustering] user: i32 }
/// # #[derive(CassTable)] struct ByUser { #[partition_key] user: i32, #[clustering] item: i32 }
/// # async fn f(db: &Db) -> cassmodel::Result<()> {
/// // One like, written to both query tables or to neither.
/// Batch::logged()
///     .insert(&ByItem { item: 1, user: 2 })
///     .insert(&ByUser { user: 2, item: 1 })
///     .execute(db)
///     .await?;
/// # Ok(()) }
/// ```
#[must_use = "a batch does nothing until `execute` runs it"]
pub struct Batch<'a, C = Regular> {
    kind: BatchType,
    entries: Vec<Box<dyn BatchEntry + 'a>>,
    options: QueryOptions,
    _class: PhantomData<fn() -> C>,
}

impl<'a> Batch<'a, Regular> {
    /// A logged batch: all statements apply, or none.
    pub fn logged() -> Self {
        Self::of(BatchType::Logged)
    }

    /// An unlogged batch: no batch log, no atomicity across partitions. For writes to one
    /// partition.
    pub fn unlogged() -> Self {
        Self::of(BatchType::Unlogged)
    }

    /// Adds the insert of a whole row (`None` fields left unset).
    pub fn insert<T: Insertable>(mut self, row: &'a T) -> Self {
        self.entries.push(Box::new(InsertEntry {
            row: RowSource::Borrowed(row),
            nulls: false,
        }));
        self
    }

    /// Adds the insert of a row the batch owns.
    pub fn insert_owned<T: Insertable>(mut self, row: T) -> Self {
        self.entries.push(Box::new(InsertEntry {
            row: RowSource::Owned(row),
            nulls: false,
        }));
        self
    }

    /// Adds the insert of a row the batch owns that writes its `None` fields as nulls: the
    /// row replaces the one under its key (an entity's change).
    pub(crate) fn overwrite_owned<T: Insertable>(mut self, row: T) -> Self {
        self.entries.push(Box::new(InsertEntry {
            row: RowSource::Owned(row),
            nulls: true,
        }));
        self
    }

    /// Adds the delete of the row of table `T` whose key `row` holds (the stored row of an
    /// entity's table, read from its identity table). No dual writes: the caller refuses a
    /// table that has them.
    pub(crate) fn delete_key<T: Table>(
        mut self,
        row: Box<dyn RowFields + Send + Sync + 'a>,
    ) -> Self {
        self.entries.push(Box::new(DeleteKeyEntry::<T> {
            row,
            _table: PhantomData,
        }));
        self
    }

    /// Adds the delete of the row with the primary key of `row` (the batch owns it).
    pub fn delete_row<T: Insertable>(mut self, row: T) -> Self {
        self.entries.push(Box::new(DeleteRowEntry { row }));
        self
    }

    /// Adds an update or delete built with the table's query builder.
    // Named like the CQL it builds; a batch is not a sum, so `std::ops::Add` would mislead.
    #[allow(clippy::should_implement_trait)]
    pub fn add(mut self, statement: impl RegularStatement<'a>) -> Self {
        self.entries.push(statement.into_entry());
        self
    }
}

impl<'a> Batch<'a, Counters> {
    /// A counter batch: counter updates only.
    pub fn counter() -> Self {
        Self::of(BatchType::Counter)
    }

    /// Adds a counter update built with the table's query builder.
    #[allow(clippy::should_implement_trait)]
    pub fn add(mut self, statement: impl CounterStatement<'a>) -> Self {
        self.entries.push(statement.into_entry());
        self
    }
}

impl<'a, C> Batch<'a, C> {
    fn of(kind: BatchType) -> Self {
        Batch {
            kind,
            entries: Vec::new(),
            options: QueryOptions::default(),
            _class: PhantomData,
        }
    }

    /// Sets the batch's options (consistency, serial consistency, timeout).
    pub fn with_options(mut self, f: impl FnOnce(&mut QueryOptions)) -> Self {
        f(&mut self.options);
        self
    }

    /// Adds an entry built by the runtime (an entity's UPDATE of one table).
    pub(crate) fn entry(mut self, entry: Box<dyn BatchEntry + 'a>) -> Self {
        self.entries.push(entry);
        self
    }

    /// Gives every statement of the batch the write time `micros` (the protocol's default
    /// timestamp): the tables a conditional change writes after its condition held.
    pub(crate) fn at(mut self, micros: i64) -> Self {
        self.options.write_time = Some(micros);
        self
    }

    /// How many statements the batch holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the batch holds no statement.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Sends the batch. Returns whether it applied: always `true` without a lightweight
    /// transaction; with one, `false` when its condition did not hold (then nothing applied).
    pub fn execute<'d>(self, db: &'d Db) -> QueryFuture<'d, bool>
    where
        'a: 'd,
        C: 'd,
    {
        QueryFuture::new(in_span(|| batch_span(db), move || self.run(db)))
    }

    pub(crate) async fn run(self, db: &Db) -> Result<bool> {
        if self.entries.is_empty() {
            return Ok(true);
        }
        // The same writes to the old tables of key changes (dual writes).
        let mut mirrors = Vec::new();
        for e in &self.entries {
            if let Some(m) = e.mirror(db).await? {
                mirrors.push(m);
            }
        }
        let lwt = self.entries.iter().any(|e| e.is_lwt());
        let at = self.options.write_time;
        if mirrors.is_empty() {
            return send(db, self.kind, &self.entries, &self.options, at).await;
        }
        if lwt {
            // Decided on the tables written; when it applied, the old tables are written.
            if !send(db, self.kind, &self.entries, &self.options, None).await? {
                return Ok(false);
            }
            let at = Some(at.unwrap_or_else(super::mirror::write_time));
            return send(db, self.kind, &mirrors, &self.options, at)
                .await
                .map_err(|e| Error::DualWrite {
                    not_written: "the old table(s) of a key change".into(),
                    written: "the batch's tables".into(),
                    applied: true,
                    source: Box::new(e),
                });
        }
        // One batch: a logged batch writes both tables or neither.
        let all: Vec<&(dyn BatchEntry + '_)> = self
            .entries
            .iter()
            .map(|e| &**e as &(dyn BatchEntry + '_))
            .chain(mirrors.iter().map(|e| &**e as &(dyn BatchEntry + '_)))
            .collect();
        send(
            db,
            self.kind,
            &all,
            &self.options,
            Some(at.unwrap_or_else(super::mirror::write_time)),
        )
        .await
    }
}

/// Sends `entries` as one batch of `kind` (at write time `at`, if given). Returns whether
/// it applied: always `true` without a lightweight transaction.
async fn send<E: std::ops::Deref<Target = X>, X: BatchEntry + ?Sized>(
    db: &Db,
    kind: BatchType,
    entries: &[E],
    options: &QueryOptions,
    at: Option<i64>,
) -> Result<bool> {
    let mut driver = DriverBatch::new(kind);
    let mut prepared = Vec::with_capacity(entries.len());
    for e in entries {
        prepared.push(e.prepare(db).await?);
    }
    let lwt = entries.iter().any(|e| e.is_lwt());
    if lwt {
        check_one_partition(entries, &prepared)?;
    }
    driver.set_timestamp(at);
    for p in &prepared {
        driver.append_statement(BatchStatement::PreparedStatement(PreparedStatement::clone(
            p,
        )));
    }
    let idempotent =
        !lwt && !matches!(kind, BatchType::Counter) && entries.iter().all(|e| e.is_idempotent());
    driver.set_is_idempotent(idempotent);
    if let Some(c) = options.consistency {
        driver.set_consistency(c);
    }
    if let Some(sc) = options.serial_consistency {
        driver.set_serial_consistency(sc);
    }
    if let Some(t) = options.timeout {
        driver.set_request_timeout(Some(t));
    }
    // Serialized before sending, so that a batch over the request limit is refused here.
    let mut values = Vec::with_capacity(entries.len());
    let mut bytes = 0;
    for (e, p) in entries.iter().zip(&prepared) {
        let v = serialize_for(p, &AsRow(&**e))?;
        bytes += v.len();
        values.push(v);
    }
    if let Some(p) = prepared.first() {
        check_request_size(db, p, bytes)?;
    }
    if bytes > BATCH_SIZE_WARN {
        warn_batch_size(entries, &prepared, bytes);
    }
    let res = send::batch(db, &driver, values, "BATCH").await?;
    if !lwt {
        return Ok(true);
    }
    applied(res)
}

/// Cassandra's default `batch_size_warn_threshold` and `batch_size_fail_threshold`: a batch
/// over more than one partition whose data is larger draws a warning, or is refused.
const BATCH_SIZE_WARN: usize = 5 * 1024;
const BATCH_SIZE_FAIL: usize = 50 * 1024;

/// Says, before the batch is sent, that its `bytes` of values over several partitions pass
/// Cassandra's default batch size thresholds (a batch of one partition passes none): a
/// `tracing` warning with the sizes and how a large fan-out is written instead.
#[cold]
fn warn_batch_size<E: std::ops::Deref<Target = X>, X: BatchEntry + ?Sized>(
    entries: &[E],
    prepared: &[Arc<PreparedStatement>],
    bytes: usize,
) {
    let mut partitions: Vec<(&str, i64)> = Vec::new();
    for (e, p) in entries.iter().zip(prepared) {
        let table = p.get_table_spec().map_or("", |t| t.table_name());
        let Ok(Some(token)) = p.calculate_token(&AsRow(&**e)) else {
            return;
        };
        if !partitions.contains(&(table, token.value())) {
            partitions.push((table, token.value()));
        }
    }
    if partitions.len() < 2 {
        return;
    }
    let refused = if bytes > BATCH_SIZE_FAIL {
        " and its batch_size_fail_threshold (50 KiB): the server refuses it unless that is raised"
    } else {
        ": the server logs a warning and answers with it"
    };
    tracing::warn!(
        statements = entries.len(),
        partitions = partitions.len(),
        bytes,
        "a batch over {} partitions holds {bytes} bytes of values, above Cassandra's default \
         batch_size_warn_threshold (5 KiB){refused}; write a large fan-out (an entity with many \
         tables or elements) in several batches, or as single writes",
        partitions.len()
    );
}

/// A batch entry as the values of its statement.
struct AsRow<'e, X: ?Sized>(&'e X);

impl<X: BatchEntry + ?Sized> SerializeRow for AsRow<'_, X> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        self.0.serialize(ctx, writer)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A batch with a lightweight transaction must stay in one partition of one table.
fn check_one_partition<E: std::ops::Deref<Target = X>, X: BatchEntry + ?Sized>(
    entries: &[E],
    prepared: &[Arc<PreparedStatement>],
) -> Result<()> {
    let mut first: Option<((TypeId, &'static str), Vec<u8>)> = None;
    for (e, p) in entries.iter().zip(prepared) {
        let key = p
            .compute_partition_key(&AsRow(&**e))
            .map_err(|err| Error::Invalid(format!("cannot compute the partition key: {err}")))?
            .to_vec();
        let table = e.table();
        match &first {
            None => first = Some((table, key)),
            Some((t, k)) if t.0 != table.0 => {
                return Err(Error::Invalid(format!(
                    "a batch with a lightweight transaction must stay in one table, but it \
                     writes `{}` and `{}`: send the conditional statement on its own",
                    t.1, table.1
                )));
            }
            Some((t, k)) if *k != key => {
                return Err(Error::Invalid(format!(
                    "a batch with a lightweight transaction must stay in one partition, but \
                     it writes two partitions of `{}`: send the conditional statement on its own",
                    t.1
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

enum RowSource<'a, T> {
    Borrowed(&'a T),
    Owned(T),
}

impl<T> RowSource<'_, T> {
    fn get(&self) -> &T {
        match self {
            RowSource::Borrowed(r) => r,
            RowSource::Owned(r) => r,
        }
    }
}

struct InsertEntry<'a, T> {
    row: RowSource<'a, T>,
    /// Whether `None` fields are written as nulls (else left unset).
    nulls: bool,
}

impl<T: Insertable> SerializeRow for InsertEntry<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let row = self.row.get();
        match self.nulls {
            true => InsertValues::with_nulls(row).serialize(ctx, writer),
            false => InsertValues::unset_nulls(row).serialize(ctx, writer),
        }
    }

    fn is_empty(&self) -> bool {
        false
    }
}

impl<T: Insertable> BatchEntry for InsertEntry<'_, T> {
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d> {
        Box::pin(insert_statement::<T>(db, false, false, false))
    }

    fn table(&self) -> (TypeId, &'static str) {
        (TypeId::of::<T>(), T::schema().name)
    }

    fn mirror<'s>(&'s self, db: &'s Db) -> MirrorFuture<'s> {
        Box::pin(async move {
            let Some(m) = mirror::mirror_table::<T>(db).await? else {
                return Ok(None);
            };
            let entry: Box<dyn BatchEntry + 's> = Box::new(MirrorInsert {
                row: self.row.get(),
                nulls: self.nulls,
                m,
            });
            Ok(Some(entry))
        })
    }
}

/// An insert's half on the old table of a key change: the columns it has.
struct MirrorInsert<'s, T> {
    row: &'s T,
    nulls: bool,
    m: Arc<MirrorTable>,
}

impl<T: Table> SerializeRow for MirrorInsert<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        mirror::InsertValues {
            row: self.row,
            present: &self.m.present,
            unset_nulls: !self.nulls,
            ttl: None,
        }
        .serialize(ctx, writer)
    }

    fn is_empty(&self) -> bool {
        false
    }
}

impl<T: Table> BatchEntry for MirrorInsert<'_, T> {
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d> {
        Box::pin(mirror::prepare_insert::<T>(db, &self.m, Spec::default()))
    }

    fn table(&self) -> (TypeId, &'static str) {
        (TypeId::of::<MirrorTable>(), "the old table of a key change")
    }
}

/// A delete by the whole primary key of `row`.
struct DeleteRowEntry<T> {
    row: T,
}

impl<T: Table> SerializeRow for DeleteRowEntry<T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        KeyOf(&self.row).serialize(ctx, writer)
    }

    fn is_empty(&self) -> bool {
        T::schema().primary_key().is_empty()
    }
}

/// `column = ?` for each of `columns`.
fn by_key(columns: &[usize]) -> Spec {
    Spec {
        restrictions: columns.iter().map(|&i| (i as u16, Op::Eq)).collect(),
        ..Spec::default()
    }
}

impl<T: Table> BatchEntry for DeleteRowEntry<T> {
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d> {
        Box::pin(delete_statement::<T>(db))
    }

    fn table(&self) -> (TypeId, &'static str) {
        (TypeId::of::<T>(), T::schema().name)
    }

    fn mirror<'s>(&'s self, db: &'s Db) -> MirrorFuture<'s> {
        Box::pin(async move {
            let Some(m) = mirror::mirror_table::<T>(db).await? else {
                return Ok(None);
            };
            let key: Vec<usize> = m
                .partition_key
                .iter()
                .chain(&m.clustering)
                .copied()
                .collect();
            let entry: Box<dyn BatchEntry + 's> = Box::new(MirrorDeleteRow {
                row: &self.row,
                key,
                m,
            });
            Ok(Some(entry))
        })
    }
}

/// A delete of a row of `T` by the key another source of its cells holds (an entity's stored
/// row, read from its identity table).
struct DeleteKeyEntry<'a, T> {
    row: Box<dyn RowFields + Send + Sync + 'a>,
    _table: PhantomData<fn() -> T>,
}

impl<T> SerializeRow for DeleteKeyEntry<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        KeyOf(&*self.row).serialize(ctx, writer)
    }

    fn is_empty(&self) -> bool {
        self.row.table().primary_key().is_empty()
    }
}

impl<T: Table> BatchEntry for DeleteKeyEntry<'_, T> {
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d> {
        Box::pin(delete_statement::<T>(db))
    }

    fn table(&self) -> (TypeId, &'static str) {
        (TypeId::of::<T>(), T::schema().name)
    }
}

/// The prepared DELETE of one row of `T` by its whole primary key (once per `Db`).
pub(crate) async fn delete_statement<T: Table>(db: &Db) -> Result<Arc<PreparedStatement>> {
    prepare::<T, T>(db, by_key(T::schema().primary_key()), Statement::Delete).await
}

/// A row's primary-key columns, in key order: the values of a delete by its key.
pub(crate) struct KeyOf<'r, R: ?Sized>(pub(crate) &'r R);

impl<R: RowFields + ?Sized> SerializeRow for KeyOf<'_, R> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let key = self.0.table().primary_key();
        for (spec, &i) in ctx.columns().iter().zip(key) {
            write_column(self.0, i, spec, false, writer)?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.0.table().primary_key().is_empty()
    }
}

/// A row delete's half on the old table of a key change: by the old table's key.
struct MirrorDeleteRow<'s, T> {
    row: &'s T,
    /// The columns of `T` that are the old table's primary key.
    key: Vec<usize>,
    m: Arc<MirrorTable>,
}

impl<T: Table> SerializeRow for MirrorDeleteRow<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        Columns::new(self.row, &self.key).serialize(ctx, writer)
    }

    fn is_empty(&self) -> bool {
        self.key.is_empty()
    }
}

impl<T: Table> BatchEntry for MirrorDeleteRow<'_, T> {
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d> {
        let spec = by_key(&self.key);
        Box::pin(mirror::prepare_query::<T>(
            db,
            &self.m,
            spec,
            Statement::Delete,
        ))
    }

    fn table(&self) -> (TypeId, &'static str) {
        (TypeId::of::<MirrorTable>(), "the old table of a key change")
    }
}

/// An update or delete from a table's query builder.
struct QueryEntry<'a, T> {
    state: QueryState<'a>,
    what: Statement,
    _table: PhantomData<fn() -> T>,
}

/// A builder's update or delete as a batch entry.
pub(crate) fn query_entry<'a, T: Table>(
    mut state: QueryState<'a>,
    what: Statement,
) -> Box<dyn BatchEntry + 'a> {
    // A range delete's and a condition's timestamps compare exactly.
    state.exact_timestamps(false);
    Box::new(QueryEntry::<T> {
        state,
        what,
        _table: PhantomData,
    })
}

impl<T: Table> SerializeRow for QueryEntry<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        self.state.values.serialize(ctx, writer)
    }

    fn is_empty(&self) -> bool {
        self.state.values.is_empty()
    }
}

impl<T: Table> BatchEntry for QueryEntry<'_, T> {
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d> {
        let spec = self.state.spec.clone();
        let what = self.what;
        let table = T::schema().name;
        Box::pin(async move {
            if spec.is_lwt() {
                refuse_bad_lwt(table, &spec)?;
            }
            prepare::<T, T>(db, spec, what).await
        })
    }

    fn table(&self) -> (TypeId, &'static str) {
        (TypeId::of::<T>(), T::schema().name)
    }

    fn is_lwt(&self) -> bool {
        self.state.spec.is_lwt()
    }

    fn is_idempotent(&self) -> bool {
        self.state.spec.is_idempotent()
    }

    fn mirror<'s>(&'s self, db: &'s Db) -> MirrorFuture<'s> {
        Box::pin(async move {
            let Some(m) = mirror::mirror_table::<T>(db).await? else {
                return Ok(None);
            };
            let Some(mapped) = mirror::map_spec::<T>(&m, &self.state.spec, self.what)? else {
                return Ok(None);
            };
            let values = mapped.values(&self.state.spec, &self.state.values);
            let entry: Box<dyn BatchEntry + 's> = Box::new(MirrorQuery::<T> {
                spec: mapped.spec,
                values,
                what: self.what,
                m,
                _table: PhantomData,
            });
            Ok(Some(entry))
        })
    }
}

/// An update's or delete's half on the old table of a key change.
struct MirrorQuery<'s, T> {
    spec: Spec,
    values: QueryValues<'s>,
    what: Statement,
    m: Arc<MirrorTable>,
    _table: PhantomData<fn() -> T>,
}

impl<T: Table> SerializeRow for MirrorQuery<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        self.values.serialize(ctx, writer)
    }

    fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl<T: Table> BatchEntry for MirrorQuery<'_, T> {
    fn prepare<'d>(&'d self, db: &'d Db) -> PrepareFuture<'d> {
        Box::pin(mirror::prepare_query::<T>(
            db,
            &self.m,
            self.spec.clone(),
            self.what,
        ))
    }

    fn table(&self) -> (TypeId, &'static str) {
        (TypeId::of::<MirrorTable>(), "the old table of a key change")
    }

    fn is_idempotent(&self) -> bool {
        self.spec.is_idempotent()
    }
}

/// The span of a batch run on `db` (a batch names no single table).
pub(crate) fn batch_span(db: &Db) -> tracing::Span {
    statement_span(
        db.session(),
        "batch",
        || (db.keyspace().unwrap_or_default(), ""),
        None,
    )
}
