// A vector search after part of the key, after ALLOW FILTERING, or twice.
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
    let _ = Doc::select().id(&3).ann_embedding(&q).limit(5).fetch_all(db).await;
    let _ = Doc::select_allow_filtering().ann_embedding(&q).limit(5).fetch_all(db).await;
    let _ = Doc::select().ann_embedding(&q).ann_embedding(&q).limit(5).fetch_all(db).await;
}

fn main() {}
