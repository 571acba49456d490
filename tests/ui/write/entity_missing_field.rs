// A table built from an entity takes each field from the entity field of the same name.
use cassmodel::{CassEntity, CassTable};

#[derive(CassEntity)]
#[cass(tables(ByUser))]
struct Like {
    user: i32,
    item: i32,
}

#[derive(CassTable)]
#[cass(entity = Like)]
struct ByUser {
    #[partition_key]
    user: i32,
    #[clustering]
    item: i32,
    item_title: String,
}

fn main() {}
