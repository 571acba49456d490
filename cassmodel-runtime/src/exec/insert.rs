//! Inserting whole rows: `db.insert(&row)`, or [`Insert`] for TTL, write time, lightweight
//! transactions and nulls.

use std::any::TypeId;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use scylla::frame::response::result::ColumnSpec;
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::RowWriter;
use scylla::statement::prepared::PreparedStatement;

use super::mirror;
use super::result::Outcome;
use super::send::unpaged;
use super::statement::{Stmt, cached, traced};
use super::write::{applied, copy_cell, not_applied, write_values};
use crate::error::{errors::Error, errors::Result, row::TooLarge};
use crate::mapping::bucket::BUCKET_SIZE_BOUND;
use crate::mapping::cells::{CellStop, Walk};
use crate::mapping::erased::SizeBound;
use crate::mapping::table::{
    Columns, CounterTable, RegularTable, RowFields, Table, ViewOf, column_error, write_column,
};
use crate::mapping::view::BaseOf;
use crate::session::cache::{CacheKey, PerTable};
use crate::session::db::Db;
use crate::statement::cql;
use crate::statement::options::QueryOptions;
use crate::statement::values::in_one_piece;

/// A table whose rows can be inserted: every table but a counter table and a materialized
/// view. A generic `T: Insertable` may be inserted (`db.insert(row)`, `Insert::new`,
/// batches).
///
/// Implemented through [`Table::__Write`], so that an insert of a counter table fails on
/// [`InsertableRows`] and one of a view on [`BaseOf`](crate::mapping::view::BaseOf), whose
/// messages name the table (and the view's base), and a type parameter without this bound on
/// [`Inserts`], whose message says to add it. (No message of its own, as `Writable`.)
pub trait Insertable: Table {}

impl<T: Table> Insertable for T where T::__Write: Inserts<T> {}

/// The rows of `T`, a table of this [`Table::__Write`], can be inserted.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` may be a counter table or a materialized view, whose rows cannot be inserted: bound it by `Insertable`",
    label = "may be a counter table or a view",
    note = "in generic code, write `{T}: Insertable`, which every table but a counter table and a view has"
)]
pub trait Inserts<T> {}

impl<T> Inserts<T> for RegularTable {}
impl<T> Inserts<T> for CounterTable where CounterTable: InsertableRows<T> {}
impl<T, B: BaseOf<T>> Inserts<T> for ViewOf<B> {}

/// `Self` ([`Table::__Write`] of `T`) has rows that can be inserted: not a
/// [`CounterTable`]. (Asked of `Self`, not of `T`, so that rustc reports this message and not
/// that of the bound that asked for it.)
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a counter table: its rows cannot be inserted",
    label = "counter table",
    note = "counters are only changed with `UPDATE ... SET c = c + ?`: use `{T}::update()` with `.increment_<column>(n)` and the whole primary key"
)]
pub trait InsertableRows<T> {}

impl<T> InsertableRows<T> for RegularTable {}

/// What [`Db::insert`] takes: a row of a table that can be inserted (every `T: Insertable`).
/// A reference to the row (`&row`) becomes one, so that a row that cannot be inserted
/// fails there, in one error, and not again at the future's `.await`.
#[doc(hidden)]
pub trait InsertRow<T> {
    /// The row.
    fn __row(&self) -> &T;
}

impl<T: Insertable> InsertRow<T> for T {
    #[inline(always)]
    fn __row(&self) -> &T {
        self
    }
}

