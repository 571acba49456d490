//! F. eBay's example: users like items.
//!
//! ```cql
//! CREATE TABLE users (user_id uuid PRIMARY KEY, name text, email text);
//! CREATE TABLE items (item_id uuid PRIMARY KEY, title text, description text, price decimal);
//! CREATE TABLE users_by_item (item_id uuid, liked_at timeuuid, user_id uuid, user_name text,
//!   PRIMARY KEY (item_id, liked_at, user_id)) WITH CLUSTERING ORDER BY (liked_at DESC, user_id ASC);
//! CREATE TABLE items_by_user (user_id uuid, liked_at timeuuid, item_id uuid, item_title text,
//!   PRIMARY KEY (user_id, liked_at, item_id)) WITH CLUSTERING ORDER BY (liked_at DESC, item_id ASC);
//! ```
//! The title and user name are copied into the index tables (denormalised); a like writes both.

use cassmodel::value::{Decimal, Timeuuid};
use cassmodel::{CassEntity, CassTable, Db, Result};
use uuid::Uuid;

use super::{Section, at, id, timeuuid};

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct Users {
    #[partition_key]
    pub user_id: Uuid,
    pub name: String,
    pub email: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct Items {
    #[partition_key]
    pub item_id: Uuid,
    pub title: String,
    pub description: String,
    pub price: Decimal,
}

/// A user likes an item: stored in both index tables, with the user name and item title
/// copied in.
#[derive(CassEntity, Debug, Clone, PartialEq)]
#[cass(tables(UsersByItem, ItemsByUser))]
pub struct ItemLike {
    pub item_id: Uuid,
    pub user_id: Uuid,
    pub liked_at: Timeuuid,
    pub user_name: String,
    pub item_title: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = ItemLike)]
pub struct UsersByItem {
    #[partition_key]
    pub item_id: Uuid,
    #[clustering(desc)]
    pub liked_at: Timeuuid,
    #[clustering(asc)]
    pub user_id: Uuid,
    pub user_name: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(entity = ItemLike)]
pub struct ItemsByUser {
    #[partition_key]
    pub user_id: Uuid,
    #[clustering(desc)]
    pub liked_at: Timeuuid,
    #[clustering(asc)]
    pub item_id: Uuid,
    pub item_title: String,
}

pub const SECTION: Section = Section {
    title: "F. eBay: users like items",
    tables: || {
        use cassmodel::Table;
        vec![
            Users::schema(),
            Items::schema(),
            UsersByItem::schema(),
            ItemsByUser::schema(),
        ]
    },
};

pub async fn create(db: &Db) -> Result<()> {
    db.create_table::<Users>().await?;
    db.create_table::<Items>().await?;
    db.create_table::<UsersByItem>().await?;
    db.create_table::<ItemsByUser>().await
}

pub fn camera() -> Items {
    Items {
        item_id: id(0xca3e4a),
        title: "Vintage camera".into(),
        description: "35mm, works".into(),
        // 129.99 = 12999 * 10^-2
        price: Decimal::from_signed_be_bytes_and_exponent(12999i32.to_be_bytes().to_vec(), 2),
    }
}

pub async fn demo(db: &Db) -> Result<()> {
    let item = camera();
    db.insert(&item).await?;
    let users = [(id(0xe1), "Erin"), (id(0xf2), "Frank")];
    for (i, (uid, name)) in users.iter().enumerate() {
        db.insert(&Users {
            user_id: *uid,
            name: (*name).into(),
            email: format!("{}@example.com", name.to_lowercase()),
        })
        .await?;
        let liked_at = timeuuid(at(8, 1 + i as u32, 20, 0), 0);
        ItemLike {
            item_id: item.item_id,
            user_id: *uid,
            liked_at,
            user_name: (*name).into(),
            item_title: item.title.clone(),
        }
        .save(db)
        .await?;
    }
    println!("users who liked '{}', most recent first:", item.title);
    for l in UsersByItem::partition(db, &item.item_id).await? {
        println!("  {} {}", l.liked_at, l.user_name);
    }
    let (from, to) = (timeuuid(at(8, 2, 0, 0), 0), timeuuid(at(8, 31, 0, 0), 0));
    let in_august = UsersByItem::select()
        .item_id(&item.item_id)
        .liked_at_ge(&from)
        .liked_at_lt(&to)
        .fetch_all(db)
        .await?;
    println!(
        "... liked from 2024-08-02 on: {:?}",
        in_august.iter().map(|l| &l.user_name).collect::<Vec<_>>()
    );
    Ok(())
}
