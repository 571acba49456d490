//! Materialized views (`#[cass(view_of = Base)]`): the rules Cassandra sets on a view's
//! primary key, checked at compile time against the base table's `__FIELD_KINDS`, and the
//! trait every table but a view has, which every write asks for.

use super::projection::field_kind;

/// A table whose rows can be written: every `#[derive(CassTable)]` struct but a materialized
/// view. Every write (`Db::insert`, `update()`, `delete()`, batches) asks for it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a materialized view: Cassandra refuses writes to a view",
    label = "a write to a view",
    note = "write the base table its `#[cass(view_of = ..)]` names: the server updates the view from it"
)]
pub trait Writable {}

/// A message built at compile time, for a `panic!` in a const check (at most 1,024 bytes).
struct Message {
    buf: [u8; 1024],
    len: usize,
}

impl Message {
    const fn new() -> Self {
        Message {
            buf: [0; 1024],
            len: 0,
        }
    }

    const fn push(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < self.buf.len() {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "a materialized view breaks Cassandra's rules for views",
        }
    }
}

/// `parts` joined: the message of a check evaluated in a `const`. (The `panic!` stays at the
/// check, so that the compiler's note points there and at nothing else.)
const fn message(parts: &[&str]) -> Message {
    let mut m = Message::new();
    let mut i = 0;
    while i < parts.len() {
        m = m.push(parts[i]);
        i += 1;
    }
    m
}

const fn is_key(kind: u8) -> bool {
    kind == field_kind::PARTITION_KEY || kind == field_kind::CLUSTERING
}

/// Cassandra's rules for a view's primary key, checked when the view's crate compiles:
/// every primary-key column of the base is in the view's primary key, at most one other
/// column of the base joins it, the base is a table (not a view) without counters. `view`
/// and `base` are the structs' names; `view_fields` the view's `(field, kind)` as
/// `__FIELD_KINDS` has them. Panics (a compile error in a `const`) with a message that names
/// the column and the fix.
pub const fn check_view(
    view: &str,
    base: &str,
    base_is_view: bool,
    base_fields: &[(&str, u8)],
    view_fields: &[(&str, u8)],
) {
    if base_is_view {
        let m = message(&[
            "`",
            view,
            "` is declared a view of `",
            base,
            "`, which is a materialized view itself: Cassandra builds a view only on a table; \
             write #[cass(view_of = <the table of `",
            base,
            "`>)]",
        ]);
        panic!("{}", m.as_str());
    }
    let mut i = 0;
    while i < base_fields.len() {
        let (name, kind) = base_fields[i];
        if kind == field_kind::COUNTER {
            let m = message(&[
                "`",
                base,
                "` is a counter table (`",
                name,
                "`), and Cassandra builds no materialized view of a counter table: keep a \
                 second counter table, updated beside it, instead of `",
                view,
                "`",
            ]);
            panic!("{}", m.as_str());
        }
        let in_view = field_kind::of(view_fields, name);
        if is_key(kind) && !is_key(in_view) {
            let fix = if in_view == field_kind::UNKNOWN {
                "add the field `"
            } else {
                "mark the field `"
            };
            let m = message(&[
                "`",
                view,
                "` (a view of `",
                base,
                "`) lacks `",
                name,
                "` in its primary key, and `",
                name,
                "` is a key column of `",
                base,
                "`: a view's primary key holds every primary-key column of its base table, so \
                 that each row of the view is one row of the base; ",
                fix,
                name,
                "` to `",
                view,
                "` as #[partition_key] or #[clustering]",
            ]);
            panic!("{}", m.as_str());
        }
        i += 1;
    }
    // The view's key columns that are not key columns of the base: at most one.
    let mut first: Option<&str> = None;
    let mut j = 0;
    while j < view_fields.len() {
        let (name, kind) = view_fields[j];
        let in_base = field_kind::of(base_fields, name);
        if in_base == field_kind::UNKNOWN {
            let m = message(&[
                "`",
                name,
                "` is a field of `",
                view,
                "` but not of `",
                base,
                "`: a view's fields are fields of its base table, of the same names and types; \
                 remove it, or add it to `",
                base,
                "`",
            ]);
            panic!("{}", m.as_str());
        }
        if is_key(kind) && !is_key(in_base) {
            if let Some(other) = first {
                let m = message(&[
                    "`",
                    view,
                    "` adds `",
                    other,
                    "` and `",
                    name,
                    "` to the primary key of `",
                    base,
                    "`: Cassandra allows a view's primary key at most one column that is not in \
                     its base table's primary key; keep one of them in the key and make the \
                     other a regular field",
                ]);
                panic!("{}", m.as_str());
            }
            first = Some(name);
        }
        j += 1;
    }
}

