//! Messages of the rules checked in a `const` (a `panic!` at compile time), built from the
//! names the rule finds: materialized views' keys, entities' identity tables.

/// A message built at compile time, for a `panic!` in a const check (at most 1,024 bytes).
pub(crate) struct Message {
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

    pub(crate) const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "a model breaks a rule checked at compile time",
        }
    }
}

/// `parts` joined: the message of a check evaluated in a `const`. (The `panic!` stays at the
/// check, so that the compiler's note points there and at nothing else.)
pub(crate) const fn message(parts: &[&str]) -> Message {
    let mut m = Message::new();
    let mut i = 0;
    while i < parts.len() {
        m = m.push(parts[i]);
        i += 1;
    }
    m
}

/// Whether `list` holds `name` (usable in constants: the compile-time link check of entities).
#[doc(hidden)]
pub const fn contains_str(list: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < list.len() {
        let a = list[i].as_bytes();
        let b = name.as_bytes();
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}
