// A `cql_type` override on a key column must not be a non-frozen collection.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Grid {
    #[partition_key]
    #[cass(cql_type = "list<int>")]
    cell: Vec<i32>,
    value: String,
}

fn main() {}
