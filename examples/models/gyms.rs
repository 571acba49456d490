//! B. Gyms by city.
//!
//! ```cql
//! CREATE TABLE gyms_by_city (country_code text, state text, city text, gym_name text,
//!   opening_date timestamp,
//!   PRIMARY KEY ((country_code, state, city), opening_date, gym_name))
//!   WITH CLUSTERING ORDER BY (opening_date ASC, gym_name ASC);
//! ```
//! The partition key has three parts: a query must give all three. Gyms are stored in
//! opening order, so "the first 10 to open" reads the head of the partition; "the latest 10"
//! is a reverse scan, which the API makes an explicit call.

use chrono::{DateTime, Utc};

use cassmodel::{CassTable, Db, Result};

use super::{Section, at};

#[derive(CassTable, Debug, Clone, PartialEq)]
pub struct GymsByCity {
    #[partition_key]
    pub country_code: String,
    #[partition_key]
    pub state: String,
    #[partition_key]
    pub city: String,
    #[clustering(asc)]
    pub opening_date: DateTime<Utc>,
    #[clustering(asc)]
    pub gym_name: String,
}

pub const SECTION: Section = Section {
    title: "B. Gyms by city",
    tables: || vec![<GymsByCity as cassmodel::Table>::schema()],
};

pub async fn create(db: &Db) -> Result<()> {
    db.create_table::<GymsByCity>().await
}

pub fn sample() -> Vec<GymsByCity> {
    [
        ("Arizona", "Phoenix", "Desert Iron", at(1, 15, 8, 0)),
        ("Arizona", "Phoenix", "Camelback Fitness", at(2, 1, 8, 0)),
        ("Arizona", "Phoenix", "Sonoran Strength", at(5, 20, 8, 0)),
        ("Arizona", "Tucson", "Saguaro Gym", at(3, 3, 8, 0)),
    ]
    .into_iter()
    .map(|(state, city, name, opened)| GymsByCity {
        country_code: "US".to_owned(),
        state: state.to_owned(),
        city: city.to_owned(),
        opening_date: opened,
        gym_name: name.to_owned(),
    })
    .collect()
}

pub async fn demo(db: &Db) -> Result<()> {
    for g in sample() {
        db.insert(&g).await?;
    }
    let phoenix = || {
        GymsByCity::select()
            .country_code("US")
            .state("Arizona")
            .city("Phoenix")
    };
    println!("first 10 gyms to open in Phoenix, Arizona, US:");
    for g in phoenix().limit(10).fetch_all(db).await? {
        println!("  {} {}", g.opening_date.format("%Y-%m-%d"), g.gym_name);
    }
    println!("latest 10 to open (an explicit reverse scan):");
    for g in phoenix().reversed().limit(10).fetch_all(db).await? {
        println!("  {} {}", g.opening_date.format("%Y-%m-%d"), g.gym_name);
    }
    Ok(())
}
