// Cassandra refuses an indexed column with IN on the partition key.
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
    let shops = ["a".to_owned(), "b".to_owned()];
    let _ = Item::select().shop_in(&shops).shelf(&1).stock(&3).fetch_all(db).await;
}

fn main() {}
