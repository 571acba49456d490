// A static-only update names the partition key, or the whole key: not a prefix of it.
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct Thread {
    #[partition_key]
    forum: String,
    #[clustering]
    thread: i32,
    #[clustering]
    post: i32,
    #[cass(static)]
    topic: String,
    text: String,
}

async fn f(db: &Db) {
    let _ = Thread::update().set_topic("rust").forum("f").thread(&1).execute(db).await;
}

fn main() {}
