// A counter is incremented, never set.
use cassmodel::value::Counter;
use cassmodel::{CassTable, Db};

include!("model/page_views.rs");

async fn f(db: &Db) {
    let _ = PageViews::update().set_views(&Counter(3)).page("home").execute(db).await;
}

fn main() {}
