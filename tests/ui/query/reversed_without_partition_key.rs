// Reversing without the partition key.
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db) {
    let _ = Post::select().reversed().fetch_all(db).await;
}

fn main() {}
