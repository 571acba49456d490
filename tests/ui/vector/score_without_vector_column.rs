// `with_score` reads the similarity of a vector search: a table without a vector column has
// none to read.
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct Post {
    #[partition_key]
    user_id: i32,
    #[clustering(desc)]
    post_id: i32,
    content: String,
}

async fn f(db: &Db) {
    let _ = Post::select().user_id(&1).with_score().fetch_all(db).await;
}

fn main() {}
