// A table needs a partition key: no field is marked `#[partition_key]`.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    id: Uuid,
    name: String,
}

fn main() {}
