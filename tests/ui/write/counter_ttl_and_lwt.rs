// A counter update takes no TTL and no condition.
use cassmodel::value::Counter;
use cassmodel::{CassTable, Db};

include!("model/page_views.rs");

async fn f(db: &Db) {
    let _ = PageViews::update().increment_views(1).page("home").using_ttl(60).execute(db).await;
    let _ = PageViews::update().increment_views(1).page("home").if_exists().execute(db).await;
}

fn main() {}
