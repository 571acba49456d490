// Ordering on a regular column.
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
    let _ = Post::select().user_id(&user_id).order_by_content(cassmodel::Order::Asc).fetch_all(db).await;
}

fn main() {}
