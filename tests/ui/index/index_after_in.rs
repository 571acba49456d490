// Cassandra refuses an indexed column with IN on the partition key.
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

include!("model/item.rs");

async fn f(db: &Db) {
    let shops = ["a".to_owned(), "b".to_owned()];
    let _ = Item::select().shop_in(&shops).shelf(&1).stock(&3).fetch_all(db).await;
}

fn main() {}
