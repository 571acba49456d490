use cassmodel::CassTable;
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

include!("model/orders.rs");

fn main() {
    let c = Uuid::nil();
    let month = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
    // Restricting the bucket by hand.
    let _ = Orders::select().customer_id(&c).submission_time_month(&month);
    // Setting it by hand.
    let _ = Orders::update().set_submission_time_month(&month);
}
