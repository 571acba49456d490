//! Entities (`#[derive(CassEntity)]`): one value stored in several query tables, written to
//! all of them in one logged batch by the generated `save`. Each table's row is built from
//! the entity's fields of the same names ([`FromEntity`]).
//!
//! `save` is a hot write: its driver batch (the INSERT of each table, prepared once) is kept
//! per entity type in the [`Db`]'s cache, and each table's cells are written straight from
//! the entity's fields, so no table row is copied from the entity and nothing is boxed per
//! call. Tables with dual writes (a key change), and rows refused for taking more than their
//! share of the request limit (which may still fit together), take the general [`Batch`]
//! instead, which handles both.

use std::any::TypeId;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use scylla::serialize::SerializationError;
use scylla::serialize::batch::{BatchValues, BatchValuesIterator};
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::writers::RowWriter;
use scylla::statement::batch::{Batch as DriverBatch, BatchStatement, BatchType};
use scylla::statement::prepared::PreparedStatement;

use super::batch::{Batch, BatchEntry, batch_span, delete_statement, query_entry};
use super::insert::{InsertValues, Insertable, insert_statement};
use super::result::QueryFuture;
use super::send;
use crate::error::{errors::Result, row::TooLarge};
use crate::mapping::cells::{CellStop, Cells, Walk, write_cells};
use crate::mapping::erased::ErasedValue;
use crate::mapping::table::RowFields;
use crate::schema::model::TableSchema;
use crate::session::db::Db;
use crate::session::trace::{in_span, statement_span};
use crate::statement::spec::Statement;
use crate::statement::state::QueryState;

/// A table row built from an entity stored in several tables (`#[derive(CassEntity)]`): its
/// fields are the entity's fields of the same names. Implemented by `#[derive(CassTable)]`
/// for each `#[cass(entity = E)]`.
pub trait FromEntity<E: 'static>: Insertable {
    /// The row of this table for `entity`.
    fn from_entity(entity: &E) -> Self;

    /// The entity's field that column `index` of this table is written from, read in place
    /// (`None` past the last column).
    #[doc(hidden)]
    fn __cell(entity: &E, index: usize) -> Option<&dyn ErasedValue>;

    /// The entity's fields this table's columns are written from, in column order, as a
    /// tuple of their cells (as [`Table::__cells`](crate::Table::__cells)).
    #[doc(hidden)]
    fn __cells(entity: &E) -> impl Cells + '_;
}

/// The rows of a table that holds one row per element of one of an entity's collections (a
/// video by each of its tags): the column marked `#[cass(each = tags)]` takes each element
/// of the entity's field `tags` (a list, a set, or a map's keys), the other columns the
/// entity's fields of the same names. Implemented by `#[derive(CassTable)]` for each
/// `#[cass(entity = E)]` of such a table.
pub trait FromEntityEach<E: 'static>: Insertable {
    /// The rows of this table for `entity`, one per element of its collection (none for an
    /// empty one).
    fn rows(entity: &E) -> Vec<Self>;

    /// The field of the column that takes each element, and the entity's collection field.
    #[doc(hidden)]
    const __EACH: (&'static str, &'static str);
}

/// One table of entity `E` as the entity's generated calls list it. Implemented by
/// `#[derive(CassTable)]` beside [`FromEntity`] or [`FromEntityEach`]. (A constant of a
/// trait, not a function bounded by it: a table the entity lists but that is not built from
/// it is then one error, this trait's own.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` is listed in #[cass(tables(...))] of `{E}`, but is not built from it",
    label = "not built from `{E}`",
    note = "add `#[cass(entity = {E})]` to the struct `{Self}`: its fields are then copied from the fields of `{E}` with the same names"
)]
#[doc(hidden)]
pub trait EntityTableOf<E: 'static>: Insertable {
    /// This table, as data.
    const __TABLE: EntityTable<E>;

    /// For a table with one row per element, what [`FromEntityEach::__EACH`] says.
    const __EACH: Option<(&'static str, &'static str)> = None;
}

/// An entity with an identity table (`#[cass(identity = T)]`, the table keyed by what never
/// changes in it, which holds every field its other tables are keyed by): the entities whose
/// tables the drift check (`migrate::drift::check_entity`) compares. Implemented by
/// `#[derive(CassEntity)]` for an entity that names one.
pub trait EntityWithIdentity: Sized + Sync + 'static {
    /// The identity table.
    type Identity: crate::mapping::table::Table;

    /// The entity's tables, as its generated calls list them.
    #[doc(hidden)]
    const __TABLES: &'static [EntityTable<Self>];
}

/// The stored row of one of an entity's tables, as a change compares its key and deletes it.
pub(crate) type StoredRow<'s> = Box<dyn RowFields + Send + Sync + 's>;

