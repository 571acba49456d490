// seed D, INVALID on t3: `id1, id2, c2` (skips c1).
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
    let _ = T3::select().id1(&1).id2(&2).c2("x").fetch_all(db).await;
}

fn main() {}
