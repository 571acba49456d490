use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Tagged {
    #[partition_key]
    owner: Uuid,
    #[clustering]
    #[cass(bucket(month))]
    tag: String,
}

#[derive(CassTable)]
struct Numbered {
    #[partition_key]
    owner: Uuid,
    #[clustering]
    #[cass(bucket(month))]
    seq: i64,
}

#[derive(CassTable)]
struct Dated {
    #[partition_key]
    owner: Uuid,
    #[clustering]
    #[cass(bucket(width = 10))]
    day: chrono::NaiveDate,
}

fn main() {}
