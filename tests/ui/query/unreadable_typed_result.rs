// A read without the partition key, whose result is used with its type: one error per read,
// at the terminal, and none after it (the rows' type is still known).
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

include!("model/post.rs");

async fn f(db: &Db) -> cassmodel::Result<usize> {
    let first: Option<Post> = Post::select().fetch_first(db).await?;
    let all: Vec<Post> = Post::select().limit(20).fetch_all(db).await?;
    Ok(all.len() + usize::from(first.is_some()))
}

fn main() {}
