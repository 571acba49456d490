// Updating a primary-key column.
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db, user_id: Uuid, post_id: Timeuuid, other: Uuid) {
    let _ = Post::update()
        .set_content("edited")
        .set_user_id(&other)
        .user_id(&user_id)
        .post_id(&post_id)
        .execute(db)
        .await;
}

fn main() {}
