// Two lower bounds on one clustering column: the error names it.
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
    let _ = T3::select().id(&1).c1_gt("a").c1_ge("b").fetch_all(db).await;
}

fn main() {}
