// Cassandra builds a view only on a table, not on another view.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering]
    ts: i64,
    email: String,
}

#[derive(CassTable)]
#[cass(view_of = Reading)]
struct ByEmail {
    #[partition_key]
    email: String,
    #[clustering]
    sensor: i32,
    #[clustering]
    ts: i64,
}

#[derive(CassTable)]
#[cass(view_of = ByEmail)]
struct OfAView {
    #[partition_key]
    sensor: i32,
    #[clustering]
    email: String,
    #[clustering]
    ts: i64,
}

fn main() {}
