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

use super::erased::ErasedValue;
use super::table::describe_type;
use super::types::CqlMapping;
use crate::error::RowError;
use crate::schema::model::UdtSchema;

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
    SerializationError::new(udt_error(
        U::udt_schema(),
        &format!("#{index}"),
        "no such field".to_owned(),
    ))
}

fn udt_error(schema: &UdtSchema, column: &str, detail: String) -> RowError {
    RowError::Value {
        table: format!("type {}", schema.name),
        column: column.to_owned(),
        rust_type: schema.rust_name,
        detail,
    }
}

/// `SerializeValue::serialize` for a derived UDT.
pub fn serialize_udt<'b, U: Udt>(
    value: &U,
    typ: &ColumnType<'_>,
    writer: CellWriter<'b>,
) -> Result<WrittenCellProof<'b>, SerializationError> {
    let schema = U::udt_schema();
    let ColumnType::UserDefinedType { definition, .. } = typ else {
        return Err(SerializationError::new(udt_error(
            schema,
            "",
            format!(
                "expected the user-defined type `{}`, found `{}`",
                schema.name,
                describe_type(typ)
            ),
        )));
    };
    if let Some(missing) = schema
        .fields
        .iter()
        .find(|f| !definition.field_types.iter().any(|(n, _)| n == f.name))
    {
        return Err(SerializationError::new(udt_error(
            schema,
            missing.name,
            format!(
                "the server's type `{}` has no field `{}`; add it with ALTER TYPE before writing",
                definition.name, missing.name
            ),
        )));
    }
    let mut builder = writer.into_value_builder();
    for (name, ftyp) in &definition.field_types {
        let sub = builder.make_sub_writer();
        match schema.fields.iter().position(|f| f.name == name) {
            Some(i) => match value.__field(i) {
                Some(v) => {
                    v.write_to(ftyp, sub)?;
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
    builder
        .finish()
        .map_err(|e| SerializationError::new(udt_error(schema, "", e.to_string())))
}

/// `DeserializeValue::type_check` for a derived UDT: every field must exist on the server's
/// type with a type its Rust field can read.
pub fn type_check_udt<U: Udt>(typ: &ColumnType<'_>) -> Result<(), TypeCheckError> {
    let schema = U::udt_schema();
    let ColumnType::UserDefinedType { definition, .. } = typ else {
        return Err(TypeCheckError::new(udt_error(
            schema,
            "",
            format!(
                "expected the user-defined type `{}`, found `{}`",
                schema.name,
                describe_type(typ)
            ),
        )));
    };
    for f in &schema.fields {
        let Some((_, ftyp)) = definition.field_types.iter().find(|(n, _)| n == f.name) else {
            return Err(TypeCheckError::new(udt_error(
                schema,
                f.name,
                format!(
                    "the server's type `{}` has no field `{}`",
                    definition.name, f.name
                ),
            )));
        };
        if (f.type_check)(ftyp).is_err() {
            return Err(TypeCheckError::new(RowError::Type {
                table: format!("type {}", definition.name),
                column: f.name.to_owned(),
                expected: f.cql_type.to_string(),
                rust_type: f.rust_type,
                actual: describe_type(ftyp),
            }));
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
            return Err(DeserializationError::new(RowError::Null {
                table: format!("type {}", schema.name),
                column: String::new(),
                expected: schema.name.to_owned(),
                rust_type: schema.rust_name,
            }));
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
        Ok(UdtReader { schema, slots })
    }

    /// Reads field `index` with `read` (generated code passes `<Ty as CqlMapping>::__read`).
    pub fn field<T>(
        &self,
        index: usize,
        read: fn(&'m ColumnType<'m>, Option<FrameSlice<'f>>) -> Result<T, DeserializationError>,
    ) -> Result<T, DeserializationError> {
        let field = self.schema.fields.get(index);
        let name = field.map_or("", |f| f.name);
        let Some(Some((typ, raw))) = self.slots.get(index).copied() else {
            return Err(DeserializationError::new(udt_error(
                self.schema,
                name,
                "the server's type has no such field".to_owned(),
            )));
        };
        read(typ, raw).map_err(|e| {
            DeserializationError::new(if raw.is_none() {
                RowError::Null {
                    table: format!("type {}", self.schema.name),
                    column: name.to_owned(),
                    expected: field.map_or_else(String::new, |f| f.cql_type.to_string()),
                    rust_type: field.map_or("?", |f| f.rust_type),
                }
            } else {
                udt_error(self.schema, name, e.to_string())
            })
        })
    }
}
