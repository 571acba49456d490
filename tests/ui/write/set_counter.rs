// A counter is incremented, never set.
use cassmodel::value::Counter;
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct PageViews {
    #[partition_key]
    page: String,
    views: Counter,
}

async fn f(db: &Db) {
    let _ = PageViews::update().set_views(&Counter(3)).page("home").execute(db).await;
}

fn main() {}
