// A static column needs a table with clustering columns.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(static)]
    name: String,
}

fn main() {}
