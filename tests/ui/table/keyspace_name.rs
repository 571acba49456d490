// A keyspace name may hold only ASCII letters, digits and `_`.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(keyspace = "my shop")]
struct Order {
    #[partition_key]
    id: Uuid,
    total: i64,
}

fn main() {}
