//! A statement's bound values in bind order, as the driver writes them: [`QueryValues`] (a
//! query's) and [`BoundRow`] (a list of values, e.g. a key).

use scylla::serialize::SerializationError;
use scylla::serialize::row::{RowSerializationContext, SerializeRow};
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::RowWriter;

use crate::error::count_mismatch;
use crate::mapping::erased::{Bound, SizeBound, cells_bound};

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
        for (v, spec) in values.iter().zip(ctx.columns()) {
            v.write_for(spec, writer.make_cell_writer())?;
        }
        Ok(())
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
    use super::*;

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
