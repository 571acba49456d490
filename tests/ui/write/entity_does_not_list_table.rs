// A table declares an entity that does not list it: the entity's save() would forget it.
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
}

#[derive(CassTable)]
#[cass(entity = Like)]
struct ByItem {
    #[partition_key]
    item: i32,
    #[clustering]
    user: i32,
}

fn main() {}
