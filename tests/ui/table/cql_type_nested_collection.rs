// `cql_type`: a collection inside a collection must be frozen.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Board {
    #[partition_key]
    id: Uuid,
    #[cass(cql_type = "list<list<int>>")]
    rows: Vec<Vec<i32>>,
}

fn main() {}
