// `#[derive(CassTable)]` works on structs only, not enums.
use cassmodel::CassTable;

#[derive(CassTable)]
enum Status {
    Active,
    Closed,
}

fn main() {}
