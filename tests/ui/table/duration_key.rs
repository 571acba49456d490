// A duration cannot be part of the primary key.
use cassmodel::CassTable;
use cassmodel::value::Duration;
use uuid::Uuid;

#[derive(CassTable)]
struct Timer {
    #[partition_key]
    id: Uuid,
    #[clustering]
    length: Duration,
    label: String,
}

fn main() {}
