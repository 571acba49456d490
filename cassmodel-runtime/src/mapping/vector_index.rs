//! What a vector index and the similarity functions take: the rules Cassandra 5.0's SAI
//! vector index applies to the vectors it indexes and to the query vectors of ANN searches,
//! and those of `similarity_<function>(column, ?)`, checked before a value is sent
//! ([`refuses`]).
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

//!
//! The CQL functions `similarity_<function>(column, ?)` (a score read) run the same jvector
//! functions on the coordinator, with fewer rules: a query vector with a NaN or infinite
//! component fails with a `java.lang.AssertionError`, and cosine refuses a zero vector and
//! answers 0.5 for any row when the query's squared length overflows `f32` (seen on 5.0.8:
//! `similarity_cosine(v, [1e20, 0, 0])` is 0.5 for `v = [1, 0, 0]`). Those are refused too.

use cassmodel_schema::Similarity;

/// The largest component magnitude the index takes (`OnHeapGraph.MAX_FLOAT32_COMPONENT`).
pub(crate) const MAX_COMPONENT: f32 = 1e17;

/// What compares a vector, and so whose rules it must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum VectorUse {
    /// Written to, or searched by, a column with a vector index ranking by this function.
    Index(Similarity),
    /// The query vector of the CQL function `similarity_<function>(column, ?)`.
    Function(Similarity),
}

impl VectorUse {
    /// What compares the vector, for messages.
    fn what(self) -> String {
        match self {
            VectorUse::Index(s) => format!("a vector index ({s})"),
            VectorUse::Function(s) => format!("`{}`", s.function()),
        }
    }
}

