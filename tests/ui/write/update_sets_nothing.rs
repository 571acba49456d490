// An update must set something.
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct Room {
    #[partition_key]
    room: String,
    #[clustering]
    msg: i32,
    #[cass(static)]
    topic: String,
    text: String,
}

async fn f(db: &Db) {
    let _ = Room::update().room("r").msg(&1).execute(db).await;
}

fn main() {}
