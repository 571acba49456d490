// The similarity score exists only in a vector search.
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

async fn f(db: &Db) {
    let _ = Doc::select().shelf("a").with_score().fetch_all(db).await;
}

fn main() {}
