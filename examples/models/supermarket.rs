//! E. Online supermarket: two keyspaces, a user-defined type, a map, timeslots and orders.
//!
//! ```cql
//! CREATE KEYSPACE customer WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1};
//! CREATE KEYSPACE order_delivery WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1};
//! CREATE TABLE customer.customers (id uuid PRIMARY KEY, name text, telephone text, email text,
//!   default_address_key text);
//! CREATE TYPE customer.address_type (street_name text, city text, country text, zipcode text);
//! CREATE TABLE customer.customer_addresses (customer_id uuid, address_key text,
//!   address frozen<address_type>, PRIMARY KEY (customer_id, address_key));
//! CREATE TABLE customer.basket_by_customer (customer_id uuid PRIMARY KEY, products map<uuid, int>);
//! CREATE TABLE order_delivery.delivery_timeslots (delivery_date date, start_time time,
//!   delivery_team_id uuid, confirmed boolean, customer_id uuid, reservation_expiry timestamp,
//!   PRIMARY KEY (delivery_date, start_time, delivery_team_id));
//! CREATE TABLE order_delivery.orders_by_customer (customer_id uuid, order_id uuid,
//!   submission_time timestamp, products map<uuid, int>, status text, delivery_address_key text,
//!   currency text, item_subtotal double, postage_packing_fee double, vat double,
//!   promotional_discount double, remarks text,
//!   PRIMARY KEY (customer_id, order_id, submission_time))
//!   WITH CLUSTERING ORDER BY (order_id ASC, submission_time DESC);
//! CREATE TABLE order_delivery.orders_by_delivery_date (delivery_date date, delivery_team_id uuid,
//!   start_time time, order_id uuid, submission_time timestamp, customer_id uuid,
//!   delivery_address_key text, status text, products map<uuid, int>, remarks text,
//!   PRIMARY KEY ((delivery_date, delivery_team_id), start_time, order_id))
//!   WITH CLUSTERING ORDER BY (start_time ASC, order_id ASC);
//! ```
//!
//! Queries: Q1 customer by id; Q2 addresses of a customer; Q3 basket of a customer; Q4
//! timeslots of a date; Q5 orders of a customer; Q6 orders of a date and team in start-time
//! order; Q7 one address by customer id and address key.
//!
//! Partition sizing: the article counts 12 columns - 2 key columns = 10 cells per order row
//! and asks when a customer ordering 1,000,000 times a month reaches Cassandra's hard limit of
//! 2 billion cells: after 200 million orders, about 17 years. `OrdersByCustomer` declares that
//! growth (`#[cass(expect(...))]`), so `migrate analyze` (or
//! `cassmodel::sizing::analyze`) does the arithmetic on the table as written: its primary key
//! has 3 columns (the article's count leaves one out), so 9 cells per row and 18.5 years to
//! the hard limit, but the 100,000-value guidance after about 8 hours. The fix it names: a
//! bucket by day together with an extra key column, since even one day of such a customer's
//! orders is over the guidance. `OrdersByCustomerMonth` shows the month bucket the article
//! suggests, for customers ordering about 1,000 times a month.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use uuid::Uuid;

use cassmodel::{CassEntity, CassTable, CassUdt, Db, Result};

use super::{Section, at, id};

/// Q1.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(keyspace = "customer", table = "customers")]
pub struct CustomerRecord {
    #[partition_key]
    pub id: Uuid,
    pub name: String,
    pub telephone: Option<String>,
    pub email: Option<String>,
    pub default_address_key: Option<String>,
}

/// A postal address, stored frozen in `customer_addresses`.
#[derive(CassUdt, Debug, Clone, PartialEq)]
#[cass(name = "address_type")]
pub struct Address {
    pub street_name: String,
    pub city: String,
    pub country: String,
    pub zipcode: String,
}

/// Q2 (a customer's partition) and Q7 (one row by the full key).
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(keyspace = "customer")]
pub struct CustomerAddresses {
    #[partition_key]
    pub customer_id: Uuid,
    #[clustering]
    pub address_key: String,
    #[cass(frozen)]
    pub address: Address,
}

/// Q3: product id -> quantity; products are added and removed without rewriting the map.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(keyspace = "customer")]
pub struct BasketByCustomer {
    #[partition_key]
    pub customer_id: Uuid,
    pub products: BTreeMap<Uuid, i32>,
}

/// Q4. A slot is reserved (with an expiry) before it is confirmed; the reservation fields
/// are empty while the slot is free.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(keyspace = "order_delivery")]
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

/// A submitted order, stored in both order tables (the article's workflow: "submit the order
/// to both order tables").
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(OrdersByCustomer, OrdersByDeliveryDate))]
pub struct Order {
    pub customer_id: Uuid,
    pub order_id: Uuid,
    pub submission_time: DateTime<Utc>,
    pub delivery_date: NaiveDate,
    pub delivery_team_id: Uuid,
    pub start_time: NaiveTime,
    pub products: BTreeMap<Uuid, i32>,
    pub status: String,
    pub delivery_address_key: String,
    pub currency: String,
    pub item_subtotal: f64,
    pub postage_packing_fee: f64,
    pub vat: f64,
    pub promotional_discount: Option<f64>,
    pub remarks: Option<String>,
}

