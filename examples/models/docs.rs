//! D. Tables from the Cassandra documentation.
//!
//! ```cql
//! CREATE TABLE t1 (id int, k int, v text, PRIMARY KEY (id));
//! CREATE TABLE t2 (id int, c text, k int, v text, PRIMARY KEY (id, c));
//! CREATE TABLE t3 (id1 int, id2 int, c1 text, c2 text, k int, v text, PRIMARY KEY ((id1, id2), c1, c2));
//! CREATE TABLE magazine_name (id int PRIMARY KEY, name text, publication_frequency text);
//! CREATE TABLE magazine_publisher (publisher text, id int, name text, publication_frequency text,
//!   PRIMARY KEY (publisher, id)) WITH CLUSTERING ORDER BY (id DESC);
//! ```

use cassmodel::{CassTable, Db, Result};

use super::Section;

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct T1 {
    #[partition_key]
    pub id: i32,
    pub k: i32,
    pub v: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct T2 {
    #[partition_key]
    pub id: i32,
    #[clustering]
    pub c: String,
    pub k: i32,
    pub v: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct T3 {
    #[partition_key]
    pub id1: i32,
    #[partition_key]
    pub id2: i32,
    #[clustering]
    pub c1: String,
    #[clustering]
    pub c2: String,
    pub k: i32,
    pub v: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct MagazineName {
    #[partition_key]
    pub id: i32,
    pub name: String,
    pub publication_frequency: String,
}

/// Magazines of a publisher, highest id first.
#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct MagazinePublisher {
    #[partition_key]
    pub publisher: String,
    #[clustering(desc)]
    pub id: i32,
    pub name: String,
    pub publication_frequency: String,
}

pub const SECTION: Section = Section {
    title: "D. Tables from the Cassandra documentation",
    tables: || {
        use cassmodel::Table;
        vec![
            T1::schema(),
            T2::schema(),
            T3::schema(),
            MagazineName::schema(),
            MagazinePublisher::schema(),
        ]
    },
};

pub async fn create(db: &Db) -> Result<()> {
    db.create_table::<T1>().await?;
    db.create_table::<T2>().await?;
    db.create_table::<T3>().await?;
    db.create_table::<MagazineName>().await?;
    db.create_table::<MagazinePublisher>().await
}

pub fn t3_sample() -> Vec<T3> {
    let mut rows = Vec::new();
    for (c1, c2, k) in [("a", "x", 1), ("a", "y", 2), ("b", "x", 3), ("c", "z", 4)] {
        rows.push(T3 {
            id1: 1,
            id2: 2,
            c1: c1.to_owned(),
            c2: c2.to_owned(),
            k,
            v: format!("v{k}"),
        });
    }
    rows
}

pub fn magazines() -> Vec<MagazinePublisher> {
    [
        (1, "Tech Weekly", "weekly"),
        (2, "Data Monthly", "monthly"),
        (3, "Cloud Quarterly", "quarterly"),
    ]
    .into_iter()
    .map(|(id, name, f)| MagazinePublisher {
        publisher: "Acme Press".to_owned(),
        id,
        name: name.to_owned(),
        publication_frequency: f.to_owned(),
    })
    .collect()
}

pub async fn demo(db: &Db) -> Result<()> {
    db.insert(&T1 {
        id: 1,
        k: 10,
        v: "one".into(),
    })
    .await?;
    db.insert(&T2 {
        id: 1,
        c: "a".into(),
        k: 10,
        v: "one-a".into(),
    })
    .await?;
    for r in t3_sample() {
        db.insert(&r).await?;
    }
    for m in magazines() {
        db.insert(&MagazineName {
            id: m.id,
            name: m.name.clone(),
            publication_frequency: m.publication_frequency.clone(),
        })
        .await?;
        db.insert(&m).await?;
    }
    println!("t1 id=1: {:?}", T1::get(db, &1).await?);
    println!("t3 where id1 = 1 and id2 = 2:");
    for r in T3::select().id1(&1).id2(&2).fetch_all(db).await? {
        println!("  c1={} c2={} k={} v={}", r.c1, r.c2, r.k, r.v);
    }
    let c1_a = T3::select().id1(&1).id2(&2).c1("a").fetch_all(db).await?;
    println!("... and c1 = 'a': {} rows", c1_a.len());
    let exact = T3::select()
        .id1(&1)
        .id2(&2)
        .c1("a")
        .c2("y")
        .fetch_first(db)
        .await?;
    println!("... and c2 = 'y': {:?}", exact.map(|r| r.v));
    let after_a = T3::select()
        .id1(&1)
        .id2(&2)
        .c1_gt("a")
        .fetch_all(db)
        .await?;
    println!(
        "... c1 > 'a': {:?}",
        after_a.iter().map(|r| &r.c1).collect::<Vec<_>>()
    );
    println!("magazines of Acme Press, highest id first:");
    for m in MagazinePublisher::partition(db, "Acme Press").await? {
        println!("  {} {} ({})", m.id, m.name, m.publication_frequency);
    }
    Ok(())
}
