// A frozen collection is indexed as a whole (`full`), never by its elements.
use std::collections::HashMap;

use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Settings {
    #[partition_key]
    id: Uuid,
    #[cass(frozen, index(values))]
    limits: HashMap<String, i32>,
}

fn main() {}
