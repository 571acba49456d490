//! Models of a keyspace's tables and types, written by `cassmodel pull` from the
//! cluster's `system_schema`; `cassmodel pull --check` tells when they no longer match.
//!
//! Needs the crates `cassmodel`, `uuid`, `chrono`.

use cassmodel::CassTable;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use std::collections::BTreeMap;
use uuid::Uuid;

/// A row of the table `delivery_timeslots`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "delivery_timeslots")]
pub struct DeliveryTimeslots {
    #[partition_key]
    pub delivery_date: NaiveDate,
    #[clustering]
    pub start_time: NaiveTime,
    #[clustering]
    pub delivery_team_id: Uuid,
    pub confirmed: Option<bool>,
    pub customer_id: Option<Uuid>,
    pub reservation_expiry: Option<DateTime<Utc>>,
}

/// A row of the table `orders_by_customer`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "orders_by_customer")]
pub struct OrdersByCustomer {
    #[partition_key]
    pub customer_id: Uuid,
    #[clustering]
    pub order_id: Uuid,
    #[clustering(desc)]
    pub submission_time: DateTime<Utc>,
    pub currency: Option<String>,
    pub delivery_address_key: Option<String>,
    pub item_subtotal: Option<f64>,
    pub postage_packing_fee: Option<f64>,
    pub products: BTreeMap<Uuid, i32>,
    pub promotional_discount: Option<f64>,
    pub remarks: Option<String>,
    pub status: Option<String>,
    pub vat: Option<f64>,
}

/// A row of the table `orders_by_customer_month`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "orders_by_customer_month")]
pub struct OrdersByCustomerMonth {
    #[partition_key]
    pub customer_id: Uuid,
    #[partition_key]
    pub submission_time_month: NaiveDate,
    #[clustering(desc)]
    pub submission_time: DateTime<Utc>,
    #[clustering]
    pub order_id: Uuid,
    pub item_subtotal: Option<f64>,
    pub products: BTreeMap<Uuid, i32>,
    pub status: Option<String>,
}

/// A row of the table `orders_by_delivery_date`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "orders_by_delivery_date")]
pub struct OrdersByDeliveryDate {
    #[partition_key]
    pub delivery_date: NaiveDate,
    #[partition_key]
    pub delivery_team_id: Uuid,
    #[clustering]
    pub start_time: NaiveTime,
    #[clustering]
    pub order_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub delivery_address_key: Option<String>,
    pub products: BTreeMap<Uuid, i32>,
    pub remarks: Option<String>,
    pub status: Option<String>,
    pub submission_time: Option<DateTime<Utc>>,
}
