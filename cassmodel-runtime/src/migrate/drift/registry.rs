//! The entities linked into a binary whose tables the drift check compares: each entity
//! with an identity table registers its [`EntityChecker`], which the migration command
//! (`check-entity`) runs without knowing its type.

use std::marker::PhantomData;
use std::pin::Pin;

use super::check::{check_entity, short_name};
use super::options::DriftOptions;
use super::report::DriftReport;
use crate::exec::entity::EntityWithIdentity;
use crate::migrate::error::MigrationError;
use crate::session::db::Db;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, MigrationError>> + Send + 'a>>;

/// The drift check of one entity, without its type.
pub trait EntityChecker: Send + Sync {
    /// The entity's Rust name (`Video`).
    fn name(&self) -> &'static str;

    /// [`check_entity`] of this entity.
    fn check<'a>(&'a self, db: &'a Db, options: &'a DriftOptions) -> Boxed<'a, DriftReport>;
}

struct TypedChecker<E>(PhantomData<fn() -> E>);

impl<E: EntityWithIdentity> EntityChecker for TypedChecker<E> {
    fn name(&self) -> &'static str {
        short_name::<E>()
    }

    fn check<'a>(&'a self, db: &'a Db, options: &'a DriftOptions) -> Boxed<'a, DriftReport> {
        Box::pin(check_entity::<E>(db, options))
    }
}

/// The checker of `E`.
pub fn checker<E: EntityWithIdentity>() -> &'static dyn EntityChecker {
    &TypedChecker::<E>(PhantomData)
}

/// Registration of one entity with an identity table, emitted by the derive. Not a public
/// API.
#[doc(hidden)]
pub struct EntityEntry(pub fn() -> &'static dyn EntityChecker);

inventory::collect!(EntityEntry);

/// The checker of every entity with an identity table linked into this binary, by name.
pub fn registered_entities() -> Vec<&'static dyn EntityChecker> {
    let mut out: Vec<&'static dyn EntityChecker> =
        inventory::iter::<EntityEntry>().map(|e| (e.0)()).collect();
    out.sort_by_key(|c| c.name());
    out
}
