//! The CQL vocabulary shared by `cassmodel-derive` and `cassmodel-runtime`.
//!
//! The derive macro uses it at compile time (to check that a `cql_type = "..."` override
//! parses and may be a key column, and that names are legal); the runtime uses the same
//! code to render DDL and to read `system_schema` back. One parser, one list of
//! reserved words, one set of key rules, one set of index rules (copied from the server).
//!
//! ```
//! use cassmodel_schema::CqlType;
//! let t: CqlType = "map<uuid, frozen<list<int>>>".parse().unwrap();
//! assert_eq!(t.to_string(), "map<uuid, frozen<list<int>>>");
//! assert!(t.key_violation().is_some()); // a non-frozen map cannot be a key column
//! ```

mod functions;
mod growth;
mod ident;
mod index;
mod mask;
mod types;

pub use functions::{SCALAR_FUNCTIONS, added_in_cassandra_5};
pub use growth::{PERIODS, Period, Span, fixed_size};
pub use ident::{
    MAX_SCHEMA_NAME_LEN, NameError, is_reserved_word, quote_ident, validate_column_name,
    validate_schema_name,
};
pub use index::{
    IndexOp, IndexTarget, IndexViolation, Similarity, default_index_name, field_index_name,
    validate_index_name,
};
pub use mask::{MASK_FUNCTIONS, Mask, MaskArg, MaskFunction};
pub use types::{CqlType, KeyViolation, NativeType, ParseError};

/// The most fields of one tuple of a row's cells, as the derive hands them to the runtime
/// (`Table::__cells`): the runtime writes tuples of up to this many, and the derive nests a
/// longer row's fields in tuples of at most this many.
pub const CELLS_ARITY: usize = 12;
