// A delete needs the whole partition key.
use cassmodel::{CassTable, Db};

include!("model/t3.rs");

async fn f(db: &Db) {
    let _ = T3::delete().id1(&1).execute(db).await;
}

fn main() {}
