// A range on a regular column that has no index: both ways out (an index, ALLOW FILTERING).
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

include!("model/item.rs");

async fn f(db: &Db) {
    let _ = Item::select().shop("s").shelf(&1).price_gt(&10).fetch_all(db).await;
}

fn main() {}
