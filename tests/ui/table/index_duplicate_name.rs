// Index names are unique in a keyspace, so two in one struct cannot share one.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Customer {
    #[partition_key]
    id: Uuid,
    #[cass(index(name = "customer_lookup"))]
    email: String,
    #[cass(index(name = "customer_lookup"))]
    phone: String,
}

fn main() {}
