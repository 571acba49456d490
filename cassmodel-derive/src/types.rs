//! What can be told about a field's Rust type from its syntax alone, for errors that name
//! the exact problem (`Option` in a key, a counter among regular columns). The trait bounds
//! the generated code puts on each field catch what syntax cannot (type aliases).

use cassmodel_schema::{CqlType, NativeType};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{GenericArgument, PathArguments, Type};

/// The shape of a Rust field type, as far as its last path segment tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Option,
    List,
    Set,
    Map,
    Counter,
    Duration,
    /// `Vector<N>`: a `vector<float, N>`.
    Vector,
    Other,
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// The first generic type argument of the last segment: `T` in `Option<T>`.
pub fn first_type_arg(ty: &Type) -> Option<&Type> {
    type_args(ty).into_iter().next()
}

/// Every generic type argument of the last segment: `K, V` in `HashMap<K, V>`.
pub fn type_args(ty: &Type) -> Vec<&Type> {
    let Some(seg) = last_segment(ty) else {
        return Vec::new();
    };
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// The name of the last segment: `BTreeMap` in `std::collections::BTreeMap<K, V>`.
pub fn last_ident(ty: &Type) -> Option<String> {
    last_segment(ty).map(|s| s.ident.to_string())
}

/// `f32` or `f64` when the type is one, or holds one in a tuple, an array or a `Vec`: a
/// type that is neither `Ord` nor `Hash`.
pub fn float_in(ty: &Type) -> Option<String> {
    match ty {
        Type::Tuple(t) => t.elems.iter().find_map(float_in),
        Type::Array(a) => float_in(&a.elem),
        Type::Group(g) => float_in(&g.elem),
        Type::Paren(p) => float_in(&p.elem),
        _ => match last_ident(ty)?.as_str() {
            name @ ("f32" | "f64") => Some(name.to_owned()),
            "Vec" | "Option" => first_type_arg(ty).and_then(float_in),
            _ => None,
        },
    }
}

/// A type as a user writes it: `Vec<(f32, i32)>`, not the tokens' `Vec < (f32 , i32) >`.
pub fn type_text(ty: &Type) -> String {
    use quote::ToTokens;
    let mut out = ty.to_token_stream().to_string();
    for (from, to) in [
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        (" :: ", "::"),
    ] {
        out = out.replace(from, to);
    }
    out.replace(":: ", "::")
}

/// Whether the type is written `String` (any path ending in `String`, without arguments).
pub fn is_string(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "String" && s.arguments.is_none())
}

pub fn shape(ty: &Type) -> Shape {
    let Some(seg) = last_segment(ty) else {
        return Shape::Other;
    };
    match seg.ident.to_string().as_str() {
        "Option" => Shape::Option,
        // `Vec<u8>` is a blob, any other `Vec` a list.
        "Vec" => match first_type_arg(ty).and_then(last_segment) {
            Some(s) if s.ident == "u8" => Shape::Other,
            _ => Shape::List,
        },
        "HashSet" | "BTreeSet" => Shape::Set,
        "HashMap" | "BTreeMap" => Shape::Map,
        "Counter" => Shape::Counter,
        "CqlDuration" | "Duration" => Shape::Duration,
        "Vector" => Shape::Vector,
        _ => Shape::Other,
    }
}

/// Whether a field of this type (or this override) is a counter column.
pub fn is_counter(ty: &Type, cql_type: Option<&CqlType>) -> bool {
    match cql_type {
        Some(t) => t.is_counter(),
        None => match shape(ty) {
            Shape::Counter => true,
            Shape::Option => first_type_arg(ty).is_some_and(|t| shape(t) == Shape::Counter),
            _ => false,
        },
    }
}

/// The CQL type of a field as far as its syntax tells (the `cql_type` override, else the
/// Rust type's shape, `frozen` applied), for rules that depend on the type; `None` when the
/// syntax does not tell (a struct, an alias, ...). Elements that cannot be told are given as
/// `int`: only the outer structure, `blob` and `duration` matter to the callers.
pub fn syntactic_cql_type(ty: &Type, cql_type: Option<&CqlType>, frozen: bool) -> Option<CqlType> {
    let t = match cql_type {
        Some(t) => t.clone(),
        None => rust_cql_type(ty)?,
    };
    Some(if frozen { t.frozen() } else { t })
}

