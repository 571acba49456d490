//! The prepared statements of a [`Db`](super::db::Db), kept beside its bare session the way
//! the scylla driver's `CachingSession` keeps them beside a `Session`: the session knows
//! nothing of them. A statement is found by an opaque [`CacheKey`] (its table, row type and
//! shape); the execution layer looks it up, and on a miss writes its CQL and has it prepared
//! here. Every statement is prepared once per `Db` and shape.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use scylla::client::session::Session;
use scylla::frame::response::result::{CollectionType, ColumnType};
use scylla::statement::batch::Batch;
use scylla::statement::prepared::PreparedStatement;

use crate::error::errors::{Error, Result};
use crate::mapping::table::Table;
use crate::schema::registry::TableEntry;
use crate::session::mirror::MirrorTable;
use crate::statement::spec::{Spec, Statement};

/// Identifies one prepared statement in a [`StatementCache`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum CacheKey {
    /// The INSERT of a whole row of a table, with its options.
    Insert {
        table: TypeId,
        ttl: bool,
        timestamp: bool,
        if_not_exists: bool,
    },
    /// A query of `table` returning rows of type `row` (`what`: select, delete, update).
    Query {
        table: TypeId,
        row: TypeId,
        what: Statement,
        spec: Spec,
    },
    /// Whole rows of a table by `=` on its first `n` primary-key columns (`get`, `partition`).
    KeyPrefix { table: TypeId, n: usize },
    /// The token-range scan of a table.
    Scan { table: TypeId, row: TypeId },
    /// A write of `table` as its dual writes send it to the old table of a key change: an
    /// INSERT of the columns both have (`what`: `None`) or an UPDATE or DELETE of `spec`
    /// (already in the old table's terms).
    Mirror {
        table: TypeId,
        what: Option<Statement>,
        spec: Spec,
    },
}

/// The prepared statements of one `Db`.
pub(crate) struct StatementCache {
    statements: Kept<CacheKey, PreparedStatement>,
    /// The hottest statements of each derived table, once prepared: its INSERT in six shapes
    /// (with or without TTL, with or without write time, or `IF NOT EXISTS` with or without
    /// TTL) and its `get` (whole rows by the full primary key), at
    /// [`slot`]`(`[`TableSchema::ordinal`](crate::TableSchema)`, ..)`: read without a lock,
    /// a hash or a reference count, and borrowed for as long as the `Db`, so that an
    /// insert's or a get's future holds the driver's request future and a reference, no
    /// `Arc` of ours. The `TypeId` guards against two descriptions sharing a number.
    per_table: Box<[OnceLock<(TypeId, PreparedStatement)>]>,
    /// The old table of each table with dual writes, once resolved.
    mirrors: Kept<TypeId, MirrorTable>,
    /// The logged batch of each entity's `save` (the INSERT of each of its tables), once
    /// prepared: found by the entity's type, sent as it is with the entity's values.
    entity_batches: Kept<TypeId, Batch>,
    /// The batches of entities' changes, by the entity's type and the set of its tables
    /// whose keys moved (a bit per table).
    change_batches: Kept<(TypeId, u64), Batch>,
    /// The same batches, each also at the ordinal of its entity's first table (with the
    /// entity's type): read as [`per_table`](Self::per_table) is, without a lock, a hash or
    /// a reference count (each a write to memory all tasks share). Two entities with the
    /// same first table: the second is found in `entity_batches`.
    entity_slots: Box<[OnceLock<EntitySlot>]>,
    /// Reads' statements (a query's shape, or rows by a key prefix), each also in one of
    /// [`QUERY_SLOTS`] slots of its table, looked for from the one its key's hash chooses:
    /// read as [`per_table`](Self::per_table) is, without a lock or a reference count. A
    /// table's first [`QUERY_SLOTS`] read shapes take a slot; others are found in
    /// `statements`.
    query_slots: KeySlots<CacheKey, PreparedStatement>,
}

