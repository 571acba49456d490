//! A telemetry service's data model, as a user of cassmodel writes one: the models in the
//! library, where the service, the migration binary (`src/bin/migrate.rs`) and the tests all
//! find them. `Reading` is the README's quick start; `fleet` holds the rest of the service.

pub mod fleet;

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
