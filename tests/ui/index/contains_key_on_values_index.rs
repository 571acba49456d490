// `CONTAINS KEY` needs an index on the map's keys; `#[cass(index)]` indexes its values.
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
    let _ = Item::select().attrs_contains_key("colour").fetch_all(db).await;
    let _ = Item::select().attrs_entry("colour", "red").fetch_all(db).await;
}

fn main() {}
