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
    pub phones: Option<Vec<String>>,
    pub last: Option<(Option<i32>, Option<String>)>,
}

/// A row of the table `cards`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "cards")]
pub struct Cards {
    #[partition_key]
    pub id: i32,
    #[cass(frozen)]
    pub card: Option<Card>,
    pub history: Vec<(Option<i32>, Option<String>)>,
}

/// A row of the table `readings`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "readings")]
pub struct Readings {
    #[partition_key]
    pub sensor: i32,
    #[clustering]
    pub at: (Option<i32>, Option<String>),
    #[allow(clippy::type_complexity)]
    pub value: Option<(Option<i32>, Option<String>, Option<Vec<String>>)>,
}
