// Misused `from` / `with`: a conversion without a source model, a source that is the table
// itself, a `from` without a value, and each given twice.
use cassmodel::CassTable;
use uuid::Uuid;

fn convert(e: Events) -> Events {
    e
}

#[derive(CassTable)]
#[cass(table = "events_v2", from = "events", with = convert)]
struct Events {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(table = "readings", from = "readings")]
struct Readings {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(table = "a_v2", from)]
struct A {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(table = "b_v2", from = "b", from = "c")]
struct B {
    #[partition_key]
    id: Uuid,
}

fn main() {}
