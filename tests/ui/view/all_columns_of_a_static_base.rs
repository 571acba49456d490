// Cassandra refuses `SELECT *` of a table with static columns.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering(desc)]
    ts: i64,
    #[cass(static)]
    model: String,
    site: String,
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
