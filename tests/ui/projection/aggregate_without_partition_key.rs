// An aggregate follows the rules of every read: the partition key first.
use cassmodel::{CassProjection, CassTable, Db};
use chrono::{DateTime, Utc};

#[derive(CassTable)]
#[cass(table = "readings")]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering(desc)]
    ts: DateTime<Utc>,
    value: f64,
}

#[derive(CassProjection)]
#[cass(table = Reading)]
struct Stats {
    #[cass(select = max(value))]
    high: Option<f64>,
}

async fn f(db: &Db, since: DateTime<Utc>) {
    let _ = Reading::select().ts_gt(&since).read_as::<Stats>().fetch_all(db).await;
    let _ = Reading::select().read_as::<Stats>().fetch_all(db).await;
}

fn main() {}
