//! Writes: the values of a write checked against the request limit before anything is sent
//! ([`write_values`]; an insert's values check it as the driver serializes them, in
//! `InsertValues`), updates and deletes ([`execute`]), and the outcome of a lightweight
//! transaction, with the current row read with SERIAL consistency when it did not apply.

use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
use scylla::deserialize::value::DeserializeValue;
use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::frame::response::result::ColumnSpec;
use scylla::response::query_result::QueryResult;
use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::writers::RowWriter;
use scylla::statement::Consistency;
use scylla::statement::prepared::PreparedStatement;

use super::mirror;
use super::read::first_by_key_prefix;
use super::result::Outcome;
use super::send::unpaged;
use super::statement::Stmt;
use crate::error::{errors::Error, errors::Result, row::RowError, row::table_of_specs};
use crate::mapping::erased::SizeBound;
use crate::mapping::table::Table;
use crate::session::db::Db;
use crate::session::mirror::MirrorTable;
use crate::statement::options::QueryOptions;
use crate::statement::spec::{Op, Spec, Statement};
use crate::statement::state::QueryState;
use crate::statement::values::{BoundRow, QueryValues};

/// The values of a write, serialized once before sending so that their size is known; the
/// driver takes the cells as they are.
#[derive(PartialEq)]
pub(crate) struct Serialized {
    /// The cells, each as the protocol has it: an `i32` length (-1 null, -2 unset), then
    /// its bytes.
    cells: Vec<u8>,
    count: usize,
}

