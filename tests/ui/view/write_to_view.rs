// A materialized view is read, never written: write its base table.
use cassmodel::{CassTable, Db};

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

async fn f(db: &Db, row: BySite) {
    let _ = db.insert(&row).await;
    let _ = BySite::update();
    let _ = BySite::delete();
    // Reads are fine.
    let _ = BySite::select().site("north").fetch_all(db).await;
}

fn main() {}
