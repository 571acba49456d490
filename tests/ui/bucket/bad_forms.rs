use cassmodel::CassTable;
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(CassTable)]
struct Fortnight {
    #[partition_key]
    customer_id: Uuid,
    #[clustering]
    #[cass(bucket(fortnight))]
    at: DateTime<Utc>,
}

#[derive(CassTable)]
struct ZeroWidth {
    #[partition_key]
    customer_id: Uuid,
    #[clustering]
    #[cass(bucket(width = 0))]
    seq: i64,
}

#[derive(CassTable)]
struct NoRule {
    #[partition_key]
    customer_id: Uuid,
    #[clustering]
    #[cass(bucket)]
    at: DateTime<Utc>,
}

#[derive(CassTable)]
struct Clash {
    #[partition_key]
    customer_id: Uuid,
    #[clustering]
    #[cass(bucket(month, name = "customer_id"))]
    at: DateTime<Utc>,
}

fn main() {}
