// Masks Cassandra would refuse: a function that does not exist, wrong arguments, a value
// that is not a literal, a function of another type than the column's, and mask_null on a
// field that cannot hold the null it shows.
use cassmodel::CassTable;

#[derive(CassTable)]
#[cass(table = "customers")]
struct Customer {
    #[partition_key]
    id: i32,
    #[cass(masked = mask_middle(1, 1))]
    name: String,
    #[cass(masked = mask_inner(1))]
    email: String,
    #[cass(masked = mask_inner(1, 2, "##"))]
    city: String,
    #[cass(masked = mask_default(0))]
    age: i32,
    #[cass(masked = mask_replace(some_value))]
    street: String,
    #[cass(masked = mask_null())]
    phone: String,
    #[cass(masked = "mask_hash()")]
    note: String,
    // A function of another type than the column's: Cassandra refuses it.
    #[cass(masked = mask_hash())]
    digest: String,
    #[cass(masked = mask_inner(1, 1))]
    count: i32,
}

fn main() {}
