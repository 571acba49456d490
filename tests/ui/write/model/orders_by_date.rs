// A table of the entity `Order` that the cases of its identity table `include!`: each declares
// `Order` (its tables and identity) and `OrderById` as its mistake needs.
#[derive(CassTable)]
#[cass(entity = Order)]
struct OrdersByDate {
    #[partition_key]
    delivery_date: i32,
    #[clustering]
    order_id: i32,
    status: String,
}
