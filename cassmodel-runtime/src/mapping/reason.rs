//! A driver column type as CQL text ([`describe_type`]), and why the driver refused a type or
//! a value, in CQL's words: the driver's own messages show its column types as Rust debug
//! output (`Collection { frozen: false, typ: Map(Native(Float), Native(Int)) }`) and its Rust
//! types by their full paths; these show `map<float, int>` and `Vec<(f32, i32)>`, and follow a
//! collection, tuple or UDT down to the element that failed.
//!
//! An error of cassmodel's own ([`RowError`]) and a driver error of a kind not known here are
//! shown as they are.

use cassmodel_schema::CqlType;
use scylla::deserialize::value as de;
use scylla::deserialize::{DeserializationError, TypeCheckError};
use scylla::frame::response::result::ColumnType;
use scylla::serialize::SerializationError;
use scylla::serialize::value as ser;

use crate::error::row::{RowError, rust_name};

/// Why a Rust type cannot read a CQL type (a failed `type_check`).
pub(crate) fn type_check_reason(e: &TypeCheckError) -> String {
    if let Some(row) = e.downcast_ref::<RowError>() {
        return row.to_string();
    }
    let Some(b) = e.downcast_ref::<de::BuiltinTypeCheckError>() else {
        return e.to_string();
    };
    use de::BuiltinTypeCheckErrorKind as K;
    let why = match &b.kind {
        K::MismatchedType { expected } => format!("it reads {}", one_of(expected)),
        K::NotDeserializableToVec => "a `Vec` reads a list, a set or a vector".to_owned(),
        K::SetOrListError(k) => {
            use de::SetOrListTypeCheckErrorKind as S;
            match k {
                S::NotSetOrList => "it reads a list or a set".to_owned(),
                S::NotSet => "it reads a set".to_owned(),
                S::ElementTypeCheckFailed(e) => format!("its elements: {}", type_check_reason(e)),
                other => other.to_string(),
            }
        }
        K::VectorError(k) => {
            use de::VectorTypeCheckErrorKind as V;
            match k {
                V::NotVector => "it reads a vector".to_owned(),
                V::ElementTypeCheckFailed(e) => format!("its elements: {}", type_check_reason(e)),
                other => other.to_string(),
            }
        }
        K::MapError(k) => {
            use de::MapTypeCheckErrorKind as M;
            match k {
                M::NotMap => "it reads a map".to_owned(),
                M::KeyTypeCheckFailed(e) => format!("its keys: {}", type_check_reason(e)),
                M::ValueTypeCheckFailed(e) => format!("its values: {}", type_check_reason(e)),
                other => other.to_string(),
            }
        }
        K::TupleError(k) => {
            use de::TupleTypeCheckErrorKind as T;
            match k {
                T::NotTuple => "it reads a tuple".to_owned(),
                T::WrongElementCount {
                    rust_type_el_count,
                    cql_type_el_count,
                } => format!(
                    "the CQL tuple has {cql_type_el_count} elements, the Rust tuple \
                     {rust_type_el_count}"
                ),
                T::FieldTypeCheckFailed { position, err } => {
                    format!("its element {position}: {}", type_check_reason(err))
                }
                other => other.to_string(),
            }
        }
        K::UdtError(de::UdtTypeCheckErrorKind::FieldTypeCheckFailed { field_name, err }) => {
            format!("its field `{field_name}`: {}", type_check_reason(err))
        }
        other => other.to_string(),
    };
    format!(
        "Rust `{}` cannot read CQL `{}`: {why}",
        rust_name(b.rust_name),
        describe_type(&b.cql_type)
    )
}

/// Why a value read from the server could not be decoded.
pub(crate) fn deserialize_reason(e: &DeserializationError) -> String {
    if let Some(row) = e.downcast_ref::<RowError>() {
        return row.to_string();
    }
    let Some(b) = e.downcast_ref::<de::BuiltinDeserializationError>() else {
        return e.to_string();
    };
    use de::BuiltinDeserializationErrorKind as K;
    let why = match &b.kind {
        K::SetOrListError(k) => {
            use de::SetOrListDeserializationErrorKind as S;
            match k {
                S::ElementDeserializationFailed(e) => {
                    format!("one of its elements: {}", deserialize_reason(e))
                }
                other => other.to_string(),
            }
        }
        K::VectorError(de::VectorDeserializationErrorKind::ElementDeserializationFailed(e)) => {
            format!("one of its elements: {}", deserialize_reason(e))
        }
        K::MapError(k) => {
            use de::MapDeserializationErrorKind as M;
            match k {
                M::KeyDeserializationFailed(e) => {
                    format!("one of its keys: {}", deserialize_reason(e))
                }
                M::ValueDeserializationFailed(e) => {
                    format!("one of its values: {}", deserialize_reason(e))
                }
                other => other.to_string(),
            }
        }
        K::TupleError(de::TupleDeserializationErrorKind::FieldDeserializationFailed {
            position,
            err,
        }) => format!("its element {position}: {}", deserialize_reason(err)),
        other => other.to_string(),
    };
    format!(
        "Rust `{}` could not read a CQL `{}` value: {why}",
        rust_name(b.rust_name),
        describe_type(&b.cql_type)
    )
}

