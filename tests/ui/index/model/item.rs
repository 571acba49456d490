// A table several cases of this folder query, each `include!`ing it: they differ only in their calls.
#[derive(CassTable)]
struct Item {
    #[partition_key]
    shop: String,
    #[partition_key]
    shelf: i32,
    #[clustering(asc)]
    sku: i32,
    price: i32,
    #[cass(index)]
    stock: i32,
    #[cass(index)]
    email: String,
    #[cass(index)]
    attrs: HashMap<String, String>,
}
