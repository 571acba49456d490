// A view's primary key holds every primary-key column of its base table.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering(desc)]
    ts: i64,
    site: String,
    value: f64,
}

#[derive(CassTable)]
#[cass(view_of = Reading)]
struct BySite {
    #[partition_key]
    site: String,
    #[clustering]
    sensor: i32,
    value: f64,
}

fn main() {}
