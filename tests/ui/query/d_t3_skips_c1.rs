// seed D, INVALID on t3: `id1, id2, c2` (skips c1).
use cassmodel::{CassTable, Db};

include!("model/t3.rs");

async fn f(db: &Db) {
    let _ = T3::select().id1(&1).id2(&2).c2("x").fetch_all(db).await;
}

fn main() {}
