use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(expect(rows = 100))]
struct Orders {
    #[partition_key]
    customer: Uuid,
    #[clustering]
    order: Uuid,
    // A `bigint` is always 8 bytes.
    #[cass(avg_bytes = 8)]
    total: i64,
    #[cass(avg_bytes = 0)]
    remarks: String,
    #[cass(avg_bytes)]
    status: String,
}

fn main() {}
