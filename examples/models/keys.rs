//! G. The keys tutorial.
//!
//! ```cql
//! CREATE TABLE users_by_mainland (mainland text, state text, uid int, name text, zip int,
//!   PRIMARY KEY ((mainland), state, uid));
//! CREATE TABLE key_parts (key_part_one text, key_part_two int, data text,
//!   PRIMARY KEY (key_part_one, key_part_two));
//! CREATE TABLE wide (col1 text, col2 text, col10 text, col4 text, data text,
//!   PRIMARY KEY ((col1, col2), col10, col4));
//! ```

use cassmodel::{CassTable, Db, Result};

use super::Section;

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct UsersByMainland {
    #[partition_key]
    pub mainland: String,
    #[clustering]
    pub state: String,
    #[clustering]
    pub uid: i32,
    pub name: String,
    pub zip: i32,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct KeyParts {
    #[partition_key]
    pub key_part_one: String,
    #[clustering]
    pub key_part_two: i32,
    pub data: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct Wide {
    #[partition_key]
    pub col1: String,
    #[partition_key]
    pub col2: String,
    #[clustering]
    pub col10: String,
    #[clustering]
    pub col4: String,
    pub data: String,
}

pub const SECTION: Section = Section {
    title: "G. Keys tutorial",
    tables: || {
        use cassmodel::Table;
        vec![
            UsersByMainland::schema(),
            KeyParts::schema(),
            Wide::schema(),
        ]
    },
};

pub async fn create(db: &Db) -> Result<()> {
    db.create_table::<UsersByMainland>().await?;
    db.create_table::<KeyParts>().await?;
    db.create_table::<Wide>().await
}

/// The tutorial's users: two in Delaware, which `state > 'ca' AND state < 'ny'` returns.
pub fn mainland_users() -> Vec<UsersByMainland> {
    [
        ("northamerica", "ca", 1, "alice", 94016),
        ("northamerica", "de", 2, "bob", 19901),
        ("northamerica", "de", 3, "carol", 19702),
        ("northamerica", "ny", 4, "dave", 10001),
        ("northamerica", "tx", 5, "erin", 73301),
        ("europe", "be", 6, "frank", 1000),
    ]
    .into_iter()
    .map(|(m, s, uid, n, zip)| UsersByMainland {
        mainland: m.into(),
        state: s.into(),
        uid,
        name: n.into(),
        zip,
    })
    .collect()
}

pub async fn demo(db: &Db) -> Result<()> {
    for u in mainland_users() {
        db.insert(&u).await?;
    }
    for (k, v) in [("a", 9), ("a", 10), ("b", 9)] {
        db.insert(&KeyParts {
            key_part_one: k.into(),
            key_part_two: v,
            data: format!("{k}{v}"),
        })
        .await?;
    }
    db.insert(&Wide {
        col1: "x".into(),
        col2: "y".into(),
        col10: "p".into(),
        col4: "q".into(),
        data: "wide row".into(),
    })
    .await?;
    println!("users in northamerica, by state and uid:");
    for u in UsersByMainland::partition(db, "northamerica").await? {
        println!("  {} {} {} {}", u.state, u.uid, u.name, u.zip);
    }
    println!("mainland = 'northamerica' AND state > 'ca' AND state < 'ny':");
    let between = UsersByMainland::select()
        .mainland("northamerica")
        .state_gt("ca")
        .state_lt("ny")
        .fetch_all(db)
        .await?;
    for u in between {
        println!("  {} {} {}", u.state, u.uid, u.name);
    }
    let w = Wide::select()
        .col1("x")
        .col2("y")
        .col10("p")
        .col4("q")
        .fetch_first(db)
        .await?;
    println!("wide (x, y, p, q): {:?}", w.map(|r| r.data));
    // `WHERE key_part_two = 9` needs ALLOW FILTERING: only through the call that says so.
    let nines = KeyParts::select_allow_filtering()
        .key_part_two(&9)
        .fetch_all(db)
        .await?;
    println!("key_parts with key_part_two = 9 (a scan): {}", nines.len());
    Ok(())
}
