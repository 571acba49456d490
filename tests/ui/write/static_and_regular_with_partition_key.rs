// Setting a regular column needs the whole primary key, even beside a static column.
use cassmodel::{CassTable, Db};

include!("model/room.rs");

async fn f(db: &Db) {
    let _ = Room::update().set_topic("rust").set_text("hi").room("r").execute(db).await;
}

fn main() {}
