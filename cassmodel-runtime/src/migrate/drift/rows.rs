//! The rows of a check: each entity's rows looked up in its other tables by the keys its
//! identity row gives, the winner of each field, and what differs (rows missing, cells
//! different); each row of another table traced to its entity's identity row (rows extra).

use std::sync::Mutex;

use futures::TryStreamExt;

use super::options::DriftOptions;
use super::read::{Cell, Flat, IdentityRow, KIND, RawCells, RawRow, Shape};
use super::reconcile::{self, Copy, Winner};
use super::repair::{Fix, Writes};
use super::report::TableDrift;
use crate::error::errors::Error;
use crate::exec::change::FromIdentity;
use crate::exec::entity::{EntityTable, EntityWithIdentity};
use crate::exec::send;
use crate::migrate::error::MigrationError;
use crate::session::db::Db;

/// A field of the entity that tables hold as a regular or static column.
pub(super) struct Field {
    /// Whether a table's key holds it (or, for a collection, one row per element).
    key: bool,
    /// The tables and columns that hold it.
    holders: Vec<(usize, usize)>,
}

/// The entity's fields held as regular or static columns, and the identity table's key
/// fields, with their holders (the tables and columns that hold each).
pub(super) fn fields<E>(tables: &[EntityTable<E>], identity: usize) -> Vec<Field> {
    let mut names: Vec<&str> = Vec::new();
    let mut out: Vec<Field> = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    for (t, table) in tables.iter().enumerate() {
        let schema = (table.schema)();
        let each = table.each.as_ref();
        if let Some(each) = each {
            keys.push(each.collection);
        }
        for (c, col) in schema.columns.iter().enumerate() {
            if col.bucket.is_some() || each.is_some_and(|e| e.column == col.field) {
                continue;
            }
            if col.kind.is_key() {
                keys.push(col.field);
                // The identity table's key is a copy too: the one that decides a field another
                // table holds as a regular column (a user's id in the by-email table).
                if t != identity {
                    continue;
                }
            }
            match names.iter().position(|n| *n == col.field) {
                Some(i) => out[i].holders.push((t, c)),
                None => {
                    names.push(col.field);
                    out.push(Field {
                        key: false,
                        holders: vec![(t, c)],
                    });
                }
            }
        }
    }
    for (name, field) in names.iter().zip(&mut out) {
        field.key = keys.contains(name);
    }
    out
}

/// One of an entity's rows: its table, its key, and the row if it is there.
struct Found {
    table: usize,
    key: Vec<Cell>,
    row: Option<RawRow>,
}

/// What the ranges of a check share: the entity's tables as read, its fields, the repair's
/// statements.
pub(super) struct Check<'a, E: 'static> {
    pub db: &'a Db,
    pub options: &'a DriftOptions,
    pub tables: &'static [EntityTable<E>],
    pub shapes: Vec<Shape>,
    pub identity: usize,
    pub fields: Vec<Field>,
    pub writes: Writes,
}

/// What one range found, per table (in the entity's order).
pub(super) type Tally = Mutex<Vec<TableDrift>>;

/// What a row of a table is found to be.
enum Finding {
    Missing(String),
    Extra(String),
    Different(String, u64),
}

