// A tuple in the primary key cannot hold a `Duration` (Cassandra keys no duration), though
// its elements may be `Option`s (a key tuple's element may be null).
use cassmodel::CassTable;
use cassmodel::value::Duration;

#[derive(CassTable)]
struct Cell {
    #[partition_key]
    at: (Option<i32>, Duration),
    value: String,
}

fn main() {}
