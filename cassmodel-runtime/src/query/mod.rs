//! Feature layer, the queries: the generic core every generated builder wraps ([`builder`])
//! and reads over a range of buckets ([`bucket`]).

pub(crate) mod bucket;
pub(crate) mod builder;
