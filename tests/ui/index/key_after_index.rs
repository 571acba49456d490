// Key columns come before indexed columns.
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
    let _ = Item::select().stock(&3).shop("s").fetch_all(db).await;
}

fn main() {}