impl Db {
    /// Writes a whole row: an upsert (`INSERT` replaces the row's columns). `None` fields are
    /// left unset (no tombstone; an existing value stays): see [`Insert`](Insert) for
    /// TTL, write time, `IF NOT EXISTS` and writing nulls.
    ///
    /// `row` is a reference to a row of a table that can be inserted (`&row`, or a `&T` with
    /// `T: Insertable` in generic code).
    ///
    /// The future is not boxed (unlike [`QueryFuture`](super::result::QueryFuture)): after the first
    /// insert of a table on this `Db` (which prepares its statement), an insert allocates
    /// nothing beyond what the driver does.
    // A method of `Db` (not of a trait), so that a compile error about it names `Db::insert`.
    // The row's rule is checked where `&row` becomes `&dyn InsertRow<T>` (a coercion), not as
    // a bound of `T`: the future would carry that bound and fail again at its `.await`.
    #[inline(always)] // built in place: see `session::trace::in_span`
    pub fn insert<'d, T: Table>(
        &'d self,
        row: &'d dyn InsertRow<T>,
    ) -> impl Future<Output = Result<()>> + Send + 'd {
        Insert::plain(row.__row()).execute(self)
    }
}

/// Whether [`Insert::using_timestamp`] is allowed: not in a lightweight transaction.
#[diagnostic::on_unimplemented(
    message = "a lightweight transaction (`if_not_exists`) cannot take a custom write time",
    label = "USING TIMESTAMP on an LWT",
    note = "Paxos assigns the write time of a lightweight transaction; remove `.using_timestamp(..)` or `.if_not_exists()`"
)]
pub trait TimestampAllowed {}

/// An insert without a condition.
pub struct Plain;
/// `INSERT ... IF NOT EXISTS`.
pub struct IfNotExists;
impl TimestampAllowed for Plain {}

/// Whether an insert kind is a lightweight transaction.
pub trait InsertKind {
    /// `IF NOT EXISTS`
    const IF_NOT_EXISTS: bool;
}
impl InsertKind for Plain {
    const IF_NOT_EXISTS: bool = false;
}
impl InsertKind for IfNotExists {
    const IF_NOT_EXISTS: bool = true;
}

/// An INSERT of a whole row, with its options.
///
/// `None` in an `Option` field is left unset by default: the column is not written, so no
/// tombstone is created and an existing value stays. [`write_nulls`](Insert::write_nulls)
/// writes them as nulls instead (a tombstone per column, which clears old values).
///
/// ```no_run
/// # use cassmodel::{CassTable, Db, Insert}; use uuid::Uuid;
/// # #[derive(CassTable)] struct Reservation { #[partition_key] slot: i32, holder: Uuid }
/// # async fn f(db: &Db, r: Reservation) -> cassmodel::Result<()> {
/// // Hold a slot for 10 minutes, unless someone else holds it.
/// let outcome = Insert::new(&r).if_not_exists().using_ttl(600).execute(db).await?;
/// if !outcome.applied {
///     println!("held by {:?}", outcome.current.map(|r| r.holder));
/// }
/// # Ok(()) }
/// ```
#[must_use = "an insert does nothing until `execute` runs it"]
pub struct Insert<'r, T, L = Plain> {
    row: &'r T,
    ttl: Option<i32>,
    timestamp: Option<i64>,
    write_nulls: bool,
    options: QueryOptions,
    _kind: PhantomData<fn() -> L>,
}

impl<'r, T: Insertable> Insert<'r, T, Plain> {
    /// An insert of `row`.
    pub fn new(row: &'r T) -> Self {
        Insert::plain(row)
    }
}

// Past `new` (or `Db::insert`'s coercion), which asked for `Insertable`, an insert needs
// only the table: `Db::insert`'s future then carries no bound that could fail again.
impl<'r, T: Table> Insert<'r, T, Plain> {
    /// An insert of `row`, whose table was checked by the caller.
    pub(crate) fn plain(row: &'r T) -> Self {
        Insert {
            row,
            ttl: None,
            timestamp: None,
            write_nulls: false,
            options: QueryOptions::default(),
            _kind: PhantomData,
        }
    }

    /// `IF NOT EXISTS`: a lightweight transaction (Paxos, about four round trips) that writes
    /// only if no row has this primary key; the outcome carries the existing row otherwise.
    pub fn if_not_exists(self) -> Insert<'r, T, IfNotExists> {
        Insert {
            row: self.row,
            ttl: self.ttl,
            timestamp: self.timestamp,
            write_nulls: self.write_nulls,
            options: self.options,
            _kind: PhantomData,
        }
    }
}