impl SerializeRow for Serialized {
    fn serialize(
        &self,
        _ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> std::result::Result<(), SerializationError> {
        let mut rest = self.cells.as_slice();
        for _ in 0..self.count {
            rest = copy_cell(rest, writer)?;
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Writes the first cell of `cells` (as the protocol has it: an `i32` length, -1 null, -2
/// unset, then its bytes) with `writer`; returns the cells after it.
pub(crate) fn copy_cell<'c>(
    cells: &'c [u8],
    writer: &mut RowWriter,
) -> std::result::Result<&'c [u8], SerializationError> {
    let malformed = || {
        SerializationError::new(RowError::Value {
            table: String::new(),
            column: String::new(),
            rust_type: "bound values",
            detail: "malformed serialized values".to_owned(),
        })
    };
    let (len, tail) = cells.split_first_chunk::<4>().ok_or_else(malformed)?;
    let cell = writer.make_cell_writer();
    Ok(match i32::from_be_bytes(*len) {
        -1 => {
            cell.set_null();
            tail
        }
        -2 => {
            cell.set_unset();
            tail
        }
        n => {
            let n = usize::try_from(n).map_err(|_| malformed())?;
            let (value, rest) = tail.split_at_checked(n).ok_or_else(malformed)?;
            cell.set_value(value).map_err(|_| malformed())?;
            rest
        }
    })
}

impl Serialized {
    /// Their size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }
}

/// Serializes the values of a write for `st`, with the table and column in any error.
pub(crate) fn serialize_for(
    st: &PreparedStatement,
    values: &impl SerializeRow,
) -> Result<Serialized> {
    let specs = st.get_variable_col_specs();
    let ctx = RowSerializationContext::from_specs(specs.as_slice());
    // Room for a typical row at once (a length and a short value per marker).
    let mut cells = Vec::with_capacity(specs.len() * 16);
    let mut writer = RowWriter::new(&mut cells);
    values
        .serialize(&ctx, &mut writer)
        .map_err(|e| Error::unsent(st.get_statement(), e))?;
    let count = writer.value_count();
    Ok(Serialized { cells, count })
}

/// The values of a write for `st`, refused before anything is sent when they are larger than
/// the server takes in one request ([`Db::max_request_size`]). Values whose size bound fits
/// are handed to the driver as they are (serialized once, by the driver); the others are
/// serialized here first, to learn their size.
pub(crate) fn write_values<V: SerializeRow + SizeBound>(
    db: &Db,
    st: &PreparedStatement,
    values: V,
) -> Result<WriteValues<V>> {
    if fits_request(db, &values) {
        return Ok(WriteValues::Direct(values));
    }
    let values = serialize_for(st, &values)?;
    check_request_size(db, st, values.len())?;
    Ok(WriteValues::Serialized(values))
}

/// Whether `values` surely fit in one request: their size bound is known and at most
/// [`Db::max_request_size`]. Otherwise only serializing them tells.
fn fits_request(db: &Db, values: &impl SizeBound) -> bool {
    values
        .size_bound()
        .is_some_and(|bound| bound <= db.max_request_size())
}

/// The values of a write as the driver takes them ([`write_values`]).
pub(crate) enum WriteValues<V> {
    /// As they are: they fit in one request whatever their exact size.
    Direct(V),
    /// Serialized once here, their size checked.
    Serialized(Serialized),
}

impl<V: SerializeRow> SerializeRow for WriteValues<V> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> std::result::Result<(), SerializationError> {
        match self {
            WriteValues::Direct(v) => v.serialize(ctx, writer),
            WriteValues::Serialized(s) => s.serialize(ctx, writer),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            WriteValues::Direct(v) => v.is_empty(),
            WriteValues::Serialized(s) => s.is_empty(),
        }
    }
}

/// Refuses `bytes` of values for `st` when they exceed the request limit.
pub(crate) fn check_request_size(db: &Db, st: &PreparedStatement, bytes: usize) -> Result<()> {
    if bytes <= db.max_request_size() {
        return Ok(());
    }
    let table = table_of_specs(st.get_variable_col_specs().as_slice())
        .unwrap_or_else(|| st.get_statement().to_owned());
    Err(Error::RequestTooLarge {
        table,
        bytes,
        limit: db.max_request_size(),
    })
}

/// Runs a DELETE or UPDATE. For a lightweight transaction whose condition fails, the outcome
/// carries the current row, read with SERIAL consistency.
pub(crate) async fn execute<T: Table>(
    db: &Db,
    mut q: QueryState<'_>,
    what: Statement,
) -> Result<Outcome<T>> {
    // A range delete's and a condition's timestamps compare exactly.
    q.exact_timestamps(false);
    let QueryState {
        spec,
        values,
        options,
    } = q;
    let lwt = spec.is_lwt();
    if lwt {
        refuse_bad_lwt(T::schema().name, &spec)?;
        if what == Statement::Delete && spec.restrictions.len() != T::schema().primary_key().len() {
            return Err(Error::Invalid(format!(
                "table `{}`: a conditional delete (IF ...) names the whole primary key",
                T::schema().name
            )));
        }
    }
    if let Some(m) = mirror::mirror_table::<T>(db).await? {
        return Box::pin(dual::<T>(db, &m, spec, values, options, what)).await;
    }
    let key_len = spec.restrictions.len();
    let st = Stmt::prepare::<T, T>(db, spec, what, &options).await?;
    let serialized = write_values(db, st.get(), &values)?;
    let res = unpaged!(db, st.get(), serialized)?;
    if !lwt {
        return Ok(Outcome::done());
    }
    lwt_outcome::<T>(db, res, key_len, BoundRow(&values.where_[..]), &options).await
}

/// An UPDATE or DELETE of a table with dual writes: refused before anything is sent when the
/// old table has no equivalent; else written to both at one write time, or, for a
/// lightweight transaction, decided here and, when it applied, written to the old table.
async fn dual<T: Table>(
    db: &Db,
    m: &MirrorTable,
    spec: Spec,
    values: QueryValues<'_>,
    options: QueryOptions,
    what: Statement,
) -> Result<Outcome<T>> {
    let Some(mapped) = mirror::map_spec::<T>(m, &spec, what)? else {
        // Nothing of it reaches the old table (only columns it lacks).
        let st = Stmt::prepare::<T, T>(db, spec.clone(), what, &options).await?;
        let res = unpaged!(db, st.get(), write_values(db, st.get(), &values)?)?;
        return finish::<T>(db, res, &spec, &values, &options).await;
    };
    if spec.is_lwt() {
        let st = Stmt::prepare::<T, T>(db, spec.clone(), what, &options).await?;
        let res = unpaged!(db, st.get(), write_values(db, st.get(), &values)?)?;
        let outcome = finish::<T>(db, res, &spec, &values, &options).await?;
        if outcome.applied {
            let at = mirror::at(&options, mirror::write_time());
            mirror::query::<T>(db, m, &mapped, &spec, &values, what, &at)
                .await
                .map_err(|e| mirror::old_failed::<T>(db, m, e))?;
        }
        return Ok(outcome);
    }
    let options = mirror::at(
        &options,
        values.timestamp.unwrap_or_else(mirror::write_time),
    );
    let st = Stmt::prepare::<T, T>(db, spec.clone(), what, &options).await?;
    let serialized = write_values(db, st.get(), &values)?;
    let new = async { unpaged!(db, st.get(), serialized).map(drop) };
    let old = mirror::query::<T>(db, m, &mapped, &spec, &values, what, &options);
    let (new, old) = futures::join!(new, old);
    mirror::both::<T>(db, m, new, old)?;
    Ok(Outcome::done())
}

/// The outcome of a write of `spec` that returned `res`.
async fn finish<T: Table>(
    db: &Db,
    res: QueryResult,
    spec: &Spec,
    values: &QueryValues<'_>,
    options: &QueryOptions,
) -> Result<Outcome<T>> {
    if !spec.is_lwt() {
        return Ok(Outcome::done());
    }
    let key_len = spec.restrictions.len();
    lwt_outcome::<T>(db, res, key_len, BoundRow(&values.where_[..]), options).await
}

/// A lightweight transaction's `[applied]`, and the current row when it did not apply.
pub(crate) async fn lwt_outcome<T: Table>(
    db: &Db,
    res: QueryResult,
    key_len: usize,
    key: impl SerializeRow,
    options: &QueryOptions,
) -> Result<Outcome<T>> {
    if applied(res)? {
        return Ok(Outcome::done());
    }
    not_applied::<T>(db, key_len, key, options).await
}

/// The outcome of a lightweight transaction that did not apply: the row of the key bound by
/// `key` (its first `key_len` columns) as it is now, read with SERIAL consistency.
pub(crate) async fn not_applied<T: Table>(
    db: &Db,
    key_len: usize,
    key: impl SerializeRow,
    options: &QueryOptions,
) -> Result<Outcome<T>> {
    let serial = QueryOptions {
        consistency: Some(Consistency::Serial),
        timeout: options.timeout,
        ..QueryOptions::default()
    };
    let current = first_by_key_prefix::<T>(db, key_len, key, &serial).await?;
    Ok(Outcome {
        applied: false,
        current,
    })
}

/// Refuses, before anything is sent, what Cassandra refuses in a lightweight transaction.
pub(crate) fn refuse_bad_lwt(table: &str, spec: &Spec) -> Result<()> {
    if spec.restrictions.iter().any(|&(_, op)| op == Op::In) {
        return Err(Error::Invalid(format!(
            "table `{table}`: a lightweight transaction (IF ...) cannot use IN: it works on one row"
        )));
    }
    if spec.timestamp {
        return Err(Error::Invalid(format!(
            "table `{table}`: a lightweight transaction (IF ...) cannot take USING TIMESTAMP: \
             Paxos assigns the write time"
        )));
    }
    Ok(())
}

/// Whether a lightweight transaction (or a batch with one) applied: its `[applied]` column.
pub(crate) fn applied(res: QueryResult) -> Result<bool> {
    let Applied(applied) = res
        .into_rows_result()?
        .first_row::<Applied>()
        .map_err(|e| Error::Driver(Box::new(e)))?;
    Ok(applied)
}

/// The `[applied]` column of a lightweight transaction's result (the first column; the
/// others, which vary, are not read).
struct Applied(bool);

impl<'f, 'm> DeserializeRow<'f, 'm> for Applied {
    fn type_check(specs: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
        match specs.first() {
            Some(s) if s.name() == "[applied]" => {
                <bool as DeserializeValue<'_, '_>>::type_check(s.typ())
            }
            _ => Err(TypeCheckError::new(RowError::Value {
                table: String::new(),
                column: "[applied]".to_owned(),
                rust_type: "bool",
                detail: "the result of a lightweight transaction has no [applied] column".into(),
            })),
        }
    }

    fn deserialize(mut row: ColumnIterator<'f, 'm>) -> Result<Self, DeserializationError> {
        let col = row.next().ok_or_else(|| {
            DeserializationError::new(RowError::Value {
                table: String::new(),
                column: "[applied]".to_owned(),
                rust_type: "bool",
                detail: "missing".into(),
            })
        })??;
        <bool as DeserializeValue<'f, 'm>>::deserialize(col.spec.typ(), col.slice).map(Applied)
    }
}
