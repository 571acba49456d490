// Ordering on a regular column.
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db, user_id: Uuid) {
    let _ = Post::select().user_id(&user_id).order_by_content(cassmodel::Order::Asc).fetch_all(db).await;
}

fn main() {}
