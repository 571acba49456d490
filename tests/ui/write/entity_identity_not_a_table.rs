// An entity's identity table is one of the tables it is stored in.
use cassmodel::{CassEntity, CassTable};

#[derive(CassEntity)]
#[cass(tables(OrdersByDate), identity = OrderById)]
struct Order {
    order_id: i32,
    delivery_date: i32,
    status: String,
}

include!("model/orders_by_date.rs");

#[derive(CassTable)]
struct OrderById {
    #[partition_key]
    order_id: i32,
}

fn main() {}
