// The query vector has the dimension of the column; the error names the table, the column and
// its dimension (a nullable column too), in a vector search and in a similarity read.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db, schema::Similarity};

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
    #[cass(index)]
    maybe: Option<Vector<384>>,
}

async fn f(db: &Db, q: Vector<4>) {
    let _ = Doc::select().ann_embedding(&q).limit(5).fetch_all(db).await;
    let _ = Doc::select().ann_embedding(&[1.0, 0.0]).limit(5).fetch_all(db).await;
    let _ = Doc::select().ann_maybe(&q).limit(5).fetch_all(db).await;
    let _ = Doc::select()
        .shelf("a")
        .similarity_plain(Similarity::Euclidean, &q)
        .fetch_all(db)
        .await;
}

fn main() {}