type PrepareFuture<'d> = Pin<Box<dyn Future<Output = Result<Arc<PreparedStatement>>> + Send + 'd>>;

/// One table of entity `E`, as the generated `save` lists them: data (functions of the
/// table), so that the runtime code of `save` is generic over the entity only.
#[doc(hidden)]
pub struct EntityTable<E: 'static> {
    pub(crate) schema: fn() -> &'static TableSchema,
    pub(super) cell: fn(&E, usize) -> Option<&dyn ErasedValue>,
    cells: fn(&E, &mut Walk<'_, '_, '_>) -> Result<(), CellStop>,
    /// The prepared INSERT of a whole row.
    pub(super) prepare: for<'d> fn(&'d Db) -> PrepareFuture<'d>,
    /// For a table with one row per element of a collection: which, and its rows. (`save`
    /// then takes the general batch: the number of its statements varies.)
    pub(crate) each: Option<EachOf<E>>,
    /// Adds the inserts of the entity's rows (`None` fields unset).
    pub(super) add: for<'e, 'b> fn(&'e E, Batch<'b>) -> Batch<'b>,
    /// Adds the inserts of the entity's rows with their `None` fields written as nulls.
    pub(super) overwrite: for<'e, 'b> fn(&'e E, Batch<'b>) -> Batch<'b>,
    /// Adds the deletes of the entity's rows, by the table's key.
    delete: for<'e, 'b> fn(&'e E, Batch<'b>) -> Batch<'b>,
    /// Adds the delete of the row whose key the given cells hold.
    pub(super) delete_key: for<'b> fn(StoredRow<'b>, Batch<'b>) -> Batch<'b>,
    /// The prepared DELETE by the table's key (whose markers type the key's cells).
    pub(super) prepare_delete: for<'d> fn(&'d Db) -> PrepareFuture<'d>,
    /// An UPDATE of this table, as a batch entry.
    pub(super) update: for<'r> fn(QueryState<'r>) -> Box<dyn BatchEntry + 'r>,
}

impl<E: 'static> EntityTable<E> {
    /// Table `T`, one row per entity.
    pub const fn of<T: FromEntity<E>>() -> Self {
        EntityTable {
            schema: T::schema,
            cell: T::__cell,
            cells: write_entity_cells::<E, T>,
            prepare: prepare_insert::<T>,
            each: None,
            add: |e, batch| batch.insert_owned(T::from_entity(e)),
            overwrite: |e, batch| batch.overwrite_owned(T::from_entity(e)),
            delete: |e, batch| batch.delete_row(T::from_entity(e)),
            delete_key: add_delete_key::<T>,
            prepare_delete: prepare_delete::<T>,
            update: |q| query_entry::<T>(q, Statement::Update),
        }
    }

    /// Table `T`, one row per element of the entity's collection.
    pub const fn each<T: FromEntityEach<E>>() -> Self {
        EntityTable {
            schema: T::schema,
            cell: |_, _| None,
            cells: |_, walk| Err(CellStop::At(walk.from)),
            prepare: prepare_insert::<T>,
            each: Some(EachOf {
                column: T::__EACH.0,
                collection: T::__EACH.1,
                rows: |e| T::rows(e).into_iter().map(|r| Box::new(r) as _).collect(),
            }),
            add: |e, batch| T::rows(e).into_iter().fold(batch, Batch::insert_owned),
            overwrite: |e, batch| T::rows(e).into_iter().fold(batch, Batch::overwrite_owned),
            delete: |e, batch| T::rows(e).into_iter().fold(batch, Batch::delete_row),
            delete_key: add_delete_key::<T>,
            prepare_delete: prepare_delete::<T>,
            update: |q| query_entry::<T>(q, Statement::Update),
        }
    }
}

/// A table of an entity that holds one row per element of one of its collections.
pub(crate) struct EachOf<E: 'static> {
    /// The field of the column that takes each element.
    pub(crate) column: &'static str,
    /// The entity's collection field.
    pub(crate) collection: &'static str,
    /// The rows of an entity, built from its fields.
    pub(super) rows: fn(&E) -> Vec<StoredRow<'static>>,
}

impl<E: Sync + 'static> EntityTable<E> {
    /// The rows of `entity` in this table, as a change compares their keys: read in place
    /// from the entity's fields, or, one per element, built from them.
    pub(super) fn rows_of<'e>(&'static self, entity: &'e E) -> Vec<StoredRow<'e>> {
        match &self.each {
            None => vec![Box::new(EntityRow::new(entity, self))],
            Some(each) => (each.rows)(entity),
        }
    }
}

