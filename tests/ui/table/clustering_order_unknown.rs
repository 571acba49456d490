// A clustering order other than `asc` or `desc`.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Post {
    #[partition_key]
    user_id: Uuid,
    #[clustering(sideways)]
    posted_at: i64,
    text: String,
}

fn main() {}
