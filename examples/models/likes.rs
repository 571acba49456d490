//! C. Customers, products and likes, denormalised both ways.
//!
//! ```cql
//! CREATE TABLE customer (cust_id text PRIMARY KEY, first_name text, last_name text, registered_on timestamp);
//! CREATE TABLE product (prdt_id text PRIMARY KEY, title text);
//! CREATE TABLE customer_by_liked_product (liked_prdt_id text, liked_on timestamp, cust_id text,
//!   title text, first_name text, last_name text,
//!   PRIMARY KEY (liked_prdt_id, liked_on, cust_id)) WITH CLUSTERING ORDER BY (liked_on DESC, cust_id ASC);
//! CREATE TABLE product_liked_by_customer (cust_id text, liked_on timestamp, liked_prdt_id text,
//!   title text, first_name text, last_name text,
//!   PRIMARY KEY (cust_id, liked_on, liked_prdt_id)) WITH CLUSTERING ORDER BY (liked_on DESC, liked_prdt_id ASC);
//! ```
//! Corrections to the article: it keyed the first like table on `prdt_id`, which it never
//! declared; "most recent" needs DESC; without the id in the clustering key two likes at the
//! same instant would overwrite each other. Filtering on `title` or `first_name` (regular
//! columns), as the article does, does not compile.

use chrono::{DateTime, Utc};

use cassmodel::{CassEntity, CassTable, Db, Result};

use super::{Section, at};

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct Customer {
    #[partition_key]
    pub cust_id: String,
    pub first_name: String,
    pub last_name: String,
    pub registered_on: DateTime<Utc>,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct Product {
    #[partition_key]
    pub prdt_id: String,
    pub title: String,
}

/// One like, stored in both query tables. `like.save(&db)` writes both in one logged batch,
/// `like.delete(&db)` removes both; a table added to `tables(...)` (and marked with
/// `#[cass(entity = Like)]`) is written by every save from then on.
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(CustomerByLikedProduct, ProductLikedByCustomer))]
pub struct Like {
    pub liked_prdt_id: String,
    pub cust_id: String,
    pub liked_on: DateTime<Utc>,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
}

/// Who liked a product, most recent first.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Like)]
pub struct CustomerByLikedProduct {
    #[partition_key]
    pub liked_prdt_id: String,
    #[clustering(desc)]
    pub liked_on: DateTime<Utc>,
    #[clustering(asc)]
    pub cust_id: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
}

/// What a customer liked, most recent first.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = Like)]
pub struct ProductLikedByCustomer {
    #[partition_key]
    pub cust_id: String,
    #[clustering(desc)]
    pub liked_on: DateTime<Utc>,
    #[clustering(asc)]
    pub liked_prdt_id: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
}

pub const SECTION: Section = Section {
    title: "C. Customers, products and likes",
    tables: || {
        use cassmodel::Table;
        vec![
            Customer::schema(),
            Product::schema(),
            CustomerByLikedProduct::schema(),
            ProductLikedByCustomer::schema(),
        ]
    },
};

pub async fn create(db: &Db) -> Result<()> {
    db.create_table::<Customer>().await?;
    db.create_table::<Product>().await?;
    db.create_table::<CustomerByLikedProduct>().await?;
    db.create_table::<ProductLikedByCustomer>().await
}

pub fn customers() -> Vec<Customer> {
    [("c1", "Anna", "Smith"), ("c2", "Bob", "Jones")]
        .into_iter()
        .map(|(id, f, l)| Customer {
            cust_id: id.to_owned(),
            first_name: f.to_owned(),
            last_name: l.to_owned(),
            registered_on: at(1, 1, 12, 0),
        })
        .collect()
}

pub fn products() -> Vec<Product> {
    [("p1", "Pepsi"), ("p2", "Coca-Cola")]
        .into_iter()
        .map(|(id, t)| Product {
            prdt_id: id.to_owned(),
            title: t.to_owned(),
        })
        .collect()
}

/// (customer, product, time) of each like.
pub fn likes() -> Vec<(usize, usize, DateTime<Utc>)> {
    vec![
        (0, 0, at(6, 1, 10, 0)),
        (1, 0, at(6, 2, 11, 0)),
        (0, 1, at(6, 3, 12, 0)),
    ]
}

/// The like of product `p` by customer `c` at `on`, with the names copied in.
pub fn like(c: &Customer, p: &Product, on: DateTime<Utc>) -> Like {
    Like {
        liked_prdt_id: p.prdt_id.clone(),
        cust_id: c.cust_id.clone(),
        liked_on: on,
        title: p.title.clone(),
        first_name: c.first_name.clone(),
        last_name: c.last_name.clone(),
    }
}

/// The two rows one like is stored as.
pub fn like_rows(
    c: &Customer,
    p: &Product,
    on: DateTime<Utc>,
) -> (CustomerByLikedProduct, ProductLikedByCustomer) {
    use cassmodel::write::FromEntity;
    let l = like(c, p, on);
    (FromEntity::from_entity(&l), FromEntity::from_entity(&l))
}

pub async fn demo(db: &Db) -> Result<()> {
    let (cs, ps) = (customers(), products());
    for c in &cs {
        db.insert(c).await?;
    }
    for p in &ps {
        db.insert(p).await?;
    }
    for (c, p, on) in likes() {
        // One call writes the like to both tables, in one logged batch.
        like(&cs[c], &ps[p], on).save(db).await?;
    }
    println!("10 customers who most recently liked Pepsi (p1):");
    let by_product = CustomerByLikedProduct::select()
        .liked_prdt_id("p1")
        .limit(10);
    for l in by_product.fetch_all(db).await? {
        println!(
            "  {} {} {}",
            l.liked_on.format("%Y-%m-%d %H:%M"),
            l.first_name,
            l.last_name
        );
    }
    println!("10 products Anna (c1) most recently liked:");
    let by_customer = ProductLikedByCustomer::select().cust_id("c1").limit(10);
    for l in by_customer.fetch_all(db).await? {
        println!("  {} {}", l.liked_on.format("%Y-%m-%d %H:%M"), l.title);
    }
    Ok(())
}
