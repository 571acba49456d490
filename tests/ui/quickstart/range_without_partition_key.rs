// The README's quick start: the model of examples/telemetry/src/lib.rs (tests/readme.rs checks
// it is the same) and a read of a time range without the sensor, which would visit every node.
use cassmodel::CassTable;
use chrono::{DateTime, Utc};

/// A sensor's readings: one partition per sensor and day, newest first.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "readings")]
pub struct Reading {
    #[partition_key]
    pub sensor: String,
    #[clustering(desc)]
    #[cass(bucket(day))]
    pub at: DateTime<Utc>,
    pub celsius: f64,
}

async fn last_hour(db: &cassmodel::Db) -> cassmodel::Result<Vec<Reading>> {
    let since = Utc::now() - chrono::Duration::hours(1);
    Reading::select().at_range(since..Utc::now()).fetch_all(db).await
}

fn main() {}
