// Declarations of functions and aggregates that miss what they need: a function without its
// result type and body, in a language Cassandra does not run; an aggregate without a state
// function; an attribute on a parameter.
use cassmodel::{CassAggregate, CassFunction};

#[derive(CassFunction)]
struct NoResult {
    x: i32,
}

#[derive(CassFunction)]
#[cass(returns = i32, body = "return x;", language = "python")]
struct Python {
    #[cass(name = "y")]
    x: i32,
}

#[derive(CassAggregate)]
#[cass(initial = "0")]
struct NoState {
    x: i32,
}

fn main() {}
