//! The Rust type of a CQL type, for a generated field: the type's text, the CQL type that
//! Rust type stands for on its own (so that a `cql_type` attribute is written exactly when
//! the two differ), whether it is `Ord` (a set or a map key needs it), and the `use` items
//! it needs.

use std::collections::{BTreeMap, BTreeSet};

use cassmodel_runtime::{CqlType, NativeType};

/// The longest tuple cassmodel maps (`CqlMapping` is implemented for tuples up to 12).
const MAX_TUPLE: usize = 12;

/// A Rust type for a CQL type.
#[derive(Debug, Clone)]
pub(super) struct RustType {
    /// As written in the field, e.g. `BTreeMap<String, Vec<i32>>`.
    pub text: String,
    /// The CQL type this Rust type is stored as without a `cql_type` attribute.
    pub implied: CqlType,
    /// Whether it is `Ord`, so that a `BTreeSet` or a `BTreeMap` key can hold it.
    pub ord: bool,
}

/// The `use` items a module needs, by path (`std::collections::BTreeMap`).
pub(super) type Uses = BTreeSet<&'static str>;

/// The Rust type of a CQL type (its outer `frozen<...>` already taken off by the caller),
/// with the names of the user-defined types' structs; `Err` says why cassmodel cannot hold
/// it. A tuple's elements are `Option`s: the cluster can hold a null in each.
pub(super) fn rust_type(
    t: &CqlType,
    udts: &BTreeMap<String, String>,
    uses: &mut Uses,
) -> Result<RustType, String> {
    let nested = |t: &CqlType, uses: &mut Uses| rust_type(unfrozen(t), udts, uses);
    Ok(match t {
        CqlType::Native(n) => native(*n, uses),
        CqlType::Frozen(inner) => return nested(inner, uses),
        CqlType::List(e) => {
            let e = nested(e, uses)?;
            RustType {
                text: format!("Vec<{}>", e.text),
                implied: CqlType::List(Box::new(e.implied.frozen_for_nesting())),
                ord: e.ord,
            }
        }
        // A set of values that are not `Ord` (floats, ...) is a `Vec` with the set's type.
        CqlType::Set(e) => {
            let e = nested(e, uses)?;
            let element = Box::new(e.implied.frozen_for_nesting());
            if e.ord {
                uses.insert("std::collections::BTreeSet");
                RustType {
                    text: format!("BTreeSet<{}>", e.text),
                    implied: CqlType::Set(element),
                    ord: true,
                }
            } else {
                RustType {
                    text: format!("Vec<{}>", e.text),
                    implied: CqlType::List(element),
                    ord: false,
                }
            }
        }
        // A map whose keys are not `Ord` is a `Vec` of pairs with the map's type.
        CqlType::Map(k, v) => {
            let (k, v) = (nested(k, uses)?, nested(v, uses)?);
            let (ki, vi) = (
                k.implied.frozen_for_nesting(),
                v.implied.frozen_for_nesting(),
            );
            if k.ord {
                uses.insert("std::collections::BTreeMap");
                RustType {
                    text: format!("BTreeMap<{}, {}>", k.text, v.text),
                    implied: CqlType::Map(Box::new(ki), Box::new(vi)),
                    ord: v.ord,
                }
            } else {
                RustType {
                    text: format!("Vec<({}, {})>", k.text, v.text),
                    implied: CqlType::List(Box::new(CqlType::Tuple(vec![ki, vi]))),
                    ord: false,
                }
            }
        }
        CqlType::Tuple(ts) => {
            if ts.len() > MAX_TUPLE {
                return Err(format!(
                    "`{t}` has {} elements; cassmodel maps tuples of up to {MAX_TUPLE}",
                    ts.len()
                ));
            }
            let ts = ts
                .iter()
                .map(|t| nested(t, uses))
                .collect::<Result<Vec<_>, _>>()?;
            // Every element can be null in CQL (`(1, null)`, in a key column's tuple too).
            let texts: Vec<String> = ts.iter().map(|t| format!("Option<{}>", t.text)).collect();
            RustType {
                text: if texts.len() == 1 {
                    format!("({},)", texts[0])
                } else {
                    format!("({})", texts.join(", "))
                },
                ord: ts.iter().all(|t| t.ord),
                implied: CqlType::Tuple(
                    ts.into_iter()
                        .map(|t| t.implied.frozen_for_nesting())
                        .collect(),
                ),
            }
        }
        CqlType::Udt(name) => RustType {
            text: udts
                .get(name)
                .cloned()
                .ok_or_else(|| format!("the type `{name}` is not in the keyspace"))?,
            implied: CqlType::Udt(name.clone()),
            // The generated structs derive `PartialEq` only: a float field could not be `Ord`.
            ord: false,
        },
        CqlType::Vector(e, n) => {
            if **e != CqlType::Native(NativeType::Float) {
                return Err(format!(
                    "`{t}`: cassmodel's `Vector<N>` holds `vector<float, N>` only (the type \
                     vector search uses)"
                ));
            }
            uses.insert("cassmodel::value::Vector");
            RustType {
                text: format!("Vector<{n}>"),
                implied: t.clone(),
                ord: false,
            }
        }
    })
}

/// Clippy's `type_complexity` lint fires on a type whose score is above this.
const CLIPPY_COMPLEXITY: u64 = 250;

/// Whether clippy's `type_complexity` lint fires on the field type `text` (a tuple of
/// `Option`s in an `Option` soon does): the field then allows it, since the type is the
/// column's.
pub(super) fn too_complex(text: &str) -> bool {
    syn::parse_str::<syn::Type>(text).is_ok_and(|t| complexity(&t, 1) > CLIPPY_COMPLEXITY)
}

