//! A row's cells as an insert writes them, with static dispatch: the generated
//! `Table::__cells` hands out its fields as a tuple of their [`Cell`]s
//! (`CqlMapping::__cell`), in column order, and [`Cells`] writes that tuple, each value by
//! its own type's code (no `dyn` call and no column-index match per cell, as the driver
//! writes a tuple of values), counting each cell's size against the room left in the request.
//!
//! Tables of more than [`CELLS_ARITY`](cassmodel_schema::CELLS_ARITY) columns nest their
//! tuples (a tuple of tuples of at most that many each). A value without a size bound (a
//! user-defined type, a varint), and one that may not fit in the room left, stop the walk
//! before anything of it is written: the insert writes that column by its general path, then
//! resumes the walk after it.

use scylla::frame::response::result::{ColumnSpec, ColumnType};
use scylla::serialize::SerializationError;
use scylla::serialize::writers::{CellWriter, RowWriter, WrittenCellProof};

/// Where [`Cells::__write`] stopped.
#[doc(hidden)]
#[derive(Debug)]
pub enum CellStop {
    /// Column `.0` was not written (nothing of it): its value has no size bound, or it may
    /// not fit in the room left, or the statement has no marker for it.
    At(usize),
    /// Writing column `.0` failed.
    Failed(usize, SerializationError),
}

/// Cells of a row, written in column order: a field ([`Cell`]), or a tuple of them (nested
/// for rows of more than [`CELLS_ARITY`](cassmodel_schema::CELLS_ARITY) columns).
/// Implemented by the runtime only; the derive's `__cells` returns one.
#[doc(hidden)]
pub trait Cells {
    /// How many columns these cells are.
    const COUNT: usize;

    /// Writes the cells of columns `first..first + COUNT` that are at `walk.from` or after
    /// (see [`Walk`]).
    #[doc(hidden)]
    fn __write(&self, first: usize, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop>;
}

/// One walk over a row's cells: each column from `from` on is written for its marker
/// (`specs[i]` is column `i`'s) only when its length and size bound fit in `room`, which it
/// then takes. With `unset_nulls`, a `None` is left unset.
#[doc(hidden)]
pub struct Walk<'s, 'w, 'b> {
    specs: &'s [ColumnSpec<'s>],
    pub(crate) from: usize,
    unset_nulls: bool,
    /// The bytes left in the request.
    pub(crate) room: usize,
    pub(crate) writer: &'w mut RowWriter<'b>,
}

impl<'s, 'w, 'b> Walk<'s, 'w, 'b> {
    pub(crate) fn new(
        specs: &'s [ColumnSpec<'s>],
        writer: &'w mut RowWriter<'b>,
        unset_nulls: bool,
        room: usize,
    ) -> Self {
        Walk {
            specs,
            from: 0,
            unset_nulls,
            room,
            writer,
        }
    }
}

/// One field's cell: what `CqlMapping::__cell` makes of a field.
#[doc(hidden)]
pub struct Cell<'a, V> {
    value: &'a V,
    /// How a `V` is written (`CqlMapping::__cell` of `V`, through [`Walk::write`]): a
    /// constant, so inlined where the tuple is written.
    write: CellWriteFn<V>,
}

/// How [`Cell`] writes its value as column `usize`.
pub(crate) type CellWriteFn<V> = fn(&V, usize, &mut Walk<'_, '_, '_>) -> Result<(), CellStop>;

impl<'a, V> Cell<'a, V> {
    /// The cell of `value`, written by `write`. Made by `CqlMapping::__cell`, which generated
    /// code calls through the field's type's mapping, spanned on that type: a type without a
    /// CQL mapping is then one error there (the one every use of the field's mapping gives),
    /// not a second one about the whole tuple ([`Cell`] is [`Cells`] whatever `V` is).
    #[inline(always)]
    pub(crate) fn new(value: &'a V, write: CellWriteFn<V>) -> Self {
        Cell { value, write }
    }
}

impl<V> Cells for Cell<'_, V> {
    const COUNT: usize = 1;

    #[inline(always)]
    fn __write(&self, i: usize, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop> {
        (self.write)(self.value, i, walk)
    }
}

impl Walk<'_, '_, '_> {
    /// Writes column `i`'s cell: `None` (`is_none`) left unset when nulls are, or the value
    /// of size bound `bound` (`None`: not known without writing it) by `write`.
    #[inline(always)]
    pub(crate) fn write(
        &mut self,
        i: usize,
        is_none: bool,
        bound: impl FnOnce() -> Option<usize>,
        write: impl for<'b> FnOnce(
            &ColumnType<'_>,
            CellWriter<'b>,
        ) -> Result<WrittenCellProof<'b>, SerializationError>,
    ) -> Result<(), CellStop> {
        if i < self.from {
            return Ok(());
        }
        let Some(spec) = self.specs.get(i) else {
            return Err(CellStop::At(i));
        };
        let unset = self.unset_nulls && is_none;
        let bound = if unset { Some(0) } else { bound() };
        let Some(cell) = bound
            .and_then(|b| b.checked_add(4))
            .filter(|&cell| cell <= self.room)
        else {
            return Err(CellStop::At(i));
        };
        let writer = self.writer.make_cell_writer();
        let written = if unset {
            Ok(writer.set_unset())
        } else {
            write(spec.typ(), writer)
        };
        if let Err(e) = written {
            return Err(CellStop::Failed(i, e));
        }
        self.room -= cell;
        Ok(())
    }
}

impl Cells for () {
    const COUNT: usize = 0;

    #[inline(always)]
    fn __write(&self, _: usize, _: &mut Walk<'_, '_, '_>) -> Result<(), CellStop> {
        Ok(())
    }
}

macro_rules! tuple_cells {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Cells),+> Cells for ($($name,)+) {
            const COUNT: usize = 0 $(+ $name::COUNT)+;

            #[inline(always)]
            fn __write(&self, first: usize, walk: &mut Walk<'_, '_, '_>) -> Result<(), CellStop> {
                let mut first = first;
                $(
                    self.$index.__write(first, walk)?;
                    first += $name::COUNT;
                )+
                let _ = first;
                Ok(())
            }
        }
    };
}

tuple_cells!(A 0);
tuple_cells!(A 0, B 1);
tuple_cells!(A 0, B 1, C 2);
tuple_cells!(A 0, B 1, C 2, D 3);
tuple_cells!(A 0, B 1, C 2, D 3, E 4);
tuple_cells!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_cells!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_cells!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_cells!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_cells!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_cells!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_cells!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// Writes `cells` (columns `0..`) from column `walk.from`: `Ok` when every column after it
/// is written.
#[inline(always)]
pub(crate) fn write_cells<C: Cells>(
    cells: &C,
    walk: &mut Walk<'_, '_, '_>,
) -> Result<(), CellStop> {
    cells.__write(0, walk)
}
