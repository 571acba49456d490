// seed C, INVALID (written in the article): `WHERE title = 'Pepsi'` (a regular column).
use cassmodel::{CassTable, Db};
use chrono::{DateTime, Utc};

#[derive(CassTable)]
struct CustomerByLikedProduct {
    #[partition_key]
    liked_prdt_id: String,
    #[clustering(desc)]
    liked_on: DateTime<Utc>,
    #[clustering(asc)]
    cust_id: String,
    title: String,
    first_name: String,
    last_name: String,
}

async fn f(db: &Db) {
    let _ = CustomerByLikedProduct::select().title("Pepsi").fetch_all(db).await;
    let _ = CustomerByLikedProduct::select().liked_prdt_id("p1").first_name("Anna").fetch_all(db).await;
}

fn main() {}
