// One index per field.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Customer {
    #[partition_key]
    id: Uuid,
    #[cass(index)]
    #[cass(index(name = "by_email"))]
    email: String,
}

fn main() {}
