// A map or set of floats: `f32` and `f64` are neither `Ord` nor `Hash`, so no map or set of
// Rust holds them; the error says to use a `Vec` with a `cql_type` (as `scores` does).
use cassmodel::CassTable;
use std::collections::{BTreeMap, HashSet};

#[derive(CassTable)]
struct Scores {
    #[partition_key]
    id: i32,
    by_weight: BTreeMap<f32, Vec<String>>,
    levels: Option<HashSet<f64>>,
    #[cass(cql_type = "map<float, int>")]
    scores: Vec<(f32, i32)>,
}

fn main() {}
