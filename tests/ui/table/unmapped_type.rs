use cassmodel::CassTable;

struct Money(i64);

#[derive(CassTable)]
struct Account {
    #[partition_key]
    id: i32,
    balance: Money,
}

fn main() {}
