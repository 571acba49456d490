//! Key changes, online: a new table whose rows come from the old one (`#[cass(from = ..)]` on
//! the new struct), copied while the application keeps writing.
//!
//! The steps, which `migrate plan` prints for each such table:
//!
//! 1. create the new table, and the record of the copies if the cluster has none (`migrate
//!    apply`);
//! 2. release the application writing every change to both tables;
//! 3. copy the old rows: [`backfill`] (`migrate backfill`), resumable, shared by any number
//!    of processes through a record in the cluster (keyspace `cassmodel_migrations`); each
//!    copied cell keeps its source's write time and TTL, so a newer write or delete wins;
//! 4. [`verify`] (`migrate verify`): rows missing, different and extra, with their keys;
//! 5. release the application reading the new table, then 6. writing it alone;
//! 7. drop the old table: [`drop_source`] (`migrate drop-source`), only after a clean verify.
//!
//! [`status`] (`migrate status`) tells where each copy stands, who holds its ranges and
//! whether they renew their leases; [`forget_copy`] and [`forget_dropped`] (`migrate
//! forget-copy`) remove records no longer wanted.
//!
//! A counter table is copied offline (`#[cass(from = .., offline)]`), in six steps: 1. create
//! the new table; 2. stop every write to the old one; 3. [`backfill`], which adds each old
//! row's counts to the new table (empty when the copy starts) and repairs a range claimed
//! before from a read at consistency ALL; 4. [`verify`]; 5. release the application reading and
//! writing the new table; 6. [`drop_source`].

pub(crate) mod backfill;
mod convert;
mod counters;
pub(crate) mod keyspace;
pub(crate) mod lease;
mod pace;
pub(crate) mod problem;
pub(crate) mod range_count;
pub(crate) mod record;
mod registry;
mod setup;
mod source;
mod status;
pub(crate) mod verify;
mod write;

pub use backfill::{CopyFailure, CopyOptions, CopyProgress, CopyReport, ProgressFn, backfill};
pub use convert::{Converted, CopyFrom, convert_with};
pub use keyspace::RECORD_KEYSPACE;
pub use lease::{HeldRanges, MISSED_HEARTBEATS};
pub use registry::{Copier, CopyEntry, copier, registered_copiers};
pub use status::{CopyStatus, forget_copy, forget_dropped, status, status_in};
pub use verify::{VerifyOptions, VerifyReport, verify};

use crate::migrate::error::MigrationError;
use crate::schema::ddl::qualified;
use crate::session::db::Db;

/// Drops the source table of the copy into `target` (`keyspace.table`), once the copy is
/// finished and its last verify was clean; refuses otherwise, saying what is missing. The
/// one command that drops a table: nothing else in cassmodel does.
pub async fn drop_source(db: &Db, target: &str) -> Result<String, MigrationError> {
    let keyspace = target.split_once('.').map_or(target, |(ks, _)| ks);
    let copies = status_in(db, keyspace).await?;
    let Some(copy) = copies.iter().find(|c| c.target == target) else {
        return Err(MigrationError::CopyRefused(format!(
            "no copy into {target} is recorded: nothing to drop"
        )));
    };
    if !copy.finished {
        return Err(MigrationError::CopyRefused(format!(
            "the copy into {target} is not finished ({copy}): run `backfill` to its end first"
        )));
    }
    if copy.verified_clean != Some(true) {
        return Err(MigrationError::CopyRefused(format!(
            "the copy into {target} has no clean verify ({copy}): run `verify` first"
        )));
    }
    let Some((ks, table)) = copy.source.split_once('.') else {
        return Err(MigrationError::CopyRefused(format!(
            "bad source `{}`",
            copy.source
        )));
    };
    let cql = format!("DROP TABLE IF EXISTS {}", qualified(ks, table));
    db.execute_ddl(&cql).await?;
    Ok(cql)
}
