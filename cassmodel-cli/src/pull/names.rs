//! Rust names for CQL names: a field for a column (snake_case, a raw identifier for a Rust
//! keyword), a struct for a table or a type (PascalCase), each told whether the derive needs
//! the CQL name spelled out (`#[cass(name = "..")]`).

use std::collections::BTreeSet;

/// Rust's keywords (strict and reserved, edition 2024) that a raw identifier can take.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords no raw identifier can be: they get a `_` after them.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// The field for column `name`: its identifier as written (`r#type` for `type`) and whether
/// it differs from the column's name (then the field needs `#[cass(name = "..")]`).
pub(super) fn field_ident(column: &str) -> (String, bool) {
    let snake = words(column)
        .iter()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    let snake = match snake.chars().next() {
        None => "column".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("c_{snake}"),
        Some(_) => snake,
    };
    let ident = as_identifier(snake);
    let renamed = ident.trim_start_matches("r#") != column;
    (ident, renamed)
}

/// The struct for a table or type `name`, PascalCase (`user_videos` -> `UserVideos`).
pub(super) fn type_ident(name: &str) -> String {
    let pascal: String = words(name)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first
                    .to_uppercase()
                    .chain(c.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect();
    match pascal.chars().next() {
        None => "Unnamed".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("T{pascal}"),
        Some(_) => pascal,
    }
}

/// A module (file) name for struct `pascal`: its snake_case, raw for a keyword.
pub(super) fn module_ident(pascal: &str) -> String {
    field_ident(pascal).0
}

/// `first`, or else the first of `retry(1)`, `retry(2)`, ... that `taken` does not hold
/// (compared without `r#`); `taken` then holds it.
pub(super) fn unique(
    first: String,
    taken: &mut BTreeSet<String>,
    retry: impl Fn(usize) -> String,
) -> String {
    let mut name = first;
    let mut n = 1;
    while !taken.insert(name.trim_start_matches("r#").to_owned()) {
        name = retry(n);
        n += 1;
    }
    name
}

/// A snake_case identifier unique among `taken`: `ident`, else `ident_2`, `ident_3`, ...
pub(super) fn unique_snake(ident: String, taken: &mut BTreeSet<String>) -> String {
    let base = ident.trim_start_matches("r#").to_owned();
    unique(ident, taken, |n| format!("{base}_{}", n + 1))
}

/// `name` as an identifier: raw (`r#type`) for a keyword, `self_` for what cannot be raw.
pub(super) fn as_identifier(name: String) -> String {
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// The words of a name: split at anything but ASCII letters and digits, and where a lower
/// case letter or digit meets an upper case one (`userId`, `HTTPLog` -> `HTTP`, `Log`).
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = c.is_ascii_uppercase()
                && match prev {
                    Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                    Some(p) if p.is_ascii_uppercase() => {
                        next.is_some_and(|n| n.is_ascii_lowercase())
                    }
                    _ => false,
                };
            if boundary && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        assert_eq!(field_ident("user_id"), ("user_id".into(), false));
        assert_eq!(field_ident("userId"), ("user_id".into(), true));
        assert_eq!(field_ident("type"), ("r#type".into(), false));
        assert_eq!(field_ident("self"), ("self_".into(), true));
        assert_eq!(field_ident("Mixed Case"), ("mixed_case".into(), true));
        assert_eq!(field_ident("1st"), ("c_1st".into(), true));
        assert_eq!(field_ident("_x"), ("x".into(), true));
        assert_eq!(field_ident("select"), ("select".into(), false));
    }

    #[test]
    fn types() {
        assert_eq!(type_ident("user_videos"), "UserVideos");
        assert_eq!(type_ident("UserEvents"), "UserEvents");
        assert_eq!(type_ident("http_log"), "HttpLog");
        assert_eq!(type_ident("t1"), "T1");
        assert_eq!(type_ident("1t"), "T1t");
        assert_eq!(module_ident("UserVideos"), "user_videos");
        assert_eq!(module_ident("Type"), "r#type");
    }
}
