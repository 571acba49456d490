// A vector search on a column that is not a vector: the message lists the table's vector
// columns.
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct Product {
    #[partition_key]
    shop: String,
    #[clustering(asc)]
    sku: i32,
    brand: String,
    #[cass(index)]
    embedding: Vector<3>,
    draft: Option<Vector<3>>,
}

async fn f(db: &Db, q: Vector<3>) {
    let _ = Product::select().ann_brand(&q).limit(5).fetch_all(db).await;
    let _ = Product::select().ann_sku(&q).limit(5).fetch_all(db).await;
}

fn main() {}
