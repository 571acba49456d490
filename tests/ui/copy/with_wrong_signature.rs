// `with = f` takes the source model's row by value.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table = "events")]
struct OldEvent {
    #[partition_key]
    id: Uuid,
    n: i32,
}

fn widen(e: &OldEvent) -> Option<Event> {
    Some(Event { id: e.id, n: i64::from(e.n) })
}

#[derive(CassTable)]
#[cass(table = "events_v2", from = OldEvent, with = widen)]
struct Event {
    #[partition_key]
    id: Uuid,
    n: i64,
}

fn main() {}