/// How many read statements are kept per table in slots ([`StatementCache::kept_query`]).
const QUERY_SLOTS: usize = 8;

/// Values in `per` slots for each group (a table, by its ordinal), looked for from the one
/// the hash of its key chooses: read without a lock or a reference count, borrowed for as
/// long as the slots. A slot holds the first value kept in it; a group holds its first
/// `per` keys.
struct KeySlots<K, V> {
    slots: Box<[Slot<K, V>]>,
    per: usize,
}

impl<K: Eq + std::hash::Hash + Clone, V> KeySlots<K, V> {
    fn new(groups: usize, per: usize) -> Self {
        KeySlots {
            slots: (0..groups * per).map(|_| OnceLock::new()).collect(),
            per,
        }
    }

    /// The slots of group `group` in the order `key` looks through them: from the one its
    /// hash chooses, round the group (linear probing); none past the groups.
    fn probe(&self, group: usize, key: &K) -> impl Iterator<Item = &Slot<K, V>> {
        let hash = std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, key);
        // The hash's high bits: FxHash mixes its input into them.
        let first = usize::try_from(hash >> 48).unwrap_or(0) % self.per.max(1);
        let group = group
            .checked_mul(self.per)
            .and_then(|start| self.slots.get(start..start.checked_add(self.per)?))
            .unwrap_or_default();
        let (before, from) = group.split_at(first.min(group.len()));
        from.iter().chain(before)
    }

    /// The value kept for `key` in group `group`, if it is in one of its slots. Slots are
    /// filled in probe order and never emptied, so an empty slot ends the search.
    fn get(&self, group: usize, key: &K) -> Option<&V> {
        for slot in self.probe(group, key) {
            let (kept, value) = slot.get()?;
            if kept == key {
                return Some(value);
            }
        }
        None
    }

    /// Keeps `value` for `key` in the first empty slot of its probe in group `group`, unless
    /// it is kept already or the group is full (the key is cloned only when kept).
    fn keep(&self, group: usize, key: &K, value: &Arc<V>) {
        for slot in self.probe(group, key) {
            let (kept, _) = slot.get_or_init(|| (key.clone(), Arc::clone(value)));
            if kept == key {
                return;
            }
        }
    }
}

/// One slot of [`KeySlots`]: a key and its value, once kept.
type Slot<K, V> = OnceLock<(K, Arc<V>)>;

/// Whether `key` is a read's statement, kept in its table's slots
/// ([`StatementCache::kept_query`]).
fn is_read(key: &CacheKey) -> bool {
    matches!(key, CacheKey::Query { .. } | CacheKey::KeyPrefix { .. })
}

/// Whether the results of statement `key`, prepared as `ps`, may be read with the column
/// descriptions `ps` was prepared with, the server asked to leave them out of each result
/// (the driver's `set_use_cached_result_metadata`): a SELECT (rows, a count, a scan) names
/// its columns, so its result has the columns and types it was prepared with for as long as
/// the server keeps it prepared (a column dropped and added again keeps its type; a statement
/// the server forgets is prepared again by the driver). Not a user-defined type, in a column
/// or inside one: `ALTER TYPE` adds and renames its fields under a statement that stays
/// prepared. Not a write: a conditional write's result has columns only when it did not apply.
fn reads_with_prepared_columns(key: &CacheKey, ps: &PreparedStatement) -> bool {
    let select = match key {
        CacheKey::Query { what, .. } => matches!(what, Statement::Select | Statement::Count),
        CacheKey::KeyPrefix { .. } | CacheKey::Scan { .. } => true,
        CacheKey::Insert { .. } | CacheKey::Mirror { .. } => false,
    };
    select
        && !ps
            .get_current_result_set_col_specs()
            .get()
            .iter()
            .any(|c| holds_udt(c.typ()))
}

