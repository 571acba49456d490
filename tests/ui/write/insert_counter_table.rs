// A counter table's rows cannot be inserted.
use cassmodel::value::Counter;
use cassmodel::{CassTable, Db, Insert};

#[derive(CassTable)]
struct PageViews {
    #[partition_key]
    page: String,
    views: Counter,
}

async fn f(db: &Db, row: PageViews) {
    let _ = db.insert(&row).await;
    let _ = Insert::new(&row);
}

fn main() {}
