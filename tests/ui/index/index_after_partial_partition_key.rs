// An indexed column after part of the partition key: the message names the column missing.
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

include!("model/item.rs");

async fn f(db: &Db) {
    let _ = Item::select().shop("s").stock(&3).fetch_all(db).await;
}

fn main() {}