/// Why a value could not be written (its type, or the value itself).
pub(crate) fn serialize_reason(e: &SerializationError) -> String {
    if let Some(row) = e.downcast_ref::<RowError>() {
        return row.to_string();
    }
    if let Some(b) = e.downcast_ref::<ser::BuiltinTypeCheckError>() {
        use ser::BuiltinTypeCheckErrorKind as K;
        let why = match &b.kind {
            K::MismatchedType { expected } => format!("it is written as {}", one_of(expected)),
            K::SetOrListError(ser::SetOrListTypeCheckErrorKind::NotSetOrList) => {
                "it is written as a list or a set".to_owned()
            }
            K::MapError(ser::MapTypeCheckErrorKind::NotMap) => "it is written as a map".to_owned(),
            K::TupleError(k) => {
                use ser::TupleTypeCheckErrorKind as T;
                match k {
                    T::NotTuple => "it is written as a tuple".to_owned(),
                    T::WrongElementCount {
                        rust_type_el_count,
                        cql_type_el_count,
                    } => format!(
                        "the CQL tuple has {cql_type_el_count} elements, the Rust tuple \
                         {rust_type_el_count}"
                    ),
                    other => other.to_string(),
                }
            }
            other => other.to_string(),
        };
        return format!(
            "Rust `{}` cannot be written as CQL `{}`: {why}",
            rust_name(b.rust_name),
            describe_type(&b.got)
        );
    }
    let Some(b) = e.downcast_ref::<ser::BuiltinSerializationError>() else {
        return e.to_string();
    };
    use ser::BuiltinSerializationErrorKind as K;
    let why = match &b.kind {
        K::SetOrListError(ser::SetOrListSerializationErrorKind::ElementSerializationFailed(e)) => {
            format!("one of its elements: {}", serialize_reason(e))
        }
        K::VectorError(ser::VectorSerializationErrorKind::ElementSerializationFailed(e)) => {
            format!("one of its elements: {}", serialize_reason(e))
        }
        K::MapError(k) => {
            use ser::MapSerializationErrorKind as M;
            match k {
                M::KeySerializationFailed(e) => format!("one of its keys: {}", serialize_reason(e)),
                M::ValueSerializationFailed(e) => {
                    format!("one of its values: {}", serialize_reason(e))
                }
                other => other.to_string(),
            }
        }
        K::TupleError(ser::TupleSerializationErrorKind::ElementSerializationFailed {
            index,
            err,
        }) => format!("its element {index}: {}", serialize_reason(err)),
        K::UdtError(ser::UdtSerializationErrorKind::FieldSerializationFailed {
            field_name,
            err,
        }) => {
            format!("its field `{field_name}`: {}", serialize_reason(err))
        }
        other => other.to_string(),
    };
    format!(
        "Rust `{}` could not be written as CQL `{}`: {why}",
        rust_name(b.rust_name),
        describe_type(&b.got)
    )
}

/// `e`, with the driver's reason in CQL's words: as a [`RowError::Value`] whose detail is
/// [`serialize_reason`] (which [`write_error`](crate::error::row::write_error) puts under the
/// column's table and name); an error of cassmodel's own as it is.
#[cold]
pub(crate) fn explained(e: SerializationError) -> SerializationError {
    if e.downcast_ref::<RowError>().is_some() {
        return e;
    }
    SerializationError::new(RowError::Value {
        table: String::new(),
        column: String::new(),
        rust_type: "",
        detail: serialize_reason(&e),
    })
}

