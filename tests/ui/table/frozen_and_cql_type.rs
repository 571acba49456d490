// `frozen` and `cql_type` on one field: give the full type in `cql_type` instead.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(frozen, cql_type = "list<int>")]
    scores: Vec<i32>,
}

fn main() {}
