// Key columns come before indexed columns.
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

include!("model/item.rs");

async fn f(db: &Db) {
    let _ = Item::select().stock(&3).shop("s").fetch_all(db).await;
}

fn main() {}
