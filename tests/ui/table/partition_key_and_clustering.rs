// A field is either part of the partition key or a clustering column, not both.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Post {
    #[partition_key]
    user_id: Uuid,
    #[partition_key]
    #[clustering]
    posted_at: i64,
    text: String,
}

fn main() {}
