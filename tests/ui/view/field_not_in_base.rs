// A view's fields are fields of its base table.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    sensor: i32,
    site: String,
}

#[derive(CassTable)]
#[cass(view_of = Reading)]
struct BySite {
    #[partition_key]
    site: String,
    #[clustering]
    sensor: i32,
    place: String,
}

fn main() {}
