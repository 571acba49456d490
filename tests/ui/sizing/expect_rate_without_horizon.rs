use cassmodel::CassTable;
use uuid::Uuid;

/// A rate with nothing that bounds how long rows are kept.
#[derive(CassTable)]
#[cass(expect(rows = 1000, per = "month"))]
struct Orders {
    #[partition_key]
    customer: Uuid,
    #[clustering]
    order: Uuid,
}

/// A horizon for partitions that do not grow.
#[derive(CassTable)]
#[cass(expect(rows = 1000, horizon = "5 years"))]
struct Fixed {
    #[partition_key]
    customer: Uuid,
    #[clustering]
    order: Uuid,
}

/// With a default_ttl the rate needs no horizon: no error here.
#[derive(CassTable)]
#[cass(default_ttl = 86400, expect(rows = 1000, per = "day"))]
struct Expiring {
    #[partition_key]
    customer: Uuid,
    #[clustering]
    order: Uuid,
}

fn main() {}
