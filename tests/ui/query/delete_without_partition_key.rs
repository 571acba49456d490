// A delete needs the whole partition key.
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct T3 {
    #[partition_key]
    id1: i32,
    #[partition_key]
    id2: i32,
    #[clustering]
    c1: String,
    #[clustering]
    c2: String,
    k: i32,
    v: String,
}

async fn f(db: &Db) {
    let _ = T3::delete().id1(&1).execute(db).await;
}

fn main() {}
