//! The CQL type grammar: a small AST, a parser for type text, and its canonical rendering.

use std::fmt;
use std::str::FromStr;

use crate::ident::quote_ident;

/// A CQL native (non-parameterised) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the variant names are the CQL type names
pub enum NativeType {
    Ascii,
    Bigint,
    Blob,
    Boolean,
    Counter,
    Date,
    Decimal,
    Double,
    Duration,
    Float,
    Inet,
    Int,
    Smallint,
    Text,
    Time,
    Timestamp,
    Timeuuid,
    Tinyint,
    Uuid,
    Varint,
}

impl NativeType {
    /// Every native type, in alphabetical order.
    pub const ALL: [NativeType; 20] = [
        NativeType::Ascii,
        NativeType::Bigint,
        NativeType::Blob,
        NativeType::Boolean,
        NativeType::Counter,
        NativeType::Date,
        NativeType::Decimal,
        NativeType::Double,
        NativeType::Duration,
        NativeType::Float,
        NativeType::Inet,
        NativeType::Int,
        NativeType::Smallint,
        NativeType::Text,
        NativeType::Time,
        NativeType::Timestamp,
        NativeType::Timeuuid,
        NativeType::Tinyint,
        NativeType::Uuid,
        NativeType::Varint,
    ];

    /// The type's name in CQL.
    pub const fn name(self) -> &'static str {
        match self {
            NativeType::Ascii => "ascii",
            NativeType::Bigint => "bigint",
            NativeType::Blob => "blob",
            NativeType::Boolean => "boolean",
            NativeType::Counter => "counter",
            NativeType::Date => "date",
            NativeType::Decimal => "decimal",
            NativeType::Double => "double",
            NativeType::Duration => "duration",
            NativeType::Float => "float",
            NativeType::Inet => "inet",
            NativeType::Int => "int",
            NativeType::Smallint => "smallint",
            NativeType::Text => "text",
            NativeType::Time => "time",
            NativeType::Timestamp => "timestamp",
            NativeType::Timeuuid => "timeuuid",
            NativeType::Tinyint => "tinyint",
            NativeType::Uuid => "uuid",
            NativeType::Varint => "varint",
        }
    }

    /// Looks a native type up by name, in any case (`varchar` is `text`).
    pub fn from_name(name: &str) -> Option<NativeType> {
        if name.eq_ignore_ascii_case("varchar") {
            return Some(NativeType::Text);
        }
        Self::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }
}

/// A CQL column type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CqlType {
    /// `int`, `text`, ...
    Native(NativeType),
    /// `list<T>`
    List(Box<CqlType>),
    /// `set<T>`
    Set(Box<CqlType>),
    /// `map<K, V>`
    Map(Box<CqlType>, Box<CqlType>),
    /// `tuple<A, B, ...>` (always frozen in Cassandra)
    Tuple(Vec<CqlType>),
    /// `frozen<T>`: the value is written and read as one blob.
    Frozen(Box<CqlType>),
    /// A user-defined type, by name. Cassandra only lets a table use types of its own
    /// keyspace, so the reference never carries a keyspace.
    Udt(String),
    /// `vector<T, n>` (Cassandra 5.0).
    Vector(Box<CqlType>, u32),
}

/// Why a type cannot be used for a primary-key column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyViolation {
    /// `counter`
    Counter,
    /// `duration`, anywhere inside the type.
    Duration,
    /// A `list`, `set` or `map` that is not `frozen<...>`.
    NonFrozenCollection,
    /// A user-defined type that is not `frozen<...>`.
    NonFrozenUdt,
}

impl fmt::Display for KeyViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyViolation::Counter => "a counter cannot be part of a primary key",
            KeyViolation::Duration => "a duration cannot be part of a primary key",
            KeyViolation::NonFrozenCollection => {
                "a non-frozen collection cannot be part of a primary key"
            }
            KeyViolation::NonFrozenUdt => {
                "a non-frozen user-defined type cannot be part of a primary key"
            }
        })
    }
}

impl CqlType {
    /// `list`, `set` or `map` (not frozen).
    pub fn is_collection(&self) -> bool {
        matches!(self, CqlType::List(_) | CqlType::Set(_) | CqlType::Map(..))
    }

    /// Whether this is the `counter` type.
    pub fn is_counter(&self) -> bool {
        *self == CqlType::Native(NativeType::Counter)
    }

    /// Whether `duration` appears anywhere in the type.
    pub fn references_duration(&self) -> bool {
        match self {
            CqlType::Native(n) => *n == NativeType::Duration,
            CqlType::List(t) | CqlType::Set(t) | CqlType::Frozen(t) | CqlType::Vector(t, _) => {
                t.references_duration()
            }
            CqlType::Map(k, v) => k.references_duration() || v.references_duration(),
            CqlType::Tuple(ts) => ts.iter().any(CqlType::references_duration),
            CqlType::Udt(_) => false,
        }
    }

