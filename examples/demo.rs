//! The seed-model demo: starts (or reuses) a local Cassandra node, creates every model of the
//! seed articles, writes their sample rows and prints them back, then prints the partition-size
//! analysis of every model (`cassmodel::sizing`, the same as `migrate analyze`).
//!
//! ```text
//! cargo run --example demo
//! ```
//!
//! Set `CASSMODEL_CONTACT_POINTS=host:port,...` to use your own cluster instead of the local
//! node, and `CASSMODEL_DEMO_KEYSPACE` to change the keyspace of the tables that do not name
//! one (default `cassmodel_demo`).

#[path = "models/mod.rs"]
mod models;

use cassmodel::Replication;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = cassmodel_node::cluster_or_local_node().await?;
    println!("connecting to {}", options.get_contact_points().join(","));
    let keyspace =
        std::env::var("CASSMODEL_DEMO_KEYSPACE").unwrap_or_else(|_| "cassmodel_demo".to_owned());
    let db = options.connect().await?.with_keyspace(&keyspace)?;

    // The supermarket article's replication, used for every keyspace of the demo.
    let replication = Replication::network_topology([("datacenter1", 1)]);
    models::create_all(&db, &replication).await?;
    for section in &models::SECTIONS {
        println!(
            "created {}: {} tables",
            section.title,
            (section.tables)().len()
        );
    }

    println!("\n== A");
    models::social::demo(&db).await?;
    println!("\n== B");
    models::gyms::demo(&db).await?;
    println!("\n== C");
    models::likes::demo(&db).await?;
    println!("\n== D");
    models::docs::demo(&db).await?;
    println!("\n== E");
    models::supermarket::demo(&db).await?;
    models::supermarket::demo_buckets(&db).await?;
    println!("\n== F");
    models::ebay::demo(&db).await?;
    println!("\n== G");
    models::keys::demo(&db).await?;

    // The modelling guides' last step: partition sizes, from each table's declared growth.
    println!("\n== Partition sizes (what `migrate analyze` prints)");
    let tables: Vec<_> = models::SECTIONS.iter().flat_map(|s| (s.tables)()).collect();
    print!(
        "{}",
        cassmodel::sizing::analyze_all(&tables, Some(&keyspace))
    );
    Ok(())
}
