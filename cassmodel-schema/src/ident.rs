//! CQL identifiers: which names are legal, and when they must be quoted.

use std::borrow::Cow;
use std::fmt;

/// Longest keyspace, table or type name Cassandra accepts.
pub const MAX_SCHEMA_NAME_LEN: usize = 48;

/// Words that must be quoted to be used as identifiers. This is Cassandra's
/// `reserved_keywords.txt` (trunk, a superset of 4.x/5.0) plus words ScyllaDB also reserves;
/// quoting a word that a given server does not reserve is harmless, so a superset is safe.
const RESERVED: &[&str] = &[
    "add",
    "allow",
    "alter",
    "and",
    "apply",
    "asc",
    "authorize",
    "batch",
    "begin",
    "by",
    "check",
    "columnfamily",
    "constraint",
    "create",
    "delete",
    "desc",
    "describe",
    "drop",
    "entries",
    "execute",
    "from",
    "full",
    "grant",
    "if",
    "in",
    "index",
    "infinity",
    "insert",
    "into",
    "is",
    "keyspace",
    "length",
    "limit",
    "materialized",
    "modify",
    "nan",
    "norecursive",
    "not",
    "null",
    "of",
    "on",
    "or",
    "order",
    "primary",
    "rename",
    "revoke",
    "schema",
    "select",
    "set",
    "table",
    "to",
    "token",
    "truncate",
    "unlogged",
    "update",
    "use",
    "using",
    "view",
    "where",
    "with",
];

/// Whether `word` (in any case) is a reserved CQL keyword.
pub fn is_reserved_word(word: &str) -> bool {
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(word))
}

/// Renders a name for CQL text: bare when CQL would read it back unchanged (lower case letters,
/// digits and `_`, starting with a letter, not reserved), otherwise double-quoted with inner
/// quotes doubled, so that reserved words and mixed case keep working.
///
/// ```
/// use cassmodel_schema::quote_ident;
/// assert_eq!(quote_ident("user_id"), "user_id");
/// assert_eq!(quote_ident("order"), "\"order\"");
/// assert_eq!(quote_ident("userId"), "\"userId\"");
/// ```
pub fn quote_ident(name: &str) -> Cow<'_, str> {
    let mut chars = name.chars();
    let plain = matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
        && !is_reserved_word(name);
    if plain {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(format!("\"{}\"", name.replace('"', "\"\"")))
    }
}

/// Why a name cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    /// The name is empty.
    Empty,
    /// Longer than [`MAX_SCHEMA_NAME_LEN`].
    TooLong(usize),
    /// Holds a character other than ASCII letters, digits and `_`.
    BadChar(char),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::Empty => f.write_str("the name is empty"),
            NameError::TooLong(n) => write!(
                f,
                "the name has {n} characters; Cassandra accepts at most {MAX_SCHEMA_NAME_LEN}"
            ),
            NameError::BadChar(c) => write!(
                f,
                "the name contains {c:?}; Cassandra accepts only ASCII letters, digits and `_`"
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// Checks a keyspace, table or user-defined type name: 1 to 48 ASCII letters, digits or `_`.
pub fn validate_schema_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(NameError::BadChar(c));
    }
    if name.len() > MAX_SCHEMA_NAME_LEN {
        return Err(NameError::TooLong(name.len()));
    }
    Ok(())
}

/// Checks a column or UDT field name. Any non-empty text works once quoted; control
/// characters are refused because they cannot be read back reliably from `system_schema`.
pub fn validate_column_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    match name.chars().find(|c| c.is_control()) {
        Some(c) => Err(NameError::BadChar(c)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote_ident("a1_b"), "a1_b");
        assert_eq!(quote_ident("select"), "\"select\"");
        assert_eq!(quote_ident("TOKEN"), "\"TOKEN\"");
        assert_eq!(quote_ident("_x"), "\"_x\"");
        assert_eq!(quote_ident("1a"), "\"1a\"");
        assert_eq!(quote_ident("we\"ird"), "\"we\"\"ird\"");
    }

    #[test]
    fn schema_names() {
        assert_eq!(validate_schema_name("posts_2024"), Ok(()));
        assert_eq!(validate_schema_name(""), Err(NameError::Empty));
        assert_eq!(validate_schema_name("a-b"), Err(NameError::BadChar('-')));
        assert_eq!(
            validate_schema_name(&"x".repeat(49)),
            Err(NameError::TooLong(49))
        );
        assert!(validate_schema_name(&"x".repeat(48)).is_ok());
    }

    #[test]
    fn column_names() {
        assert!(validate_column_name("order").is_ok());
        assert!(validate_column_name("with space").is_ok());
        assert_eq!(validate_column_name("a\nb"), Err(NameError::BadChar('\n')));
    }
}
