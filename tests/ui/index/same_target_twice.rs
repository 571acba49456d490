// Two indexes on one target of a column: Cassandra takes one per target (a map takes one on
// each of its keys, values and entries).
use std::collections::HashMap;

use cassmodel::CassTable;

#[derive(CassTable)]
struct Item {
    #[partition_key]
    shop: String,
    #[cass(index, index(name = "item_stock_again"))]
    stock: i32,
    #[cass(index(keys), index(values), index(keys))]
    attrs: HashMap<String, i32>,
}

fn main() {}
