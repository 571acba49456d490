// A conditional delete names the whole primary key.
use cassmodel::{CassTable, Db};

include!("model/room.rs");

async fn f(db: &Db) {
    let _ = Room::delete().room("r").if_exists().execute(db).await;
}

fn main() {}
