//! Secondary indexes (SAI): what an index on a column can target, and which targets Cassandra
//! refuses for which column types, with the server's own words.
//!
//! Each rule was checked against Cassandra 5.0 (`CREATE INDEX ... USING 'sai'`); the message
//! of each [`IndexViolation`] is the one the server returns.

use std::fmt;

use crate::ident::quote_ident;
use crate::types::{CqlType, NativeType};

/// What a secondary index on one column indexes: the `(target)` of `CREATE INDEX ... ON t
/// (target)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexTarget {
    /// The column's value, `(col)`: any column that is not a collection (a frozen
    /// user-defined type or tuple is indexed as a whole this way).
    Column,
    /// `keys(m)`: the keys of a non-frozen map (`WHERE m CONTAINS KEY ?`).
    Keys,
    /// `values(c)`: the elements of a non-frozen list or set, the values of a non-frozen map
    /// (`WHERE c CONTAINS ?`). What Cassandra indexes for `(c)` on such a column.
    Values,
    /// `entries(m)`: the entries of a non-frozen map (`WHERE m[?] = ?`).
    Entries,
    /// `full(c)`: a frozen collection as one value (`WHERE c = ?`). What a frozen collection
    /// must use.
    Full,
}

impl IndexTarget {
    /// The target Cassandra uses when `CREATE INDEX` names the column alone: `values` for a
    /// non-frozen list, set or map, `full` for a frozen one (which accepts nothing else),
    /// the column itself for any other type.
    ///
    /// ```
    /// use cassmodel_schema::{CqlType, IndexTarget};
    /// let of = |t: &str| IndexTarget::default_for(&t.parse::<CqlType>().unwrap());
    /// assert_eq!(of("set<text>"), IndexTarget::Values);
    /// assert_eq!(of("map<text, int>"), IndexTarget::Values);
    /// assert_eq!(of("frozen<list<int>>"), IndexTarget::Full);
    /// assert_eq!(of("text"), IndexTarget::Column);
    /// ```
    pub fn default_for(t: &CqlType) -> IndexTarget {
        match t {
            CqlType::List(_) | CqlType::Set(_) | CqlType::Map(..) => IndexTarget::Values,
            CqlType::Frozen(inner) if inner.is_collection() => IndexTarget::Full,
            _ => IndexTarget::Column,
        }
    }

    /// `target` on a column of type `t`, with `None` meaning "the default"
    /// ([`default_for`](Self::default_for)) and [`Column`](IndexTarget::Column) on a non-frozen
    /// collection meaning `values`, as Cassandra reads `(c)` on such a column.
    pub fn resolve(target: Option<IndexTarget>, t: &CqlType) -> IndexTarget {
        match target {
            None => IndexTarget::default_for(t),
            Some(IndexTarget::Column) if t.is_collection() => IndexTarget::Values,
            Some(x) => x,
        }
    }

    /// The modifier's name (`keys`, `values`, `entries`, `full`), or `None` for
    /// [`IndexTarget::Column`].
    pub const fn modifier(self) -> Option<&'static str> {
        match self {
            IndexTarget::Column => None,
            IndexTarget::Keys => Some("keys"),
            IndexTarget::Values => Some("values"),
            IndexTarget::Entries => Some("entries"),
            IndexTarget::Full => Some("full"),
        }
    }

    /// The target as CQL text, with the column quoted when needed: `email`, `values(tags)`,
    /// `keys("select")`. It is also what `system_schema.indexes` stores as the `target`
    /// option.
    ///
    /// ```
    /// use cassmodel_schema::IndexTarget;
    /// assert_eq!(IndexTarget::Column.cql("email"), "email");
    /// assert_eq!(IndexTarget::Values.cql("select"), "values(\"select\")");
    /// ```
    pub fn cql(self, column: &str) -> String {
        let column = quote_ident(column);
        match self.modifier() {
            None => column.into_owned(),
            Some(m) => format!("{m}({column})"),
        }
    }
}

