// An unknown option in `#[cass(...)]` on a `#[derive(CassTable)]` struct.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table_name = "users")]
struct User {
    #[partition_key]
    id: Uuid,
    name: String,
}

fn main() {}
