// `keys` and `entries` index a map; a set has only elements.
use std::collections::BTreeSet;

use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Product {
    #[partition_key]
    id: Uuid,
    #[cass(index(keys))]
    tags: BTreeSet<String>,
}

fn main() {}
