//! The rest of the telemetry service: a tenant's devices (a set, a map and a user-defined
//! type), its alerts (the most severe first, kept 30 days) and two counters per device.

use std::collections::{BTreeMap, BTreeSet};

use cassmodel::value::Counter;
use cassmodel::{CassTable, CassUdt};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Where a device is installed.
#[derive(CassUdt, Debug, Clone, PartialEq)]
#[cass(name = "location")]
pub struct Location {
    pub site: String,
    pub floor: i32,
}

/// A tenant's devices.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "devices")]
pub struct Device {
    #[partition_key]
    pub tenant: String,
    #[clustering]
    pub device_id: Uuid,
    pub name: String,
    pub tags: BTreeSet<String>,
    pub settings: BTreeMap<String, String>,
    #[cass(frozen)]
    pub location: Option<Location>,
    pub installed: Option<DateTime<Utc>>,
}

/// A tenant's alerts, the most severe first, then the newest; each expires after 30 days.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "alerts", default_ttl = 2_592_000)]
pub struct Alert {
    #[partition_key]
    pub tenant: String,
    #[clustering(desc)]
    pub severity: i32,
    #[clustering(desc)]
    pub at: DateTime<Utc>,
    #[clustering]
    pub device_id: Uuid,
    pub message: String,
}

/// How many readings and alerts each device of a tenant sent.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "device_counts")]
pub struct DeviceCounts {
    #[partition_key]
    pub tenant: String,
    #[clustering]
    pub device_id: Uuid,
    pub readings: Counter,
    pub alerts: Counter,
}
