// A view's primary key adds at most one column to its base table's.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    sensor: i32,
    site: String,
    kind: String,
}

#[derive(CassTable)]
#[cass(view_of = Reading)]
struct BySiteAndKind {
    #[partition_key]
    site: String,
    #[clustering]
    kind: String,
    #[clustering]
    sensor: i32,
}

fn main() {}
