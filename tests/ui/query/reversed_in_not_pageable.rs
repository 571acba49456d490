// Cassandra cannot page a reversed read with IN on the partition key: `fetch_all` and
// `fetch_first` (one unpaged request) compile, `fetch_stream` and `fetch_page` do not.
use cassmodel::{CassTable, Db, PagingState};

#[derive(CassTable)]
struct Event {
    #[partition_key]
    device: i32,
    #[clustering(desc)]
    at: i64,
    value: f64,
}

async fn f(db: &Db) {
    let devices = [1, 2];
    let _ = Event::select().device_in(&devices).reversed().fetch_all(db).await;
    let _ = Event::select().device_in(&devices).reversed().fetch_stream(db).await;
    let _ = Event::select()
        .device_in(&devices)
        .reversed()
        .fetch_page(db, PagingState::start())
        .await;
}

fn main() {}
