// A range on `c1`, then a range on `c2`: the error names both columns.
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
    let _ = T3::select().id(&1).c1_gt("a").c2_lt("b").fetch_all(db).await;
}

fn main() {}
