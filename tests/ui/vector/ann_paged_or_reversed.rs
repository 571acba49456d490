// A vector search is one request: no paged reads; and it has no other ordering.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct Doc {
    #[partition_key]
    shelf: String,
    #[clustering(asc)]
    id: i32,
    #[cass(index)]
    topic: String,
    #[cass(index)]
    embedding: Vector<3>,
    plain: Vector<3>,
}

async fn f(db: &Db, q: Vector<3>) {
    let _ = Doc::select().ann_embedding(&q).limit(5).fetch_stream(db).await;
    let _ = Doc::select().shelf("a").ann_embedding(&q).limit(5).reversed().fetch_all(db).await;
}

fn main() {}
