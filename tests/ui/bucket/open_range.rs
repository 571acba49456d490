use cassmodel::{CassTable, Db};
use chrono::{DateTime, Utc};
use uuid::Uuid;

include!("model/orders.rs");

async fn read(db: &Db, c: Uuid, from: DateTime<Utc>) {
    // A range with no end has no last bucket.
    let _ = Orders::select().customer_id(&c).submission_time_range(from..).fetch_all(db).await;
    // One bound, as on an ordinary clustering column.
    let _ = Orders::select().customer_id(&c).submission_time_gt(&from).fetch_all(db).await;
    // No source at all: the partition key is incomplete.
    let _ = Orders::select().customer_id(&c).fetch_all(db).await;
    // A range before the rest of the partition key.
    let _ = Orders::select().submission_time_range(from..from).fetch_all(db).await;
}

fn main() {}
