//! Models of a keyspace's tables and types, written by `cassmodel pull` from the
//! cluster's `system_schema`; `cassmodel pull --check` tells when they no longer match.
//!
//! Needs the crates `cassmodel`.

use cassmodel::{CassTable, CassUdt};

/// The user-defined type `card`.
#[derive(Debug, Clone, PartialEq, CassUdt)]
#[cass(name = "card")]
pub struct Card {
    pub name: Option<String>,
    #[cass(cql_type = "list<text>")]
    pub phones: Vec<String>,
    pub last: Option<(i32, String)>,
}

/// A row of the table `cards`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "cards")]
pub struct Cards {
    #[partition_key]
    pub id: i32,
    #[cass(frozen)]
    pub card: Option<Card>,
    pub history: Vec<(i32, String)>,
}

/// A row of the table `readings`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "readings")]
pub struct Readings {
    #[partition_key]
    pub sensor: i32,
    #[clustering]
    pub at: (i32, String),
    pub value: Option<(i32, String, Vec<String>)>,
}
