// An update must name the whole primary key.
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
    let _ = Post::update().set_content("x").user_id(&user_id).execute(db).await;
}

fn main() {}
