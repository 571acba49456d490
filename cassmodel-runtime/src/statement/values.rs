//! A statement's bound values in bind order, as the driver writes them: [`QueryValues`] (a
//! query's) and [`BoundRow`] (a list of values, e.g. a key), and [`in_one_piece`], which hands
//! a row's cells to the driver in one piece.

use std::cell::Cell;

use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::RowWriter;
use scylla_cql_core::serialize::row::{
    BuiltinSerializationErrorKind, SerializedValues, mk_ser_err,
};

use crate::error::row::count_mismatch;
use crate::mapping::erased::{Bound, SizeBound, cells_bound};

thread_local! {
    /// The buffer [`in_one_piece`] writes a row's cells into, kept between requests.
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The largest buffer [`in_one_piece`] keeps for the next request: a larger row's leaves with
/// it, so that one large write does not hold its size for the thread's life.
const SCRATCH_KEPT: usize = 64 * 1024;

/// Writes a row's cells (`write`, into a [`RowWriter`] of its own) to `writer` in one piece.
///
/// The driver writes a request's values into a new, empty vector (`SerializedValues`), which
/// grows as the cells are written: for the benchmark's insert of five columns, 5.7 growths a
/// row, each an allocation or a `realloc` that may copy what is written so far (about 330
/// instructions each, counted with `benches/callgrind_ops.sh`, BENCHMARKS.md). Here the
/// cells are written into a buffer this thread keeps (no allocation once it has grown to a
/// row's size) and handed to the driver's vector at once: one allocation of the exact size,
/// and one for the `SerializedValues` that the driver's `append_serialize_row` takes, built
/// from the buffer.
///
/// A nested call (a value whose own code writes a row) takes a new buffer.
///
/// The cost is two copies of the cells (into the `SerializedValues`, then into the driver's
/// vector), where the driver's own growth copied them about once: nothing beside a row of a
/// few hundred bytes, but a large row (a blob of megabytes) is held up to three times while
/// it is handed over (the buffer, the `SerializedValues` and the driver's vector; the driver
/// alone held it once or twice), and its buffer is then freed, not kept.
#[inline]
pub(crate) fn in_one_piece<R>(
    writer: &mut RowWriter<'_>,
    write: impl FnOnce(&mut RowWriter<'_>) -> Result<R, SerializationError>,
) -> Result<R, SerializationError> {
    let mut buf = SCRATCH.try_with(Cell::take).unwrap_or_default();
    buf.clear();
    // The count of cells, a [short] before them as in a request frame, set when it is known.
    buf.extend_from_slice(&[0, 0]);
    let mut own = RowWriter::new(&mut buf);
    let written = write(&mut own);
    let count = own.value_count();
    let out = written.and_then(|out| {
        // The driver's own error for a row of more cells than a `[short]` counts.
        let count = u16::try_from(count).map_err(|_| {
            mk_ser_err::<SerializedValues>(BuiltinSerializationErrorKind::TooManyValues)
        })?;
        buf[..2].copy_from_slice(&count.to_be_bytes());
        let cells = SerializedValues::new_from_frame(&mut buf.as_slice())
            .map_err(SerializationError::new)?;
        writer.append_serialize_row(&cells);
        Ok(out)
    });
    if buf.capacity() <= SCRATCH_KEPT {
        let _ = SCRATCH.try_with(|kept| kept.set(buf));
    }
    out
}

/// Values in bind order, as a row: the typed key arguments of `get` and `partition` (an
/// array, no allocation), or the WHERE values re-bound for the SERIAL read after an LWT.
pub(crate) struct BoundRow<B>(pub(crate) B);

impl<'a, B: AsRef<[Bound<'a>]>> SerializeRow for BoundRow<B> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        let values = self.0.as_ref();
        if values.len() != ctx.columns().len() {
            return Err(count_mismatch(ctx));
        }
        in_one_piece(writer, |writer| {
            for (v, spec) in values.iter().zip(ctx.columns()) {
                v.write_for(spec, writer.make_cell_writer())?;
            }
            Ok(())
        })
    }

    fn is_empty(&self) -> bool {
        self.0.as_ref().is_empty()
    }
}

/// The query vectors of the similarity scores a read selects, in the order they were asked
/// for (the last one is selected first): `None` for the vector search's own. Two are kept
/// inline, so that a scored read allocates nothing for them; a `SmallVec` would too, but its
/// `Drop` would ask every value the query borrows to outlive it, and a builder given
/// `&vec![..]` in one statement would no longer compile.
#[derive(Default)]
pub(crate) struct ScoreVectors<'a> {
    inline: [Option<Option<Bound<'a>>>; 2],
    more: Vec<Option<Bound<'a>>>,
}