impl<'r, T: Table, L: InsertKind> Insert<'r, T, L> {
    /// `USING TTL seconds`: the written cells expire after that long.
    pub fn using_ttl(mut self, seconds: i32) -> Self {
        self.ttl = Some(seconds);
        self
    }

    /// `USING TIMESTAMP micros`: the write time, in microseconds since the epoch.
    pub fn using_timestamp(mut self, micros: i64) -> Self
    where
        L: TimestampAllowed,
    {
        self.timestamp = Some(micros);
        self
    }

    /// Writes `None` fields as nulls (tombstones) instead of leaving them unset.
    pub fn write_nulls(mut self) -> Self {
        self.write_nulls = true;
        self
    }

    /// Sets per-query options (consistency, serial consistency, timeout, ...).
    pub fn with_options(mut self, f: impl FnOnce(&mut QueryOptions)) -> Self {
        f(&mut self.options);
        self
    }

    /// The statement of this insert (prepared on first use), with its options.
    async fn statement(&self, db: &Db) -> Result<Stmt> {
        let ps = insert_statement::<T>(
            db,
            self.ttl.is_some(),
            self.timestamp.is_some(),
            L::IF_NOT_EXISTS,
        )
        .await?;
        Ok(Stmt::with(ps, &self.options))
    }

    /// The values of this insert, refused when they are larger than `db` sends in one
    /// request (as they are written: no pass over them before).
    fn values(&self, db: &Db) -> InsertValues<'r, T> {
        InsertValues {
            row: self.row,
            unset_nulls: !self.write_nulls,
            ttl: self.ttl,
            timestamp: self.timestamp,
            limit: Some(db.max_request_size()),
        }
    }
}

/// Sends insert `$insert` on `$db` with `$kept`, its kept statement, or (none kept) its
/// statement through the cache, with its options: `Result<QueryResult>`. The cache is taken
/// only for the first insert of its shape on `db` (which prepares it) and for inserts with
/// options; that statement is boxed, so that the statement held during the request (with its
/// options, about 150 bytes) does not enlarge every insert's future. A macro, not an async
/// fn, for the reason `unpaged!` is one: the driver's request future stays a field of the
/// caller's future instead of being moved once more into a nested one.
macro_rules! send {
    ($insert:ident, $db:expr, $kept:expr) => {{
        let st: Box<Stmt>;
        let ps = match $kept {
            Some(ps) => ps,
            None => {
                st = Box::new($insert.statement($db).await?);
                st.get()
            }
        };
        unpaged!($db, ps, $insert.values($db))
    }};
}

impl<'r, T: Table> Insert<'r, T, Plain> {
    /// Runs the insert.
    // Not a boxed `QueryFuture`: the write path is the hottest one, and boxing its future (the
    // driver's is about 4 KB) costs an allocation and a copy per insert, measured at 10-17%
    // more client CPU at 64 in flight (BENCHMARKS.md, query_overhead). Once the table's INSERT
    // of this shape (TTL or not, write time or not) is prepared (`StatementCache::kept`), an
    // insert without options borrows it: no cache lock, no reference count. One `async`
    // block awaiting the driver's request, not the request future wrapped in combinators
    // (`Either`, `Map`): each wrapper moved the 4 KB request future once more when built,
    // measured at +0.2 µs of `memmove` per insert (BENCHMARKS.md, issue 11).
    #[inline(always)] // built in place: see `session::trace::in_span`
    pub fn execute<'d>(self, db: &'d Db) -> impl Future<Output = Result<()>> + Send + 'd
    where
        'r: 'd,
    {
        let consistency = self.options.consistency;
        traced::<T, _, _>(db, "insert", consistency, None, move || async move {
            // A table with dual writes (a key change) never takes the kept statement.
            let dual = T::schema().source.is_some_and(|s| s.dual_writes);
            let kept = db
                .statements()
                .kept::<T>(PerTable::Insert {
                    ttl: self.ttl.is_some(),
                    timestamp: self.timestamp.is_some(),
                    if_not_exists: false,
                })
                .filter(|_| self.options.is_default() && !dual);
            if dual {
                return Box::pin(self.dual(db)).await;
            }
            send!(self, db, kept).map(drop)
        })
    }
}

