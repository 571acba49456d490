// A range on a partition-key column.
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

async fn f(db: &Db, user_id: Uuid) {
    let _ = Post::select().user_id_gt(&user_id).fetch_all(db).await;
}

fn main() {}