/// Q5. As in the article, `order_id` comes before `submission_time` in the clustering key, so
/// rows are ordered by order id (a random UUID), not by time: this table cannot list a
/// customer's orders newest first. `submission_time DESC` only orders the versions of one
/// order. To list orders by time, cluster by `submission_time` first (or a timeuuid id).
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(
    keyspace = "order_delivery",
    entity = Order,
    expect(rows = 1_000_000, per = "month", horizon = "20 years")
)]
pub struct OrdersByCustomer {
    #[partition_key]
    pub customer_id: Uuid,
    #[clustering(asc)]
    pub order_id: Uuid,
    #[clustering(desc)]
    pub submission_time: DateTime<Utc>,
    /// About 4 products: 4 x (16-byte id + 4-byte quantity + 8 bytes of lengths).
    #[cass(avg_bytes = 112)]
    pub products: BTreeMap<Uuid, i32>,
    #[cass(avg_bytes = 9)]
    pub status: String,
    #[cass(avg_bytes = 8)]
    pub delivery_address_key: String,
    #[cass(avg_bytes = 3)]
    pub currency: String,
    pub item_subtotal: f64,
    pub postage_packing_fee: f64,
    pub vat: f64,
    pub promotional_discount: Option<f64>,
    #[cass(avg_bytes = 40)]
    pub remarks: Option<String>,
}

/// Q5 split by month, the guide's bucket: a customer's orders, newest first, in one partition
/// per calendar month. `submission_time_month` is computed from `submission_time` on every
/// write (the struct has no field for it); reads give `submission_time` (`=`) or a range of
/// it, `.submission_time_range(from..to)`, which reads the months in range one after another.
/// For customers ordering about 1,000 times a month: 1,000 rows of 9 cells per partition.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(
    keyspace = "order_delivery",
    expect(rows = 1_000, per = "month", horizon = "20 years")
)]
pub struct OrdersByCustomerMonth {
    #[partition_key]
    pub customer_id: Uuid,
    #[clustering(desc)]
    #[cass(bucket(month))]
    pub submission_time: DateTime<Utc>,
    #[clustering]
    pub order_id: Uuid,
    #[cass(avg_bytes = 112)]
    pub products: BTreeMap<Uuid, i32>,
    #[cass(avg_bytes = 9)]
    pub status: String,
    pub item_subtotal: f64,
}

/// Q6: the orders one team delivers on one date, in start-time order.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(keyspace = "order_delivery", entity = Order)]
pub struct OrdersByDeliveryDate {
    #[partition_key]
    pub delivery_date: NaiveDate,
    #[partition_key]
    pub delivery_team_id: Uuid,
    #[clustering(asc)]
    pub start_time: NaiveTime,
    #[clustering(asc)]
    pub order_id: Uuid,
    pub submission_time: DateTime<Utc>,
    pub customer_id: Uuid,
    pub delivery_address_key: String,
    pub status: String,
    pub products: BTreeMap<Uuid, i32>,
    pub remarks: Option<String>,
}

pub const SECTION: Section = Section {
    title: "E. Online supermarket",
    tables: || {
        use cassmodel::Table;
        vec![
            CustomerRecord::schema(),
            CustomerAddresses::schema(),
            BasketByCustomer::schema(),
            DeliveryTimeslots::schema(),
            OrdersByCustomer::schema(),
            OrdersByDeliveryDate::schema(),
            OrdersByCustomerMonth::schema(),
        ]
    },
};

/// The article's keyspaces.
pub const KEYSPACES: [&str; 2] = ["customer", "order_delivery"];

pub async fn create(db: &Db) -> Result<()> {
    db.create_table::<CustomerRecord>().await?;
    db.create_table::<CustomerAddresses>().await?;
    db.create_table::<BasketByCustomer>().await?;
    db.create_table::<DeliveryTimeslots>().await?;
    db.create_table::<OrdersByCustomer>().await?;
    db.create_table::<OrdersByDeliveryDate>().await?;
    db.create_table::<OrdersByCustomerMonth>().await
}

pub fn jane() -> Uuid {
    id(0x1a4e)
}

pub fn team() -> Uuid {
    id(0x7ea4)
}

pub fn delivery_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2024, 7, 1).unwrap_or_default()
}

pub fn hour(h: u32) -> NaiveTime {
    NaiveTime::from_hms_opt(h, 0, 0).unwrap_or_default()
}

pub fn sample_address() -> Address {
    Address {
        street_name: "1 Market Street".into(),
        city: "London".into(),
        country: "UK".into(),
        zipcode: "EC1A 1AA".into(),
    }
}

/// The sample order as stored in `orders_by_customer`.
pub fn sample_order() -> OrdersByCustomer {
    cassmodel::write::FromEntity::from_entity(&sample_order_entity())
}

