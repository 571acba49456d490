// An update must name the whole primary key.
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db, user_id: Uuid) {
    let _ = Post::update().set_content("x").user_id(&user_id).execute(db).await;
}

fn main() {}
