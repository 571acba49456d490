// seed B, INVALID: `country_code = ? AND state = ?` (city missing from the partition key).
use chrono::{DateTime, Utc};
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct GymsByCity {
    #[partition_key]
    country_code: String,
    #[partition_key]
    state: String,
    #[partition_key]
    city: String,
    #[clustering(asc)]
    opening_date: DateTime<Utc>,
    #[clustering(asc)]
    gym_name: String,
}

async fn f(db: &Db) {
    let _ = GymsByCity::select().country_code("US").state("Arizona").fetch_all(db).await;
}

fn main() {}