/// What a query asks of an indexed column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexOp {
    /// `c = ?`
    Eq,
    /// `c > ?`, `c >= ?`, `c < ?`, `c <= ?`
    Range,
    /// `c CONTAINS ?`: an element of a list or set, a value of a map.
    Contains,
    /// `m CONTAINS KEY ?`
    ContainsKey,
    /// `m[?] = ?`
    Entry,
    /// `ORDER BY v ANN OF ? LIMIT ?`: the rows whose vectors are nearest a query vector.
    Ann,
}

impl IndexTarget {
    /// Whether an SAI index with this target answers `op` on a column of type `t`, without
    /// `ALLOW FILTERING` (checked against Cassandra 5.0): `=` on the column or a frozen
    /// collection; ranges on numbers, dates, times, timestamps, timeuuids and inet addresses
    /// (not on text, uuid or boolean); `CONTAINS` with `values`, `CONTAINS KEY` with `keys`,
    /// `m[k] = v` with `entries`.
    ///
    /// ```
    /// use cassmodel_schema::{CqlType, IndexOp, IndexTarget};
    /// let t = |s: &str| s.parse::<CqlType>().unwrap();
    /// assert!(IndexTarget::Column.serves(IndexOp::Range, &t("timestamp")));
    /// assert!(!IndexTarget::Column.serves(IndexOp::Range, &t("text")));
    /// assert!(!IndexTarget::Values.serves(IndexOp::ContainsKey, &t("map<text, int>")));
    /// ```
    pub fn serves(self, op: IndexOp, t: &CqlType) -> bool {
        if let CqlType::Vector(..) = t {
            // "Vector indexes only support ANN queries"
            return self == IndexTarget::Column && op == IndexOp::Ann;
        }
        match (self, op) {
            (IndexTarget::Column | IndexTarget::Full, IndexOp::Eq) => true,
            (IndexTarget::Column, IndexOp::Range) => matches!(
                t,
                CqlType::Native(
                    NativeType::Tinyint
                        | NativeType::Smallint
                        | NativeType::Int
                        | NativeType::Bigint
                        | NativeType::Varint
                        | NativeType::Float
                        | NativeType::Double
                        | NativeType::Decimal
                        | NativeType::Date
                        | NativeType::Time
                        | NativeType::Timestamp
                        | NativeType::Timeuuid
                        | NativeType::Inet
                )
            ),
            (IndexTarget::Values, IndexOp::Contains)
            | (IndexTarget::Keys, IndexOp::ContainsKey)
            | (IndexTarget::Entries, IndexOp::Entry) => true,
            _ => false,
        }
    }

    /// The target an index needs to answer `op`, if one can (`None` for ranges: they need a
    /// column of a type SAI orders).
    pub const fn for_op(op: IndexOp) -> Option<IndexTarget> {
        match op {
            IndexOp::Eq => Some(IndexTarget::Column),
            IndexOp::Range => None,
            IndexOp::Contains => Some(IndexTarget::Values),
            IndexOp::ContainsKey => Some(IndexTarget::Keys),
            IndexOp::Entry => Some(IndexTarget::Entries),
            IndexOp::Ann => Some(IndexTarget::Column),
        }
    }
}

/// The similarity function of a vector index: how an ANN query ranks vectors
/// (`CREATE INDEX ... USING 'sai' WITH OPTIONS = {'similarity_function': '...'}`). Cassandra
/// uses [`Cosine`](Similarity::Cosine) when the index names none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Similarity {
    /// The cosine of the angle between the vectors; for vectors of any length (a zero
    /// vector has none, and Cassandra refuses to write it).
    #[default]
    Cosine,
    /// The dot product: for unit-length vectors, the cosine, computed faster.
    DotProduct,
    /// The Euclidean distance, as a similarity (`1 / (1 + d²)`).
    Euclidean,
}

impl Similarity {
    /// Every similarity function.
    pub const ALL: [Similarity; 3] = [
        Similarity::Cosine,
        Similarity::DotProduct,
        Similarity::Euclidean,
    ];

