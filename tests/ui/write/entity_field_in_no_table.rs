// Every field of an entity is held by one of its tables: `save` and `update()` (whose setter
// of `rating` would update nothing) would write `rating` nowhere.
use cassmodel::{CassEntity, CassTable};

#[derive(CassEntity)]
#[cass(tables(ReviewsByProduct))]
struct Review {
    product: i32,
    author: String,
    rating: i8,
}

#[derive(CassTable)]
#[cass(entity = Review)]
struct ReviewsByProduct {
    #[partition_key]
    product: i32,
    #[clustering]
    author: String,
}

fn main() {}