impl<E: EntityWithIdentity> Check<'_, E> {
    fn note(&self, tally: &Tally, t: usize, finding: Finding, writes: bool, deletes: bool) {
        let Ok(mut found) = tally.lock() else {
            return;
        };
        let Some(f) = found.get_mut(t) else {
            return;
        };
        let listed = self.options.listed;
        let (keys, what) = match finding {
            Finding::Missing(k) => {
                f.missing += 1;
                (&mut f.first_missing, k)
            }
            Finding::Extra(k) => {
                f.extra += 1;
                (&mut f.first_extra, k)
            }
            Finding::Different(k, cells) => {
                f.different += 1;
                f.cells_different += cells;
                (&mut f.first_different, k)
            }
        };
        if keys.len() < listed {
            keys.push(what);
        }
        f.written += u64::from(writes);
        f.deleted += u64::from(deletes);
    }

    fn count_rows(&self, tally: &Tally, t: usize) {
        if let Ok(mut found) = tally.lock()
            && let Some(f) = found.get_mut(t)
        {
            f.rows += 1;
        }
    }

    /// A new tally of the entity's tables.
    fn tally(&self) -> Tally {
        Mutex::new(vec![TableDrift::default(); self.tables.len()])
    }

    /// Range `lo..=hi` of the identity table, each entity checked.
    pub(super) async fn identity_range(
        &self,
        lo: i64,
        hi: i64,
    ) -> Result<Vec<TableDrift>, MigrationError> {
        let (shape, tally) = (&self.shapes[self.identity], &self.tally());
        let pager = send::pager(self.db, KIND, &shape.scan, (lo, hi)).await?;
        pager
            .rows_stream::<IdentityRow<E::Identity>>()
            .map_err(Error::from)?
            .map_err(|e| MigrationError::from(Error::from(e)))
            .map_ok(|row| self.entity(tally, row))
            .try_buffer_unordered(self.options.rows_in_flight)
            .try_collect::<()>()
            .await?;
        Ok(take(tally))
    }

    /// One entity: its rows in every table, the winner of each field, and what differs.
    async fn entity(
        &self,
        tally: &Tally,
        id: IdentityRow<E::Identity>,
    ) -> Result<(), MigrationError> {
        self.count_rows(tally, self.identity);
        let shape = &self.shapes[self.identity];
        let row = id.flat.split(shape);
        let mut rows = vec![Found {
            table: self.identity,
            key: row.key(shape),
            row: Some(row),
        }];
        for (t, table) in self.tables.iter().enumerate() {
            if t == self.identity {
                continue;
            }
            for stored in FromIdentity::rows(&id.row, table) {
                let key = self.shapes[t].key_of(&*stored)?;
                let row = self.shapes[t].read(self.db, &key).await?;
                rows.push(Found { table: t, key, row });
            }
        }
        let winners: Vec<Option<Winner>> = self
            .fields
            .iter()
            .map(|f| reconcile::winner(&self.copies(f, &rows), f.key))
            .collect();
        // Every row read: what was deleted before now loses to a repair written at now.
        let read_at = now_micros();
        for found in &rows {
            self.compare(tally, found, &winners, (&rows[0].key, read_at))
                .await?;
        }
        Ok(())
    }

    /// The copies of field `f` among `rows`.
    fn copies<'r>(&self, f: &Field, rows: &'r [Found]) -> Vec<Copy<'r>> {
        let mut out = Vec::new();
        for found in rows {
            let Some(row) = &found.row else { continue };
            for &(t, c) in f.holders.iter().filter(|(t, _)| *t == found.table) {
                let (written, ttl) = row.time(&self.shapes[t], c);
                out.push(Copy {
                    cell: row.cells.get(c).and_then(|c| c.as_deref()),
                    written,
                    ttl,
                    identity: t == self.identity,
                });
            }
        }
        out
    }

    /// One of the entity's rows against the winners: missing, or its cells that differ, and
    /// the repair of either.
    async fn compare(
        &self,
        tally: &Tally,
        found: &Found,
        winners: &[Option<Winner>],
        (entity, read_at): (&[Cell], i64),
    ) -> Result<(), MigrationError> {
        let t = found.table;
        let shape = &self.shapes[t];
        let held = self.fields.iter().zip(winners).flat_map(|(f, w)| {
            let w = w.as_ref();
            f.holders
                .iter()
                .filter(move |(h, _)| *h == t)
                .filter_map(move |&(_, c)| Some((c, w?)))
        });
        let Some(row) = &found.row else {
            // Written when found missing: a delete of the row made before (with plain CQL,
            // by another program) has an earlier write time.
            let fixes: Vec<Fix> = held
                .filter_map(|(c, w)| {
                    Some(Fix {
                        column: c,
                        cell: Some(w.cell.clone()?),
                        written: read_at,
                        ttl: w.ttl.unwrap_or(0),
                    })
                })
                .collect();
            if self.options.repair && self.still_there(entity).await? {
                self.writes
                    .row(self.db, shape, &found.key, &fixes, read_at)
                    .await?;
            }
            let key = shape.describe_key(&found.key);
            self.note(tally, t, Finding::Missing(key), true, false);
            return Ok(());
        };
        let mut fixes = Vec::new();
        for (c, w) in held {
            let (written, ttl) = row.time(shape, c);
            let copy = Copy {
                cell: row.cells.get(c).and_then(|c| c.as_deref()),
                written,
                ttl,
                identity: t == self.identity,
            };
            if !reconcile::agrees(&copy, w) {
                let written = match w.cell {
                    Some(_) => reconcile::repair_time(&copy, w, read_at),
                    None => copy.written.unwrap_or(read_at),
                };
                fixes.push(Fix {
                    column: c,
                    cell: w.cell.clone(),
                    written,
                    ttl: w.ttl.unwrap_or(0),
                });
            }
        }
        if fixes.is_empty() {
            return Ok(());
        }
        if self.options.repair {
            self.writes
                .row(self.db, shape, &found.key, &fixes, read_at)
                .await?;
        }
        let columns: Vec<usize> = fixes.iter().map(|f| f.column).collect();
        let cells: Vec<&Cell> = fixes
            .iter()
            .filter_map(|f| row.cells.get(f.column))
            .collect();
        let what = format!(
            "{} ({})",
            shape.describe_key(&found.key),
            shape.describe(&columns, &cells)
        );
        self.note(
            tally,
            t,
            Finding::Different(what, fixes.len() as u64),
            true,
            false,
        );
        Ok(())
    }

    /// Whether the identity row of key `key` is still there: read again before a missing row
    /// is written, so that an entity deleted since the check read it is not written back.
    async fn still_there(&self, key: &[Cell]) -> Result<bool, MigrationError> {
        let identity = &self.shapes[self.identity];
        Ok(identity.read(self.db, key).await?.is_some())
    }

    /// The columns of table `t` that hold the identity table's key, in its key order: how a
    /// row of `t` is traced to its entity; an error naming the field it lacks.
    pub(super) fn identity_key_in(&self, t: usize) -> Result<Vec<usize>, String> {
        let identity = self.shapes[self.identity].schema;
        identity
            .primary_key()
            .iter()
            .map(|&i| {
                let field = identity.columns[i].field;
                self.shapes[t]
                    .column_of(field)
                    .filter(|_| {
                        self.tables[t]
                            .each
                            .as_ref()
                            .is_none_or(|e| e.column != field)
                    })
                    .ok_or_else(|| {
                        format!(
                            "it has no column for `{field}` of the identity table's key, so its \
                             rows cannot be traced to an entity"
                        )
                    })
            })
            .collect()
    }

    /// Range `lo..=hi` of table `t`, each row traced to its entity by the columns that hold
    /// the identity table's key (`columns`, from [`identity_key_in`](Self::identity_key_in)).
    pub(super) async fn other_range(
        &self,
        t: usize,
        columns: &[usize],
        (lo, hi): (i64, i64),
    ) -> Result<Vec<TableDrift>, MigrationError> {
        let (shape, tally) = (&self.shapes[t], &self.tally());
        let pager = send::pager(self.db, KIND, &shape.scan, (lo, hi)).await?;
        pager
            .rows_stream::<Flat>()
            .map_err(Error::from)?
            .map_err(|e| MigrationError::from(Error::from(e)))
            .map_ok(|flat| self.traced(tally, t, flat.split(shape), columns))
            .try_buffer_unordered(self.options.rows_in_flight)
            .try_collect::<()>()
            .await?;
        Ok(take(tally))
    }

    /// A row of table `t` traced to its entity by the identity key it holds (`columns`): extra
    /// when the identity table has no such row, or when the entity's key fields give it other
    /// keys here.
    async fn traced(
        &self,
        tally: &Tally,
        t: usize,
        row: RawRow,
        columns: &[usize],
    ) -> Result<(), MigrationError> {
        self.count_rows(tally, t);
        let shape = &self.shapes[t];
        let id_key: Vec<Cell> = columns
            .iter()
            .map(|&c| row.cells.get(c).cloned().flatten())
            .collect();
        let identity = &self.shapes[self.identity].lookup;
        let id =
            send::first::<IdentityRow<E::Identity>>(self.db, KIND, identity, RawCells(&id_key))
                .await?;
        let key = row.key(shape);
        let why = match &id {
            None => "no identity row",
            Some(id) => {
                let table = &self.tables[t];
                let mut expected = FromIdentity::rows(&id.row, table).into_iter();
                if expected.any(|r| shape.key_of(&*r).is_ok_and(|k| k == key)) {
                    return Ok(());
                }
                "its entity's key fields give another key"
            }
        };
        let delete = self.options.repair && self.options.delete_extra;
        if delete {
            let written = row.times.iter().filter_map(|t| t.0).max();
            let written = written.unwrap_or_else(now_micros);
            self.writes
                .delete(self.db, shape, &key, &[], written)
                .await?;
        }
        let what = format!("{} ({why})", shape.describe_key(&key));
        self.note(
            tally,
            t,
            Finding::Extra(what),
            false,
            self.options.delete_extra,
        );
        Ok(())
    }
}

/// What a tally holds (nothing, if a task that held its lock panicked).
fn take(tally: &Tally) -> Vec<TableDrift> {
    tally.lock().map(|t| t.clone()).unwrap_or_default()
}

/// Microseconds since the epoch, now.
pub(super) fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}
