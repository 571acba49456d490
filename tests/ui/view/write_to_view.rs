// A materialized view is read, never written: write its base table. Each write is one
// error, whose first line names the view and its base.
use cassmodel::{Batch, CassTable, Db, Insert};

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    sensor: i32,
    site: String,
    value: f64,
}

#[derive(CassTable)]
#[cass(view_of = Reading)]
struct BySite {
    #[partition_key]
    site: String,
    #[clustering]
    sensor: i32,
    value: f64,
}

// More tables, which the errors do not list.
#[derive(CassTable)]
struct Other {
    #[partition_key]
    id: i32,
}

#[derive(CassTable)]
struct Another {
    #[partition_key]
    id: i32,
}

async fn f(db: &Db, row: BySite) {
    let _ = db.insert(&row).await;
    let _ = BySite::update();
    let _ = BySite::delete();
    let _ = Insert::new(&row);
    let _ = Batch::logged().insert(&row);
    // Reads are fine.
    let _ = BySite::select().site("north").fetch_all(db).await;
}

fn main() {}
