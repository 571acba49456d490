// A field of a user-defined type whose type has no CQL mapping.
use cassmodel::{CassTable, CassUdt};

struct Money(i64);

#[derive(CassUdt)]
struct Price {
    currency: String,
    amount: Money,
}

#[derive(CassTable)]
struct Product {
    #[partition_key]
    id: i32,
    price: Price,
}

fn main() {}
