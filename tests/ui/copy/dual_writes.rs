// `dual_writes` needs the table the rows come from, and cannot write converted rows back.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table = "events_v2", dual_writes)]
struct Events {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(table = "old_items")]
struct OldItem {
    #[partition_key]
    id: Uuid,
    n: i32,
}

fn widen(old: OldItem) -> Item {
    Item { id: old.id, n: i64::from(old.n) }
}

#[derive(CassTable)]
#[cass(table = "items", from = OldItem, with = widen, dual_writes)]
struct Item {
    #[partition_key]
    id: Uuid,
    n: i64,
}

#[derive(CassTable)]
#[cass(table = "logs_v2", from = "logs", dual_writes = true)]
struct Log {
    #[partition_key]
    id: Uuid,
}

fn main() {}
