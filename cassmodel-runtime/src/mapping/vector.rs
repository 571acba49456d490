//! [`Vector`]: a `vector<float, N>` column (Cassandra 5.0), whose Rust type carries its
//! dimension, so that a vector of another length is a compile error.

use std::fmt;

use cassmodel_schema::{CqlType, NativeType};
use scylla::deserialize::value::{DeserializeValue, VectorIterator};
use scylla::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
use scylla::frame::response::result::ColumnType;
use scylla::serialize::SerializationError;
use scylla::serialize::value::SerializeValue;
use scylla::serialize::writers::{CellWriter, WrittenCellProof};

use scylla::deserialize::row::{ColumnIterator, DeserializeRow};
use scylla::frame::response::result::ColumnSpec;

use super::erased::ErasedValue;
use super::projection::{Computed, Projection};
use super::table::Table;
use super::types::CqlMapping;

/// A `vector<float, N>` value: `N` `f32`s, written and read back exactly (each element is a
/// 4-byte float on the wire).
///
/// Declare a vector column with a field of this type; `#[cass(index)]` on it creates the SAI
/// index that vector search (`ann_<field>(..)`) needs, and `index(similarity = "..")` picks
/// how vectors are compared (`cosine`, the default, `dot_product` or `euclidean`).
///
/// ```
/// use cassmodel::value::Vector;
///
/// let v = Vector::new([0.6, 0.8, 0.0]);
/// assert_eq!(v.len(), 3);
/// assert_eq!(v[1], 0.8);
/// let w: Vector<3> = [1.0, 0.0, 0.0].into();
/// assert_eq!(Vector::<3>::try_from(&[1.0, 0.0, 0.0][..]), Ok(w));
/// assert!(Vector::<3>::try_from(&[1.0, 0.0][..]).is_err());
/// ```
///
/// # Values a vector index refuses
///
/// A column without an index stores any `f32`s, NaN payloads and infinities included, and
/// reads them back bit for bit. A column with a vector index takes only what the index can
/// compare; cassmodel checks a vector written to such a column (insert, update, batch, entity
/// save) and the query vector of an ANN search before the request is sent, and refuses one
/// that breaks a rule with [`RowError::Refused`](crate::RowError::Refused) (kind
/// `InvalidRequest`), naming the table, the column, the rule and the component. These are the
/// rules of Cassandra 5.0's SAI vector index (`OnHeapGraph.checkInBounds` and
/// `validateIndexable`, and the jvector similarity functions it calls), which the server
/// applies only on the replica, failing the write with `UNKNOWN` or, for cosine, timing out:
///
/// | rule | similarity functions |
/// |---|---|
/// | every component finite: no NaN (whatever its payload), `inf` or `-inf` | all |
/// | every component of magnitude at most `1e17` | all |
/// | the sum of the squared components at most `f32::MAX` (a quarter of it for Euclidean) | all |
/// | not every component zero (`0.0` or `-0.0`): the vector has no direction | cosine |
/// | not every component below `2.7e-23` in magnitude (each squared is zero in `f32`) | cosine |
///
/// ```
/// use cassmodel::value::Vector;
/// # use cassmodel::{CassTable, Db, ErrorKind};
/// #[derive(CassTable)]
/// struct Doc {
///     #[partition_key]
///     id: i32,
///     #[cass(index)] // cosine
///     embedding: Vector<3>,
/// }
///
/// # async fn f(db: &Db) -> cassmodel::Result<()> {
/// let doc = Doc { id: 1, embedding: Vector::new([0.0, f32::NAN, 1.0]) };
/// let err = db.insert(&doc).await.expect_err("refused before it is sent");
/// assert_eq!(err.kind(), ErrorKind::InvalidRequest);
/// // table `ks.doc`, column `embedding` (Rust `Vector<3>`): component 1 is NaN: a vector
/// // index (cosine) takes finite components only (no NaN or infinity)
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, PartialEq)]
pub struct Vector<const N: usize>(pub [f32; N]);

impl<const N: usize> Vector<N> {
    /// The vector with these elements.
    pub const fn new(elements: [f32; N]) -> Self {
        Vector(elements)
    }

    /// Its elements.
    pub const fn as_array(&self) -> &[f32; N] {
        &self.0
    }

