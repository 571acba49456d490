// `#[derive(CassUdt)]` works on structs only, not enums.
use cassmodel::CassUdt;

#[derive(CassUdt)]
enum Currency {
    Eur,
    Usd,
}

fn main() {}
