// A range on a clustering column while a partition-key column is missing: the message names
// the partition-key column, the first one missing.
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    site: i32,
    #[partition_key]
    sensor: i32,
    #[clustering(asc)]
    day: i32,
    #[clustering(asc)]
    at: i64,
    value: f64,
}

async fn f(db: &Db) {
    let _ = Reading::select().site(&1).day_gt(&3).fetch_all(db).await;
    let _ = Reading::select().site(&1).sensor(&2).at_gt(&3).fetch_all(db).await;
}

fn main() {}
