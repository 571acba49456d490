// An aggregate over a range of buckets: one query per bucket, so one aggregate row per bucket.
use cassmodel::{CassProjection, CassTable, Db};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(CassTable)]
struct Orders {
    #[partition_key]
    customer_id: Uuid,
    #[clustering(desc)]
    #[cass(bucket(month))]
    submission_time: DateTime<Utc>,
    total: f64,
}

#[derive(CassProjection)]
#[cass(table = Orders)]
struct Spent {
    #[cass(select = sum(total))]
    spent: f64,
}

async fn read(db: &Db, c: Uuid, from: DateTime<Utc>, to: DateTime<Utc>) {
    let _ = Orders::select()
        .customer_id(&c)
        .submission_time_range(from..to)
        .read_as::<Spent>()
        .fetch_all(db)
        .await;
}

fn main() {}
