// A vector search after part of the key, after ALLOW FILTERING, or twice.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db};

include!("model/doc.rs");

async fn f(db: &Db, q: Vector<3>) {
    let _ = Doc::select().id(&3).ann_embedding(&q).limit(5).fetch_all(db).await;
    let _ = Doc::select_allow_filtering().ann_embedding(&q).limit(5).fetch_all(db).await;
    let _ = Doc::select().ann_embedding(&q).ann_embedding(&q).limit(5).fetch_all(db).await;
}

fn main() {}
