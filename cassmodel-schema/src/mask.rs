//! Dynamic data masking (Cassandra 5.0): a column declared `MASKED WITH` one of the six
//! native masking functions shows its masked value to every role without the `UNMASK`
//! permission. One description of a mask for the derive (which checks it), the DDL and the
//! comparison with `system_schema.column_masks`.

use std::fmt;

/// A native masking function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskFunction {
    /// `mask_null()`: null.
    Null,
    /// `mask_default()`: a fixed value of the column's type (`****` for text, 0, ...).
    Default,
    /// `mask_replace(value)`: the given value, of the column's type.
    Replace,
    /// `mask_inner(begin, end[, padding])`: text with all but the first `begin` and the last
    /// `end` characters replaced by `padding` (`*`); `null` for either keeps none.
    Inner,
    /// `mask_outer(begin, end[, padding])`: the first `begin` and last `end` characters
    /// replaced.
    Outer,
    /// `mask_hash([algorithm])`: a hash of the value (a `blob`; SHA-256 by default).
    Hash,
}

/// Every masking function, in the order messages list them.
pub const MASK_FUNCTIONS: [MaskFunction; 6] = [
    MaskFunction::Null,
    MaskFunction::Default,
    MaskFunction::Replace,
    MaskFunction::Inner,
    MaskFunction::Outer,
    MaskFunction::Hash,
];

impl MaskFunction {
    /// Its CQL name.
    pub const fn name(self) -> &'static str {
        match self {
            MaskFunction::Null => "mask_null",
            MaskFunction::Default => "mask_default",
            MaskFunction::Replace => "mask_replace",
            MaskFunction::Inner => "mask_inner",
            MaskFunction::Outer => "mask_outer",
            MaskFunction::Hash => "mask_hash",
        }
    }

    /// The function named `name` (case-insensitive, with or without the `system.` keyspace).
    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.to_ascii_lowercase();
        let name = name.strip_prefix("system.").unwrap_or(&name);
        MASK_FUNCTIONS.into_iter().find(|f| f.name() == name)
    }

    /// The forms it is written in, for messages.
    pub const fn forms(self) -> &'static str {
        match self {
            MaskFunction::Null => "`mask_null()`",
            MaskFunction::Default => "`mask_default()`",
            MaskFunction::Replace => "`mask_replace(<value of the column's type>)`",
            MaskFunction::Inner => {
                "`mask_inner(begin, end)` or `mask_inner(begin, end, \"#\")`, \
                 `begin` and `end` numbers of characters or `null`"
            }
            MaskFunction::Outer => {
                "`mask_outer(begin, end)` or `mask_outer(begin, end, \"#\")`, \
                 `begin` and `end` numbers of characters or `null`"
            }
            MaskFunction::Hash => "`mask_hash()` or `mask_hash(\"SHA-512\")`",
        }
    }
}

/// An argument of a masking function, as CQL writes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MaskArg {
    /// `null`
    Null,
    /// An integer.
    Int(i64),
    /// A string (written quoted).
    Text(String),
    /// Another literal of the column's type (`mask_replace(1.5)`, `true`), as written.
    Literal(String),
}

impl fmt::Display for MaskArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaskArg::Null => f.write_str("null"),
            MaskArg::Int(n) => write!(f, "{n}"),
            MaskArg::Text(s) => write!(f, "'{}'", s.replace('\'', "''")),
            MaskArg::Literal(s) => f.write_str(s),
        }
    }
}

/// A column's mask: a function and its arguments. Displays as the CQL call
/// (`mask_inner(1, null)`), the text after `MASKED WITH`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mask {
    /// The function.
    pub function: MaskFunction,
    /// Its arguments, in order.
    pub args: Vec<MaskArg>,
}

impl fmt::Display for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.function.name())?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        f.write_str(")")
    }
}