    /// The option's value, as the derive takes it and `CREATE INDEX` writes it: `cosine`,
    /// `dot_product` or `euclidean`.
    pub const fn name(self) -> &'static str {
        match self {
            Similarity::Cosine => "cosine",
            Similarity::DotProduct => "dot_product",
            Similarity::Euclidean => "euclidean",
        }
    }

    /// The CQL function that computes the score of a row: `similarity_cosine`, ...
    pub const fn function(self) -> &'static str {
        match self {
            Similarity::Cosine => "similarity_cosine",
            Similarity::DotProduct => "similarity_dot_product",
            Similarity::Euclidean => "similarity_euclidean",
        }
    }

    /// Looks a similarity function up by name, in any case, as Cassandra reads the option.
    ///
    /// ```
    /// use cassmodel_schema::Similarity;
    /// assert_eq!(Similarity::from_name("DOT_PRODUCT"), Some(Similarity::DotProduct));
    /// assert_eq!(Similarity::from_name("manhattan"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Similarity> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Similarity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an index with a given target cannot be created on a column of a given type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexViolation {
    /// `keys` or `entries` on a non-frozen list or set.
    NotMap(IndexTarget),
    /// `keys`, `values` or `entries` on a column that is not a collection.
    NotCollection(IndexTarget),
    /// Anything but `full` on a frozen collection.
    FrozenCollection(IndexTarget),
    /// `full` on anything but a frozen collection.
    FullNotFrozen,
    /// A `duration` column.
    Duration,
    /// A collection that contains durations.
    CollectionWithDuration,
    /// A tuple that contains durations.
    TupleWithDuration,
    /// A user-defined type that is not frozen.
    NonFrozenUdt,
    /// The indexed values are `blob`s, which SAI does not index.
    Blob,
    /// A similarity function on a column that is not a vector.
    SimilarityNotVector,
    /// A vector whose elements are not `float`.
    VectorNotFloat,
}

impl IndexViolation {
    /// The message Cassandra 5.0 returns for `CREATE INDEX` on column `column`.
    pub fn server_message(self, column: &str) -> String {
        let name = |t: IndexTarget| t.modifier().unwrap_or("values");
        match self {
            IndexViolation::NotMap(t) => {
                format!(
                    "Cannot create index on {} of column {column} with non-map type",
                    name(t)
                )
            }
            IndexViolation::NotCollection(t) => format!(
                "Cannot create {}() index on {column}. Non-collection columns only support simple \
                 indexes",
                name(t)
            ),
            IndexViolation::FrozenCollection(t) => format!(
                "Cannot create {}() index on frozen column {column}. Frozen collections are \
                 immutable and must be fully indexed by using the 'full({column})' modifier",
                name(t)
            ),
            IndexViolation::FullNotFrozen => {
                "full() indexes can only be created on frozen collections".to_owned()
            }
            IndexViolation::Duration => {
                "Secondary indexes are not supported on duration columns".to_owned()
            }
            IndexViolation::CollectionWithDuration => {
                "Secondary indexes are not supported on collections containing durations".to_owned()
            }
            IndexViolation::TupleWithDuration => {
                "Secondary indexes are not supported on tuples containing durations".to_owned()
            }
            IndexViolation::NonFrozenUdt => {
                format!("Cannot create index on non-frozen UDT column {column}")
            }
            IndexViolation::Blob => "Unsupported type: blob".to_owned(),
            IndexViolation::SimilarityNotVector => {
                format!("CQL type of {column} cannot have vector options")
            }
            IndexViolation::VectorNotFloat => {
                "SAI ANN indexes are only allowed on vector columns with float elements".to_owned()
            }
        }
    }
}