    /// Its elements, by value.
    pub const fn into_array(self) -> [f32; N] {
        self.0
    }
}

impl<const N: usize> Default for Vector<N> {
    fn default() -> Self {
        Vector([0.0; N])
    }
}

impl<const N: usize> fmt::Debug for Vector<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Vector").field(&self.0).finish()
    }
}

impl<const N: usize> std::ops::Deref for Vector<N> {
    type Target = [f32; N];

    fn deref(&self) -> &[f32; N] {
        &self.0
    }
}

impl<const N: usize> std::ops::DerefMut for Vector<N> {
    fn deref_mut(&mut self) -> &mut [f32; N] {
        &mut self.0
    }
}

impl<const N: usize> From<[f32; N]> for Vector<N> {
    fn from(elements: [f32; N]) -> Self {
        Vector(elements)
    }
}

impl<const N: usize> From<Vector<N>> for [f32; N] {
    fn from(v: Vector<N>) -> Self {
        v.0
    }
}

/// A slice of another length than the vector's dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a vector<float, {expected}> takes {expected} elements, not {found}")]
pub struct DimensionError {
    /// The vector's dimension.
    pub expected: usize,
    /// The number of elements given (or read).
    pub found: usize,
}

impl<const N: usize> TryFrom<&[f32]> for Vector<N> {
    type Error = DimensionError;

    fn try_from(elements: &[f32]) -> Result<Self, DimensionError> {
        <[f32; N]>::try_from(elements)
            .map(Vector)
            .map_err(|_| DimensionError {
                expected: N,
                found: elements.len(),
            })
    }
}

impl<const N: usize> TryFrom<Vec<f32>> for Vector<N> {
    type Error = DimensionError;

    fn try_from(elements: Vec<f32>) -> Result<Self, DimensionError> {
        Self::try_from(elements.as_slice())
    }
}

/// A result column that is not a `vector<float, N>` of this `N`.
#[derive(Debug, thiserror::Error)]
#[error("`Vector<{expected}>` reads a `vector<float, {expected}>` column, not `{found}`")]
struct VectorTypeError {
    expected: usize,
    found: String,
}

impl<const N: usize> SerializeValue for Vector<N> {
    fn serialize<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        // The driver's slice impl checks the column's element type and dimension.
        SerializeValue::serialize(self.0.as_slice(), typ, writer)
    }
}

impl<'f, 'm, const N: usize> DeserializeValue<'f, 'm> for Vector<N> {
    fn type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
        match typ {
            ColumnType::Vector {
                typ: element,
                dimensions,
            } if usize::from(*dimensions) == N => {
                <f32 as DeserializeValue<'_, '_>>::type_check(element)
            }
            _ => Err(TypeCheckError::new(VectorTypeError {
                expected: N,
                found: super::reason::describe_type(typ),
            })),
        }
    }

    fn deserialize(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Self, DeserializationError> {
        let elements =
            <VectorIterator<'f, 'm, f32> as DeserializeValue<'f, 'm>>::deserialize(typ, v)?;
        let mut out = [0.0; N];
        let mut found = 0;
        for e in elements {
            let e = e?;
            if let Some(slot) = out.get_mut(found) {
                *slot = e;
            }
            found += 1;
        }
        if found == N {
            Ok(Vector(out))
        } else {
            Err(DeserializationError::new(DimensionError {
                expected: N,
                found,
            }))
        }
    }
}

impl<const N: usize> CqlMapping for Vector<N> {
    fn cql_type() -> CqlType {
        let n = u32::try_from(N).unwrap_or(u32::MAX);
        CqlType::Vector(Box::new(CqlType::Native(NativeType::Float)), n)
    }

    /// A `vector<float, N>` is `N` floats without lengths.
    #[inline]
    fn __size_bound(&self) -> Option<usize> {
        Some(4 * N)
    }

    #[inline]
    fn __vector(&self) -> Option<&[f32]> {
        Some(&self.0)
    }
}

/// A query vector for an ANN search on a column of type `V`: a [`Vector`] of the column's
/// dimension, or an array of as many `f32`s.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query vector for a `{V}` column: give a vector of the column's dimension",
    label = "a vector of another dimension, or not a vector",
    note = "a vector search compares vectors of one dimension: pass a `&Vector<N>` or `&[f32; N]` with the `N` of the column's type"
)]
pub trait QueryVector<V>: ErasedValue {}

