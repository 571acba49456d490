//! The trait `#[derive(CassUdt)]` implements, and the generic UDT codec it delegates to.
//!
//! Fields are matched by name against the type definition the server sends, so a UDT whose
//! fields were reordered or extended on the server (`ALTER TYPE ... ADD`) still reads and
//! writes correctly; a field the struct has but the server's type lacks is an error, never a
//! silent loss.

use scylla::deserialize::value::{DeserializeValue, UdtIterator};
use scylla::deserialize::{DeserializationError, FrameSlice, TypeCheckError};
use scylla::frame::response::result::ColumnType;
use scylla::serialize::SerializationError;
use scylla::serialize::writers::{CellWriter, WrittenCellProof};

use cassmodel_schema::quote_ident;

use super::erased::ErasedValue;
use super::reason::describe_type;
use super::reason::{deserialize_reason, serialize_reason, type_check_reason};
use super::types::CqlMapping;
use crate::error::row::{RowError, rust_name};
use crate::schema::model::{ColumnDef, UdtSchema};

/// A Rust struct mapped to a CQL user-defined type. Implemented by `#[derive(CassUdt)]`.
pub trait Udt: CqlMapping {
    /// The type's description, built on first use.
    fn udt_schema() -> &'static UdtSchema;

    /// Field `index` (an index into [`UdtSchema::fields`]) as a value to write; `None` past
    /// the last field.
    #[doc(hidden)]
    fn __field(&self, index: usize) -> Option<&dyn ErasedValue>;
}

/// Error for a field index the struct does not have (a cassmodel bug, never a panic).
fn no_such_field<U: Udt>(index: usize) -> SerializationError {
    let schema = U::udt_schema();
    SerializationError::new(udt_error(
        schema.name.to_owned(),
        &format!("#{index}"),
        schema.rust_name,
        "no such field".to_owned(),
    ))
}

/// An error in field `field` (empty: the type as a whole) of the user-defined type `udt`.
fn udt_error(udt: String, field: &str, rust_type: &'static str, detail: String) -> RowError {
    RowError::UdtField {
        udt,
        field: field.to_owned(),
        rust_type,
        detail,
    }
}

/// `keyspace.name` of the server's type `typ`, or the struct's type name if `typ` is not a
/// user-defined type.
fn udt_name(schema: &UdtSchema, typ: &ColumnType<'_>) -> String {
    match typ {
        ColumnType::UserDefinedType { definition, .. } => {
            format!("{}.{}", definition.keyspace, definition.name)
        }
        _ => schema.name.to_owned(),
    }
}

/// The error of a value that is not of a user-defined type at all.
fn not_a_udt(schema: &UdtSchema, typ: &ColumnType<'_>) -> RowError {
    udt_error(
        schema.name.to_owned(),
        "",
        schema.rust_name,
        format!(
            "expected the user-defined type `{}`, found `{}`",
            schema.name,
            describe_type(typ)
        ),
    )
}

/// The error of a field the struct has and the server's type `udt` lacks, with the statement
/// that adds it.
fn missing_field(udt: String, field: &ColumnDef, what: &str) -> RowError {
    let detail = format!(
        "the server's type has no such field; add it with `ALTER TYPE {udt} ADD {} {}` {what}",
        quote_ident(field.name),
        field.cql_type
    );
    udt_error(udt, field.name, field.rust_type, detail)
}

/// `SerializeValue::serialize` for a derived UDT.
pub fn serialize_udt<'b, U: Udt>(
    value: &U,
    typ: &ColumnType<'_>,
    writer: CellWriter<'b>,
) -> Result<WrittenCellProof<'b>, SerializationError> {
    let schema = U::udt_schema();
    let ColumnType::UserDefinedType { definition, .. } = typ else {
        return Err(SerializationError::new(not_a_udt(schema, typ)));
    };
    if let Some(missing) = schema
        .fields
        .iter()
        .find(|f| !definition.field_types.iter().any(|(n, _)| n == f.name))
    {
        let udt = udt_name(schema, typ);
        return Err(SerializationError::new(missing_field(
            udt,
            missing,
            "before writing",
        )));
    }
    let mut builder = writer.into_value_builder();
    for (name, ftyp) in &definition.field_types {
        let sub = builder.make_sub_writer();
        match schema.fields.iter().position(|f| f.name == name) {
            Some(i) => match value.__field(i) {
                Some(v) => {
                    v.write_to(ftyp, sub)
                        .map_err(|e| field_write_error(schema, typ, i, e))?;
                }
                None => return Err(no_such_field::<U>(i)),
            },
            // A field the server has and the struct does not: null, as CQL does for fields
            // added by ALTER TYPE.
            None => {
                sub.set_null();
            }
        }
    }
    builder.finish().map_err(|e| {
        SerializationError::new(udt_error(
            udt_name(schema, typ),
            "",
            schema.rust_name,
            e.to_string(),
        ))
    })
}

