// seed D, INVALID on t3: `id1` alone (partial composite partition key).
use cassmodel::{CassTable, Db};

include!("model/t3.rs");

async fn f(db: &Db) {
    let _ = T3::select().id1(&1).fetch_all(db).await;
}

fn main() {}