/// `` `int` ``, `` `text` or `ascii` ``.
fn one_of(types: &[ColumnType<'_>]) -> String {
    let names: Vec<String> = types
        .iter()
        .map(|t| format!("`{}`", describe_type(t)))
        .collect();
    match names.as_slice() {
        [] => "no CQL type".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The CQL text of a driver column type, for messages. A part of a kind this version of
/// cassmodel does not know (a type a later protocol adds) is written `unknown`:
/// `list<unknown>`.
pub fn describe_type(typ: &ColumnType<'_>) -> String {
    use scylla::frame::response::result::CollectionType;
    if let Some(t) = to_cql_type(typ) {
        return t.to_string();
    }
    let frozen = |frozen: bool, t: String| {
        if frozen { format!("frozen<{t}>") } else { t }
    };
    match typ {
        ColumnType::Collection { frozen: f, typ } => frozen(
            *f,
            match typ {
                CollectionType::List(e) => format!("list<{}>", describe_type(e)),
                CollectionType::Set(e) => format!("set<{}>", describe_type(e)),
                CollectionType::Map(k, v) => {
                    format!("map<{}, {}>", describe_type(k), describe_type(v))
                }
                _ => "unknown".to_owned(),
            },
        ),
        ColumnType::Tuple(ts) => format!(
            "tuple<{}>",
            ts.iter().map(describe_type).collect::<Vec<_>>().join(", ")
        ),
        ColumnType::Vector { typ, dimensions } => {
            format!("vector<{}, {dimensions}>", describe_type(typ))
        }
        _ => "unknown".to_owned(),
    }
}

fn to_cql_type(typ: &ColumnType<'_>) -> Option<CqlType> {
    use cassmodel_schema::NativeType as N;
    use scylla::frame::response::result::{CollectionType, NativeType as D};
    let boxed = |t: &ColumnType<'_>| to_cql_type(t).map(Box::new);
    Some(match typ {
        ColumnType::Native(n) => CqlType::Native(match n {
            D::Ascii => N::Ascii,
            D::Boolean => N::Boolean,
            D::Blob => N::Blob,
            D::Counter => N::Counter,
            D::Date => N::Date,
            D::Decimal => N::Decimal,
            D::Double => N::Double,
            D::Duration => N::Duration,
            D::Float => N::Float,
            D::Int => N::Int,
            D::BigInt => N::Bigint,
            D::Text => N::Text,
            D::Timestamp => N::Timestamp,
            D::Inet => N::Inet,
            D::SmallInt => N::Smallint,
            D::TinyInt => N::Tinyint,
            D::Time => N::Time,
            D::Timeuuid => N::Timeuuid,
            D::Uuid => N::Uuid,
            D::Varint => N::Varint,
            _ => return None,
        }),
        ColumnType::Collection { frozen, typ } => {
            let t = match typ {
                CollectionType::List(e) => CqlType::List(boxed(e)?),
                CollectionType::Set(e) => CqlType::Set(boxed(e)?),
                CollectionType::Map(k, v) => CqlType::Map(boxed(k)?, boxed(v)?),
                _ => return None,
            };
            if *frozen { t.frozen() } else { t }
        }
        ColumnType::UserDefinedType { frozen, definition } => {
            let t = CqlType::Udt(definition.name.to_string());
            if *frozen { t.frozen() } else { t }
        }
        ColumnType::Tuple(ts) => {
            CqlType::Tuple(ts.iter().map(to_cql_type).collect::<Option<Vec<_>>>()?)
        }
        ColumnType::Vector { typ, dimensions } => {
            CqlType::Vector(boxed(typ)?, u32::from(*dimensions))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use scylla::frame::response::result::{CollectionType, NativeType};

    use super::*;

    #[test]
    fn column_types_are_described_in_cql() {
        use scylla::frame::response::result::UserDefinedType;
        let native = |n| ColumnType::Native(n);
        let addr = ColumnType::UserDefinedType {
            frozen: true,
            definition: std::sync::Arc::new(UserDefinedType {
                name: "addr".into(),
                keyspace: "ks".into(),
                field_types: vec![],
            }),
        };
        let cases = [
            (native(NativeType::BigInt), "bigint"),
            (
                ColumnType::Tuple(vec![native(NativeType::Int), addr.clone()]),
                "tuple<int, frozen<addr>>",
            ),
            (
                ColumnType::Vector {
                    typ: Box::new(native(NativeType::Float)),
                    dimensions: 3,
                },
                "vector<float, 3>",
            ),
            (
                ColumnType::Collection {
                    frozen: true,
                    typ: CollectionType::Set(Box::new(native(NativeType::Timeuuid))),
                },
                "frozen<set<timeuuid>>",
            ),
        ];
        for (typ, text) in cases {
            assert_eq!(describe_type(&typ), text);
        }
    }
}
