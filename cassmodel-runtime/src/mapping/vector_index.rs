//! What a vector index takes: the rules Cassandra 5.0's SAI vector index applies to the
//! vectors it indexes and to the query vectors of ANN searches, checked before a value is
//! sent ([`index_refuses`]).
//!
//! Cassandra applies them on the replica, while it applies the write or runs the search, so a
//! vector that breaks one fails with an error that does not say which rule (a write failure
//! with reason `UNKNOWN`), or, for a vector the server's cosine cannot compare, a server-side
//! assertion and a write **timeout**. Here, the value is refused with the rule and the
//! component.
//!
//! The server's rules (Cassandra 5.0.8, `OnHeapGraph.checkInBounds` and
//! `OnHeapGraph.validateIndexable`, and the jvector 1.0.2 similarity functions it calls):
//! every component finite, no component larger in magnitude than `1e17`, and for cosine a
//! vector that is not all zeros. Two more follow from how jvector computes similarities (sums
//! of products in `f32`, asserting a finite result): for cosine, a vector whose squared
//! components all round to zero in `f32` has no length to divide by, and no squared length
//! may overflow `f32` (for Euclidean, a quarter of it, since the squared distance between two
//! vectors is at most twice the sum of their squared lengths).

use cassmodel_schema::Similarity;

/// The largest component magnitude the index takes (`OnHeapGraph.MAX_FLOAT32_COMPONENT`).
pub(crate) const MAX_COMPONENT: f32 = 1e17;

/// Why a vector index ranking by `similarity` refuses the vector `v`, naming the rule and the
/// component; `None` when it takes it.
pub(crate) fn index_refuses(v: &[f32], similarity: Similarity) -> Option<String> {
    for (i, &x) in v.iter().enumerate() {
        if !x.is_finite() {
            return Some(format!(
                "component {i} is {x}: a vector index ({similarity}) takes finite components \
                 only (no NaN or infinity)"
            ));
        }
        if x.abs() > MAX_COMPONENT {
            return Some(format!(
                "component {i} is {x:e}: a vector index ({similarity}) takes components of \
                 magnitude at most 1e17"
            ));
        }
    }
    if similarity == Similarity::Cosine {
        if v.iter().all(|&x| x == 0.0) {
            return Some(
                "every component is zero: a cosine index cannot compare a vector without a \
                 direction (give a non-zero vector, or index the column with another \
                 similarity: `#[cass(index(similarity = \"euclidean\"))]`)"
                    .to_owned(),
            );
        }
        // The server sums the squares in f32: when each rounds to zero, it divides by zero.
        if v.iter().all(|&x| x * x == 0.0) {
            return Some(
                "every component is below 2.7e-23 in magnitude, so its squared length is zero \
                 in f32 and a cosine index cannot compare it: scale the vector up (cosine \
                 ignores the length)"
                    .to_owned(),
            );
        }
    }
    let squared: f64 = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
    let (limit, of) = match similarity {
        Similarity::Euclidean => (f64::from(f32::MAX) / 4.0, "a quarter of f32::MAX"),
        Similarity::Cosine | Similarity::DotProduct => (f64::from(f32::MAX), "f32::MAX"),
    };
    (squared > limit).then(|| {
        format!(
            "its squared length, {squared:e}, is more than {of}: a vector index \
             ({similarity}) computes similarities in f32, and they would overflow; scale the \
             vector down"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Similarity; 3] = Similarity::ALL;

    #[test]
    fn ordinary_vectors_pass_every_index() {
        for s in ALL {
            for v in [
                &[0.6f32, 0.8, 0.0][..],
                &[1e17, -1e17, 3.0],
                &[f32::MIN_POSITIVE, 1.0],
                &[2.7e-23, 0.0],
            ] {
                assert_eq!(index_refuses(v, s), None, "{v:?} {s}");
            }
        }
        // No rule of euclidean or dot product needs a length.
        for s in [Similarity::Euclidean, Similarity::DotProduct] {
            assert_eq!(index_refuses(&[0.0, 0.0], s), None);
            assert_eq!(index_refuses(&[1e-30, 0.0], s), None);
        }
    }

    #[test]
    fn non_finite_and_huge_components_are_refused_with_their_index() {
        for s in ALL {
            for (v, rule) in [
                ([1.0, f32::NAN, 0.0], "component 1 is NaN"),
                ([1.0, 0.0, f32::INFINITY], "component 2 is inf"),
                ([f32::NEG_INFINITY, 0.0, 1.0], "component 0 is -inf"),
                ([1.0, f32::MAX, 0.0], "component 1 is 3.4028235e38"),
                ([-1.1e17, 0.0, 1.0], "component 0 is -1.1e17"),
            ] {
                let detail = index_refuses(&v, s).expect("refused");
                assert!(detail.starts_with(rule), "{detail}");
                assert!(detail.contains(s.name()), "{detail}");
            }
            // Any NaN payload.
            let nan = f32::from_bits(0x7fc0_1234);
            assert!(index_refuses(&[nan], s).is_some());
        }
    }

    #[test]
    fn cosine_refuses_zero_and_vanishing_vectors_only() {
        let zero = index_refuses(&[0.0, -0.0, 0.0], Similarity::Cosine).expect("refused");
        assert!(zero.starts_with("every component is zero"), "{zero}");
        let tiny = 2f32.powi(-75);
        let vanishing = index_refuses(&[tiny, -tiny, 0.0], Similarity::Cosine).expect("refused");
        assert!(vanishing.contains("squared length is zero"), "{vanishing}");
        // The next float up has a square above zero.
        let above = f32::from_bits(tiny.to_bits() + 1);
        assert_eq!(index_refuses(&[above, 0.0], Similarity::Cosine), None);
    }

    #[test]
    fn squared_lengths_that_overflow_f32_are_refused() {
        // 34,029 components of 1e17: each is in bounds, the sum of squares is not.
        let v = vec![1e17f32; 34_029];
        for s in ALL {
            let detail = index_refuses(&v, s).expect("refused");
            assert!(detail.starts_with("its squared length"), "{detail}");
        }
        // A quarter of the limit passes cosine and dot product, not euclidean.
        let v = vec![1e17f32; 10_000];
        assert_eq!(index_refuses(&v, Similarity::Cosine), None);
        assert_eq!(index_refuses(&v, Similarity::DotProduct), None);
        assert!(index_refuses(&v, Similarity::Euclidean).is_some());
    }
}