#[diagnostic::do_not_recommend]
impl<const N: usize> QueryVector<Vector<N>> for Vector<N> {}
#[diagnostic::do_not_recommend]
impl<const N: usize> QueryVector<Vector<N>> for [f32; N] {}
#[diagnostic::do_not_recommend]
impl<const N: usize> QueryVector<Option<Vector<N>>> for Vector<N> {}
#[diagnostic::do_not_recommend]
impl<const N: usize> QueryVector<Option<Vector<N>>> for [f32; N] {}

impl<const N: usize> ErasedValue for [f32; N] {
    fn write_to<'b>(
        &self,
        typ: &ColumnType<'_>,
        writer: CellWriter<'b>,
    ) -> Result<WrittenCellProof<'b>, SerializationError> {
        SerializeValue::serialize(self.as_slice(), typ, writer)
    }

    fn rust_type(&self) -> &'static str {
        std::any::type_name::<[f32; N]>()
    }

    fn vector(&self) -> Option<&[f32]> {
        Some(self)
    }
}

/// A row with its similarity to a query vector: what `.with_score()` reads after a vector
/// search (`SELECT similarity_<function>(column, ?), ...`, the function of the column's
/// index), and what `.similarity_<field>(function, &query)` reads in any read.
///
/// The score is in `[0, 1]`, higher for nearer vectors: `(1 + cosine) / 2` for cosine,
/// `(1 + dot product) / 2` for the dot product, `1 / (1 + d²)` for the Euclidean distance
/// (`d` the distance). Its type `S` is `f32`, or `Option<f32>` for a column that may be null
/// (a row without a vector has no similarity).
#[derive(Debug, Clone, PartialEq)]
pub struct Scored<R, S = f32> {
    /// How near the row's vector is to the query vector.
    pub score: S,
    /// The row, or its projection.
    pub row: R,
}

#[diagnostic::do_not_recommend]
impl<R: super::function::RowKind, S> super::function::RowKind for Scored<R, S> {
    type Kind = R::Kind;
}

impl<T: Table, R: Projection<T>, S> Projection<T> for Scored<R, S>
where
    S: for<'f, 'm> DeserializeValue<'f, 'm> + Send + 'static,
{
    fn columns() -> &'static [usize] {
        R::columns()
    }

    fn computed() -> &'static [Computed] {
        R::computed()
    }
}

/// A result without the score column `Scored` reads first.
#[derive(Debug, thiserror::Error)]
#[error("a scored row starts with its similarity score, and the result has no columns")]
struct NoScore;

impl<'f, 'm, R, S> DeserializeRow<'f, 'm> for Scored<R, S>
where
    R: DeserializeRow<'f, 'm>,
    S: DeserializeValue<'f, 'm>,
{
    fn type_check(specs: &[ColumnSpec<'_>]) -> Result<(), TypeCheckError> {
        let Some((score, rest)) = specs.split_first() else {
            return Err(TypeCheckError::new(NoScore));
        };
        S::type_check(score.typ())?;
        R::type_check(rest)
    }

    fn deserialize(mut row: ColumnIterator<'f, 'm>) -> Result<Self, DeserializationError> {
        let column = row
            .next()
            .ok_or_else(|| DeserializationError::new(NoScore))??;
        let score = S::deserialize(column.spec.typ(), column.slice)?;
        Ok(Scored {
            score,
            row: R::deserialize(row)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write skips serializing its values first when their size bounds fit the request
    /// limit: a vector's bound is its exact size.
    #[test]
    fn the_size_bound_is_the_size_written() {
        use scylla::frame::response::result::NativeType;
        let v = Vector([1.0f32, 2.0, 3.0]);
        let typ = ColumnType::Vector {
            typ: Box::new(ColumnType::Native(NativeType::Float)),
            dimensions: 3,
        };
        let mut buf = Vec::new();
        v.__write(&typ, CellWriter::new(&mut buf)).expect("written");
        assert_eq!(Some(buf.len() - 4), ErasedValue::size_bound(&v));
    }
}
