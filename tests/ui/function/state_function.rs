// An aggregate whose state function does not take the state and the aggregate's argument,
// and whose final function does not take the state.
use cassmodel::{CassAggregate, CassFunction};

#[derive(CassFunction)]
#[cass(returns = i64, body = "return x;")]
struct NotAState {
    x: i64,
}

#[derive(CassFunction)]
#[cass(returns = i64, body = "return state + x;")]
struct State {
    state: i64,
    x: i32,
}

#[derive(CassFunction)]
#[cass(returns = f64, body = "return 1.0;")]
struct FinalOfText {
    state: String,
}

#[derive(CassAggregate)]
#[cass(state_function = NotAState)]
struct Wrong {
    x: i32,
}

#[derive(CassAggregate)]
#[cass(state_function = State, final_function = FinalOfText)]
struct WrongFinal {
    x: i32,
}

fn main() {}
