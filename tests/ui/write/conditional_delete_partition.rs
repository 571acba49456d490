// A conditional delete names the whole primary key.
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
    let _ = Room::delete().room("r").if_exists().execute(db).await;
}

fn main() {}