impl CqlType {
    /// Why Cassandra refuses an SAI index with `target` on a column of this type, if it does.
    ///
    /// Not checked here (they need more than the type): a counter table refuses every index,
    /// the only partition-key column cannot be indexed, and a user-defined type's fields are
    /// not known from its name.
    ///
    /// ```
    /// use cassmodel_schema::{CqlType, IndexTarget, IndexViolation};
    /// let t: CqlType = "list<int>".parse().unwrap();
    /// assert_eq!(t.index_violation(IndexTarget::Values), None);
    /// assert_eq!(
    ///     t.index_violation(IndexTarget::Keys),
    ///     Some(IndexViolation::NotMap(IndexTarget::Keys))
    /// );
    /// ```
    pub fn index_violation(&self, target: IndexTarget) -> Option<IndexViolation> {
        let blob = |t: &CqlType| *t == CqlType::Native(NativeType::Blob);
        match self {
            CqlType::List(e) | CqlType::Set(e) => match target {
                IndexTarget::Keys | IndexTarget::Entries => Some(IndexViolation::NotMap(target)),
                IndexTarget::Full => Some(IndexViolation::FullNotFrozen),
                _ if e.references_duration() => Some(IndexViolation::CollectionWithDuration),
                _ if blob(e) => Some(IndexViolation::Blob),
                _ => None,
            },
            CqlType::Map(k, v) => match target {
                IndexTarget::Full => Some(IndexViolation::FullNotFrozen),
                _ if self.references_duration() => Some(IndexViolation::CollectionWithDuration),
                IndexTarget::Keys if blob(k) => Some(IndexViolation::Blob),
                IndexTarget::Column | IndexTarget::Values if blob(v) => Some(IndexViolation::Blob),
                IndexTarget::Entries if blob(k) || blob(v) => Some(IndexViolation::Blob),
                _ => None,
            },
            CqlType::Frozen(inner) if inner.is_collection() => match target {
                IndexTarget::Full if self.references_duration() => {
                    Some(IndexViolation::CollectionWithDuration)
                }
                IndexTarget::Full => None,
                t => Some(IndexViolation::FrozenCollection(t)),
            },
            other => {
                let unfrozen = match other {
                    CqlType::Frozen(t) => t.as_ref(),
                    t => t,
                };
                match target {
                    IndexTarget::Full => Some(IndexViolation::FullNotFrozen),
                    IndexTarget::Column => match unfrozen {
                        CqlType::Vector(e, _) if **e != CqlType::Native(NativeType::Float) => {
                            Some(IndexViolation::VectorNotFloat)
                        }
                        CqlType::Native(NativeType::Duration) => Some(IndexViolation::Duration),
                        CqlType::Native(NativeType::Blob) => Some(IndexViolation::Blob),
                        CqlType::Tuple(_) if unfrozen.references_duration() => {
                            Some(IndexViolation::TupleWithDuration)
                        }
                        CqlType::Udt(_) if !matches!(other, CqlType::Frozen(_)) => {
                            Some(IndexViolation::NonFrozenUdt)
                        }
                        _ => None,
                    },
                    t => Some(IndexViolation::NotCollection(t)),
                }
            }
        }
    }
}

/// Checks an index name as Cassandra does: one or more ASCII letters, digits or `_` (case is
/// kept; there is no length limit below the one of the CQL text). The error is the server's
/// message.
///
/// ```
/// use cassmodel_schema::validate_index_name;
/// assert!(validate_index_name("customers_by_email").is_ok());
/// assert_eq!(validate_index_name("by-email").unwrap_err(), "Illegal index name by-email");
/// ```
pub fn validate_index_name(name: &str) -> Result<(), String> {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(())
    } else {
        Err(format!("Illegal index name {name}"))
    }
}