impl Mask {
    /// The mask as the derive's `#[cass(masked = ..)]` takes it: the call with Rust literals
    /// (`mask_inner(1, null, "#")`, `mask_replace("hidden")`).
    pub fn rust_form(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match a {
                MaskArg::Text(t) => format!("{t:?}"),
                a => a.to_string(),
            })
            .collect();
        format!("{}({})", self.function.name(), args.join(", "))
    }

    /// Why `args` do not fit `function` (the count, the kinds), or `None`.
    pub fn problem(function: MaskFunction, args: &[MaskArg]) -> Option<String> {
        let ok = match function {
            MaskFunction::Null | MaskFunction::Default => args.is_empty(),
            MaskFunction::Replace => {
                matches!(args, [a] if !matches!(a, MaskArg::Null))
            }
            MaskFunction::Inner | MaskFunction::Outer => {
                let count = |a: &MaskArg| matches!(a, MaskArg::Null | MaskArg::Int(0..));
                match args {
                    [b, e] => count(b) && count(e),
                    [b, e, MaskArg::Text(p)] => count(b) && count(e) && p.chars().count() == 1,
                    _ => false,
                }
            }
            MaskFunction::Hash => matches!(args, [] | [MaskArg::Text(_)]),
        };
        (!ok).then(|| format!("write {}", function.forms()))
    }

    /// The mask as `system_schema.column_masks` holds it: the function's name and each
    /// argument's type and value as text (`null` as `None`).
    pub fn from_live(function: &str, types: &[String], values: &[Option<String>]) -> Option<Mask> {
        let function = MaskFunction::from_name(function)?;
        let args = types
            .iter()
            .zip(values)
            .map(|(t, v)| match (t.as_str(), v) {
                (_, None) => MaskArg::Null,
                // Cassandra 5.0 stores a null argument as an empty value.
                (t, Some(v)) if v.is_empty() && !matches!(t, "text" | "varchar" | "ascii") => {
                    MaskArg::Null
                }
                // The types CQL writes as quoted strings.
                (
                    "text" | "varchar" | "ascii" | "date" | "time" | "timestamp" | "inet",
                    Some(v),
                ) => MaskArg::Text(v.clone()),
                ("int" | "bigint" | "smallint" | "tinyint" | "varint", Some(v)) => v
                    .parse()
                    .map_or_else(|_| MaskArg::Literal(v.clone()), MaskArg::Int),
                (_, Some(v)) => MaskArg::Literal(v.clone()),
            })
            .collect();
        Some(Mask { function, args })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_checks() {
        let m = Mask {
            function: MaskFunction::Inner,
            args: vec![MaskArg::Int(1), MaskArg::Null, MaskArg::Text("#".into())],
        };
        assert_eq!(m.to_string(), "mask_inner(1, null, '#')");
        assert_eq!(m.rust_form(), "mask_inner(1, null, \"#\")");
        assert_eq!(Mask::problem(m.function, &m.args), None);
        assert!(Mask::problem(MaskFunction::Inner, &[MaskArg::Int(1)]).is_some());
        assert!(Mask::problem(MaskFunction::Inner, &[MaskArg::Int(-1), MaskArg::Null]).is_some());
        assert!(Mask::problem(MaskFunction::Null, &[MaskArg::Null]).is_some());
        assert!(Mask::problem(MaskFunction::Replace, &[MaskArg::Null]).is_some());
        assert_eq!(
            Mask::problem(MaskFunction::Hash, &[MaskArg::Text("SHA-512".into())]),
            None
        );
        assert_eq!(
            MaskFunction::from_name("system.MASK_DEFAULT"),
            Some(MaskFunction::Default)
        );
        assert_eq!(MaskFunction::from_name("mask_nothing"), None);
        let live = Mask::from_live(
            "mask_inner",
            &["int".into(), "int".into()],
            &[Some("1".into()), None],
        );
        assert_eq!(
            live.map(|m| m.to_string()).as_deref(),
            Some("mask_inner(1, null)")
        );
        // As system_schema.column_masks has them (Cassandra 5.0.8): null as an empty value.
        let live = Mask::from_live(
            "mask_outer",
            &["int".into(), "int".into(), "text".into()],
            &[Some("".into()), Some("2".into()), Some("#".into())],
        );
        assert_eq!(
            live.map(|m| m.to_string()).as_deref(),
            Some("mask_outer(null, 2, '#')")
        );
        let quoted = MaskArg::Text("it's".into());
        assert_eq!(quoted.to_string(), "'it''s'");
    }
}
