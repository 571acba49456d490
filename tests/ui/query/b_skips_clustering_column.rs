// seed B, INVALID: `... AND gym_name = ?` without opening_date (skips a clustering column).
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
    let _ = GymsByCity::select()
        .country_code("US")
        .state("Arizona")
        .city("Phoenix")
        .gym_name("Desert Iron")
        .fetch_all(db)
        .await;
}

fn main() {}