impl<E: 'static> EntityTable<E> {
    /// Table `T` as the table derive's fallback declares it, beside the errors of its struct
    /// (so that the entity's list of tables adds none): nothing of it runs, the crate does not
    /// compile.
    pub const fn fallback<T: Insertable>() -> Self {
        EntityTable {
            schema: T::schema,
            cell: |_, _| None,
            cells: |_, walk| Err(CellStop::At(walk.from)),
            prepare: prepare_insert::<T>,
            each: None,
            add: |_, batch| batch,
            overwrite: |_, batch| batch,
            delete: |_, batch| batch,
            delete_key: add_delete_key::<T>,
            prepare_delete: prepare_delete::<T>,
            update: |q| query_entry::<T>(q, Statement::Update),
        }
    }
}

/// The body of a generated entity's `save_in`: the inserts of `entity`'s rows in every table.
#[doc(hidden)]
pub fn save_entity_in<'b, E>(
    entity: &E,
    batch: Batch<'b>,
    tables: &'static [EntityTable<E>],
) -> Batch<'b> {
    tables.iter().fold(batch, |b, t| (t.add)(entity, b))
}

/// The body of a generated entity's `delete_in`: the deletes of `entity`'s rows in every
/// table, by each one's primary key.
#[doc(hidden)]
pub fn delete_entity_in<'b, E>(
    entity: &E,
    batch: Batch<'b>,
    tables: &'static [EntityTable<E>],
) -> Batch<'b> {
    tables.iter().fold(batch, |b, t| (t.delete)(entity, b))
}

/// Writes the cells of table `T`'s row of `entity` (its `EntityTable`'s `cells`).
fn write_entity_cells<E: 'static, T: FromEntity<E>>(
    entity: &E,
    walk: &mut Walk<'_, '_, '_>,
) -> Result<(), CellStop> {
    write_cells(&<T as FromEntity<E>>::__cells(entity), walk)
}

fn prepare_insert<T: Insertable>(db: &Db) -> PrepareFuture<'_> {
    Box::pin(insert_statement::<T>(db, false, false, false))
}

fn add_delete_key<'b, T: Insertable>(row: StoredRow<'b>, batch: Batch<'b>) -> Batch<'b> {
    batch.delete_key::<T>(row)
}

fn prepare_delete<T: Insertable>(db: &Db) -> PrepareFuture<'_> {
    Box::pin(delete_statement::<T>(db))
}

/// The span of a statement of entity `E`'s (its save, its change).
pub(super) fn entity_span<E>(db: &Db) -> tracing::Span {
    statement_span(
        db.session(),
        "entity",
        || {
            (
                db.keyspace().unwrap_or_default(),
                std::any::type_name::<E>(),
            )
        },
        None,
    )
}

/// The body of a generated entity's `save`: the INSERT of `entity` into each of `tables`, in
/// one logged batch. Not boxed, like `db.insert`: after the first `save` of an entity type
/// on `db` (which prepares its batch), it allocates nothing beyond what the driver does.
#[doc(hidden)]
#[allow(clippy::manual_async_fn)]
#[inline(always)] // built in place: see `session::trace::in_span`
pub fn save_entity<'d, E: Sync + 'static>(
    db: &'d Db,
    entity: &'d E,
    tables: &'static [EntityTable<E>],
) -> impl Future<Output = Result<()>> + Send + 'd {
    in_span(
        move || entity_span::<E>(db),
        move || async move {
            // The dual writes' halves, rows per element (statements that vary in number), or
            // values whose size is checked before the request, take the general batch.
            let general = || save_entity_in(entity, Batch::logged(), tables).execute(db);
            let general_only = tables
                .iter()
                .any(|t| t.each.is_some() || (t.schema)().source.is_some_and(|s| s.dual_writes));
            if general_only {
                return general().await.map(drop);
            }
            // Borrowed from its slot (no lock, no reference count); an entity whose first
            // table's slot another entity took finds its batch by its type.
            let shared: Arc<DriverBatch>;
            let batch = match db
                .statements()
                .entity_batch(TypeId::of::<E>(), first_ordinal(tables))
            {
                Some(batch) => batch,
                None => {
                    shared = match db.statements().shared_entity_batch(TypeId::of::<E>()) {
                        Some(batch) => batch,
                        None => Box::pin(keep_batch(db, tables)).await?,
                    };
                    &*shared
                }
            };
            // Each row refused, as it is written, beyond its share of the request limit: then
            // the rows together fit, with no pass over them before the request. Rows of uneven
            // sizes may be refused although they would fit together: those take the general
            // batch, which counts them exactly.
            let values = EntityValues {
                entity,
                tables,
                share: db.max_request_size() / tables.len().max(1),
                refused: AtomicBool::new(false),
            };
            match send::batch(db, batch, &values, "BATCH").await {
                Ok(_) => Ok(()),
                // Told by the rows themselves, not by the driver's error: a row after the first
                // is written when the request is, and that error does not carry the refusal as
                // its source.
                Err(_) if values.refused.load(Ordering::Relaxed) => general().await.map(drop),
                Err(e) => Err(e),
            }
        },
    )
}

