// seed B, INVALID: `country_code = ? AND state = ?` (city missing from the partition key).
use chrono::{DateTime, Utc};
use cassmodel::{CassTable, Db};

include!("model/gyms_by_city.rs");

async fn f(db: &Db) {
    let _ = GymsByCity::select().country_code("US").state("Arizona").fetch_all(db).await;
}

fn main() {}