fn rust_cql_type(ty: &Type) -> Option<CqlType> {
    let element = |t: Option<&Type>| {
        Box::new(
            t.and_then(rust_cql_type)
                .unwrap_or(CqlType::Native(NativeType::Int))
                .frozen_for_nesting(),
        )
    };
    let args = type_args(ty);
    Some(match shape(ty) {
        Shape::Option => return rust_cql_type(first_type_arg(ty)?),
        Shape::List => CqlType::List(element(args.first().copied())),
        Shape::Set => CqlType::Set(element(args.first().copied())),
        Shape::Map => CqlType::Map(
            element(args.first().copied()),
            element(args.get(1).copied()),
        ),
        Shape::Counter => CqlType::Native(NativeType::Counter),
        Shape::Duration => CqlType::Native(NativeType::Duration),
        Shape::Vector => CqlType::Vector(
            Box::new(CqlType::Native(NativeType::Float)),
            vector_dimension(ty)?,
        ),
        Shape::Other => {
            let name = last_segment(ty)?.ident.to_string();
            CqlType::Native(match name.as_str() {
                "Vec" => NativeType::Blob, // `Vec<u8>`: any other `Vec` is a list
                "String" => NativeType::Text,
                "bool" => NativeType::Boolean,
                "i8" => NativeType::Tinyint,
                "i16" => NativeType::Smallint,
                "i32" => NativeType::Int,
                "i64" => NativeType::Bigint,
                "f32" => NativeType::Float,
                "f64" => NativeType::Double,
                // The runtime's mappings of these names (a type of the user's own with one of
                // them is read as the runtime's: the names are those of chrono, uuid, std and
                // the driver's value types, which cassmodel maps).
                "DateTime" | "CqlTimestamp" => NativeType::Timestamp,
                "NaiveDate" | "CqlDate" => NativeType::Date,
                "NaiveTime" | "CqlTime" => NativeType::Time,
                "Timeuuid" | "CqlTimeuuid" => NativeType::Timeuuid,
                "Uuid" => NativeType::Uuid,
                "IpAddr" => NativeType::Inet,
                "CqlDecimal" => NativeType::Decimal,
                "CqlVarint" => NativeType::Varint,
                _ => return None,
            })
        }
    })
}

/// The `N` of `Vector<N>` when it is written as a number.
fn vector_dimension(ty: &Type) -> Option<u32> {
    let PathArguments::AngleBracketed(args) = &last_segment(ty)?.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        })) => n.base10_parse().ok(),
        _ => None,
    })
}

