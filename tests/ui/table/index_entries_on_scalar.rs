// `entries` on a column that is not a collection: its index is on the value itself.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Customer {
    #[partition_key]
    id: Uuid,
    #[cass(index(entries))]
    email: String,
}

fn main() {}
