// SAI orders numbers and times, not text: a range on an indexed text column is refused.
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

include!("model/item.rs");

async fn f(db: &Db) {
    let _ = Item::select().email_gt("a").fetch_all(db).await;
}

fn main() {}
