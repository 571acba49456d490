// The latest rows are read back from a start to a horizon: `horizon..` or `horizon..=start`.
use cassmodel::{CassTable, Db};
use chrono::{DateTime, Utc};

#[derive(CassTable)]
struct Event {
    #[partition_key]
    device: i32,
    #[clustering]
    #[cass(bucket(day))]
    at: DateTime<Utc>,
    value: i64,
}

async fn f(db: &Db, from: DateTime<Utc>, to: DateTime<Utc>) {
    let _ = Event::select().device(&1).at_latest(10, from..to).fetch_all(db).await;
    let _ = Event::select().device(&1).at_latest(10, ..to).fetch_all(db).await;
}

fn main() {}
