// Calls of functions of the models whose types do not fit: an argument of another type, a
// result in a field of another type, an aggregate beside a column, a name in lower case that
// no struct declares.
use cassmodel::{CassAggregate, CassFunction, CassProjection, CassTable};

#[derive(CassTable)]
#[cass(table = "ratings")]
struct Rating {
    #[partition_key]
    product: i32,
    #[clustering]
    user: i32,
    stars: i32,
    title: String,
    total: i64,
}

#[derive(CassFunction)]
#[cass(returns = f64, body = "return (double) total / count;")]
struct Ratio {
    count: i32,
    total: i64,
}

#[derive(CassFunction)]
#[cass(returns = i64, called_on_null_input, body = "return state + stars;")]
struct Sum {
    state: i64,
    stars: i32,
}

#[derive(CassAggregate)]
#[cass(state_function = Sum, initial = "0")]
struct Total {
    stars: i32,
}

#[derive(CassProjection)]
#[cass(table = Rating)]
struct WrongArgument {
    #[cass(select = Ratio(stars, title))]
    ratio: f64,
}

#[derive(CassProjection)]
#[cass(table = Rating)]
struct WrongResult {
    #[cass(select = Ratio(stars, total))]
    ratio: String,
}

#[derive(CassProjection)]
#[cass(table = Rating)]
struct AggregateBesideColumn {
    user: i32,
    #[cass(select = Total(stars))]
    total: i64,
}

#[derive(CassProjection)]
#[cass(table = Rating)]
struct NotDeclared {
    #[cass(select = avg_rating(stars, total))]
    mean: f64,
}

fn main() {}
