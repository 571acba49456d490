// A value of the wrong Rust type for a key column: the error points at the argument.
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db) {
    let _ = Post::select().user_id("not a uuid").fetch_all(db).await;
    let _ = Post::get(db, &42_i64, &Timeuuid::from(Uuid::nil())).await;
}

fn main() {}
