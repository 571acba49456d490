// A column name cannot be empty.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(name = "")]
    name: String,
}

fn main() {}