    /// Whether `vector<..>` appears anywhere in the type (a type Cassandra 5.0 added).
    pub fn references_vector(&self) -> bool {
        match self {
            CqlType::Vector(..) => true,
            CqlType::Native(_) | CqlType::Udt(_) => false,
            CqlType::List(t) | CqlType::Set(t) | CqlType::Frozen(t) => t.references_vector(),
            CqlType::Map(k, v) => k.references_vector() || v.references_vector(),
            CqlType::Tuple(ts) => ts.iter().any(CqlType::references_vector),
        }
    }

    /// Why this type cannot be a partition-key or clustering column, if it cannot.
    pub fn key_violation(&self) -> Option<KeyViolation> {
        if self.is_counter() {
            Some(KeyViolation::Counter)
        } else if self.references_duration() {
            Some(KeyViolation::Duration)
        } else if self.is_collection() {
            Some(KeyViolation::NonFrozenCollection)
        } else if matches!(self, CqlType::Udt(_)) {
            Some(KeyViolation::NonFrozenUdt)
        } else {
            None
        }
    }

    /// The form this type must take inside a collection, tuple or vector: collections and
    /// user-defined types are wrapped in `frozen<...>` (Cassandra refuses them otherwise).
    pub fn frozen_for_nesting(self) -> CqlType {
        match self {
            t @ (CqlType::List(_) | CqlType::Set(_) | CqlType::Map(..) | CqlType::Udt(_)) => {
                CqlType::Frozen(Box::new(t))
            }
            t => t,
        }
    }

    /// `frozen<self>`, without doubling an existing `frozen`.
    pub fn frozen(self) -> CqlType {
        match self {
            t @ CqlType::Frozen(_) => t,
            t => CqlType::Frozen(Box::new(t)),
        }
    }

    /// The form used to compare two type texts for equality, e.g. a model's type with the
    /// `type` column of `system_schema.columns`: `frozen<...>` is removed wherever Cassandra
    /// implies it (around a tuple, which is always frozen, and on everything nested inside a
    /// collection, tuple, vector or frozen type, which must be frozen anyway). A top-level
    /// `frozen<...>` on a collection or user-defined type is kept: it changes the type.
    ///
    /// The result is for comparison only; it is not always valid CQL.
    ///
    /// ```
    /// use cassmodel_schema::CqlType;
    /// let parse = |s: &str| s.parse::<CqlType>().unwrap().canonical();
    /// assert_eq!(parse("frozen<tuple<int, text>>"), parse("tuple<int, text>"));
    /// assert_eq!(parse("frozen<tuple<int, frozen<list<int>>>>"), parse("tuple<int, list<int>>"));
    /// assert_eq!(parse("list<frozen<address>>").to_string(), "list<address>");
    /// assert_ne!(parse("frozen<address>"), parse("address"));
    /// ```
    pub fn canonical(&self) -> CqlType {
        match self {
            CqlType::Frozen(inner) => match inner.as_ref() {
                t @ CqlType::Tuple(_) => t.canonical(),
                t => CqlType::Frozen(Box::new(t.nested_canonical())),
            },
            t => t.nested_canonical(),
        }
    }

    /// `canonical` of the children of a type, each without any `frozen<...>`.
    fn nested_canonical(&self) -> CqlType {
        let inner = |t: &CqlType| Box::new(t.unfrozen_canonical());
        match self {
            CqlType::Native(_) | CqlType::Udt(_) => self.clone(),
            CqlType::List(t) => CqlType::List(inner(t)),
            CqlType::Set(t) => CqlType::Set(inner(t)),
            CqlType::Map(k, v) => CqlType::Map(inner(k), inner(v)),
            CqlType::Tuple(ts) => {
                CqlType::Tuple(ts.iter().map(CqlType::unfrozen_canonical).collect())
            }
            CqlType::Vector(t, n) => CqlType::Vector(inner(t), *n),
            CqlType::Frozen(t) => CqlType::Frozen(Box::new(t.nested_canonical())),
        }
    }

    fn unfrozen_canonical(&self) -> CqlType {
        match self {
            CqlType::Frozen(t) => t.unfrozen_canonical(),
            t => t.nested_canonical(),
        }
    }

    /// Names of the user-defined types this type refers to, outermost first.
    pub fn udt_names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_udts(&mut out);
        out
    }

    fn collect_udts<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            CqlType::Native(_) => {}
            CqlType::Udt(n) => out.push(n),
            CqlType::List(t) | CqlType::Set(t) | CqlType::Frozen(t) | CqlType::Vector(t, _) => {
                t.collect_udts(out)
            }
            CqlType::Map(k, v) => {
                k.collect_udts(out);
                v.collect_udts(out);
            }
            CqlType::Tuple(ts) => ts.iter().for_each(|t| t.collect_udts(out)),
        }
    }
}