/// Prepares the INSERT of each of `tables` and keeps their logged batch for entity `E`.
async fn keep_batch<E: 'static>(
    db: &Db,
    tables: &'static [EntityTable<E>],
) -> Result<Arc<DriverBatch>> {
    let mut batch = DriverBatch::new(BatchType::Logged);
    for t in tables {
        let ps = (t.prepare)(db).await?;
        batch.append_statement(BatchStatement::PreparedStatement(PreparedStatement::clone(
            &ps,
        )));
    }
    // Plain inserts: sending them again changes nothing.
    batch.set_is_idempotent(true);
    let first = first_ordinal(tables);
    Ok(db
        .statements()
        .keep_entity_batch(TypeId::of::<E>(), first, batch))
}

/// The ordinal of the first of `tables` ([`TableSchema::ordinal`]): where the entity's batch
/// is kept.
fn first_ordinal<E>(tables: &[EntityTable<E>]) -> usize {
    tables
        .first()
        .map_or(usize::MAX, |t| (t.schema)().ordinal())
}

/// The body of a generated entity's `delete`: runs `batch`, which has no lightweight
/// transaction.
#[doc(hidden)]
pub fn run_entity_batch<'d>(db: &'d Db, batch: Batch<'d>) -> QueryFuture<'d, ()> {
    QueryFuture::new(in_span(
        move || batch_span(db),
        move || async move { batch.run(db).await.map(drop) },
    ))
}

/// One table's row of an entity: the table's columns, each read from the entity's field.
pub(super) struct EntityRow<'e, E: 'static> {
    entity: &'e E,
    table: &'static EntityTable<E>,
    /// The table's description, asked of it once per row, not once per column.
    schema: &'static TableSchema,
}

impl<'e, E> EntityRow<'e, E> {
    pub(super) fn new(entity: &'e E, table: &'static EntityTable<E>) -> Self {
        EntityRow {
            entity,
            table,
            schema: (table.schema)(),
        }
    }
}

impl<E> RowFields for EntityRow<'_, E> {
    fn table(&self) -> &'static TableSchema {
        self.schema
    }

    fn field(&self, index: usize) -> Option<&dyn ErasedValue> {
        (self.table.cell)(self.entity, index)
    }

    fn write_cells(&self, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop> {
        (self.table.cells)(self.entity, walk)
    }
}

/// The values of an entity's batch: each table's row, `None` fields unset, each refused
/// beyond `share` bytes (and `refused` set when one is).
struct EntityValues<'e, E: 'static> {
    entity: &'e E,
    tables: &'static [EntityTable<E>],
    share: usize,
    refused: AtomicBool,
}

impl<E> BatchValues for EntityValues<'_, E> {
    type BatchValuesIter<'r>
        = EntityRows<'r, E>
    where
        Self: 'r;

    fn batch_values_iter(&self) -> EntityRows<'_, E> {
        EntityRows {
            entity: self.entity,
            tables: self.tables.iter(),
            share: self.share,
            refused: &self.refused,
            first: true,
        }
    }
}

/// The rows of [`EntityValues`], one statement of the batch after the other.
struct EntityRows<'e, E: 'static> {
    entity: &'e E,
    tables: std::slice::Iter<'static, EntityTable<E>>,
    share: usize,
    refused: &'e AtomicBool,
    /// Whether the next row is the batch's first. The driver writes the first row's values
    /// into a vector of their own (to find the partition's replicas), which grows as they are
    /// written: that row is handed over in one piece. The others are written into the
    /// request's own buffer, which holds the statements before them.
    first: bool,
}

impl<'r, E> BatchValuesIterator<'r> for EntityRows<'r, E> {
    fn serialize_next(
        &mut self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Option<Result<(), SerializationError>> {
        let table = self.tables.next()?;
        let row = EntityRow::new(self.entity, table);
        let values = InsertValues::unset_nulls_within(&row, self.share);
        let written = if std::mem::replace(&mut self.first, false) {
            values.serialize(ctx, writer)
        } else {
            values.serialize_in_place(ctx, writer)
        };
        note_refused(&written, self.refused);
        Some(written)
    }

    fn is_empty_next(&mut self) -> Option<bool> {
        self.first = false;
        self.tables.next().map(|_| false)
    }

    fn skip_next(&mut self) -> Option<()> {
        self.first = false;
        self.tables.next().map(drop)
    }
}

/// Sets `refused` when `written` is a row refused for taking more than its share of the
/// request limit ([`TooLarge`]): the caller then takes the general batch.
pub(super) fn note_refused(
    written: &std::result::Result<(), SerializationError>,
    refused: &AtomicBool,
) {
    if let Err(e) = written
        && e.downcast_ref::<TooLarge>().is_some()
    {
        refused.store(true, Ordering::Relaxed);
    }
}
