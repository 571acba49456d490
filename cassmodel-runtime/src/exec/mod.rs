//! Execution layer: running statements on a [`Db`](crate::Db). The statement of a query
//! ([`statement`]: from the cache, or prepared on first use), reads ([`read`]), writes and
//! lightweight transactions ([`write`]), inserts of whole rows ([`insert`]), batches
//! ([`batch`]), the saves of entities ([`entity`]), what they return ([`result`]), and the dual writes of a key change
//! ([`mirror`]).

pub(crate) mod batch;
pub(crate) mod entity;
pub(crate) mod insert;
pub(crate) mod mirror;
pub(crate) mod read;
pub(crate) mod result;
pub(crate) mod statement;
pub(crate) mod write;