/// Cassandra's rules for a view of every column of its base (`#[cass(view_of = Base,
/// all_columns)]`, `SELECT *`), checked when the view's crate compiles: the base has no
/// static column (Cassandra refuses `SELECT *` of such a table), and the view's struct has
/// every field of the base (the view has every column). `base_statics` are the base's static
/// fields; the fields as in [`check_view`]. Panics (a compile error in a `const`) with a
/// message that names the column and the fix.
pub const fn check_view_of_all(
    view: &str,
    base: &str,
    base_statics: &[&str],
    base_fields: &[(&str, u8)],
    view_fields: &[(&str, u8)],
) {
    if let [name, ..] = base_statics {
        let m = message(&[
            "`",
            view,
            "` is declared a view of every column of `",
            base,
            "` (`all_columns`), and `",
            base,
            "` has the static column `",
            name,
            "`: Cassandra refuses `SELECT *` of a table with static columns; remove \
             `all_columns` from `",
            view,
            "` (its fields are then the columns it lists, without `",
            name,
            "`)",
        ]);
        panic!("{}", m.as_str());
    }
    let mut i = 0;
    while i < base_fields.len() {
        let (name, _) = base_fields[i];
        if field_kind::of(view_fields, name) == field_kind::UNKNOWN {
            let m = message(&[
                "`",
                view,
                "` is declared a view of every column of `",
                base,
                "` (`all_columns`: `SELECT *`), and lacks `",
                name,
                "`: the view has every column of its base; add the field `",
                name,
                "` to `",
                view,
                "` (of its type in `",
                base,
                "`), or remove `all_columns` to list the view's columns",
            ]);
            panic!("{}", m.as_str());
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use field_kind::{CELL, CLUSTERING, PARTITION_KEY};

    const BASE: &[(&str, u8)] = &[
        ("sensor", PARTITION_KEY),
        ("ts", CLUSTERING),
        ("site", CELL),
    ];

    #[test]
    fn a_view_with_every_base_key_column_and_one_more_passes() {
        check_view(
            "BySite",
            "Reading",
            false,
            BASE,
            &[
                ("site", PARTITION_KEY),
                ("sensor", CLUSTERING),
                ("ts", CLUSTERING),
            ],
        );
        // The same key, in another order, and nothing added.
        check_view(
            "ByTime",
            "Reading",
            false,
            BASE,
            &[
                ("ts", PARTITION_KEY),
                ("sensor", CLUSTERING),
                ("site", CELL),
            ],
        );
    }

    fn panic_text(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let e = std::panic::catch_unwind(f).expect_err("the check passed");
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    }

    #[test]
    fn a_missing_base_key_column_is_named() {
        let text = panic_text(|| {
            check_view(
                "BySite",
                "Reading",
                false,
                BASE,
                &[("site", PARTITION_KEY), ("sensor", CLUSTERING)],
            )
        });
        assert!(text.contains("lacks `ts` in its primary key"), "{text}");
        assert!(text.contains("add the field `ts`"), "{text}");
        let text = panic_text(|| {
            check_view(
                "BySite",
                "Reading",
                false,
                BASE,
                &[
                    ("site", PARTITION_KEY),
                    ("sensor", CLUSTERING),
                    ("ts", CELL),
                ],
            )
        });
        assert!(text.contains("mark the field `ts`"), "{text}");
        let text = panic_text(|| {
            check_view(
                "BySite",
                "Reading",
                false,
                BASE,
                &[
                    ("sensor", PARTITION_KEY),
                    ("ts", CLUSTERING),
                    ("place", CELL),
                ],
            )
        });
        assert!(
            text.contains("`place` is a field of `BySite` but not of `Reading`"),
            "{text}"
        );
    }

    #[test]
    fn two_added_key_columns_are_refused() {
        let base = &[("sensor", PARTITION_KEY), ("site", CELL), ("kind", CELL)];
        let text = panic_text(|| {
            check_view(
                "V",
                "Reading",
                false,
                base,
                &[
                    ("site", PARTITION_KEY),
                    ("kind", CLUSTERING),
                    ("sensor", CLUSTERING),
                ],
            )
        });
        assert!(text.contains("adds `site` and `kind`"), "{text}");
    }

    #[test]
    fn a_view_of_every_column_has_every_field_of_a_base_without_statics() {
        let view = &[
            ("site", PARTITION_KEY),
            ("sensor", CLUSTERING),
            ("ts", CLUSTERING),
        ];
        check_view_of_all("BySite", "Reading", &[], BASE, view);
        let text = panic_text(|| check_view_of_all("BySite", "Reading", &[], BASE, &view[1..]));
        assert!(
            text.contains(
                "and lacks `site`: the view has every column of its base; add the field `site`"
            ),
            "{text}"
        );
        let text = panic_text(|| check_view_of_all("BySite", "Reading", &["site"], BASE, view));
        assert!(
            text.contains("`Reading` has the static column `site`: Cassandra refuses `SELECT *`"),
            "{text}"
        );
    }
}
