//! `cassmodel pull` on a real node: the models it writes for a keyspace compile (they are
//! this file's modules), `migrate plan` against the same keyspace has nothing to do,
//! `validate` passes, rows written with plain CQL read back through the generated structs
//! equal to what plain CQL returns, and read through them and inserted into a copy of the
//! keyspace, equal there to the first's (`SELECT JSON`).
//!
//! Two sources: every seed model (created by the models of `examples/models`, in the test's
//! keyspace and the supermarket's two keyspaces), and a keyspace created only by the
//! hand-written CQL of `tests/pull/handwritten.cql` (every CQL type and key shape, quoted
//! mixed-case and reserved-word names, and what cannot be modelled); and a keyspace of
//! values with nulls inside them (`tests/pull/nulls.cql`). The generated modules
//! are committed (`tests/pull/*.rs`) and must equal what `pull` writes now; after a change to
//! `pull`, rewrite them with `CASSMODEL_BLESS=1 cargo test --test pull` and review the diff.

#[path = "pull/handwritten.rs"]
mod handwritten;
#[path = "../examples/models/mod.rs"]
mod models;
#[path = "pull/nulls.rs"]
mod nulls;
#[path = "pull/round_trip.rs"]
mod round_trip;
#[path = "pull/seed.rs"]
mod seed;
#[path = "pull/seed_customer.rs"]
mod seed_customer;
#[path = "pull/seed_order_delivery.rs"]
mod seed_order_delivery;
mod support;

use std::path::Path;

use cassmodel::{Table, schema::TableSchema};
use cassmodel_cli::pull::{PullOptions, pull};
use round_trip::{
    ROWS, copied_rows_match, copy_keyspace, drop_keyspace, json_rows, nothing_to_do, rows_match,
    write_rows_into,
};

const HANDWRITTEN: &str = include_str!("pull/handwritten.cql");
const NULLS: &str = include_str!("pull/nulls.cql");
const NULLS_ROWS: &str = include_str!("pull/nulls_rows.cql");

