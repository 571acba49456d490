// Each key-order mistake after the first key column, one per function: each error names the
// columns involved (a range then a range, a column twice, two lower bounds).
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

async fn range_then_range(db: &Db) {
    let _ = T3::select().id(&1).c1_gt("a").c2_lt("b").fetch_all(db).await;
}

async fn key_column_twice(db: &Db) {
    let _ = T3::select().id(&1).c1("a").c1("b").fetch_all(db).await;
}

async fn two_lower_bounds(db: &Db) {
    let _ = T3::select().id(&1).c1_gt("a").c1_ge("b").fetch_all(db).await;
}

fn main() {}
