// A delete that names a clustering column without the partition key.
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db, post_id: Timeuuid) {
    let _ = Post::delete().post_id(&post_id).execute(db).await;
}

fn main() {}
