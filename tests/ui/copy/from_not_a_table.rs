// `from = Model` names a struct that is not a `#[derive(CassTable)]` table.
use cassmodel::CassTable;
use uuid::Uuid;

struct OldEvent {
    id: Uuid,
}

#[derive(CassTable)]
#[cass(table = "events_v2", from = OldEvent)]
struct Event {
    #[partition_key]
    id: Uuid,
}

fn main() {}