/// Why `user` refuses the vector `v`, naming the rule and the component; `None` when it
/// takes it.
pub(crate) fn refuses(v: &[f32], user: VectorUse) -> Option<String> {
    let (similarity, indexed) = match user {
        VectorUse::Index(s) => (s, true),
        VectorUse::Function(s) => (s, false),
    };
    for (i, &x) in v.iter().enumerate() {
        if !x.is_finite() {
            return Some(format!(
                "component {i} is {x}: {} takes finite components only (no NaN or infinity)",
                user.what()
            ));
        }
        if indexed && x.abs() > MAX_COMPONENT {
            return Some(format!(
                "component {i} is {x:e}: {} takes components of magnitude at most 1e17",
                user.what()
            ));
        }
    }
    if similarity == Similarity::Cosine {
        if v.iter().all(|&x| x == 0.0) {
            let other = if indexed {
                "index the column with another similarity: \
                 `#[cass(index(similarity = \"euclidean\"))]`"
            } else {
                "compare with another function: `Similarity::Euclidean`"
            };
            return Some(format!(
                "every component is zero: {} cannot compare a vector without a direction \
                 (give a non-zero vector, or {other})",
                user.what()
            ));
        }
        // The server sums the squares in f32: when each rounds to zero, it divides by zero.
        if v.iter().all(|&x| x * x == 0.0) {
            return Some(format!(
                "every component is below 2.7e-23 in magnitude, so its squared length is zero \
                 in f32 and {} cannot compare it: scale the vector up (cosine ignores the \
                 length)",
                user.what()
            ));
        }
    }
    let squared: f64 = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
    let (limit, of) = match user {
        VectorUse::Index(Similarity::Euclidean) => {
            (f64::from(f32::MAX) / 4.0, "a quarter of f32::MAX")
        }
        VectorUse::Index(_) | VectorUse::Function(Similarity::Cosine) => {
            (f64::from(f32::MAX), "f32::MAX")
        }
        // A dot product or a distance overflows by the row's vector too: the server fails
        // on it, with nothing to check here.
        VectorUse::Function(_) => return None,
    };
    (squared > limit).then(|| {
        format!(
            "its squared length, {squared:e}, is more than {of}: {} computes similarities \
             in f32, and they would overflow; scale the vector down",
            user.what()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Similarity; 3] = Similarity::ALL;

    fn refuses_index(v: &[f32], s: Similarity) -> Option<String> {
        refuses(v, VectorUse::Index(s))
    }

    #[test]
    fn ordinary_vectors_pass_every_index() {
        for s in ALL {
            for v in [
                &[0.6f32, 0.8, 0.0][..],
                &[1e17, -1e17, 3.0],
                &[f32::MIN_POSITIVE, 1.0],
                &[2.7e-23, 0.0],
            ] {
                assert_eq!(refuses_index(v, s), None, "{v:?} {s}");
            }
        }
        // No rule of euclidean or dot product needs a length.
        for s in [Similarity::Euclidean, Similarity::DotProduct] {
            assert_eq!(refuses_index(&[0.0, 0.0], s), None);
            assert_eq!(refuses_index(&[1e-30, 0.0], s), None);
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
                let detail = refuses_index(&v, s).expect("refused");
                assert!(detail.starts_with(rule), "{detail}");
                assert!(detail.contains(s.name()), "{detail}");
            }
            // Any NaN payload.
            let nan = f32::from_bits(0x7fc0_1234);
            assert!(refuses_index(&[nan], s).is_some());
        }
    }

    #[test]
    fn cosine_refuses_zero_and_vanishing_vectors_only() {
        let zero = refuses_index(&[0.0, -0.0, 0.0], Similarity::Cosine).expect("refused");
        assert!(zero.starts_with("every component is zero"), "{zero}");
        let tiny = 2f32.powi(-75);
        let vanishing = refuses_index(&[tiny, -tiny, 0.0], Similarity::Cosine).expect("refused");
        assert!(vanishing.contains("squared length is zero"), "{vanishing}");
        // The next float up has a square above zero.
        let above = f32::from_bits(tiny.to_bits() + 1);
        assert_eq!(refuses_index(&[above, 0.0], Similarity::Cosine), None);
    }

    #[test]
    fn squared_lengths_that_overflow_f32_are_refused() {
        // 34,029 components of 1e17: each is in bounds, the sum of squares is not.
        let v = vec![1e17f32; 34_029];
        for s in ALL {
            let detail = refuses_index(&v, s).expect("refused");
            assert!(detail.starts_with("its squared length"), "{detail}");
        }
        // A quarter of the limit passes cosine and dot product, not euclidean.
        let v = vec![1e17f32; 10_000];
        assert_eq!(refuses_index(&v, Similarity::Cosine), None);
        assert_eq!(refuses_index(&v, Similarity::DotProduct), None);
        assert!(refuses_index(&v, Similarity::Euclidean).is_some());
    }

    #[test]
    fn similarity_functions_refuse_what_the_server_fails_on_only() {
        let function = |v: &[f32], s| refuses(v, VectorUse::Function(s));
        for s in ALL {
            let detail = function(&[1.0, f32::NAN], s).expect("refused");
            assert!(detail.starts_with("component 1 is NaN"), "{detail}");
            assert!(detail.contains(s.function()), "{detail}");
            assert!(function(&[f32::NEG_INFINITY, 0.0], s).is_some());
            // No component bound: the index's rule, not the functions'.
            assert_eq!(function(&[1e18, 0.0], s), None);
        }
        let zero = function(&[0.0, 0.0], Similarity::Cosine).expect("refused");
        assert!(zero.contains("Similarity::Euclidean"), "{zero}");
        assert!(function(&[1e-30, 0.0], Similarity::Cosine).is_some());
        // Cosine answers 0.5 whatever the row when the squared length overflows.
        assert!(function(&[1e20, 0.0], Similarity::Cosine).is_some());
        for s in [Similarity::DotProduct, Similarity::Euclidean] {
            assert_eq!(function(&[0.0, 0.0], s), None);
            assert_eq!(function(&[3e38, 3e38], s), None);
        }
    }
}
