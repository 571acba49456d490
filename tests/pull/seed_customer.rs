//! Models of a keyspace's tables and types, written by `cassmodel pull` from the
//! cluster's `system_schema`; `cassmodel pull --check` tells when they no longer match.
//!
//! Needs the crates `cassmodel`, `uuid`.

use cassmodel::{CassTable, CassUdt};
use std::collections::BTreeMap;
use uuid::Uuid;

/// The user-defined type `address_type`.
#[derive(Debug, Clone, PartialEq, CassUdt)]
#[cass(name = "address_type")]
pub struct AddressType {
    pub street_name: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
    pub zipcode: Option<String>,
}

/// A row of the table `basket_by_customer`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "basket_by_customer")]
pub struct BasketByCustomer {
    #[partition_key]
    pub customer_id: Uuid,
    pub products: BTreeMap<Uuid, i32>,
}

/// A row of the table `customer_addresses`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "customer_addresses")]
pub struct CustomerAddresses {
    #[partition_key]
    pub customer_id: Uuid,
    #[clustering]
    pub address_key: String,
    #[cass(frozen)]
    pub address: Option<AddressType>,
}

/// A row of the table `customers`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "customers")]
pub struct Customers {
    #[partition_key]
    pub id: Uuid,
    pub default_address_key: Option<String>,
    pub email: Option<String>,
    pub name: Option<String>,
    pub telephone: Option<String>,
}