/// Tokens that build `t` at run time through the runtime's re-export of the type model.
pub fn cql_type_tokens(t: &CqlType, private: &syn::Ident) -> TokenStream {
    let boxed = |t: &CqlType| {
        let inner = cql_type_tokens(t, private);
        quote!(#private::std::Box::new(#inner))
    };
    match t {
        CqlType::Native(n) => {
            let v = syn::Ident::new(native_variant(*n), proc_macro2::Span::call_site());
            quote!(#private::table::CqlType::Native(#private::table::NativeType::#v))
        }
        CqlType::List(e) => {
            let e = boxed(e);
            quote!(#private::table::CqlType::List(#e))
        }
        CqlType::Set(e) => {
            let e = boxed(e);
            quote!(#private::table::CqlType::Set(#e))
        }
        CqlType::Map(k, v) => {
            let (k, v) = (boxed(k), boxed(v));
            quote!(#private::table::CqlType::Map(#k, #v))
        }
        CqlType::Frozen(e) => {
            let e = boxed(e);
            quote!(#private::table::CqlType::Frozen(#e))
        }
        CqlType::Tuple(ts) => {
            let ts = ts.iter().map(|t| cql_type_tokens(t, private));
            quote!(#private::table::CqlType::Tuple(#private::std::Vec::from([#(#ts),*])))
        }
        CqlType::Udt(name) => {
            quote!(#private::table::CqlType::Udt(#private::std::String::from(#name)))
        }
        CqlType::Vector(e, n) => {
            let e = boxed(e);
            quote!(#private::table::CqlType::Vector(#e, #n))
        }
    }
}

fn native_variant(n: NativeType) -> &'static str {
    match n {
        NativeType::Ascii => "Ascii",
        NativeType::Bigint => "Bigint",
        NativeType::Blob => "Blob",
        NativeType::Boolean => "Boolean",
        NativeType::Counter => "Counter",
        NativeType::Date => "Date",
        NativeType::Decimal => "Decimal",
        NativeType::Double => "Double",
        NativeType::Duration => "Duration",
        NativeType::Float => "Float",
        NativeType::Inet => "Inet",
        NativeType::Int => "Int",
        NativeType::Smallint => "Smallint",
        NativeType::Text => "Text",
        NativeType::Time => "Time",
        NativeType::Timestamp => "Timestamp",
        NativeType::Timeuuid => "Timeuuid",
        NativeType::Tinyint => "Tinyint",
        NativeType::Uuid => "Uuid",
        NativeType::Varint => "Varint",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Type {
        syn::parse_str(s).unwrap()
    }

    #[test]
    fn shapes() {
        assert_eq!(shape(&ty("Option<i32>")), Shape::Option);
        assert_eq!(shape(&ty("std::vec::Vec<String>")), Shape::List);
        assert_eq!(shape(&ty("Vec<u8>")), Shape::Other);
        assert_eq!(shape(&ty("HashMap<Uuid, i32>")), Shape::Map);
        assert_eq!(shape(&ty("BTreeSet<i32>")), Shape::Set);
        assert_eq!(shape(&ty("cassmodel::value::Counter")), Shape::Counter);
        assert_eq!(shape(&ty("Duration")), Shape::Duration);
        assert_eq!(shape(&ty("(i32, i32)")), Shape::Other);
        assert!(is_counter(&ty("Option<Counter>"), None));
        assert!(!is_counter(&ty("i64"), None));
        assert!(is_counter(&ty("i64"), Some(&"counter".parse().unwrap())));
        let cql = |t: &str, frozen| syntactic_cql_type(&ty(t), None, frozen).map(|t| t.to_string());
        assert_eq!(
            cql("Option<Vec<String>>", false).as_deref(),
            Some("list<text>")
        );
        assert_eq!(cql("Vec<u8>", false).as_deref(), Some("blob"));
        assert_eq!(
            cql("BTreeSet<Vec<u8>>", false).as_deref(),
            Some("set<blob>")
        );
        assert_eq!(
            cql("HashMap<Uuid, i32>", true).as_deref(),
            Some("frozen<map<uuid, int>>")
        );
        assert_eq!(cql("Address", false), None);
        assert_eq!(
            cql("Option<Vector<768>>", false).as_deref(),
            Some("vector<float, 768>")
        );
        assert_eq!(cql("Vector<DIM>", false), None);
    }

    #[test]
    fn floats_and_type_texts() {
        let ty = |s: &str| syn::parse_str::<Type>(s).unwrap();
        let float = |s: &str| float_in(&ty(s));
        assert_eq!(float("f32").as_deref(), Some("f32"));
        assert_eq!(float("(i32, f64)").as_deref(), Some("f64"));
        assert_eq!(float("Vec<[f32; 2]>").as_deref(), Some("f32"));
        assert_eq!(
            float("Option<(String, core::primitive::f64)>").as_deref(),
            Some("f64")
        );
        // A wrapper of its own may be `Ord` (`OrderedFloat<f32>`): not looked into.
        assert_eq!(float("OrderedFloat<f32>"), None);
        assert_eq!(float("i32"), None);
        assert_eq!(
            type_text(&ty("std::collections::BTreeMap<f32, Vec<(i32, String)>>")),
            "std::collections::BTreeMap<f32, Vec<(i32, String)>>"
        );
    }
}
