//! Models of a keyspace's tables and types, written by `cassmodel pull` from the
//! cluster's `system_schema`; `cassmodel pull --check` tells when they no longer match.
//!
//! Needs the crates `cassmodel`, `uuid`, `chrono`.

use cassmodel::CassTable;
use cassmodel::value::{Decimal, Timeuuid};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A row of the table `customer`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "customer")]
pub struct Customer {
    #[partition_key]
    pub cust_id: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub registered_on: Option<DateTime<Utc>>,
}

/// A row of the table `customer_by_liked_product`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "customer_by_liked_product")]
pub struct CustomerByLikedProduct {
    #[partition_key]
    pub liked_prdt_id: String,
    #[clustering(desc)]
    pub liked_on: DateTime<Utc>,
    #[clustering]
    pub cust_id: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub title: Option<String>,
}

/// A row of the table `gyms_by_city`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "gyms_by_city")]
pub struct GymsByCity {
    #[partition_key]
    pub country_code: String,
    #[partition_key]
    pub state: String,
    #[partition_key]
    pub city: String,
    #[clustering]
    pub opening_date: DateTime<Utc>,
    #[clustering]
    pub gym_name: String,
}

/// A row of the table `items`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "items")]
pub struct Items {
    #[partition_key]
    pub item_id: Uuid,
    pub description: Option<String>,
    pub price: Option<Decimal>,
    pub title: Option<String>,
}

/// A row of the table `items_by_user`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "items_by_user")]
pub struct ItemsByUser {
    #[partition_key]
    pub user_id: Uuid,
    #[clustering(desc)]
    pub liked_at: Timeuuid,
    #[clustering]
    pub item_id: Uuid,
    pub item_title: Option<String>,
}

/// A row of the table `key_parts`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "key_parts")]
pub struct KeyParts {
    #[partition_key]
    pub key_part_one: String,
    #[clustering]
    pub key_part_two: i32,
    pub data: Option<String>,
}

/// A row of the table `magazine_name`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "magazine_name")]
pub struct MagazineName {
    #[partition_key]
    pub id: i32,
    pub name: Option<String>,
    pub publication_frequency: Option<String>,
}

/// A row of the table `magazine_publisher`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "magazine_publisher")]
pub struct MagazinePublisher {
    #[partition_key]
    pub publisher: String,
    #[clustering(desc)]
    pub id: i32,
    pub name: Option<String>,
    pub publication_frequency: Option<String>,
}

/// A row of the table `posts_facebook`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "posts_facebook")]
pub struct PostsFacebook {
    #[partition_key]
    pub user_id: Uuid,
    #[clustering(desc)]
    pub post_id: Timeuuid,
    pub content: Option<String>,
}

/// A row of the table `product`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "product")]
pub struct Product {
    #[partition_key]
    pub prdt_id: String,
    pub title: Option<String>,
}

/// A row of the table `product_liked_by_customer`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "product_liked_by_customer")]
pub struct ProductLikedByCustomer {
    #[partition_key]
    pub cust_id: String,
    #[clustering(desc)]
    pub liked_on: DateTime<Utc>,
    #[clustering]
    pub liked_prdt_id: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub title: Option<String>,
}

/// A row of the table `t1`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "t1")]
pub struct T1 {
    #[partition_key]
    pub id: i32,
    pub k: Option<i32>,
    pub v: Option<String>,
}

/// A row of the table `t2`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "t2")]
pub struct T2 {
    #[partition_key]
    pub id: i32,
    #[clustering]
    pub c: String,
    pub k: Option<i32>,
    pub v: Option<String>,
}

/// A row of the table `t3`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "t3")]
pub struct T3 {
    #[partition_key]
    pub id1: i32,
    #[partition_key]
    pub id2: i32,
    #[clustering]
    pub c1: String,
    #[clustering]
    pub c2: String,
    pub k: Option<i32>,
    pub v: Option<String>,
}

/// A row of the table `users`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "users")]
pub struct Users {
    #[partition_key]
    pub user_id: Uuid,
    pub email: Option<String>,
    pub name: Option<String>,
}

/// A row of the table `users_by_item`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "users_by_item")]
pub struct UsersByItem {
    #[partition_key]
    pub item_id: Uuid,
    #[clustering(desc)]
    pub liked_at: Timeuuid,
    #[clustering]
    pub user_id: Uuid,
    pub user_name: Option<String>,
}

/// A row of the table `users_by_mainland`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "users_by_mainland")]
pub struct UsersByMainland {
    #[partition_key]
    pub mainland: String,
    #[clustering]
    pub state: String,
    #[clustering]
    pub uid: i32,
    pub name: Option<String>,
    pub zip: Option<i32>,
}

/// A row of the table `wide`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "wide")]
pub struct Wide {
    #[partition_key]
    pub col1: String,
    #[partition_key]
    pub col2: String,
    #[clustering]
    pub col10: String,
    #[clustering]
    pub col4: String,
    pub data: Option<String>,
}