impl<'r, T: Table> Insert<'r, T, Plain> {
    /// The insert into both tables of a key change, at one write time.
    async fn dual(mut self, db: &Db) -> Result<()> {
        let Some(m) = mirror::mirror_table::<T>(db).await? else {
            return Err(Error::Invalid("dual writes without an old table".into()));
        };
        let time = self.timestamp.unwrap_or_else(mirror::write_time);
        self.options = mirror::at(&self.options, time);
        let st = self.statement(db).await?;
        // Checked before either table is written (not only as the new table's values are).
        let values = write_values(db, st.get(), self.values(db))?;
        let new = async { unpaged!(db, st.get(), values).map(drop) };
        let old = mirror::insert(db, &m, self.row, self.ttl, self.write_nulls, &self.options);
        let (new, old) = futures::join!(new, old);
        mirror::both::<T>(db, &m, new, old)
    }
}

impl<'r, T: Table> Insert<'r, T, IfNotExists> {
    /// Runs the lightweight transaction: the outcome says whether it applied and carries the
    /// existing row when it did not.
    // Not boxed, and with the kept statement when the insert has no options, as a plain
    // insert (see there): a conditional insert that applies is one request and no more.
    #[inline(always)] // built in place: see `session::trace::in_span`
    pub fn execute<'d>(self, db: &'d Db) -> impl Future<Output = Result<Outcome<T>>> + Send + 'd
    where
        'r: 'd,
    {
        let consistency = self.options.consistency;
        traced::<T, _, _>(
            db,
            "insert if not exists",
            consistency,
            None,
            move || async move {
                let kept = db
                    .statements()
                    .kept::<T>(PerTable::Insert {
                        ttl: self.ttl.is_some(),
                        timestamp: false,
                        if_not_exists: true,
                    })
                    .filter(|_| self.options.is_default());
                let res = send!(self, db, kept)?;
                // Boxed: the SERIAL read of a failed condition, and the old table's write of a
                // key change, are whole queries; unboxed, their state would sit in the future of
                // every conditional insert.
                if !applied(res)? {
                    let key = T::schema().primary_key();
                    let row = Columns::new(self.row, key);
                    return Box::pin(not_applied::<T>(db, key.len(), row, &self.options)).await;
                }
                if T::schema().source.is_some_and(|s| s.dual_writes) {
                    Box::pin(self.dual_applied(db)).await?;
                }
                Ok(Outcome::done())
            },
        )
    }

    /// After the transaction applied on a table with dual writes: the row also written to
    /// the old table (decided on this table, its outcome goes to the old one).
    async fn dual_applied(&self, db: &Db) -> Result<()> {
        if let Some(m) = mirror::mirror_table::<T>(db).await? {
            let options = mirror::at(&self.options, mirror::write_time());
            mirror::insert(db, &m, self.row, self.ttl, self.write_nulls, &options)
                .await
                .map_err(|e| mirror::old_failed::<T>(db, &m, e))?;
        }
        Ok(())
    }
}

/// The values of an INSERT: every column (None as unset unless nulls are written), then
/// TTL and TIMESTAMP.
pub(crate) struct InsertValues<'r, T: ?Sized> {
    row: &'r T,
    unset_nulls: bool,
    ttl: Option<i32>,
    timestamp: Option<i64>,
    /// The most bytes they may take ([`Db::max_request_size`]), checked as they are written
    /// ([`write_counted`](Self::write_counted)); `None` when the caller checks their size.
    limit: Option<usize>,
}