/// Whether `t` is a user-defined type or holds one (in a collection, a tuple or a vector); a
/// type this driver adds later counts as one.
fn holds_udt(t: &ColumnType<'_>) -> bool {
    match t {
        ColumnType::Native(_) => false,
        ColumnType::Collection { typ, .. } => match typ {
            CollectionType::List(t) | CollectionType::Set(t) => holds_udt(t),
            CollectionType::Map(k, v) => holds_udt(k) || holds_udt(v),
            _ => true,
        },
        ColumnType::Vector { typ, .. } => holds_udt(typ),
        ColumnType::Tuple(ts) => ts.iter().any(holds_udt),
        _ => true,
    }
}

/// An entity's type and its kept batch ([`StatementCache::entity_batch`]).
type EntitySlot = (TypeId, Arc<Batch>);

/// Values kept once made, each behind an `Arc`, found by key under a read lock.
struct Kept<K, V>(RwLock<HashMap<K, Arc<V>, rustc_hash::FxBuildHasher>>);

impl<K: Eq + std::hash::Hash, V> Kept<K, V> {
    fn new() -> Self {
        Kept(RwLock::new(HashMap::default()))
    }

    /// The value kept under `key`, if any.
    fn get(&self, key: &K) -> Option<Arc<V>> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    /// Every value kept.
    fn values(&self) -> Vec<Arc<V>> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// Keeps `value` under `key` and returns what is kept there: a value another task kept
    /// first wins (both are the same).
    fn keep(&self, key: K, value: V) -> Arc<V> {
        let mut kept = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(kept.entry(key).or_insert_with(|| Arc::new(value)))
    }
}

/// A statement kept per table ([`StatementCache::kept`]).
#[derive(Clone, Copy)]
pub(crate) enum PerTable {
    /// The INSERT of a whole row: with or without TTL, with or without write time, or `IF
    /// NOT EXISTS` with or without TTL (a lightweight transaction takes no write time).
    Insert {
        ttl: bool,
        timestamp: bool,
        if_not_exists: bool,
    },
    /// The SELECT of `get`: whole rows by `=` on the full primary key, without options.
    Get,
}

/// How many statements are kept per table: six INSERT shapes and the `get`.
const PER_TABLE: usize = 7;

/// Where statement `which` of table number `ordinal` is kept.
fn slot(ordinal: usize, which: PerTable) -> usize {
    let shape = match which {
        PerTable::Insert {
            if_not_exists: true,
            ttl,
            ..
        } => 4 + usize::from(ttl),
        PerTable::Insert { ttl, timestamp, .. } => usize::from(ttl) * 2 + usize::from(timestamp),
        PerTable::Get => 6,
    };
    ordinal * PER_TABLE + shape
}

impl StatementCache {
    /// An empty cache, with empty slots for the statements kept per table of every derived
    /// table of the program (registered by the derive), numbered by their descriptions'
    /// ordinals.
    pub(crate) fn new() -> Self {
        let tables = inventory::iter::<TableEntry>
            .into_iter()
            .map(|entry| (entry.0)().ordinal() + 1)
            .max()
            .unwrap_or(0);
        Self::with_slots(tables)
    }

    /// An empty cache with slots for the tables numbered `0..tables`.
    fn with_slots(tables: usize) -> Self {
        StatementCache {
            statements: Kept::new(),
            per_table: (0..tables * PER_TABLE).map(|_| OnceLock::new()).collect(),
            mirrors: Kept::new(),
            entity_batches: Kept::new(),
            change_batches: Kept::new(),
            entity_slots: (0..tables).map(|_| OnceLock::new()).collect(),
            query_slots: KeySlots::new(tables, QUERY_SLOTS),
        }
    }

    /// The statement kept under `key`, if it has been prepared.
    pub(crate) fn get(&self, key: &CacheKey) -> Option<Arc<PreparedStatement>> {
        self.statements.get(key)
    }

