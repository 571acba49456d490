// A clustering column cannot be an `Option`: key columns are never null.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Comment {
    #[partition_key]
    post_id: Uuid,
    #[clustering(desc)]
    written_at: Option<i64>,
    text: String,
}

fn main() {}