/// The prepared INSERT of a whole row of `T` with these options (once per `Db` and shape);
/// idempotent unless it is `IF NOT EXISTS`. Used by [`Insert`] and by batches.
pub(crate) async fn insert_statement<T: Table>(
    db: &Db,
    ttl: bool,
    timestamp: bool,
    if_not_exists: bool,
) -> Result<Arc<PreparedStatement>> {
    let key = CacheKey::Insert {
        table: TypeId::of::<T>(),
        ttl,
        timestamp,
        if_not_exists,
    };
    let ps = cached(db, T::schema(), &[], key, !if_not_exists, |_| {
        Ok(cql::insert_with(
            T::schema(),
            db.keyspace_of::<T>()?,
            if_not_exists,
            ttl,
            timestamp,
        ))
    })
    .await?;
    db.statements().keep::<T>(
        PerTable::Insert {
            ttl,
            timestamp,
            if_not_exists,
        },
        &ps,
    );
    Ok(ps)
}

impl<'r, T: ?Sized> InsertValues<'r, T> {
    /// The values of a plain insert of `row`, `None` fields unset, their size checked by the
    /// caller.
    pub(crate) fn unset_nulls(row: &'r T) -> Self {
        InsertValues {
            row,
            unset_nulls: true,
            ttl: None,
            timestamp: None,
            limit: None,
        }
    }

    /// The values of an insert of `row` that writes its `None` fields as nulls (a row that
    /// replaces the one under its key: a value dropped from it is dropped from the table).
    pub(crate) fn with_nulls(row: &'r T) -> Self {
        InsertValues {
            unset_nulls: false,
            ..Self::unset_nulls(row)
        }
    }

    /// [`with_nulls`](Self::with_nulls), refused as they are written beyond `limit` bytes
    /// (one row's share of a batch).
    pub(crate) fn with_nulls_within(row: &'r T, limit: usize) -> Self {
        InsertValues {
            limit: Some(limit),
            ..Self::with_nulls(row)
        }
    }

    /// [`unset_nulls`](Self::unset_nulls), refused as they are written beyond `limit` bytes
    /// (one row's share of a batch).
    pub(crate) fn unset_nulls_within(row: &'r T, limit: usize) -> Self {
        InsertValues {
            limit: Some(limit),
            ..Self::unset_nulls(row)
        }
    }
}

impl<T: RowFields + ?Sized> InsertValues<'_, T> {
    /// Writes column `i` for the marker `specs[i]` in a request of `size` bytes so far, and
    /// returns its size after it; refuses it ([`TooLarge`]) instead, before writing it, when
    /// that would be over `limit`. Its size is its bound
    /// ([`ErasedValue::size_bound`](crate::mapping::erased::ErasedValue::size_bound)), or,
    /// for a value without one (a user-defined type, a varint), its size written apart first.
    #[inline]
    fn write_counted(
        &self,
        specs: &[ColumnSpec<'_>],
        i: usize,
        writer: &mut RowWriter,
        size: usize,
        limit: usize,
    ) -> Result<usize, SerializationError> {
        let spec = &specs[i];
        let Some(bound) = self.cell_bound(i) else {
            let mut cell = Vec::new();
            let mut apart = RowWriter::new(&mut cell);
            write_column(self.row, i, spec, self.unset_nulls, &mut apart)?;
            let size = size.saturating_add(cell.len());
            if size > limit {
                return Err(self.too_large(specs, i + 1, size, limit));
            }
            copy_cell(&cell, writer)?;
            return Ok(size);
        };
        let size = size.saturating_add(4 + bound);
        if size > limit {
            return Err(self.too_large(specs, i + 1, size, limit));
        }
        write_column(self.row, i, spec, self.unset_nulls, writer)?;
        Ok(size)
    }

    /// The bytes of the TTL's and the write time's cells.
    fn options_size(&self) -> usize {
        self.ttl.map_or(0, |_| 4 + 4) + self.timestamp.map_or(0, |_| 4 + 8)
    }

    /// The size bound of column `i`'s cell's contents (a bucket's, or its field's); `None`
    /// when it is not known without writing it.
    #[inline]
    fn cell_bound(&self, i: usize) -> Option<usize> {
        let schema = self.row.table();
        if !schema.fields_as_written()
            && let Some(b) = schema.column(i).and_then(|c| c.bucket)
        {
            return self.row.field(b.source).map(|_| BUCKET_SIZE_BOUND);
        }
        self.row.field(i)?.cell_bound(self.unset_nulls)
    }

    /// The refusal of values whose first `written` columns take `size` bytes, over `limit`:
    /// with the size of all of them (a column without a bound counted as empty).
    #[cold]
    #[inline(never)]
    fn too_large(
        &self,
        specs: &[ColumnSpec<'_>],
        written: usize,
        size: usize,
        limit: usize,
    ) -> SerializationError {
        let n = self.row.table().columns.len();
        let rest = (written..n).map(|i| 4 + self.cell_bound(i).unwrap_or(0));
        let bytes = rest.fold(size, usize::saturating_add);
        SerializationError::new(TooLarge::new(specs, bytes, limit))
    }
}

impl<T: RowFields + ?Sized> SizeBound for InsertValues<'_, T> {
    #[inline]
    fn size_bound(&self) -> Option<usize> {
        let mut bound = self.options_size();
        for i in 0..self.row.table().columns.len() {
            bound = bound.saturating_add(4 + self.cell_bound(i)?);
        }
        Some(bound)
    }
}

