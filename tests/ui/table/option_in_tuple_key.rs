// A tuple in the primary key cannot hold an `Option`.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Cell {
    #[partition_key]
    at: (i32, Option<i32>),
    value: String,
}

fn main() {}
