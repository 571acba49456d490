// A partition-key column cannot be an `Option`: key columns are never null.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Option<Uuid>,
    name: String,
}

fn main() {}
