// A counter table's rows cannot be inserted.
use cassmodel::value::Counter;
use cassmodel::{CassTable, Db, Insert};

include!("model/page_views.rs");

async fn f(db: &Db, row: PageViews) {
    let _ = db.insert(&row).await;
    let _ = Insert::new(&row);
}

fn main() {}
