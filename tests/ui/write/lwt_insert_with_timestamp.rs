// A lightweight transaction cannot take a custom write time.
use cassmodel::{CassTable, Db, Insert};

#[derive(CassTable)]
struct T1 {
    #[partition_key]
    id: i32,
    v: String,
}

async fn f(db: &Db, row: T1) {
    let _ = Insert::new(&row).if_not_exists().using_timestamp(1).execute(db).await;
}

fn main() {}
