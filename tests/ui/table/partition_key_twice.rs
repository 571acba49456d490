// An attribute given twice on one field: `#[partition_key]`.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    #[partition_key]
    id: Uuid,
    name: String,
}

fn main() {}
