// A collection in the primary key must be frozen (`Vec`, `HashSet` and `HashMap` alike).
use std::collections::{HashMap, HashSet};

use cassmodel::CassTable;

#[derive(CassTable)]
struct Route {
    #[partition_key]
    stops: Vec<String>,
    #[clustering]
    tags: HashSet<String>,
    #[clustering]
    legs: HashMap<String, i32>,
    name: String,
}

fn main() {}