#[tokio::test]
async fn handwritten_keyspace_round_trips() {
    let t = support::test_db("pull_hand").await;
    let ks = t.keyspace().to_owned();
    t.db.session().use_keyspace(&ks, false).await.expect("USE");
    for statement in cassmodel_cli::cql_statements(HANDWRITTEN) {
        let made = t.db.execute_ddl(&statement).await;
        // Before Cassandra 5.0 the file's vector column and SAI index are refused by name
        // (the keyspace round-trips on 5.0 only).
        if let Err(e) = &made
            && e.kind() == cassmodel::ErrorKind::Unsupported
        {
            assert!(e.to_string().contains("needs Cassandra 5.0"), "{e}");
            return t.drop_all().await;
        }
        made.unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let pulled = pull(&t.db, &ks, &PullOptions::new()).await.expect("pull");
    fixture("tests/pull/handwritten.rs", &pulled.module);
    // What cannot be modelled is named, with the reason.
    let warnings = pulled.warnings.join("\n");
    for expected in [
        "not generated: table `int_vectors`: column `v`: `vector<int, 3>`: cassmodel's \
         `Vector<N>` holds `vector<float, N>` only",
        "frozen_keys.v: Not declared here: the index `legacy_v` on `v` (a legacy secondary index",
        "every_type.vc: Not declared here: the index `vc_folded` on `vc` (options the derive \
         does not declare: {'case_sensitive': 'false'})",
    ] {
        assert!(
            warnings.contains(expected),
            "no `{expected}` in:\n{warnings}"
        );
    }
    assert_eq!(pulled.warnings.len(), 3, "{warnings}");

    let generated = [
        handwritten::EveryType::schema(),
        handwritten::Events::schema(),
        handwritten::FrozenKeys::schema(),
        handwritten::PageCounts::schema(),
        handwritten::Readings::schema(),
        handwritten::ReadingsBySite::schema(),
    ];
    nothing_to_do(&t.db, &generated).await;
    write_rows_into(&t.db, &generated).await;
    rows_match::<handwritten::EveryType>(&t.db).await;
    rows_match::<handwritten::Events>(&t.db).await;
    rows_match::<handwritten::FrozenKeys>(&t.db).await;
    rows_match::<handwritten::PageCounts>(&t.db).await;
    rows_match::<handwritten::Readings>(&t.db).await;
    rows_match::<handwritten::ReadingsBySite>(&t.db).await;
    // Read through the structs and inserted into a copy (not the counter table, whose rows
    // are counted, nor the view, which the server writes).
    let copy = copy_keyspace(&t.db).await;
    copied_rows_match::<handwritten::EveryType>(&t.db, &copy, ROWS).await;
    copied_rows_match::<handwritten::Events>(&t.db, &copy, ROWS).await;
    copied_rows_match::<handwritten::FrozenKeys>(&t.db, &copy, ROWS).await;
    copied_rows_match::<handwritten::Readings>(&t.db, &copy, ROWS).await;
    drop_keyspace(&copy).await;
    t.drop_all_unmodelled().await;
}

/// Issue 66: inside a frozen type a null list and an empty list are two values, and a tuple
/// may hold nulls (`(1, null)`, in a clustering key too). The models `pull` wrote before held
/// neither: a type's list was a `Vec<String>` (a null read back as `[]`, and written so), and
/// a tuple's elements were plain, so the scan of `cards` failed: "column `card` (Rust
/// `Option<Card>`): type `..card`, field `last` (Rust `Option<(i32, String)>`): Rust `(i32,
/// String)` could not read a CQL `tuple<int, text>` value: its element 1: Rust `String` could
/// not read a CQL `text` value: expected a non-null value, got null". Every row, read
/// through the pulled models and inserted into a copy of the keyspace, is there what it is
/// here.
#[tokio::test]
async fn nulls_inside_types_and_tuples_round_trip() {
    let t = support::test_db("pull_nulls").await;
    let ks = t.keyspace().to_owned();
    t.db.session().use_keyspace(&ks, false).await.expect("USE");
    for statement in cassmodel_cli::cql_statements(&format!("{NULLS}\n{NULLS_ROWS}")) {
        t.db.execute_ddl(&statement)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let pulled = pull(&t.db, &ks, &PullOptions::new()).await.expect("pull");
    fixture("tests/pull/nulls.rs", &pulled.module);
    assert_eq!(pulled.warnings, Vec::<String>::new());
    // The rows hold what the old models could not: the comparison below compares them.
    let cards = json_rows::<nulls::Cards>(&t.db).await.join("\n");
    let readings = json_rows::<nulls::Readings>(&t.db).await.join("\n");
    for (rows, held) in [
        (&cards, r#""phones": null"#),
        (&cards, r#""phones": []"#),
        (&cards, r#"[1, null]"#),
        (&readings, r#""at": [null, "b"]"#),
        (&readings, r#""value": [1, null, null]"#),
    ] {
        assert!(rows.contains(held), "no {held} in:\n{rows}");
    }

    nothing_to_do(&t.db, &[nulls::Cards::schema(), nulls::Readings::schema()]).await;
    let copy = copy_keyspace(&t.db).await;
    copied_rows_match::<nulls::Cards>(&t.db, &copy, 3).await;
    copied_rows_match::<nulls::Readings>(&t.db, &copy, 4).await;
    drop_keyspace(&copy).await;
    t.drop_all().await;
}

#[tokio::test]
async fn seed_models_round_trip() {
    let mut t = support::test_db("pull_seed").await;
    for ks in models::supermarket::KEYSPACES {
        t.map_keyspace(ks).await;
    }
    models::create_all(&t.db, &cassmodel::Replication::Simple(1))
        .await
        .expect("create the seed models");
    let seed_tables: Vec<&'static TableSchema> =
        models::SECTIONS.iter().flat_map(|s| (s.tables)()).collect();
    let keyspaces = [
        (None, "tests/pull/seed.rs"),
        (Some("customer"), "tests/pull/seed_customer.rs"),
        (Some("order_delivery"), "tests/pull/seed_order_delivery.rs"),
    ];
    let mut covered = 0;
    for (declared, file) in keyspaces {
        let ks =
            t.db.resolve_keyspace(declared)
                .expect("a keyspace")
                .to_owned();
        let db = t.db.with_keyspace(&ks).expect("keyspace");
        let pulled = pull(&db, &ks, &PullOptions::new()).await.expect("pull");
        fixture(file, &pulled.module);
        assert_eq!(pulled.warnings, Vec::<String>::new(), "{ks}");
        // Every seed table of that keyspace has its generated struct.
        let seeds: Vec<&str> = seed_tables
            .iter()
            .filter(|s| s.keyspace == declared)
            .map(|s| s.name)
            .collect();
        let generated = generated_in(&seed_tables, &seeds);
        assert_eq!(generated.len(), seeds.len(), "{ks}: {seeds:?}");
        covered += generated.len();
        nothing_to_do(&db, &generated).await;
        write_rows_into(&db, &generated).await;
    }
    assert_eq!(covered, seed_tables.len());
    let db = &t.db;
    let mut checked = 0;
    // Each table's rows as plain CQL reads them, and copied through its struct.
    macro_rules! rows_match {
        ($db:expr => $($m:ident::$t:ident),* $(,)?) => {
            let copy = copy_keyspace($db).await;
            $(
                rows_match::<$m::$t>($db).await;
                copied_rows_match::<$m::$t>($db, &copy, ROWS).await;
                checked += 1;
            )*
            drop_keyspace(&copy).await;
        };
    }
    rows_match!(db =>
        seed::Customer, seed::CustomerByLikedProduct, seed::GymsByCity, seed::Items,
        seed::ItemsByUser, seed::KeyParts, seed::MagazineName, seed::MagazinePublisher,
        seed::PostsFacebook, seed::Product, seed::ProductLikedByCustomer, seed::T1, seed::T2,
        seed::T3, seed::Users, seed::UsersByItem, seed::UsersByMainland, seed::Wide,
    );
    let in_keyspace = |declared| {
        let ks = db.resolve_keyspace(Some(declared)).expect("mapped");
        db.with_keyspace(ks).expect("keyspace")
    };
    let customer = in_keyspace("customer");
    rows_match!(&customer =>
        seed_customer::BasketByCustomer, seed_customer::CustomerAddresses,
        seed_customer::Customers,
    );
    let delivery = in_keyspace("order_delivery");
    rows_match!(&delivery =>
        seed_order_delivery::DeliveryTimeslots, seed_order_delivery::OrdersByCustomer,
        seed_order_delivery::OrdersByCustomerMonth, seed_order_delivery::OrdersByDeliveryDate,
    );
    assert_eq!(
        checked, covered,
        "every generated table's rows are compared"
    );
    t.drop_all().await;
}

/// The generated tables (those of the registry that are not seed models) named `names`.
fn generated_in(seeds: &[&'static TableSchema], names: &[&str]) -> Vec<&'static TableSchema> {
    cassmodel::migrate::registered_tables()
        .into_iter()
        .filter(|t| !seeds.iter().any(|s| std::ptr::eq(*s, *t)))
        .filter(|t| names.contains(&t.name))
        .collect()
}

/// The committed file `path` equals `generated` (or is rewritten with CASSMODEL_BLESS=1).
fn fixture(path: &str, generated: &str) {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if std::env::var_os("CASSMODEL_BLESS").is_some() {
        std::fs::write(&full, generated).expect("write the fixture");
        return;
    }
    let committed = std::fs::read_to_string(&full).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{path} is not what `cassmodel pull` writes now (from line {}: `{}` vs `{}`); \
             rewrite it with `CASSMODEL_BLESS=1 cargo test --test pull` and review the diff",
            line + 1,
            committed.lines().nth(line).unwrap_or(""),
            generated.lines().nth(line).unwrap_or("")
        );
    }
}