    /// Prepares `text` on `session`, marks whether the driver may retry it, and keeps it under
    /// `key` (a statement another task kept there first wins: both are the same).
    pub(crate) async fn prepare(
        &self,
        session: &Session,
        key: CacheKey,
        text: String,
        idempotent: bool,
    ) -> Result<Arc<PreparedStatement>> {
        let mut prepared =
            session
                .prepare(text.as_str())
                .await
                .map_err(|source| Error::Prepare {
                    cql: text,
                    source: Box::new(source),
                })?;
        prepared.set_is_idempotent(idempotent);
        // Each result of a read then leaves out its column descriptions, which the server
        // would write and the driver decode per result (point read: 13% fewer instructions
        // in the client, BENCHMARKS.md, issue 29).
        if reads_with_prepared_columns(&key, &prepared) {
            prepared.set_use_cached_result_metadata(true);
        }
        Ok(self.statements.keep(key, prepared))
    }

    /// Every statement prepared so far (the INSERTs and entity batches hold some of them).
    pub(crate) fn prepared(&self) -> Vec<Arc<PreparedStatement>> {
        self.statements.values()
    }

    /// The old table that the dual writes of table `table` reach, if resolved.
    pub(crate) fn mirror(&self, table: TypeId) -> Option<Arc<MirrorTable>> {
        self.mirrors.get(&table)
    }

    /// Keeps `mirror` for [`mirror`](Self::mirror) (one kept first by another task wins).
    pub(crate) fn keep_mirror(&self, table: TypeId, mirror: MirrorTable) -> Arc<MirrorTable> {
        self.mirrors.keep(table, mirror)
    }

    /// Read statement `key` (a query's shape, or rows by a key prefix) of table number
    /// `ordinal` ([`TableSchema::ordinal`](crate::TableSchema)), if it is kept in its slot
    /// ([`keep_query`](Self::keep_query)).
    pub(crate) fn kept_query(&self, ordinal: usize, key: &CacheKey) -> Option<&PreparedStatement> {
        self.query_slots.get(ordinal, key)
    }

    /// Keeps `ps`, statement `key` of table number `ordinal`, in its slot if it is a read's
    /// and the slot is empty.
    pub(crate) fn keep_query(&self, ordinal: usize, key: &CacheKey, ps: &Arc<PreparedStatement>) {
        if is_read(key) {
            self.query_slots.keep(ordinal, key, ps);
        }
    }

    /// The kept batch of entity `entity`, whose first table has the ordinal `first`
    /// ([`TableSchema::ordinal`](crate::TableSchema)), if it is kept at that ordinal
    /// ([`keep_entity_batch`](Self::keep_entity_batch)).
    pub(crate) fn entity_batch(&self, entity: TypeId, first: usize) -> Option<&Batch> {
        match self.entity_slots.get(first).and_then(OnceLock::get) {
            Some((kept, batch)) if *kept == entity => Some(batch),
            _ => None,
        }
    }

    /// The kept batch of a change of entity `entity` whose tables `moved` (a bit per table)
    /// moved their rows.
    pub(crate) fn change_batch(&self, entity: TypeId, moved: u64) -> Option<Arc<Batch>> {
        self.change_batches.get(&(entity, moved))
    }

    /// Keeps `batch` for [`change_batch`](Self::change_batch) (one kept first by another task
    /// wins: both are the same), and returns what is kept.
    pub(crate) fn keep_change_batch(&self, entity: TypeId, moved: u64, batch: Batch) -> Arc<Batch> {
        self.change_batches.keep((entity, moved), batch)
    }

    /// The kept batch of entity `entity`, found by its type: the one whose first table's
    /// slot another entity took.
    pub(crate) fn shared_entity_batch(&self, entity: TypeId) -> Option<Arc<Batch>> {
        self.entity_batches.get(&entity)
    }

    /// Keeps `batch` for [`entity_batch`](Self::entity_batch) and
    /// [`shared_entity_batch`](Self::shared_entity_batch) (one kept first by another task
    /// wins: both are the same), and returns what is kept.
    pub(crate) fn keep_entity_batch(
        &self,
        entity: TypeId,
        first: usize,
        batch: Batch,
    ) -> Arc<Batch> {
        let kept = self.entity_batches.keep(entity, batch);
        if let Some(slot) = self.entity_slots.get(first) {
            slot.get_or_init(|| (entity, Arc::clone(&kept)));
        }
        kept
    }

