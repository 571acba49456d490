//! Values layer: how Rust values and rows map to CQL. The type mapping ([`types`]: which
//! CQL type a Rust type is stored as), values behind `&dyn` ([`erased`]), what typed methods
//! accept ([`bind`]), buckets' values ([`bucket`]), and the codecs the derives delegate to:
//! rows of tables ([`table`], their cells as an insert writes them: [`cells`]), projections ([`projection`]), user-defined types ([`udt`]),
//! vectors ([`vector`]), what a vector index takes ([`vector_index`]), the rules of
//! materialized views ([`view`]), of entities' tables and identity tables ([`entity_rules`]) and of their
//! tables with a row per element of a collection ([`each`]), with their
//! messages built at compile time ([`const_message`]); for messages, driver
//! values as CQL literals ([`literal`]), and the driver's types and reasons in CQL's words
//! ([`reason`]).

pub(crate) mod bind;
pub(crate) mod bucket;
pub(crate) mod cells;
pub(crate) mod const_message;
pub(crate) mod each;
pub(crate) mod entity_rules;
pub(crate) mod erased;
pub(crate) mod function;
pub(crate) mod literal;
pub(crate) mod projection;
pub(crate) mod reason;
pub(crate) mod table;
pub(crate) mod types;
pub(crate) mod udt;
pub(crate) mod vector;
pub(crate) mod vector_index;
pub(crate) mod view;
