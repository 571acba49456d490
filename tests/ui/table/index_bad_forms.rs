// Misspelled index options, two targets, a name Cassandra refuses: each reported.
use std::collections::HashMap;

use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Customer {
    #[partition_key]
    id: Uuid,
    #[cass(index(key))]
    a: HashMap<String, i32>,
    #[cass(index = "by_b")]
    b: String,
    #[cass(index(keys, values))]
    c: HashMap<String, i32>,
    #[cass(index(name = "by-d"))]
    d: String,
}

fn main() {}
