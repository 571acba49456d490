// `=` on a non-frozen collection is refused by Cassandra even with ALLOW FILTERING.
use std::collections::BTreeMap;

use cassmodel::{CassTable, Db};
use uuid::Uuid;

#[derive(CassTable)]
struct BasketByCustomer {
    #[partition_key]
    customer_id: Uuid,
    products: BTreeMap<Uuid, i32>,
}

async fn f(db: &Db, products: BTreeMap<Uuid, i32>) {
    let _ = BasketByCustomer::select_allow_filtering()
        .products(&products)
        .fetch_all(db)
        .await;
}

fn main() {}
