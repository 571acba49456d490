// The identity table holds every key field of the entity's tables: a change reads the stored
// entity from it to find each table's row. `OrderById` lacks `delivery_date`, a key field of
// `OrdersByDate`.
use cassmodel::{CassEntity, CassTable};

#[derive(CassEntity)]
#[cass(identity = OrderById, tables(OrderById, OrdersByDate))]
struct Order {
    order_id: i32,
    delivery_date: i32,
    status: String,
}

#[derive(CassTable)]
#[cass(entity = Order)]
struct OrderById {
    #[partition_key]
    order_id: i32,
    status: String,
}

include!("model/orders_by_date.rs");

fn main() {}