/// The error of writing field `index` of a value of `schema`: named by its type and field; a
/// value refused before it is written ([`RowError::Refused`]) stays one, for the column's
/// error to name its table and column.
#[cold]
fn field_write_error(
    schema: &UdtSchema,
    typ: &ColumnType<'_>,
    index: usize,
    e: SerializationError,
) -> SerializationError {
    if let Some(RowError::Refused { .. }) = e.downcast_ref::<RowError>() {
        return e;
    }
    let field = schema.fields.get(index);
    SerializationError::new(udt_error(
        udt_name(schema, typ),
        field.map_or("", |f| f.name),
        field.map_or(schema.rust_name, |f| f.rust_type),
        serialize_reason(&e),
    ))
}

/// `DeserializeValue::type_check` for a derived UDT: every field must exist on the server's
/// type with a type its Rust field can read.
pub fn type_check_udt<U: Udt>(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
    let schema = U::udt_schema();
    let ColumnType::UserDefinedType { definition, .. } = typ else {
        return Err(TypeCheckError::new(not_a_udt(schema, typ)));
    };
    for f in &schema.fields {
        let Some((_, ftyp)) = definition.field_types.iter().find(|(n, _)| n == f.name) else {
            let udt = udt_name(schema, typ);
            return Err(TypeCheckError::new(missing_field(udt, f, "to read it")));
        };
        if let Err(e) = (f.type_check)(ftyp) {
            let (expected, actual) = (f.cql_type.to_string(), describe_type(ftyp));
            // The same type on both sides: the Rust type does not fit it; say why.
            let detail = if expected == actual {
                type_check_reason(&e)
            } else {
                format!("the struct expects CQL type `{expected}`, but the type has `{actual}`")
            };
            return Err(TypeCheckError::new(udt_error(
                udt_name(schema, typ),
                f.name,
                f.rust_type,
                detail,
            )));
        }
    }
    Ok(())
}

