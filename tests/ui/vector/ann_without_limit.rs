// A vector search is read with a limit: Cassandra refuses it without one.
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
    let _ = Doc::select().ann_embedding(&q).fetch_all(db).await;
}

fn main() {}
