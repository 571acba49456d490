// A view of every column of its base (`all_columns`, `SELECT *`) has every field of the base.
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
#[cass(view_of = Reading, all_columns)]
struct BySite {
    #[partition_key]
    site: String,
    #[clustering]
    sensor: i32,
    #[clustering(desc)]
    ts: i64,
}

fn main() {}
