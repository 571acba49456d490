// `CONTAINS KEY` needs an index on the map's keys; `#[cass(index)]` indexes its values.
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

include!("model/item.rs");

async fn f(db: &Db) {
    let _ = Item::select().attrs_contains_key("colour").fetch_all(db).await;
    let _ = Item::select().attrs_entry("colour", "red").fetch_all(db).await;
}

fn main() {}
