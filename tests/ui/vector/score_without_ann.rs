// The similarity score exists only in a vector search.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db};

include!("model/doc.rs");

async fn f(db: &Db) {
    let _ = Doc::select().shelf("a").with_score().fetch_all(db).await;
}

fn main() {}
