// A vector search is read with a limit: Cassandra refuses it without one.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db};

include!("model/doc.rs");

async fn f(db: &Db, q: Vector<3>) {
    let _ = Doc::select().ann_embedding(&q).fetch_all(db).await;
}

fn main() {}
