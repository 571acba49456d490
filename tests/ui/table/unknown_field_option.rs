// An unknown option in `#[cass(...)]` on a field.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(rename = "full_name")]
    name: String,
}

fn main() {}