impl<'a> ScoreVectors<'a> {
    pub(crate) fn push(&mut self, query: Option<Bound<'a>>) {
        match self.inline.iter_mut().find(|slot| slot.is_none()) {
            Some(slot) => *slot = Some(query),
            None => self.more.push(query),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.inline = [None, None];
        self.more.clear();
    }

    fn is_empty(&self) -> bool {
        self.inline[0].is_none()
    }

    fn reborrow(&self) -> ScoreVectors<'_> {
        fn one<'s>(s: &'s Option<Bound<'_>>) -> Option<Bound<'s>> {
            s.as_ref().map(Bound::reborrow)
        }
        ScoreVectors {
            inline: [
                self.inline[0].as_ref().map(one),
                self.inline[1].as_ref().map(one),
            ],
            more: self.more.iter().map(one).collect(),
        }
    }

    /// The vectors in bind order (the last asked for first), `ann` for the search's own.
    fn in_select_order<'s>(
        &'s self,
        ann: Option<&'s Bound<'a>>,
    ) -> impl Iterator<Item = &'s Bound<'a>> {
        let inline = self.inline.iter().rev().flatten();
        self.more
            .iter()
            .rev()
            .chain(inline)
            .filter_map(move |s| s.as_ref().or(ann))
    }
}

/// The values of a query in bind order: USING (TTL, TIMESTAMP), the scores' query vectors,
/// SET, WHERE, IF, the ANN query vector, PER PARTITION LIMIT, LIMIT.
#[derive(Default)]
pub(crate) struct QueryValues<'a> {
    pub(crate) ttl: Option<i32>,
    pub(crate) timestamp: Option<i64>,
    pub(crate) set: Vec<Bound<'a>>,
    pub(crate) where_: Vec<Bound<'a>>,
    pub(crate) if_: Vec<Bound<'a>>,
    /// The query vector of `ORDER BY v ANN OF ?`.
    pub(crate) ann: Option<Bound<'a>>,
    /// The query vector of each score read (`SELECT similarity_..(v, ?), ...`), bound first.
    pub(crate) scores: ScoreVectors<'a>,
    pub(crate) per_partition_limit: Option<i32>,
    pub(crate) limit: Option<i32>,
}

impl<'a> QueryValues<'a> {
    /// The same values, borrowed (owned adapters as references): for one statement run
    /// several times with one value changed (a bucket read's bucket).
    pub(crate) fn reborrow(&self) -> QueryValues<'_> {
        QueryValues {
            ttl: self.ttl,
            timestamp: self.timestamp,
            set: self.set.iter().map(Bound::reborrow).collect(),
            where_: self.where_.iter().map(Bound::reborrow).collect(),
            if_: self.if_.iter().map(Bound::reborrow).collect(),
            ann: self.ann.as_ref().map(Bound::reborrow),
            scores: self.scores.reborrow(),
            per_partition_limit: self.per_partition_limit,
            limit: self.limit,
        }
    }

    /// The bound values in bind order, between USING and the limits: the scores' query
    /// vectors, SET, WHERE, IF, the ANN query vector.
    fn bound(&self) -> impl Iterator<Item = &Bound<'a>> {
        let scores = self.scores.in_select_order(self.ann.as_ref());
        scores
            .chain(&self.set)
            .chain(&self.where_)
            .chain(&self.if_)
            .chain(&self.ann)
    }
}

impl SizeBound for QueryValues<'_> {
    fn size_bound(&self) -> Option<usize> {
        let ints = [self.per_partition_limit, self.limit, self.ttl]
            .into_iter()
            .flatten()
            .map(|_| Some(4));
        let timestamp = self.timestamp.map(|_| Some(8));
        let values = self.bound().map(Bound::size_bound);
        cells_bound(values.chain(ints).chain(timestamp))
    }
}

impl SerializeRow for QueryValues<'_> {
    fn serialize(
        &self,
        ctx: &RowSerializationContext<'_>,
        writer: &mut RowWriter,
    ) -> Result<(), SerializationError> {
        in_one_piece(writer, |writer| {
            let mut specs = ctx.columns().iter();
            let mut next_spec = || specs.next().ok_or_else(|| count_mismatch(ctx));
            if let Some(ttl) = &self.ttl {
                SerializeValue::serialize(ttl, next_spec()?.typ(), writer.make_cell_writer())?;
            }
            if let Some(ts) = &self.timestamp {
                SerializeValue::serialize(ts, next_spec()?.typ(), writer.make_cell_writer())?;
            }
            for v in self.bound() {
                v.write_for(next_spec()?, writer.make_cell_writer())?;
            }
            for n in self.per_partition_limit.iter().chain(&self.limit) {
                SerializeValue::serialize(n, next_spec()?.typ(), writer.make_cell_writer())?;
            }
            Ok(())
        })
    }

    fn is_empty(&self) -> bool {
        self.ttl.is_none()
            && self.timestamp.is_none()
            && self.set.is_empty()
            && self.where_.is_empty()
            && self.if_.is_empty()
            && self.ann.is_none()
            && self.scores.is_empty()
            && self.limit.is_none()
            && self.per_partition_limit.is_none()
    }
}

