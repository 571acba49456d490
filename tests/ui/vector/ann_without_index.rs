// A vector search needs an SAI index on the vector column.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db};

include!("model/doc.rs");

async fn f(db: &Db, q: Vector<3>) {
    let _ = Doc::select().ann_plain(&q).limit(5).fetch_all(db).await;
}

fn main() {}
