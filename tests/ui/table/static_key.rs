// A key column (partition key or clustering) cannot be static.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Message {
    #[partition_key]
    #[cass(static)]
    room: Uuid,
    #[clustering]
    #[cass(static)]
    sent_at: i64,
    text: String,
}

fn main() {}