#[cfg(test)]
mod tests {
    use scylla::frame::response::result::{ColumnType, NativeType};
    use scylla::serialize::writers::WrittenCellProof;

    use super::*;

    /// Writes `cells` into `writer`: a text, a null, an unset and an int for each of them.
    fn cells(writer: &mut RowWriter<'_>, texts: &[&str]) -> Result<(), SerializationError> {
        for (i, text) in texts.iter().enumerate() {
            text.serialize(
                &ColumnType::Native(NativeType::Text),
                writer.make_cell_writer(),
            )?;
            let _: WrittenCellProof<'_> = writer.make_cell_writer().set_null();
            let _: WrittenCellProof<'_> = writer.make_cell_writer().set_unset();
            let n = i32::try_from(i).map_err(SerializationError::new)?;
            n.serialize(
                &ColumnType::Native(NativeType::Int),
                writer.make_cell_writer(),
            )?;
        }
        Ok(())
    }

    fn kept_capacity() -> usize {
        SCRATCH.with(|kept| {
            let buf = kept.take();
            let capacity = buf.capacity();
            kept.set(buf);
            capacity
        })
    }

    /// In one piece, the driver's writer gets the same bytes and the same count of cells as
    /// when they are written to it one by one, after cells written before, twice in a row
    /// (the kept buffer is cleared) and with a nested call inside.
    #[test]
    fn one_piece_writes_the_same_cells() {
        let texts = ["a", "", "a text of some length", "é"];
        let mut direct = Vec::new();
        let mut by_one = RowWriter::new(&mut direct);
        cells(&mut by_one, &["before"]).unwrap();
        for _ in 0..2 {
            cells(&mut by_one, &texts).unwrap();
        }
        cells(&mut by_one, &texts[..1]).unwrap();
        cells(&mut by_one, &texts[1..]).unwrap();
        let count = by_one.value_count();
        assert_eq!(count, 4 * (1 + 2 * texts.len() + texts.len()));

        let mut pieces = Vec::new();
        let mut in_pieces = RowWriter::new(&mut pieces);
        cells(&mut in_pieces, &["before"]).unwrap();
        for _ in 0..2 {
            in_one_piece(&mut in_pieces, |w| cells(w, &texts)).unwrap();
        }
        in_one_piece(&mut in_pieces, |w| {
            cells(w, &texts[..1])?;
            in_one_piece(w, |inner| cells(inner, &texts[1..]))
        })
        .unwrap();
        assert_eq!(in_pieces.value_count(), count);
        assert_eq!(pieces, direct);
        assert!(kept_capacity() > 0);
    }

    /// A failed write hands the driver nothing, and the next write is whole.
    #[test]
    fn one_piece_failed_writes_nothing() {
        let mut buf = Vec::new();
        let mut writer = RowWriter::new(&mut buf);
        let failed = in_one_piece(&mut writer, |w| {
            cells(w, &["written, then dropped"])?;
            "x".serialize(&ColumnType::Native(NativeType::Int), w.make_cell_writer())?;
            Ok(())
        });
        assert!(failed.is_err());
        assert_eq!(writer.value_count(), 0);
        in_one_piece(&mut writer, |w| cells(w, &["b"])).unwrap();
        assert_eq!(writer.value_count(), 4);
        let mut direct = Vec::new();
        cells(&mut RowWriter::new(&mut direct), &["b"]).unwrap();
        assert_eq!(buf, direct);
    }

    /// A row larger than [`SCRATCH_KEPT`] is written whole, and its buffer is not kept.
    #[test]
    fn one_piece_keeps_no_large_buffer() {
        let large = "x".repeat(SCRATCH_KEPT + 1);
        let mut buf = Vec::new();
        let mut writer = RowWriter::new(&mut buf);
        in_one_piece(&mut writer, |w| cells(w, &[&large])).unwrap();
        assert_eq!(writer.value_count(), 4);
        assert!(buf.len() > SCRATCH_KEPT);
        assert!(kept_capacity() <= SCRATCH_KEPT);
    }

    /// The vectors are bound last asked for first, the search's own where it is asked for,
    /// past the two kept inline too; a reborrow keeps the order.
    #[test]
    fn score_vectors_bind_last_first() {
        let mut scores = ScoreVectors::default();
        assert!(scores.is_empty());
        for query in [
            Some(Bound::Index(1)),
            None,
            Some(Bound::Index(3)),
            Some(Bound::Index(4)),
        ] {
            scores.push(query);
        }
        let ann = Bound::Index(0);
        let order = |s: &ScoreVectors<'_>| -> Vec<i32> {
            s.in_select_order(Some(&ann))
                .map(|b| match b {
                    Bound::Index(i) => *i,
                    _ => -1,
                })
                .collect()
        };
        assert_eq!(order(&scores), [4, 3, 0, 1]);
        assert_eq!(order(&scores.reborrow()), [4, 3, 0, 1]);
        scores.clear();
        assert!(scores.is_empty());
        assert_eq!(order(&scores), Vec::<i32>::new());
    }
}