impl fmt::Display for CqlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CqlType::Native(n) => f.write_str(n.name()),
            CqlType::List(t) => write!(f, "list<{t}>"),
            CqlType::Set(t) => write!(f, "set<{t}>"),
            CqlType::Map(k, v) => write!(f, "map<{k}, {v}>"),
            CqlType::Tuple(ts) => {
                f.write_str("tuple<")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(">")
            }
            CqlType::Frozen(t) => write!(f, "frozen<{t}>"),
            CqlType::Udt(name) => f.write_str(&quote_ident(name)),
            CqlType::Vector(t, n) => write!(f, "vector<{t}, {n}>"),
        }
    }
}

/// A type text that is not valid CQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong, written for the user.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

impl FromStr for CqlType {
    type Err = ParseError;

    /// Parses CQL type text such as `frozen<map<text, list<int>>>`. Keywords are case
    /// insensitive, `varchar` reads as `text`, a bare unknown name is a user-defined type.
    fn from_str(text: &str) -> Result<CqlType, ParseError> {
        let mut p = Parser {
            tokens: tokenize(text)?,
            pos: 0,
        };
        let t = p.parse_type()?;
        match p.peek() {
            None => Ok(t),
            Some(tok) => Err(p.error(format!("unexpected `{tok}` after the type `{t}`"))),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Number(u32),
    Punct(char),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Word(w) => f.write_str(w),
            Token::Quoted(w) => write!(f, "\"{w}\""),
            Token::Number(n) => write!(f, "{n}"),
            Token::Punct(c) => write!(f, "{c}"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if matches!(c, '<' | '>' | ',' | '.') {
            out.push(Token::Punct(c));
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        s.push('"');
                    }
                    Some('"') => break,
                    Some(ch) => s.push(ch),
                    None => {
                        return Err(ParseError {
                            message: format!("unterminated quoted name in `{text}`"),
                        });
                    }
                }
            }
            out.push(Token::Quoted(s));
        } else if c.is_ascii_digit() {
            let mut s = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                s.push(d);
                chars.next();
            }
            let n = s.parse().map_err(|_| ParseError {
                message: format!("number `{s}` is too large in `{text}`"),
            })?;
            out.push(Token::Number(n));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            while let Some(&d) = chars
                .peek()
                .filter(|d| d.is_ascii_alphanumeric() || **d == '_')
            {
                s.push(d);
                chars.next();
            }
            out.push(Token::Word(s));
        } else {
            return Err(ParseError {
                message: format!("unexpected character {c:?} in the CQL type `{text}`"),
            });
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn error(&self, message: String) -> ParseError {
        ParseError { message }
    }

    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        match self.next() {
            Some(Token::Punct(p)) if p == c => Ok(()),
            Some(t) => Err(self.error(format!("expected `{c}`, found `{t}`"))),
            None => Err(self.error(format!("expected `{c}`, found the end of the type"))),
        }
    }

    /// Parses `<T>` after a collection keyword, checking that a collection element is frozen.
    fn element(&mut self, outer: &str) -> Result<CqlType, ParseError> {
        let t = self.parse_type()?;
        if t.is_collection() || t.is_counter() {
            return Err(self.error(format!(
                "`{t}` cannot be an element of a {outer}: write `frozen<{t}>`{}",
                if t.is_counter() {
                    " (counters cannot be nested at all)"
                } else {
                    ""
                }
            )));
        }
        Ok(t)
    }

    fn parse_type(&mut self) -> Result<CqlType, ParseError> {
        let word = match self.next() {
            Some(Token::Word(w)) => w,
            Some(Token::Quoted(q)) => return Ok(CqlType::Udt(q)),
            Some(t) => return Err(self.error(format!("expected a type name, found `{t}`"))),
            None => return Err(self.error("expected a type name, found nothing".into())),
        };
        let lower = word.to_ascii_lowercase();
        let t = match lower.as_str() {
            "list" | "set" => {
                self.expect('<')?;
                let e = self.element(&lower)?;
                self.expect('>')?;
                if lower == "list" {
                    CqlType::List(Box::new(e))
                } else {
                    CqlType::Set(Box::new(e))
                }
            }
            "map" => {
                self.expect('<')?;
                let k = self.element("map")?;
                self.expect(',')?;
                let v = self.element("map")?;
                self.expect('>')?;
                CqlType::Map(Box::new(k), Box::new(v))
            }
            "tuple" => {
                self.expect('<')?;
                let mut ts = vec![self.parse_type()?];
                while self.peek() == Some(&Token::Punct(',')) {
                    self.pos += 1;
                    ts.push(self.parse_type()?);
                }
                self.expect('>')?;
                CqlType::Tuple(ts)
            }
            "frozen" => {
                self.expect('<')?;
                let inner = self.parse_type()?;
                self.expect('>')?;
                if inner.is_counter() {
                    return Err(self.error("`counter` cannot be frozen".into()));
                }
                inner.frozen()
            }
            "vector" => {
                self.expect('<')?;
                let e = self.element("vector")?;
                self.expect(',')?;
                let n = match self.next() {
                    Some(Token::Number(n)) if n > 0 => n,
                    _ => {
                        return Err(self.error(
                            "a vector needs a positive dimension: `vector<float, 3>`".into(),
                        ));
                    }
                };
                self.expect('>')?;
                CqlType::Vector(Box::new(e), n)
            }
            _ => match NativeType::from_name(&word) {
                Some(n) => CqlType::Native(n),
                None if self.peek() == Some(&Token::Punct('.')) => {
                    return Err(self.error(format!(
                        "`{word}.` : a table can only use user-defined types of its own \
                         keyspace, so name the type without a keyspace"
                    )));
                }
                None => CqlType::Udt(lower),
            },
        };
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> CqlType {
        match s.parse() {
            Ok(t) => t,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    #[test]
    fn round_trips_canonical_text() {
        for s in [
            "int",
            "text",
            "list<int>",
            "set<frozen<list<text>>>",
            "map<uuid, int>",
            "frozen<map<text, frozen<set<int>>>>",
            "tuple<int, text, frozen<list<int>>>",
            "frozen<address_type>",
            "vector<float, 3>",
            "\"Mixed\"",
        ] {
            assert_eq!(parse(s).to_string(), s);
        }
    }

    #[test]
    fn normalises() {
        assert_eq!(parse("VARCHAR").to_string(), "text");
        assert_eq!(parse(" Map < UUID ,Int > ").to_string(), "map<uuid, int>");
        assert_eq!(
            parse("frozen<frozen<list<int>>>").to_string(),
            "frozen<list<int>>"
        );
        assert_eq!(parse("Address_Type").to_string(), "address_type");
    }

    #[test]
    fn rejects_bad_text() {
        for s in [
            "",
            "list<>",
            "list<int",
            "map<int>",
            "list<list<int>>",
            "map<text, counter>",
            "frozen<counter>",
            "vector<float, 0>",
            "int int",
            "ks.addr",
            "in$t",
        ] {
            assert!(s.parse::<CqlType>().is_err(), "{s} should not parse");
        }
    }

    #[test]
    fn key_rules() {
        assert_eq!(
            parse("counter").key_violation(),
            Some(KeyViolation::Counter)
        );
        assert_eq!(
            parse("duration").key_violation(),
            Some(KeyViolation::Duration)
        );
        assert_eq!(
            parse("frozen<list<duration>>").key_violation(),
            Some(KeyViolation::Duration)
        );
        assert_eq!(
            parse("list<int>").key_violation(),
            Some(KeyViolation::NonFrozenCollection)
        );
        assert_eq!(
            parse("addr").key_violation(),
            Some(KeyViolation::NonFrozenUdt)
        );
        assert_eq!(parse("frozen<list<int>>").key_violation(), None);
        assert_eq!(parse("frozen<addr>").key_violation(), None);
        assert_eq!(parse("tuple<int, text>").key_violation(), None);
        assert_eq!(parse("timeuuid").key_violation(), None);
    }

    #[test]
    fn canonical_forms() {
        let c = |s: &str| parse(s).canonical().to_string();
        assert_eq!(
            c("frozen<tuple<int, frozen<list<int>>>>"),
            "tuple<int, list<int>>"
        );
        assert_eq!(c("tuple<int, list<int>>"), "tuple<int, list<int>>");
        assert_eq!(c("list<frozen<address>>"), "list<address>");
        assert_eq!(
            c("frozen<map<text, frozen<set<int>>>>"),
            "frozen<map<text, set<int>>>"
        );
        assert_eq!(c("FROZEN<Address>"), "frozen<address>");
        assert_eq!(c("vector<float, 3>"), "vector<float, 3>");
        assert_ne!(c("list<int>"), c("frozen<list<int>>"));
        assert_ne!(c("address"), c("frozen<address>"));
    }

    #[test]
    fn nesting_freezes() {
        assert_eq!(
            parse("list<int>").frozen_for_nesting().to_string(),
            "frozen<list<int>>"
        );
        assert_eq!(parse("int").frozen_for_nesting().to_string(), "int");
        assert_eq!(
            parse("map<addr, frozen<other>>").udt_names(),
            vec!["addr", "other"]
        );
    }
}
