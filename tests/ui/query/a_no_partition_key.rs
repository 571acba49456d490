// seed A, INVALID: `WHERE post_id = ?` (no partition key).
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table = "posts_facebook")]
struct Post {
    #[partition_key]
    user_id: Uuid,
    #[clustering(desc)]
    post_id: Timeuuid,
    content: String,
}

async fn f(db: &Db, post_id: Timeuuid) {
    let _ = Post::select().post_id(&post_id).fetch_all(db).await;
}

fn main() {}
