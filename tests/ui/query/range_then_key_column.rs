// A range on `date`, then `room_number = ?`: the error names both columns.
use cassmodel::{CassTable, Db};
use chrono::NaiveDate;

#[derive(CassTable)]
#[cass(table = "available_rooms")]
struct AvailableRoom {
    #[partition_key]
    hotel_id: String,
    #[clustering]
    date: NaiveDate,
    #[clustering]
    room_number: i16,
    is_available: bool,
}

async fn f(db: &Db, from: NaiveDate) {
    let _ = AvailableRoom::select()
        .hotel_id("AZ123")
        .date_ge(&from)
        .room_number(&101)
        .fetch_all(db)
        .await;
}

fn main() {}
