//! The statements of a `.cql` file, as `cqlsh -f` reads them: separated by `;`, with `--`,
//! `//` and `/* */` comments, and `;` inside string literals (`'..'` with `''` for a quote,
//! `$$..$$`) and quoted names (`".."`) left alone.

/// The statements of `text`, each trimmed and without its `;` and comments; empty ones
/// dropped. A last statement without `;` counts too.
///
/// ```
/// let text = "-- a comment; not a statement\nCREATE TABLE t (k int PRIMARY KEY);\n\
///             INSERT INTO t (k, v) VALUES (1, 'a;b'); /* done */";
/// assert_eq!(
///     cassmodel_cli::cql_statements(text),
///     ["CREATE TABLE t (k int PRIMARY KEY)", "INSERT INTO t (k, v) VALUES (1, 'a;b')"]
/// );
/// ```
pub fn cql_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                current.push(c);
                // A quote doubled inside is the quote itself; the literal goes on.
                while let Some(d) = chars.next() {
                    current.push(d);
                    if d == c {
                        if chars.peek() == Some(&c) {
                            current.extend(chars.next());
                        } else {
                            break;
                        }
                    }
                }
            }
            '$' if chars.peek() == Some(&'$') => {
                current.push_str("$$");
                chars.next();
                let mut last = '\0';
                for d in chars.by_ref() {
                    current.push(d);
                    if last == '$' && d == '$' {
                        break;
                    }
                    last = d;
                }
            }
            '-' if chars.peek() == Some(&'-') => skip_line(&mut chars),
            '/' if chars.peek() == Some(&'/') => skip_line(&mut chars),
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = '\0';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
                current.push(' ');
            }
            ';' => push(&mut out, &mut current),
            _ => current.push(c),
        }
    }
    push(&mut out, &mut current);
    out
}

fn skip_line(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for d in chars.by_ref() {
        if d == '\n' {
            break;
        }
    }
}

fn push(out: &mut Vec<String>, current: &mut String) {
    let statement = current.trim();
    if !statement.is_empty() {
        out.push(statement.to_owned());
    }
    current.clear();
}

#[cfg(test)]
mod tests {
    use super::cql_statements;

    #[test]
    fn separators_inside_literals_and_comments_do_not_split() {
        let text = "-- 0001_create.cql\n\
                    -- every statement is idempotent; run again freely\n\
                    CREATE TABLE IF NOT EXISTS ks.\"a;b\" (k int PRIMARY KEY, v text)\n\
                    WITH comment = 'it''s; fine';\n\
                    // another comment;\n\
                    CREATE FUNCTION ks.f (x int) RETURNS NULL ON NULL INPUT RETURNS int \
                    LANGUAGE java AS $$ return x; $$;\n\
                    /* a; block */ ALTER TABLE ks.t ADD IF NOT EXISTS c int\n";
        assert_eq!(
            cql_statements(text),
            [
                "CREATE TABLE IF NOT EXISTS ks.\"a;b\" (k int PRIMARY KEY, v text)\n\
                 WITH comment = 'it''s; fine'",
                "CREATE FUNCTION ks.f (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE \
                 java AS $$ return x; $$",
                "ALTER TABLE ks.t ADD IF NOT EXISTS c int",
            ]
        );
        assert!(cql_statements("-- only comments;\n  ;\n").is_empty());
    }
}
