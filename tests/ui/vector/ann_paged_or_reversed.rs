// A vector search is one request: no paged reads; and it has no other ordering.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db};

include!("model/doc.rs");

async fn f(db: &Db, q: Vector<3>) {
    let _ = Doc::select().ann_embedding(&q).limit(5).fetch_stream(db).await;
    let _ = Doc::select().shelf("a").ann_embedding(&q).limit(5).reversed().fetch_all(db).await;
}

fn main() {}
