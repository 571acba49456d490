//! [`CqlFunction`]: a user-defined function or aggregate of the models, with the Rust types
//! of its arguments and result, which a projection's `select` calls by its type's name; the
//! compile-time rules of such a call and of an aggregate's functions.

use crate::schema::function::{FunctionSchema, UserFunction};

/// A user-defined function (`#[derive(CassFunction)]`) or aggregate
/// (`#[derive(CassAggregate)]`), called in a projection by its type's name:
/// `#[cass(select = RatingRatio(count, total))]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a user-defined function or aggregate of the models",
    label = "not declared with `#[derive(CassFunction)]` or `#[derive(CassAggregate)]`",
    note = "a projection calls a native function by its CQL name (`max(score)`) and a function of the models by the type that declares it"
)]
pub trait CqlFunction: 'static {
    /// The Rust types of its arguments, as a tuple.
    type Args;
    /// The Rust type of its result.
    type Output;
    /// [`Rows`] for a function (one result per row), [`Aggregated`] for an aggregate (one
    /// result of all the rows a read selects).
    type Kind;
    /// Its CQL name (unquoted).
    const NAME: &'static str;
    /// Its description, for migrations.
    fn declaration() -> UserFunction;
}

/// A user-defined function (not an aggregate): the state or final function of an aggregate.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a user-defined function of the models",
    label = "an aggregate's state and final functions are declared with `#[derive(CassFunction)]`"
)]
pub trait ScalarFunction: CqlFunction<Kind = Rows> {
    /// Its description.
    fn schema() -> &'static FunctionSchema;
}

/// The kind of a function that gives one result per row.
pub enum Rows {}

/// The kind of an aggregate: one result of all the rows a read selects.
pub enum Aggregated {}

/// Whether a projection reads one result per row ([`Rows`]) or one of all rows
/// ([`Aggregated`]); implemented by every table and projection.
#[doc(hidden)]
pub trait RowKind {
    /// [`Rows`] or [`Aggregated`].
    type Kind;
}

/// A field that can hold what a function returns: its result type, or an `Option` of it (a
/// function may return null).
#[diagnostic::on_unimplemented(
    message = "a field of type `{Self}` cannot hold what the function returns, `{O}`",
    label = "the function returns `{O}`",
    note = "give the field the type `{O}`, or `Option<{O}>` when the function can return null"
)]
pub trait HoldsResult<O> {}

impl<O> HoldsResult<O> for O {}
impl<O> HoldsResult<O> for Option<O> {}

/// The check of a call's result: the field's type `R` holds what `F` returns.
pub fn returns<F: CqlFunction, R: HoldsResult<F::Output>>() {}

/// The fields a call passes (`R`, a tuple of references) as the arguments of `F`.
#[diagnostic::on_unimplemented(
    message = "`{F}` cannot take the fields `{Self}` as its arguments",
    label = "the fields passed to `{F}`",
    note = "pass fields of the table of the types of `{F}`'s fields, in the same order"
)]
pub trait ArgumentsOf<F> {}

#[diagnostic::do_not_recommend]
impl<F: CqlFunction, R: FieldRefs<Types = F::Args>> ArgumentsOf<F> for R {}

/// The check of a call's arguments: the table's fields, as a tuple of references, are the
/// function's arguments.
pub fn arguments<F: CqlFunction, R: ArgumentsOf<F>>(_: R) {}

/// A function that is not an aggregate, called beside a projection's columns.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is an aggregate, and this projection reads values of each row beside it",
    label = "an aggregate makes one row of all the rows a read selects",
    note = "read the aggregate in a projection of aggregates only (other aggregates, `count`, `max`, ..), and the columns in another"
)]
pub trait PerRowFunction {}

#[diagnostic::do_not_recommend]
impl<F: CqlFunction<Kind = Rows>> PerRowFunction for F {}

/// An aggregate, called beside a projection's other aggregates.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a function of one row, and this projection reads aggregates",
    label = "beside an aggregate, it would hold only the first row's value",
    note = "read it in another projection, or call an aggregate"
)]
pub trait AggregateFunction {}

#[diagnostic::do_not_recommend]
impl<F: CqlFunction<Kind = Aggregated>> AggregateFunction for F {}

/// The check that `F` gives one result per row.
pub fn per_row<F: PerRowFunction>() {}

/// The check that `F` is an aggregate.
pub fn aggregate<F: AggregateFunction>() {}

/// A function that reads rows as `A` does: both aggregates, or neither.
#[diagnostic::on_unimplemented(
    message = "`{Self}` and `{A}` read rows differently: one is an aggregate and the other not",
    label = "in a projection whose first call is `{A}`",
    note = "read aggregates and functions of one row in different projections"
)]
pub trait SameKind<A> {}

#[diagnostic::do_not_recommend]
impl<A: CqlFunction, B: CqlFunction<Kind = A::Kind>> SameKind<A> for B {}

/// The check that `B` reads rows as `A` does.
pub fn same_kind<A, B: SameKind<A>>() {}

/// The state function of an aggregate whose arguments are `Args`: it takes the state (its
/// own result type) and then those arguments.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the state function of an aggregate of `{Args}`",
    label = "its parameters must be the state, then the aggregate's fields, and it must return the state",
    note = "declare it with `#[derive(CassFunction)]`: its first field the state (of the type it returns), then one field per field of the aggregate, of the same types"
)]
pub trait StateFunctionOf<Args> {
    /// The state's type.
    type State;
}

/// The final function of an aggregate whose state is `S`: it takes the state alone.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the final function of an aggregate whose state is `{S}`",
    label = "a final function takes the state alone",
    note = "declare it with `#[derive(CassFunction)]` and one field, of the state's type `{S}`"
)]
pub trait FinalFunctionOf<S> {}

#[diagnostic::do_not_recommend]
impl<F: ScalarFunction<Args = (S,)>, S> FinalFunctionOf<S> for F {}

macro_rules! state_functions {
    ($($a:ident),*) => {
        #[diagnostic::do_not_recommend]
        impl<F, S, $($a),*> StateFunctionOf<($($a,)*)> for F
        where
            F: ScalarFunction<Args = (S, $($a),*), Output = S>,
        {
            type State = S;
        }
    };
}

state_functions!(A1);
state_functions!(A1, A2);
state_functions!(A1, A2, A3);
state_functions!(A1, A2, A3, A4);
state_functions!(A1, A2, A3, A4, A5);
state_functions!(A1, A2, A3, A4, A5, A6);

/// The checks of an aggregate's functions: `S` its state function for arguments `A`, `F` its
/// final function.
pub fn state_function<S: StateFunctionOf<A>, A>() {}

/// See [`state_function`].
pub fn final_function<F: FinalFunctionOf<S>, S>() {}

/// A tuple of references to a table's fields, `(&row.count, &row.total)`: the arguments of a
/// call, checked by [`arguments`].
#[doc(hidden)]
pub trait FieldRefs {
    /// The fields' types, as a tuple.
    type Types;
}

macro_rules! field_refs {
    ($($a:ident),*) => {
        impl<'r, $($a),*> FieldRefs for ($(&'r $a,)*) {
            type Types = ($($a,)*);
        }
    };
}

field_refs!(A1);
field_refs!(A1, A2);
field_refs!(A1, A2, A3);
field_refs!(A1, A2, A3, A4);
field_refs!(A1, A2, A3, A4, A5);
field_refs!(A1, A2, A3, A4, A5, A6);
