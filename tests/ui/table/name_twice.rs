// An option given twice in `#[cass(...)]`: `name`.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(name = "a", name = "b")]
    name: String,
}

fn main() {}
