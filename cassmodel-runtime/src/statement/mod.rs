//! Statements layer: what a query is made of, whatever runs it. Its shape ([`spec`]: the
//! cache key of its prepared statement), its options ([`options`]), its bound values in bind
//! order ([`values`]), the query under construction that keeps shape and values in step
//! ([`state`]), the type-level states of generated builders ([`typestate`]) and the CQL text
//! ([`cql`]).

pub(crate) mod cql;
pub(crate) mod options;
pub(crate) mod spec;
pub(crate) mod state;
pub(crate) mod typestate;
pub(crate) mod values;
