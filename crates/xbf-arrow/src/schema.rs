//! The type mapping between XBF and Arrow (the table in the crate's doc).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef, TimeUnit, UnionFields, UnionMode};
use xbf::{Metadata, PrimitiveType as P, StructMetadata, Value, VecValue};

/// Schema metadata key holding the exact XBF record type (the hex of an
/// empty `vec<T>` message), so that XBF → Arrow → XBF keeps what Arrow's
/// types alone cannot say: fixed-width integers, struct and enum names,
/// tuples, signedness of 128-bit integers.
pub const XBF_TYPE_KEY: &str = "xbf:type";

/// Name of the one column of a record type that is not a struct.
pub const VALUE_COLUMN: &str = "value";

/// Name given to the record struct made from an Arrow schema.
pub const RECORD_NAME: &str = "Record";

pub(crate) fn unsupported(what: impl std::fmt::Display) -> ArrowError {
    ArrowError::NotYetImplemented(format!("no XBF <-> Arrow mapping for {what}"))
}

pub(crate) fn xbf_err(e: xbf::Error) -> ArrowError {
    ArrowError::ExternalError(Box::new(e))
}

/// The Arrow type of an XBF type and whether it is nullable (an option).
pub fn data_type(ty: &Metadata) -> Result<(DataType, bool), ArrowError> {
    Ok(match ty {
        Metadata::Option(inner) => match &**inner {
            // Arrow has one null per slot: `option<option<T>>` and
            // `option<unit>` would lose which level is absent.
            Metadata::Option(_) | Metadata::Primitive(P::Unit) => return Err(unsupported(ty)),
            Metadata::Enum(e) if !unit_only(e) => return Err(unsupported(format!("{ty} (a union has no nulls)"))),
            inner => (data_type(inner)?.0, true),
        },
        Metadata::Primitive(p) => (primitive(*p), *p == P::Unit),
        Metadata::Vec(el) => (DataType::List(Arc::new(field("item", el)?)), false),
        Metadata::Array(a) => {
            let n = i32::try_from(a.len).map_err(|_| unsupported(ty))?;
            (DataType::FixedSizeList(Arc::new(field("item", &a.element)?), n), false)
        }
        Metadata::Struct(s) => (DataType::Struct(struct_fields(s)?), false),
        Metadata::Tuple(items) => {
            let fields: Result<Vec<Field>, ArrowError> =
                items.iter().enumerate().map(|(i, t)| field(&i.to_string(), t)).collect();
            (DataType::Struct(fields?.into()), false)
        }
        Metadata::Map(m) => {
            let (kt, knull) = data_type(&m.key)?;
            if knull {
                return Err(unsupported(format!("{ty} (Arrow map keys are never null)")));
            }
            let entries = Fields::from(vec![Field::new("key", kt, false), field("value", &m.value)?]);
            (DataType::Map(Arc::new(Field::new("entries", DataType::Struct(entries), false)), false), false)
        }
        Metadata::Enum(e) if unit_only(e) => {
            (DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)), false)
        }
        Metadata::Enum(e) => {
            if e.len() > 128 {
                return Err(unsupported(format!("{ty} (a union has at most 128 members)")));
            }
            let ids = (0..e.len() as i8).collect::<Vec<_>>();
            let fields: Result<Vec<Field>, ArrowError> = e.variants().map(|(n, t)| field(n, t)).collect();
            // Nullable, since a union's nulls are its children's (a unit
            // variant is a null of its `Null` child); a union field is never
            // an option (refused above).
            (DataType::Union(UnionFields::try_new(ids, fields?)?, UnionMode::Dense), true)
        }
        Metadata::Any => (DataType::Binary, false),
        other => return Err(unsupported(other)),
    })
}

fn primitive(p: P) -> DataType {
    match p {
        P::Bool => DataType::Boolean,
        P::U8 => DataType::UInt8,
        P::U16 | P::FixedU16 => DataType::UInt16,
        P::U32 | P::FixedU32 => DataType::UInt32,
        P::U64 | P::FixedU64 => DataType::UInt64,
        P::I8 => DataType::Int8,
        P::I16 | P::FixedI16 => DataType::Int16,
        P::I32 | P::FixedI32 => DataType::Int32,
        P::I64 | P::FixedI64 => DataType::Int64,
        P::U128 | P::I128 | P::FixedU128 | P::FixedI128 => DataType::FixedSizeBinary(16),
        P::U256 | P::I256 => DataType::FixedSizeBinary(32),
        P::F32 => DataType::Float32,
        P::F64 => DataType::Float64,
        P::Bytes => DataType::Binary,
        P::String => DataType::Utf8,
        P::Unit => DataType::Null,
        P::Date => DataType::Date32,
        P::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
    }
}

pub(crate) fn unit_only(e: &xbf::EnumMetadata) -> bool {
    e.variants().all(|(_, t)| *t == Metadata::Primitive(P::Unit))
}

fn field(name: &str, ty: &Metadata) -> Result<Field, ArrowError> {
    let (dt, nullable) = data_type(ty)?;
    Ok(Field::new(name, dt, nullable))
}

fn struct_fields(s: &StructMetadata) -> Result<Fields, ArrowError> {
    let fields: Result<Vec<Field>, ArrowError> = s.fields().map(|(n, t)| field(n, t)).collect();
    Ok(fields?.into())
}

