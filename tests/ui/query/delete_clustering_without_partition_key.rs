// A delete that names a clustering column without the partition key.
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
    let _ = Post::delete().post_id(&post_id).execute(db).await;
}

fn main() {}
