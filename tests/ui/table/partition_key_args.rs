// `#[partition_key]` takes no arguments.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key(x)]
    id: Uuid,
    name: String,
}

fn main() {}
