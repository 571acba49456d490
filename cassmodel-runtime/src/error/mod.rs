//! Errors: [`Error`] and its [`ErrorKind`], the row codec's [`RowError`], a request's
//! attempts and the words of each failure, cut by concern.

pub(crate) mod attempt;
pub(crate) mod errors;
mod failure;
pub(crate) mod hint;
pub(crate) mod kind;
pub(crate) mod row;
#[cfg(test)]
mod tests;