/// Clippy's score of type `t` at depth `nest`: ten times its depth for each named type and
/// tuple in it.
fn complexity(t: &syn::Type, nest: u64) -> u64 {
    let inner: Vec<&syn::Type> = match t {
        syn::Type::Path(p) => p
            .path
            .segments
            .iter()
            .filter_map(|s| match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => Some(a.args.iter()),
                _ => None,
            })
            .flatten()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        syn::Type::Tuple(t) => t.elems.iter().collect(),
        _ => return 0,
    };
    10 * nest + inner.iter().map(|t| complexity(t, nest + 1)).sum::<u64>()
}

fn unfrozen(t: &CqlType) -> &CqlType {
    match t {
        CqlType::Frozen(inner) => unfrozen(inner),
        t => t,
    }
}

/// The Rust type of a native CQL type: the standard library's where it has one, chrono's
/// for dates and times, uuid's `Uuid`, and the driver's value types (re-exported as
/// `cassmodel::value`) for the rest.
fn native(n: NativeType, uses: &mut Uses) -> RustType {
    use NativeType as N;
    let (text, implied, ord, paths): (&str, NativeType, bool, &[&'static str]) = match n {
        // `String` is `text`: an `ascii` column gets a `cql_type` attribute.
        N::Ascii => ("String", N::Text, true, &[]),
        N::Text => ("String", N::Text, true, &[]),
        N::Bigint => ("i64", n, true, &[]),
        N::Int => ("i32", n, true, &[]),
        N::Smallint => ("i16", n, true, &[]),
        N::Tinyint => ("i8", n, true, &[]),
        N::Boolean => ("bool", n, true, &[]),
        N::Float => ("f32", n, false, &[]),
        N::Double => ("f64", n, false, &[]),
        N::Blob => ("Vec<u8>", n, true, &[]),
        N::Inet => ("IpAddr", n, true, &["std::net::IpAddr"]),
        N::Uuid => ("Uuid", n, true, &["uuid::Uuid"]),
        N::Timestamp => (
            "DateTime<Utc>",
            n,
            true,
            &["chrono::DateTime", "chrono::Utc"],
        ),
        N::Date => ("NaiveDate", n, true, &["chrono::NaiveDate"]),
        N::Time => ("NaiveTime", n, true, &["chrono::NaiveTime"]),
        N::Timeuuid => ("Timeuuid", n, true, &["cassmodel::value::Timeuuid"]),
        N::Counter => ("Counter", n, true, &["cassmodel::value::Counter"]),
        N::Decimal => ("Decimal", n, false, &["cassmodel::value::Decimal"]),
        N::Varint => ("Varint", n, false, &["cassmodel::value::Varint"]),
        N::Duration => ("Duration", n, false, &["cassmodel::value::Duration"]),
    };
    uses.extend(paths);
    RustType {
        text: text.to_owned(),
        implied: CqlType::Native(implied),
        ord,
    }
}

/// The names a `use` item of [`Uses`] brings into scope, which no generated struct may take.
pub(super) const IMPORTED: &[&str] = &[
    "BTreeMap",
    "BTreeSet",
    "IpAddr",
    "Uuid",
    "DateTime",
    "Utc",
    "NaiveDate",
    "NaiveTime",
    "Timeuuid",
    "Counter",
    "Decimal",
    "Varint",
    "Duration",
    "Vector",
    "CassTable",
    "CassUdt",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn of(t: &str) -> (String, String) {
        let udts = BTreeMap::from([("address".to_owned(), "Address".to_owned())]);
        let t: CqlType = t.parse().expect("a type");
        let r = rust_type(&t, &udts, &mut Uses::new()).expect("mapped");
        (r.text, r.implied.to_string())
    }

    #[test]
    fn types() {
        assert_eq!(of("ascii"), ("String".into(), "text".into()));
        assert_eq!(
            of("map<text, frozen<list<int>>>"),
            (
                "BTreeMap<String, Vec<i32>>".into(),
                "map<text, frozen<list<int>>>".into()
            )
        );
        assert_eq!(of("set<float>"), ("Vec<f32>".into(), "list<float>".into()));
        assert_eq!(
            of("map<double, text>"),
            (
                "Vec<(f64, String)>".into(),
                "list<tuple<double, text>>".into()
            )
        );
        assert_eq!(
            of("list<frozen<address>>"),
            ("Vec<Address>".into(), "list<frozen<address>>".into())
        );
        assert_eq!(
            of("tuple<int>"),
            ("(Option<i32>,)".into(), "tuple<int>".into())
        );
        assert_eq!(
            of("frozen<tuple<int, text>>"),
            (
                "(Option<i32>, Option<String>)".into(),
                "tuple<int, text>".into()
            )
        );
        assert_eq!(
            of("vector<float, 3>"),
            ("Vector<3>".into(), "vector<float, 3>".into())
        );
        let refused = |t: &str| {
            rust_type(
                &t.parse().expect("a type"),
                &BTreeMap::new(),
                &mut Uses::new(),
            )
            .is_err()
        };
        assert!(refused("vector<int, 3>"));
        assert!(refused("unknown_udt"));
    }

    /// As clippy scores them: its own test's `Vec<Vec<Box<(u32, u32, u32, u32)>>>` (300)
    /// is too complex, a key tuple of two `Option`s (110) is not.
    #[test]
    fn complexity_as_clippy_scores_it() {
        assert!(too_complex("Vec<Vec<Box<(u32, u32, u32, u32)>>>"));
        assert!(too_complex(
            "Option<(Option<i32>, Option<String>, Option<Vec<String>>)>"
        ));
        assert!(!too_complex("(Option<i32>, Option<String>)"));
        assert!(!too_complex("BTreeMap<String, Vec<(f64, String)>>"));
    }
}
