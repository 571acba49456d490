// A range on a partition-key column.
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db, user_id: Uuid) {
    let _ = Post::select().user_id_gt(&user_id).fetch_all(db).await;
}

fn main() {}
