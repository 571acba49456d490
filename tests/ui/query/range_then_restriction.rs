// A range followed by another restriction.
use cassmodel::{CassTable, Db};

include!("model/t3.rs");

async fn f(db: &Db) {
    let _ = T3::select().id1(&1).id2(&2).c1_gt("a").c2("b").fetch_all(db).await;
}

fn main() {}
