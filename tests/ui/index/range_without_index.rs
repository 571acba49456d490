// A range on a regular column that has no index: both ways out (an index, ALLOW FILTERING).
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

#[derive(CassTable)]
struct Item {
    #[partition_key]
    shop: String,
    #[partition_key]
    shelf: i32,
    #[clustering(asc)]
    sku: i32,
    price: i32,
    #[cass(index)]
    stock: i32,
    #[cass(index)]
    email: String,
    #[cass(index)]
    attrs: HashMap<String, String>,
}

async fn f(db: &Db) {
    let _ = Item::select().shop("s").shelf(&1).price_gt(&10).fetch_all(db).await;
}

fn main() {}
