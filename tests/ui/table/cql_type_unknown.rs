// `cql_type` must be valid CQL type text: `lst` is a typo for `list`.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(cql_type = "lst<int>")]
    scores: Vec<i32>,
}

fn main() {}
