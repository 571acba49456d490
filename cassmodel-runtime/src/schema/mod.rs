//! Ground layer: what cassmodel knows of a table or type, independent of any connection. The
//! descriptions the derives build ([`model`]), their DDL text ([`ddl`]) and the registry of
//! every derived type in the binary ([`registry`]).

pub(crate) mod ddl;
pub(crate) mod function;
pub(crate) mod model;
pub(crate) mod registry;
