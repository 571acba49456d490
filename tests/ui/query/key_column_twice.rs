// A key column restricted twice: the error names it.
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct T3 {
    #[partition_key]
    id: i32,
    #[clustering]
    c1: String,
    #[clustering]
    c2: String,
}

async fn f(db: &Db) {
    let _ = T3::select().id(&1).c1("a").c1("b").fetch_all(db).await;
}

fn main() {}
