//! The link-time registry of every `#[derive(CassTable)]` and `#[derive(CassUdt)]` type in a
//! binary: the derive submits one entry per type ([`inventory`]), and migrations
//! ([`Models::registered`](crate::migrate::Models::registered)) and the session's table of
//! INSERT statements read it, so a program needs no hand-written list of its models.

use super::function::UserFunction;
use super::model::{TableSchema, UdtSchema};

/// Registration of one `#[derive(CassTable)]` type, emitted by the derive. Not a public API.
#[doc(hidden)]
pub struct TableEntry(pub fn() -> &'static TableSchema);

/// Registration of one `#[derive(CassUdt)]` type, emitted by the derive. Not a public API.
#[doc(hidden)]
pub struct UdtEntry(pub fn() -> &'static UdtSchema);

/// Registration of one `#[derive(CassFunction)]` or `#[derive(CassAggregate)]` type, emitted
/// by the derive. Not a public API.
#[doc(hidden)]
pub struct FunctionEntry(pub fn() -> UserFunction);

inventory::collect!(TableEntry);
inventory::collect!(UdtEntry);
inventory::collect!(FunctionEntry);

/// Every `#[derive(CassTable)]` type linked into this binary, sorted by keyspace, table name
/// and Rust name (the registry's own order depends on the linker).
///
/// ```
/// # use cassmodel_runtime as cassmodel;
/// // In a crate with `#[derive(CassTable)] struct Post { .. }`:
/// let names: Vec<&str> = cassmodel::migrate::registered_tables().iter().map(|t| t.name).collect();
/// # let _ = names;
/// ```
#[cfg(feature = "migrate")]
pub fn registered_tables() -> Vec<&'static TableSchema> {
    let mut out: Vec<&'static TableSchema> =
        inventory::iter::<TableEntry>().map(|e| (e.0)()).collect();
    out.sort_by(|a, b| (a.keyspace, a.name, a.rust_name).cmp(&(b.keyspace, b.name, b.rust_name)));
    out.dedup_by(|a, b| std::ptr::eq(*a, *b));
    out
}

/// Every `#[derive(CassUdt)]` type linked into this binary, sorted by name and Rust name.
#[cfg(feature = "migrate")]
pub fn registered_udts() -> Vec<&'static UdtSchema> {
    let mut out: Vec<&'static UdtSchema> = inventory::iter::<UdtEntry>().map(|e| (e.0)()).collect();
    out.sort_by(|a, b| (a.name, a.rust_name).cmp(&(b.name, b.rust_name)));
    out.dedup_by(|a, b| std::ptr::eq(*a, *b));
    out
}

/// Every `#[derive(CassFunction)]` and `#[derive(CassAggregate)]` type linked into this binary,
/// sorted by name and Rust name.
#[cfg(feature = "migrate")]
pub fn registered_functions() -> Vec<UserFunction> {
    let mut out: Vec<UserFunction> = inventory::iter::<FunctionEntry>()
        .map(|e| (e.0)())
        .collect();
    out.sort_by(|a, b| (a.name(), a.rust_name()).cmp(&(b.name(), b.rust_name())));
    out.dedup();
    out
}
