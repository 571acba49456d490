// Two fields cannot map to the same column name.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(name = "email")]
    primary_email: String,
    email: String,
}

fn main() {}
