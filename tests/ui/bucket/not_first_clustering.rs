use cassmodel::CassTable;
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(CassTable)]
struct Orders {
    #[partition_key]
    customer_id: Uuid,
    #[clustering]
    order_id: Uuid,
    #[clustering(desc)]
    #[cass(bucket(month))]
    submission_time: DateTime<Utc>,
}

#[derive(CassTable)]
struct Regular {
    #[partition_key]
    customer_id: Uuid,
    #[cass(bucket(day))]
    at: DateTime<Utc>,
}

fn main() {}
