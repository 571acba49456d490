// An entity lists a table that does not declare #[cass(entity = ...)].
use cassmodel::{CassEntity, CassTable};

#[derive(CassEntity)]
#[cass(tables(ByUser, ByItem))]
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
struct ByItem {
    #[partition_key]
    item: i32,
    #[clustering]
    user: i32,
}

fn main() {}