/// The sample order, delivered by `team()` on `delivery_day()` at 10:00.
pub fn sample_order_entity() -> Order {
    Order {
        customer_id: jane(),
        order_id: id(0x0de4),
        submission_time: at(6, 30, 18, 5),
        delivery_date: delivery_day(),
        delivery_team_id: team(),
        start_time: hour(10),
        products: BTreeMap::from([(id(0xa991e), 6), (id(0xb4ead), 1)]),
        status: "SUBMITTED".into(),
        delivery_address_key: "home".into(),
        currency: "GBP".into(),
        item_subtotal: 7.5,
        postage_packing_fee: 3.0,
        vat: 1.5,
        promotional_discount: None,
        remarks: Some("leave at the door".into()),
    }
}

pub async fn demo(db: &Db) -> Result<()> {
    db.insert(&CustomerRecord {
        id: jane(),
        name: "Jane Doe".into(),
        telephone: Some("+44 20 7946 0000".into()),
        email: Some("jane@example.com".into()),
        default_address_key: Some("home".into()),
    })
    .await?;
    db.insert(&CustomerAddresses {
        customer_id: jane(),
        address_key: "home".into(),
        address: sample_address(),
    })
    .await?;
    db.insert(&BasketByCustomer {
        customer_id: jane(),
        products: BTreeMap::from([(id(0xa991e), 6)]),
    })
    .await?;
    for h in [9, 10, 11] {
        db.insert(&DeliveryTimeslots {
            delivery_date: delivery_day(),
            start_time: hour(h),
            delivery_team_id: team(),
            confirmed: (h == 10).then_some(true),
            customer_id: (h == 10).then(jane),
            reservation_expiry: None,
        })
        .await?;
    }
    // Submit the order to both order tables at once (one logged batch).
    sample_order_entity().save(db).await?;

    println!(
        "Q1 customer: {:?}",
        CustomerRecord::get(db, &jane()).await?.map(|c| c.name)
    );
    println!("Q2 addresses of Jane:");
    for a in CustomerAddresses::partition(db, &jane()).await? {
        println!(
            "  {}: {}, {}",
            a.address_key, a.address.street_name, a.address.city
        );
    }
    println!(
        "Q3 basket: {:?}",
        BasketByCustomer::get(db, &jane())
            .await?
            .map(|b| b.products)
    );
    println!("Q4 timeslots of {}:", delivery_day());
    for s in DeliveryTimeslots::partition(db, &delivery_day()).await? {
        let state = if s.confirmed == Some(true) {
            "confirmed"
        } else {
            "free"
        };
        println!("  {} team {} {state}", s.start_time, s.delivery_team_id);
    }
    println!("Q5 orders of Jane:");
    for o in OrdersByCustomer::partition(db, &jane()).await? {
        println!(
            "  {} {} {} {:.2}",
            o.order_id, o.submission_time, o.status, o.item_subtotal
        );
    }
    println!("Q6 orders of {} for team {}:", delivery_day(), team());
    for o in OrdersByDeliveryDate::partition(db, &delivery_day(), &team()).await? {
        println!("  {} order {}", o.start_time, o.order_id);
    }
    let home = CustomerAddresses::get(db, &jane(), "home").await?;
    println!("Q7 Jane's home address: {:?}", home.map(|a| a.address));
    Ok(())
}

/// Writes and reads `orders_by_customer_month` (created by [`create`]).
pub async fn demo_buckets(db: &Db) -> Result<()> {
    // The month bucket: Jane's orders from November 2024 to February 2025, one partition per
    // month, written without naming the month and read over a range that crosses the year.
    for o in monthly_orders() {
        db.insert(&o).await?;
    }
    let (from, to) = (month_start(2024, 11), month_start(2025, 3));
    println!("Q5 by month, Jane's orders from {from} to {to}, newest first:");
    let orders = OrdersByCustomerMonth::select()
        .customer_id(&jane())
        .submission_time_range(from..to)
        .fetch_all(db)
        .await?;
    for o in orders {
        println!(
            "  {} {} {:.2}",
            o.submission_time, o.status, o.item_subtotal
        );
    }
    Ok(())
}

/// The first instant of a month.
pub fn month_start(year: i32, month: u32) -> DateTime<Utc> {
    use chrono::TimeZone;
    Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

/// Jane's orders in `orders_by_customer_month`: two a month from October 2024 to March 2025.
pub fn monthly_orders() -> Vec<OrdersByCustomerMonth> {
    let months = [
        (2024, 10),
        (2024, 11),
        (2024, 12),
        (2025, 1),
        (2025, 2),
        (2025, 3),
    ];
    let mut out = Vec::new();
    for (i, &(y, m)) in months.iter().enumerate() {
        for (j, day) in [3i64, 17].into_iter().enumerate() {
            let n = (i * 2 + j) as u128;
            out.push(OrdersByCustomerMonth {
                customer_id: jane(),
                submission_time: month_start(y, m) + chrono::Duration::days(day - 1),
                order_id: id(0x0de0 + n),
                products: BTreeMap::from([(id(0xb0b), 1 + j as i32)]),
                status: "DELIVERED".into(),
                item_subtotal: 10.0 + n as f64,
            });
        }
    }
    out
}
