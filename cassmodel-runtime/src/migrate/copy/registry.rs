//! The copies linked into a binary: each table with a source registers its [`Copier`], which
//! the migration command (`backfill`, `verify`) runs without knowing its type.

use std::marker::PhantomData;
use std::pin::Pin;

use super::backfill::{CopyOptions, CopyReport, backfill};
use super::convert::CopyFrom;
use super::verify::{VerifyOptions, VerifyReport, verify};
use crate::migrate::error::MigrationError;
use crate::schema::model::TableSchema;
use crate::session::db::Db;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, MigrationError>> + Send + 'a>>;

/// The copy of one table, without its type: what the migration command runs for each table
/// with a source.
pub trait Copier: Send + Sync {
    /// The table copied into.
    fn target(&self) -> &'static TableSchema;

    /// [`backfill`] of this table.
    fn backfill<'a>(&'a self, db: &'a Db, options: &'a CopyOptions) -> Boxed<'a, CopyReport>;

    /// [`verify`] of this table.
    fn verify<'a>(&'a self, db: &'a Db, options: &'a VerifyOptions) -> Boxed<'a, VerifyReport>;
}

struct TypedCopier<T>(PhantomData<fn() -> T>);

impl<T: CopyFrom> Copier for TypedCopier<T> {
    fn target(&self) -> &'static TableSchema {
        T::schema()
    }

    fn backfill<'a>(&'a self, db: &'a Db, options: &'a CopyOptions) -> Boxed<'a, CopyReport> {
        Box::pin(backfill::<T>(db, options))
    }

    fn verify<'a>(&'a self, db: &'a Db, options: &'a VerifyOptions) -> Boxed<'a, VerifyReport> {
        Box::pin(verify::<T>(db, options))
    }
}

/// The copier of `T`.
pub fn copier<T: CopyFrom>() -> &'static dyn Copier {
    &TypedCopier::<T>(PhantomData)
}

/// Registration of one table with a source, emitted by the derive. Not a public API.
#[doc(hidden)]
pub struct CopyEntry(pub fn() -> &'static dyn Copier);

inventory::collect!(CopyEntry);

/// The copier of every table with a source linked into this binary (`#[cass(from = ..)]`),
/// by keyspace and table name.
pub fn registered_copiers() -> Vec<&'static dyn Copier> {
    let mut out: Vec<&'static dyn Copier> =
        inventory::iter::<CopyEntry>().map(|e| (e.0)()).collect();
    out.sort_by(|a, b| {
        let (a, b) = (a.target(), b.target());
        (a.keyspace, a.name).cmp(&(b.keyspace, b.name))
    });
    out
}
