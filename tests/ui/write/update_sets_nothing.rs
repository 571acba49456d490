// An update must set something.
use cassmodel::{CassTable, Db};

include!("model/room.rs");

async fn f(db: &Db) {
    let _ = Room::update().room("r").msg(&1).execute(db).await;
}

fn main() {}
