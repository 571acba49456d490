//! The partition-size analysis (`cassmodel::sizing`, `migrate analyze`): the modelling
//! guide's worked example, the seed model as written, the fixes it names, and the CLI's exit
//! code. Offline: no node needed (the live check is in `tests/sizing_live.rs`).

#![allow(dead_code)]

#[path = "../examples/models/mod.rs"]
mod models;

use std::collections::BTreeMap;

use cassmodel::migrate::Models;
use cassmodel::sizing;
use cassmodel::{CassTable, Table, schema::Growth, schema::Period};
use cassmodel_cli as cli;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The order table as the guide counts it: 12 columns, 2 of them in the primary key.
#[derive(CassTable)]
#[cass(
    table = "orders_by_customer",
    expect(rows = 1_000_000, per = "month", horizon = "20 years")
)]
struct GuideOrders {
    #[partition_key]
    customer_id: Uuid,
    #[clustering]
    order_id: Uuid,
    submission_time: DateTime<Utc>,
    #[cass(avg_bytes = 112)]
    products: BTreeMap<Uuid, i32>,
    #[cass(avg_bytes = 9)]
    status: String,
    #[cass(avg_bytes = 8)]
    delivery_address_key: String,
    #[cass(avg_bytes = 3)]
    currency: String,
    item_subtotal: f64,
    postage_packing_fee: f64,
    vat: f64,
    promotional_discount: Option<f64>,
    #[cass(avg_bytes = 40)]
    remarks: Option<String>,
}

fn years(days: Option<f64>) -> f64 {
    days.expect("a rate gives the time to each threshold") / 365.25
}

#[test]
fn the_guides_worked_example() {
    let size = sizing::analyze(GuideOrders::schema(), Some("order_delivery"));
    assert_eq!(size.table, "order_delivery.orders_by_customer");
    let e = size
        .estimate
        .as_ref()
        .expect("the table declares its growth");
    assert_eq!((e.columns, e.key_columns, e.static_columns), (12, 2, 0));
    assert_eq!(e.cells_per_row, 10);
    // 2 billion cells / 10 per row = 200 million orders = 200 months.
    let to_limit = years(e.days_to_cell_limit);
    assert!((to_limit - 200.0 / 12.0).abs() < 1e-9, "{to_limit}");
    assert_eq!(to_limit.round(), 17.0);
    // 100,000 values = 10,000 orders: 0.01 month, about 7.3 hours.
    let hours = e.days_to_values_guidance.expect("a rate") * 24.0;
    assert!(
        (hours - 0.01 * 365.25 / 12.0 * 24.0).abs() < 1e-9,
        "{hours}"
    );
    // 20 years of 1,000,000 a month: 240 million rows, 2.4 billion values: over the limit.
    assert!((e.rows - 240e6).abs() < 1e-3);
    assert!(
        e.values > 2_000_000_000.0,
        "over the server's limit of cells"
    );
    assert!(size.exceeds_guidance());
    let text = size.to_string();
    assert!(
        text.contains("12 columns - 2 primary-key - 0 static = 10 cells per row"),
        "{text}"
    );
    assert!(text.contains("2 billion cells: after 16.7 years"), "{text}");
    assert!(text.contains("over Cassandra's hard limit"), "{text}");
    // A day of this customer's orders (32,854) is over 10,000 rows, so no time bucket alone
    // is enough.
    assert!(text.contains("even one day of rows (32,854)"), "{text}");
    assert!(
        text.contains("splits each day's rows into 4 parts"),
        "{text}"
    );
}

#[test]
fn the_seed_model_as_written() {
    let size = sizing::analyze(models::supermarket::OrdersByCustomer::schema(), None);
    let e = size.estimate.as_ref().expect("declared");
    // The table's primary key has 3 columns (customer_id, order_id, submission_time).
    assert_eq!((e.columns, e.key_columns, e.cells_per_row), (12, 3, 9));
    assert!(e.unsized_columns.is_empty(), "{:?}", e.unsized_columns);
    // Row bytes: clustering 16 + 8, regular 112 + 9 + 8 + 3 + 4 x 8 + 40, 8 per cell.
    assert_eq!(e.row_bytes, 16 + 8 + 112 + 9 + 8 + 3 + 32 + 40 + 8 * 9);
    assert_eq!(e.partition_bytes, 16);
    assert!((years(e.days_to_cell_limit) - 2e9 / 9.0 / 1e6 / 12.0).abs() < 1e-9);
    assert!(size.exceeds_guidance());
}

