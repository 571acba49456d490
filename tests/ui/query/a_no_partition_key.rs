// seed A, INVALID: `WHERE post_id = ?` (no partition key).
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db, post_id: Timeuuid) {
    let _ = Post::select().post_id(&post_id).fetch_all(db).await;
}

fn main() {}
