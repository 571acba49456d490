// A user-defined type in the primary key must be frozen.
use cassmodel::{CassTable, CassUdt};

#[derive(CassUdt)]
struct Address {
    street: String,
    city: String,
}

#[derive(CassTable)]
struct Resident {
    #[partition_key]
    address: Address,
    name: String,
}

fn main() {}