/// One field's type and raw value, as the server sent it.
type Slot<'f, 'm> = Option<(&'m ColumnType<'m>, Option<FrameSlice<'f>>)>;

/// The fields of one UDT value, matched to the struct's fields by name; the body of a
/// generated `DeserializeValue::deserialize` reads them with [`UdtReader::field`].
pub struct UdtReader<'f, 'm, const N: usize> {
    schema: &'static UdtSchema,
    /// The server's type, which names the type in an error.
    typ: &'m ColumnType<'m>,
    slots: [Slot<'f, 'm>; N],
}

impl<'f, 'm, const N: usize> UdtReader<'f, 'm, N> {
    /// Splits a UDT value into its fields.
    pub fn new<U: Udt>(
        typ: &'m ColumnType<'m>,
        v: Option<FrameSlice<'f>>,
    ) -> Result<Self, DeserializationError> {
        let schema = U::udt_schema();
        if v.is_none() {
            let rust = rust_name(schema.rust_name);
            return Err(DeserializationError::new(udt_error(
                udt_name(schema, typ),
                "",
                schema.rust_name,
                format!("null, which `{rust}` cannot hold; read it as an `Option<{rust}>`"),
            )));
        }
        let iter = <UdtIterator<'f, 'm> as DeserializeValue<'f, 'm>>::deserialize(typ, v)?;
        let mut slots: [Slot<'f, 'm>; N] = [None; N];
        for ((name, ftyp), raw) in iter {
            if let Some(i) = schema.fields.iter().position(|f| f.name == name)
                && let Some(slot) = slots.get_mut(i)
            {
                // A field missing from the serialized form (older writer) reads as null.
                *slot = Some((ftyp, raw?.flatten()));
            }
        }
        Ok(UdtReader { schema, typ, slots })
    }

    /// Reads field `index` with `read` (generated code passes `<Ty as CqlMapping>::__read`).
    pub fn field<T>(
        &self,
        index: usize,
        read: fn(&'m ColumnType<'m>, Option<FrameSlice<'f>>) -> Result<T, DeserializationError>,
    ) -> Result<T, DeserializationError> {
        let Some(Some((typ, raw))) = self.slots.get(index).copied() else {
            let field = self.schema.fields.get(index);
            return Err(DeserializationError::new(udt_error(
                udt_name(self.schema, self.typ),
                field.map_or("", |f| f.name),
                field.map_or(self.schema.rust_name, |f| f.rust_type),
                "the server's type has no such field".to_owned(),
            )));
        };
        read(typ, raw).map_err(|e| self.field_error(index, raw.is_none(), &e))
    }

    /// The error of reading field `index` (`null`: its value is null).
    #[cold]
    #[inline(never)]
    fn field_error(
        &self,
        index: usize,
        null: bool,
        e: &DeserializationError,
    ) -> DeserializationError {
        let field = self.schema.fields.get(index);
        let rust_type = field.map_or(self.schema.rust_name, |f| f.rust_type);
        let detail = match field {
            Some(f) if null => {
                let ty = rust_name(f.rust_type);
                format!(
                    "null, but `{ty}` (CQL `{}`) cannot hold a null; make the field an \
                     `Option<{ty}>`",
                    f.cql_type
                )
            }
            _ => deserialize_reason(e),
        };
        DeserializationError::new(udt_error(
            udt_name(self.schema, self.typ),
            field.map_or("", |f| f.name),
            rust_type,
            detail,
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, OnceLock};

    use cassmodel_schema::CqlType;
    use scylla::frame::response::result::{ColumnSpec, NativeType, TableSpec, UserDefinedType};
    use scylla::serialize::value::SerializeValue;

    use super::*;
    use crate::schema::model::ColumnKind;

    /// A user-defined type written as `#[derive(CassUdt)]` writes it: `addr (zip int)`.
    #[derive(Debug, PartialEq)]
    struct Addr {
        zip: i32,
    }

    impl SerializeValue for Addr {
        fn serialize<'b>(
            &self,
            typ: &ColumnType<'_>,
            writer: CellWriter<'b>,
        ) -> Result<WrittenCellProof<'b>, SerializationError> {
            serialize_udt(self, typ, writer)
        }
    }

    impl<'f, 'm> DeserializeValue<'f, 'm> for Addr {
        fn type_check(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
            type_check_udt::<Addr>(typ)
        }

        fn deserialize(
            typ: &'m ColumnType<'m>,
            v: Option<FrameSlice<'f>>,
        ) -> Result<Self, DeserializationError> {
            let fields = UdtReader::<'f, 'm, 1>::new::<Addr>(typ, v)?;
            Ok(Addr {
                zip: fields.field(0, <i32 as CqlMapping>::__read)?,
            })
        }
    }

    impl CqlMapping for Addr {
        fn cql_type() -> CqlType {
            CqlType::Udt("addr".into())
        }
    }

    impl Udt for Addr {
        fn udt_schema() -> &'static UdtSchema {
            static SCHEMA: OnceLock<UdtSchema> = OnceLock::new();
            SCHEMA.get_or_init(|| {
                let zip = ColumnDef::new::<i32>("zip", "zip", ColumnKind::Regular, None, false);
                UdtSchema::new("Addr", "addr", vec![zip])
            })
        }

        fn __field(&self, index: usize) -> Option<&dyn ErasedValue> {
            (index == 0).then_some(&self.zip as &dyn ErasedValue)
        }
    }

    /// The server's `ks.addr`, with these fields.
    fn server_addr(fields: &[(&'static str, NativeType)]) -> ColumnType<'static> {
        ColumnType::UserDefinedType {
            frozen: true,
            definition: Arc::new(UserDefinedType {
                name: "addr".into(),
                keyspace: "ks".into(),
                field_types: fields
                    .iter()
                    .map(|(n, t)| ((*n).into(), ColumnType::Native(t.clone())))
                    .collect(),
            }),
        }
    }

    fn row_error(e: &(dyn std::error::Error + 'static)) -> RowError {
        let row = e
            .downcast_ref::<TypeCheckError>()
            .and_then(|e| e.downcast_ref::<RowError>())
            .or_else(|| {
                e.downcast_ref::<DeserializationError>()
                    .and_then(|e| e.downcast_ref::<RowError>())
            })
            .or_else(|| {
                e.downcast_ref::<SerializationError>()
                    .and_then(|e| e.downcast_ref::<RowError>())
            });
        row.cloned().expect("a RowError")
    }

    /// A field's error names the type (with its keyspace) and the field, never calls the
    /// type a table.
    #[test]
    fn errors_name_the_type_and_the_field() {
        let text_zip = server_addr(&[("zip", NativeType::Text)]);
        let e = row_error(&type_check_udt::<Addr>(&text_zip).expect_err("text is not i32"));
        assert_eq!(
            e,
            RowError::UdtField {
                udt: "ks.addr".into(),
                field: "zip".into(),
                rust_type: "i32",
                detail: "the struct expects CQL type `int`, but the type has `text`".into(),
            }
        );
        assert_eq!(
            e.to_string(),
            "type `ks.addr`, field `zip` (Rust `i32`): the struct expects CQL type `int`, but \
             the type has `text`"
        );

        // A field the server's type lacks: the statement that adds it.
        let no_zip = server_addr(&[("street", NativeType::Text)]);
        let e = row_error(&type_check_udt::<Addr>(&no_zip).expect_err("no zip"));
        assert_eq!(
            e.to_string(),
            "type `ks.addr`, field `zip` (Rust `i32`): the server's type has no such field; add \
             it with `ALTER TYPE ks.addr ADD zip int` to read it"
        );
        let mut buf = Vec::new();
        let e = row_error(
            &Addr { zip: 1 }
                .serialize(&no_zip, CellWriter::new(&mut buf))
                .expect_err("no zip"),
        );
        assert!(
            e.to_string().ends_with("ADD zip int` before writing"),
            "{e}"
        );

        // Not a user-defined type at all: the type as a whole.
        let e = row_error(
            &type_check_udt::<Addr>(&ColumnType::Native(NativeType::Int)).expect_err("an int"),
        );
        assert_eq!(
            e.to_string(),
            "type `addr` (Rust `Addr`): expected the user-defined type `addr`, found `int`"
        );

        // A null field of a type that cannot hold one.
        let int_zip = server_addr(&[("zip", NativeType::Int)]);
        let null_zip = (-1i32).to_be_bytes();
        let e = row_error(
            &Addr::deserialize(&int_zip, Some(FrameSlice::new_borrowed(&null_zip)))
                .expect_err("a null zip"),
        );
        assert_eq!(
            e.to_string(),
            "type `ks.addr`, field `zip` (Rust `i32`): null, but `i32` (CQL `int`) cannot hold a \
             null; make the field an `Option<i32>`"
        );
        // And a whole value, read back.
        let zip = [0, 0, 0, 4, 0, 0, 0, 7];
        assert_eq!(
            Addr::deserialize(&int_zip, Some(FrameSlice::new_borrowed(&zip))).expect("read"),
            Addr { zip: 7 }
        );
    }

    /// A table's column of a user-defined type whose fields differ: the column's type is the
    /// same on both sides, so the error says which field does not fit.
    #[test]
    fn a_column_of_a_type_whose_field_differs() {
        let home = ColumnDef::new::<Addr>("home", "home", ColumnKind::Regular, None, true);
        let table = TableSpec::owned("ks".into(), "users".into());
        let spec = ColumnSpec::owned(
            "home".into(),
            server_addr(&[("zip", NativeType::Text)]),
            table,
        );
        let e = super::super::table::check_columns("User", &[home], &[spec]).expect_err("text");
        assert_eq!(
            row_error(&e).to_string(),
            "table `ks.users`, column `home` (Rust `Addr`, CQL `frozen<addr>`): type `ks.addr`, \
             field `zip` (Rust `i32`): the struct expects CQL type `int`, but the type has `text`"
        );
    }
}