    /// Statement `which` of table `T` (an INSERT of every column, then TTL and write time
    /// if asked for, `IF NOT EXISTS` if asked for; or the `get`), if it has been kept
    /// ([`keep`](Self::keep)).
    pub(crate) fn kept<T: Table>(&self, which: PerTable) -> Option<&PreparedStatement> {
        let (table, ps) = self
            .per_table
            .get(slot(T::schema().ordinal(), which))?
            .get()?;
        (*table == TypeId::of::<T>()).then_some(ps)
    }

    /// Keeps `ps`, statement `which` of `T`, for [`kept`](Self::kept).
    pub(crate) fn keep<T: Table>(&self, which: PerTable, ps: &PreparedStatement) {
        if let Some(slot) = self.per_table.get(slot(T::schema().ordinal(), which)) {
            // Cloned only while the slot is empty: batches and inserts with options come here
            // on every call. Already set: the same statement, or another table's with the
            // same number.
            slot.get_or_init(|| (TypeId::of::<T>(), ps.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::any::TypeId;

    use scylla::statement::batch::{Batch, BatchType};

    use super::{PER_TABLE, PerTable, StatementCache, holds_udt, slot};

    /// A user-defined type, or a type that holds one anywhere inside it, is told; the
    /// driver's other types are not.
    #[test]
    fn holds_udt_finds_a_udt_at_any_depth() {
        use std::sync::Arc;

        use scylla::frame::response::result::{
            CollectionType, ColumnType, NativeType, UserDefinedType,
        };

        let text = || Box::new(ColumnType::Native(NativeType::Text));
        let udt = || ColumnType::UserDefinedType {
            frozen: true,
            definition: Arc::new(UserDefinedType {
                name: "address".into(),
                keyspace: "ks".into(),
                field_types: vec![("street".into(), ColumnType::Native(NativeType::Text))],
            }),
        };
        let list = |t: ColumnType<'static>| ColumnType::Collection {
            frozen: false,
            typ: CollectionType::List(Box::new(t)),
        };
        let plain = [
            ColumnType::Native(NativeType::Int),
            list(ColumnType::Native(NativeType::Text)),
            ColumnType::Collection {
                frozen: false,
                typ: CollectionType::Map(text(), text()),
            },
            ColumnType::Vector {
                typ: Box::new(ColumnType::Native(NativeType::Float)),
                dimensions: 3,
            },
            ColumnType::Tuple(vec![ColumnType::Native(NativeType::Uuid), *text()]),
        ];
        for t in &plain {
            assert!(!holds_udt(t), "{t:?}");
        }
        let with_udt = [
            udt(),
            list(udt()),
            ColumnType::Collection {
                frozen: false,
                typ: CollectionType::Set(Box::new(udt())),
            },
            ColumnType::Collection {
                frozen: false,
                typ: CollectionType::Map(text(), Box::new(list(udt()))),
            },
            ColumnType::Tuple(vec![*text(), udt()]),
            ColumnType::Vector {
                typ: Box::new(udt()),
                dimensions: 2,
            },
        ];
        for t in &with_udt {
            assert!(holds_udt(t), "{t:?}");
        }
    }

    /// A value is found in its group's slots once kept there, by its whole key; of many
    /// keys, as many as the group has slots are kept, whatever slot their hashes choose.
    #[test]
    fn key_slots_find_a_value_by_its_whole_key() {
        use super::KeySlots;
        let slots = KeySlots::<u64, String>::new(2, 8);
        let one = std::sync::Arc::new("one".to_owned());
        assert!(slots.get(1, &1).is_none());
        slots.keep(1, &1, &one);
        assert_eq!(slots.get(1, &1).map(String::as_str), Some("one"));
        assert!(slots.get(0, &1).is_none(), "another group's slots");
        let keys: Vec<u64> = (2..200).collect();
        for key in &keys {
            slots.keep(1, key, &std::sync::Arc::new(key.to_string()));
        }
        let found: Vec<_> = keys
            .iter()
            .filter_map(|k| Some((k, slots.get(1, k)?)))
            .collect();
        assert_eq!(found.len(), 7, "the 7 slots left after the first key");
        // Keeping a key again does not take a second slot.
        slots.keep(1, &1, &one);
        assert_eq!(slots.get(1, &1).map(String::as_str), Some("one"));
        assert!(found.iter().all(|(k, v)| **v == k.to_string()));
        // Past the groups (a table registered after the cache was made): nothing kept.
        slots.keep(usize::MAX, &1, &one);
        assert!(slots.get(usize::MAX, &1).is_none());
        slots.keep(2, &1, &one);
        assert!(slots.get(2, &1).is_none());
    }

    /// Only reads' statements take the query slots.
    #[test]
    fn only_reads_take_the_query_slots() {
        use super::{CacheKey, is_read};
        struct T;
        let table = TypeId::of::<T>();
        assert!(is_read(&CacheKey::KeyPrefix { table, n: 1 }));
        assert!(!is_read(&CacheKey::Insert {
            table,
            ttl: false,
            timestamp: false,
            if_not_exists: false,
        }));
        assert!(!is_read(&CacheKey::Scan { table, row: table }));
    }

    /// An entity's batch is found in its first table's slot, and by its type when another
    /// entity with the same first table took that slot first.
    #[test]
    fn entity_batches_are_found_in_their_slot_or_by_type() {
        struct A;
        struct B;
        let (a, b) = (TypeId::of::<A>(), TypeId::of::<B>());
        let cache = StatementCache::with_slots(3);
        assert!(cache.entity_batch(a, 1).is_none());
        assert!(cache.shared_entity_batch(a).is_none());
        let kept_a = cache.keep_entity_batch(a, 1, Batch::new(BatchType::Logged));
        let kept_b = cache.keep_entity_batch(b, 1, Batch::new(BatchType::Unlogged));
        let in_slot = cache.entity_batch(a, 1).map(|batch| batch.get_type());
        assert!(matches!(in_slot, Some(BatchType::Logged)), "{in_slot:?}");
        // B's first table is A's: its batch is not in the slot, but found by its type.
        assert!(cache.entity_batch(b, 1).is_none());
        let shared = cache.shared_entity_batch(b).map(|batch| batch.get_type());
        assert!(matches!(shared, Some(BatchType::Unlogged)), "{shared:?}");
        assert!(matches!(kept_a.get_type(), BatchType::Logged));
        assert!(matches!(kept_b.get_type(), BatchType::Unlogged));
        // An ordinal past the slots (a table registered after the cache was made).
        let kept_c = cache.keep_entity_batch(b, 7, Batch::new(BatchType::Counter));
        assert!(
            matches!(kept_c.get_type(), BatchType::Unlogged),
            "B's first batch stays"
        );
        assert!(cache.entity_batch(b, 7).is_none());
    }

    /// Every statement kept per table has a slot of its own, inside its table's `PER_TABLE`.
    #[test]
    fn per_table_slots_are_distinct() {
        let mut which = vec![PerTable::Get];
        for ttl in [false, true] {
            for timestamp in [false, true] {
                which.push(PerTable::Insert {
                    ttl,
                    timestamp,
                    if_not_exists: false,
                });
            }
            which.push(PerTable::Insert {
                ttl,
                timestamp: false,
                if_not_exists: true,
            });
        }
        let mut slots: Vec<usize> = which.iter().map(|&w| slot(3, w)).collect();
        slots.sort_unstable();
        let expected: Vec<usize> = (3 * PER_TABLE..4 * PER_TABLE).collect();
        assert_eq!(slots, expected);
    }
}
