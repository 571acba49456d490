// ORDER BY (or a reversed read) cannot be combined with an indexed column, in either order.
use cassmodel::{CassTable, Db};
use std::collections::HashMap;

include!("model/item.rs");

async fn f(db: &Db) {
    let _ = Item::select().shop("s").shelf(&1).reversed().stock(&3).fetch_all(db).await;
    let _ = Item::select().shop("s").shelf(&1).stock(&3).reversed().fetch_all(db).await;
}

fn main() {}