/// The name Cassandra gives an index created without one: `<table>_<column>_idx`, without
/// the characters an index name cannot hold.
///
/// ```
/// use cassmodel_schema::default_index_name;
/// assert_eq!(default_index_name("customers", "email"), "customers_email_idx");
/// assert_eq!(default_index_name("t", "Mixed Case"), "t_MixedCase_idx");
/// ```
pub fn default_index_name(table: &str, column: &str) -> String {
    format!("{table}_{column}_idx")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The name `#[cass(index)]` gives the `position`-th index (from 0) of a field when it names
/// none: the first keeps Cassandra's default name ([`default_index_name`]); the next ones of
/// the column (a map's keys, values, entries) are told apart by their target
/// (`<table>_<column>_<target>_idx`).
///
/// ```
/// use cassmodel_schema::{IndexTarget, field_index_name};
/// assert_eq!(field_index_name("t", "attrs", 0, IndexTarget::Keys), "t_attrs_idx");
/// assert_eq!(field_index_name("t", "attrs", 1, IndexTarget::Values), "t_attrs_values_idx");
/// assert_eq!(field_index_name("t", "v", 1, IndexTarget::Column), "t_v_column_idx");
/// ```
pub fn field_index_name(table: &str, column: &str, position: usize, target: IndexTarget) -> String {
    if position == 0 {
        return default_index_name(table, column);
    }
    let part = target.modifier().unwrap_or("column");
    default_index_name(table, &format!("{column}_{part}"))
}

impl fmt::Display for IndexTarget {
    /// `column`, `keys`, `values`, `entries` or `full`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.modifier().unwrap_or("column"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(t: &str, target: IndexTarget) -> Option<IndexViolation> {
        t.parse::<CqlType>()
            .unwrap_or_else(|e| panic!("{t}: {e}"))
            .index_violation(target)
    }

    /// Every case was run against Cassandra 5.0.8; `None` means the server created the index.
    #[test]
    fn rules_match_the_server() {
        use IndexTarget::*;
        use IndexViolation as V;
        let cases = [
            ("int", Column, None),
            ("int", Keys, Some(V::NotCollection(Keys))),
            ("int", Values, Some(V::NotCollection(Values))),
            ("int", Full, Some(V::FullNotFrozen)),
            ("list<int>", Values, None),
            ("list<int>", Keys, Some(V::NotMap(Keys))),
            ("list<int>", Entries, Some(V::NotMap(Entries))),
            ("list<int>", Full, Some(V::FullNotFrozen)),
            ("set<text>", Values, None),
            ("set<text>", Keys, Some(V::NotMap(Keys))),
            ("set<blob>", Values, Some(V::Blob)),
            ("list<duration>", Values, Some(V::CollectionWithDuration)),
            ("map<text, int>", Values, None),
            ("map<text, int>", Keys, None),
            ("map<text, int>", Entries, None),
            ("map<text, int>", Full, Some(V::FullNotFrozen)),
            ("map<blob, int>", Values, None),
            ("map<blob, int>", Keys, Some(V::Blob)),
            ("map<blob, int>", Entries, Some(V::Blob)),
            ("map<int, blob>", Keys, None),
            ("map<int, blob>", Values, Some(V::Blob)),
            ("frozen<list<int>>", Full, None),
            ("frozen<list<blob>>", Full, None),
            (
                "frozen<list<int>>",
                Values,
                Some(V::FrozenCollection(Values)),
            ),
            (
                "frozen<map<int, int>>",
                Keys,
                Some(V::FrozenCollection(Keys)),
            ),
            ("duration", Column, Some(V::Duration)),
            ("blob", Column, Some(V::Blob)),
            ("tuple<int, int>", Column, None),
            ("frozen<tuple<int, blob>>", Column, None),
            ("tuple<int, duration>", Column, Some(V::TupleWithDuration)),
            ("tuple<int, int>", Full, Some(V::FullNotFrozen)),
            ("addr", Column, Some(V::NonFrozenUdt)),
            ("frozen<addr>", Column, None),
            ("frozen<addr>", Full, Some(V::FullNotFrozen)),
            ("vector<float, 3>", Column, None),
            ("vector<float, 3>", Values, Some(V::NotCollection(Values))),
            ("vector<float, 3>", Full, Some(V::FullNotFrozen)),
            ("vector<double, 3>", Column, Some(V::VectorNotFloat)),
        ];
        for (t, target, expected) in cases {
            assert_eq!(violation(t, target), expected, "{t} {target}");
        }
    }

    #[test]
    fn messages_are_the_servers() {
        assert_eq!(
            IndexViolation::NotMap(IndexTarget::Keys).server_message("l"),
            "Cannot create index on keys of column l with non-map type"
        );
        assert_eq!(
            IndexViolation::NotCollection(IndexTarget::Keys).server_message("v"),
            "Cannot create keys() index on v. Non-collection columns only support simple indexes"
        );
        assert_eq!(
            IndexViolation::FrozenCollection(IndexTarget::Values).server_message("fl"),
            "Cannot create values() index on frozen column fl. Frozen collections are immutable \
             and must be fully indexed by using the 'full(fl)' modifier"
        );
        assert_eq!(
            IndexViolation::NonFrozenUdt.server_message("ud"),
            "Cannot create index on non-frozen UDT column ud"
        );
    }

    #[test]
    fn names() {
        assert_eq!(
            validate_index_name(""),
            Err("Illegal index name ".to_owned())
        );
        assert!(validate_index_name("CamelName").is_ok());
        assert_eq!(default_index_name("t", "select"), "t_select_idx");
    }
}