/// A table that stays small is not warned about; one without expectations is "not declared".
#[test]
fn within_guidance_and_undeclared() {
    let addresses = sizing::analyze(models::supermarket::CustomerAddresses::schema(), None);
    assert!(addresses.estimate.is_none());
    assert!(!addresses.exceeds_guidance());
    assert!(
        addresses.to_string().contains("not declared"),
        "{addresses}"
    );

    #[derive(CassTable)]
    #[cass(table = "small", expect(rows = 500))]
    struct Small {
        #[partition_key]
        id: Uuid,
        #[clustering]
        n: i32,
        #[cass(static)]
        owner: i64,
        value: f64,
    }
    let small = sizing::analyze(Small::schema(), Some("ks"));
    let e = small.estimate.as_ref().expect("declared");
    assert_eq!((e.cells_per_row, e.static_columns), (1, 1));
    // Nv = 500 x 1 + 1; St = 16 + (8 + 8) + 500 x (4 + 8 + 8).
    assert_eq!(e.values, 501.0);
    assert_eq!(e.bytes, (16 + 16 + 500 * 20) as f64);
    assert!(e.warnings.is_empty());
    assert!(!small.exceeds_guidance());
}

/// The fix names a bucket of the first clustering column when that is a timestamp, with the
/// widest period that stays under the guidance.
#[test]
fn the_fix_names_a_bucket_width() {
    #[derive(CassTable)]
    #[cass(
        table = "readings",
        expect(rows = 50_000, per = "month", horizon = "2 years")
    )]
    struct Readings {
        #[partition_key]
        sensor: Uuid,
        #[clustering(desc)]
        at: DateTime<Utc>,
        value: f64,
        #[cass(avg_bytes = 12)]
        unit: String,
    }
    let size = sizing::analyze(Readings::schema(), Some("ks"));
    let e = size.estimate.as_ref().expect("declared");
    assert_eq!(e.cells_per_row, 2);
    assert!((e.rows - 1.2e6).abs() < 1e-3);
    // At most 50,000 rows per partition: a month is 50,000 (not over), so a month bucket.
    assert!(size.exceeds_guidance());
    let text = size.to_string();
    assert!(
        text.contains("`#[cass(bucket(month))]` on `at` adds its month"),
        "{text}"
    );
    assert!(text.contains("about 50,000 rows per partition"), "{text}");
    assert!(matches!(
        e.growth,
        Growth::Rate {
            per: Period::Month,
            ..
        }
    ));
}

/// A time bucket closes a partition at the end of its period: the month-bucketed orders hold
/// one month of rows, whatever the horizon, and never reach the thresholds.
#[test]
fn a_bucket_bounds_the_partition() {
    let size = sizing::analyze(models::supermarket::OrdersByCustomerMonth::schema(), None);
    let e = size.estimate.as_ref().expect("declared");
    assert!((e.rows - 1000.0).abs() < 1e-6, "{}", e.rows);
    assert_eq!(e.cells_per_row, 3);
    assert_eq!(e.days_to_values_guidance, None);
    assert_eq!(e.days_to_cell_limit, None);
    assert!(!size.exceeds_guidance(), "{size}");
    let text = size.to_string();
    assert!(
        text.contains("one partition per month (bucket): 1,000 rows"),
        "{text}"
    );
    assert!(text.contains("100,000 values: never"), "{text}");
}

#[tokio::test]
async fn analyze_command_exit_code() {
    let run = |models: Models| async move {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let exit = cli::run(["migrate", "analyze"], models, &mut out, &mut err).await;
        (exit, String::from_utf8_lossy(&out).into_owned())
    };
    let (exit, out) = run(Models::new().table::<GuideOrders>()).await;
    assert_eq!(exit, cli::Exit::OverGuidance, "{out}");
    assert!(out.contains("10 cells per row"), "{out}");
    assert!(
        out.contains("1 table(s): 1 over the guidance, 0 not declared"),
        "{out}"
    );
    let (exit, out) = run(Models::new().table::<models::supermarket::CustomerAddresses>()).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}");
    assert!(out.contains("1 not declared"), "{out}");
}