impl<T: RowFields + ?Sized> SerializeRow for InsertValues<'_, T> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        in_one_piece(writer, |writer| self.write(ctx, writer))
    }

    fn is_empty(&self) -> bool {
        false
    }
}

impl<T: RowFields + ?Sized> InsertValues<'_, T> {
    /// The row's cells written straight into `writer`, not in one piece as
    /// [`SerializeRow::serialize`] hands them over: for a writer whose buffer already holds a
    /// request (a batch's statements after its first), which grows once for the row either
    /// way, so that a piece would only add its own allocation and copies.
    pub(crate) fn serialize_in_place(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        self.write(ctx, writer)
    }

    /// The row's cells, in the statement's column order, then its TTL and timestamp.
    fn write(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let specs = ctx.columns();
        let schema = self.row.table();
        let n = schema.columns.len().min(specs.len());
        // With a limit, the size is counted as the cells are written: no pass over the values
        // before the request (about 250 instructions per insert of five columns, counted
        // with `benches/callgrind_ops.sh`).
        let mut size = self.options_size();
        if schema.fields_as_written() {
            // The fields' tuple, each cell by its own type's code (`mapping::cells`); a column
            // it stops at (no size bound, or it may not fit) by the general path, then the
            // tuple again after it.
            let limit = self.limit.unwrap_or(usize::MAX);
            let mut walk = Walk::new(specs, writer, self.unset_nulls, limit.saturating_sub(size));
            loop {
                match self.row.write_cells(&mut walk) {
                    Ok(()) => break,
                    Err(CellStop::At(i)) if i < n => {
                        let size = limit.saturating_sub(walk.room);
                        let size = match self.limit {
                            Some(limit) => {
                                self.write_counted(specs, i, walk.writer, size, limit)?
                            }
                            None => {
                                write_column(
                                    self.row,
                                    i,
                                    &specs[i],
                                    self.unset_nulls,
                                    walk.writer,
                                )?;
                                size
                            }
                        };
                        walk.room = limit.saturating_sub(size);
                        walk.from = i + 1;
                    }
                    Err(CellStop::At(_)) => break,
                    Err(CellStop::Failed(i, e)) => {
                        return Err(column_error(schema, i, &specs[i], e));
                    }
                }
            }
        } else {
            for i in 0..n {
                match self.limit {
                    Some(limit) => size = self.write_counted(specs, i, writer, size, limit)?,
                    None => write_column(self.row, i, &specs[i], self.unset_nulls, writer)?,
                }
            }
        }
        let mut rest = specs[n..].iter();
        if let Some(ttl) = &self.ttl
            && let Some(spec) = rest.next()
        {
            SerializeValue::serialize(ttl, spec.typ(), writer.make_cell_writer())?;
        }
        if let Some(ts) = &self.timestamp
            && let Some(spec) = rest.next()
        {
            SerializeValue::serialize(ts, spec.typ(), writer.make_cell_writer())?;
        }
        Ok(())
    }
}
