// seed B, INVALID: `... AND gym_name = ?` without opening_date (skips a clustering column).
use chrono::{DateTime, Utc};
use cassmodel::{CassTable, Db};

include!("model/gyms_by_city.rs");

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
