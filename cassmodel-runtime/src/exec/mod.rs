//! Execution layer: running statements on a [`Db`](crate::Db). The statement of a query
//! ([`statement`]: from the cache, or prepared on first use), reads ([`read`]), writes and
//! lightweight transactions ([`write`]), inserts of whole rows ([`insert`]), batches
//! ([`batch`]), the saves of entities ([`entity`]), their changes that move rows
//! ([`change`], with their kept batches: [`change_batch`]) and their partial updates ([`entity_update`]), what they return ([`result`]), the dual
//! writes of a key change ([`mirror`]), and the one door through which all of them, and every
//! other feature, send requests to the driver ([`send`]).

pub(crate) mod batch;
pub(crate) mod change;
pub(crate) mod change_batch;
pub(crate) mod entity;
pub(crate) mod entity_update;
pub(crate) mod insert;
pub(crate) mod mirror;
pub(crate) mod read;
pub(crate) mod result;
pub(crate) mod send;
pub(crate) mod statement;
pub(crate) mod write;
