// The only partition-key column cannot be indexed: `WHERE id = ?` already reads one partition.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Customer {
    #[partition_key]
    #[cass(index)]
    id: Uuid,
    email: String,
}

fn main() {}