/// The Arrow schema of a block of records of type `ty`: a struct's fields
/// as columns, any other type as one column named `value`; the exact XBF
/// type is kept in the schema metadata under [`XBF_TYPE_KEY`].
pub fn arrow_schema(ty: &Metadata) -> Result<SchemaRef, ArrowError> {
    let fields = match ty {
        Metadata::Struct(s) => struct_fields(s)?,
        other => Fields::from(vec![field(VALUE_COLUMN, other)?]),
    };
    let meta = HashMap::from([(XBF_TYPE_KEY.to_owned(), type_tag(ty)?)]);
    Ok(Arc::new(Schema::new_with_metadata(fields, meta)))
}

/// The hex of an empty `vec<ty>` message: the type in XBF's own encoding.
fn type_tag(ty: &Metadata) -> Result<String, ArrowError> {
    let empty = VecValue::new(ty.clone(), Vec::new()).map_err(xbf_err)?;
    let bytes = xbf::encode_message(&Value::Vec(empty)).map_err(xbf_err)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn from_tag(tag: &str) -> Option<Metadata> {
    if !tag.len().is_multiple_of(2) || !tag.is_ascii() {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..tag.len()).step_by(2).map(|i| u8::from_str_radix(&tag[i..i + 2], 16).ok()).collect();
    match xbf::decode_message(&bytes?).ok()? {
        Value::Vec(v) => Some(v.element_type().clone()),
        _ => None,
    }
}

/// The XBF record type for an Arrow schema: the type kept under
/// [`XBF_TYPE_KEY`] when the schema is still exactly its mapping (a table
/// read from XBF), otherwise one derived from the Arrow types (the crate
/// doc lists how), a struct named `Record` of the columns.
pub fn xbf_type(schema: &Schema) -> Result<Metadata, ArrowError> {
    if let Some(ty) = schema.metadata().get(XBF_TYPE_KEY).and_then(|t| from_tag(t)) {
        if let Ok(mapped) = arrow_schema(&ty) {
            if mapped.fields() == schema.fields() {
                return Ok(ty);
            }
        }
    }
    let fields: Result<Vec<(String, Metadata)>, ArrowError> =
        schema.fields().iter().map(|f| Ok((f.name().clone(), of_field(f)?))).collect();
    let s = StructMetadata::new(RECORD_NAME, fields?).map_err(xbf_err)?;
    Ok(Metadata::Struct(Arc::new(s)))
}

/// The XBF type of an Arrow field: `option<T>` when it is nullable.
pub fn of_field(f: &Field) -> Result<Metadata, ArrowError> {
    let t = of_type(f.name(), f.data_type())?;
    Ok(match (f.is_nullable(), &t) {
        (false, _) | (true, Metadata::Primitive(P::Unit)) => t,
        // A union has no nulls of its own; a nullable one is a union.
        (true, _) if matches!(f.data_type(), DataType::Union(..)) => t,
        (true, _) => Metadata::option(t),
    })
}

/// The XBF type of an Arrow type (`name` names a struct or enum made).
pub fn of_type(name: &str, dt: &DataType) -> Result<Metadata, ArrowError> {
    Ok(match dt {
        DataType::Null => P::Unit.into(),
        DataType::Boolean => P::Bool.into(),
        DataType::Int8 => P::I8.into(),
        DataType::Int16 => P::I16.into(),
        DataType::Int32 => P::I32.into(),
        DataType::Int64 => P::I64.into(),
        DataType::UInt8 => P::U8.into(),
        DataType::UInt16 => P::U16.into(),
        DataType::UInt32 => P::U32.into(),
        DataType::UInt64 => P::U64.into(),
        DataType::Float32 => P::F32.into(),
        DataType::Float64 => P::F64.into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => P::String.into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => P::Bytes.into(),
        DataType::FixedSizeBinary(16) => P::U128.into(),
        DataType::FixedSizeBinary(32) => P::U256.into(),
        DataType::FixedSizeBinary(_) => P::Bytes.into(),
        DataType::Date32 | DataType::Date64 => P::Date.into(),
        DataType::Timestamp(_, _) => P::Timestamp.into(),
        DataType::List(f) | DataType::LargeList(f) | DataType::ListView(f) | DataType::LargeListView(f) => {
            Metadata::vec(of_field(f)?)
        }
        DataType::FixedSizeList(f, n) => Metadata::array(*n as u64, of_field(f)?),
        DataType::Struct(fields) => {
            let members: Result<Vec<(String, Metadata)>, ArrowError> =
                fields.iter().map(|f| Ok((f.name().clone(), of_field(f)?))).collect();
            Metadata::Struct(Arc::new(StructMetadata::new(name, members?).map_err(xbf_err)?))
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else { return Err(unsupported(dt)) };
            if kv.len() != 2 {
                return Err(unsupported(dt));
            }
            Metadata::map(of_type(kv[0].name(), kv[0].data_type())?, of_field(&kv[1])?)
        }
        DataType::Union(fields, _) => {
            // Variant i must be type id i for the index to be the variant's.
            if fields.iter().enumerate().any(|(i, (id, _))| i != id as usize) {
                return Err(unsupported(format!("{dt} (type ids other than 0, 1, ...)")));
            }
            let variants: Result<Vec<(String, Metadata)>, ArrowError> =
                fields.iter().map(|(_, f)| Ok((f.name().clone(), of_field(f)?))).collect();
            Metadata::Enum(Arc::new(xbf::EnumMetadata::new(name, variants?).map_err(xbf_err)?))
        }
        DataType::Dictionary(_, value) => of_type(name, value)?,
        other => return Err(unsupported(other)),
    })
}
