//! A serde value as a dynamic [`Value`] whose type is read off the value:
//! for places whose type is `any`, and for types the tracer cannot follow
//! (internally tagged and untagged enums, `flatten`). Elements of differing
//! types make a `vec<any>`; an empty vec is `vec<unit>`, a `None` is
//! `option<unit>`; an enum value is an enum of the one variant it holds.

use serde::ser::{self, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{EnumMetadata, Metadata, StructMetadata};
use crate::value::{EnumValue, MapValue, OptionValue, StructValue, TupleValue, Value, VecValue};

pub(crate) struct ValueSer;

fn unify(items: Vec<Value>) -> (Metadata, Vec<Value>) {
    let Some(first) = items.first() else { return (Metadata::UNIT, items) };
    let ty = first.metadata();
    if items.iter().skip(1).all(|v| v.conforms_to(&ty) && v.metadata() == ty) {
        (ty, items)
    } else {
        (Metadata::Any, items.into_iter().map(Value::any).collect())
    }
}

fn one_variant(name: &str, variant: &str, payload: Value) -> Result<Value> {
    let e = EnumMetadata::new(name, [(variant, payload.metadata())])?;
    Ok(Value::Enum(EnumValue::new(e, variant, payload)?))
}

impl ser::Serializer for ValueSer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = SeqV;
    type SerializeTuple = SeqV;
    type SerializeTupleStruct = SeqV;
    type SerializeTupleVariant = SeqV;
    type SerializeMap = MapV;
    type SerializeStruct = StructV;
    type SerializeStructVariant = StructV;

    fn serialize_bool(self, v: bool) -> Result<Value> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value> {
        Ok(Value::I8(v))
    }
    fn serialize_i16(self, v: i16) -> Result<Value> {
        Ok(Value::I16(v))
    }
    fn serialize_i32(self, v: i32) -> Result<Value> {
        Ok(Value::I32(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Value> {
        Ok(Value::I64(v))
    }
    fn serialize_i128(self, v: i128) -> Result<Value> {
        Ok(Value::I128(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value> {
        Ok(Value::U8(v))
    }
    fn serialize_u16(self, v: u16) -> Result<Value> {
        Ok(Value::U16(v))
    }
    fn serialize_u32(self, v: u32) -> Result<Value> {
        Ok(Value::U32(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Value> {
        Ok(Value::U64(v))
    }
    fn serialize_u128(self, v: u128) -> Result<Value> {
        Ok(Value::U128(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value> {
        Ok(Value::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value> {
        Ok(Value::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<Value> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value> {
        Ok(Value::String(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn serialize_none(self) -> Result<Value> {
        Ok(Value::Option(OptionValue::none(Metadata::UNIT)))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Value> {
        let v = value.serialize(ValueSer)?;
        Ok(Value::Option(OptionValue::some(v.metadata(), v)?))
    }
    fn serialize_unit(self) -> Result<Value> {
        Ok(Value::Unit)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value> {
        Ok(Value::Unit)
    }
    fn serialize_unit_variant(self, name: &'static str, _i: u32, variant: &'static str) -> Result<Value> {
        one_variant(name, variant, Value::Unit)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<Value> {
        value.serialize(ValueSer)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value> {
        one_variant(name, variant, value.serialize(ValueSer)?)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqV> {
        Ok(SeqV { items: Vec::with_capacity(len.unwrap_or(0).min(1024)), tuple: false, variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqV> {
        Ok(SeqV { items: Vec::with_capacity(len.min(1024)), tuple: true, variant: None })
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqV> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(self, name: &'static str, _i: u32, variant: &'static str, len: usize) -> Result<SeqV> {
        Ok(SeqV { items: Vec::with_capacity(len.min(1024)), tuple: true, variant: Some((name, variant)) })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapV> {
        Ok(MapV { keys: Vec::new(), values: Vec::new() })
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<StructV> {
        Ok(StructV { name, fields: Vec::new(), variant: None })
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<StructV> {
        Ok(StructV { name: variant, fields: Vec::new(), variant: Some(name) })
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

pub(crate) struct SeqV {
    items: Vec<Value>,
    tuple: bool,
    variant: Option<(&'static str, &'static str)>,
}

impl SeqV {
    fn push<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        self.items.push(v.serialize(ValueSer)?);
        Ok(())
    }
    fn done(self) -> Result<Value> {
        let v = if self.tuple {
            Value::Tuple(TupleValue::from_items(self.items))
        } else {
            let (ty, items) = unify(self.items);
            Value::Vec(VecValue::new(ty, items)?)
        };
        match self.variant {
            Some((name, variant)) => one_variant(name, variant, v),
            None => Ok(v),
        }
    }
}

macro_rules! seqv {
    ($tr:ident, $m:ident) => {
        impl ser::$tr for SeqV {
            type Ok = Value;
            type Error = Error;
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }
            fn end(self) -> Result<Value> {
                self.done()
            }
        }
    };
}
seqv!(SerializeSeq, serialize_element);
seqv!(SerializeTuple, serialize_element);
seqv!(SerializeTupleStruct, serialize_field);
seqv!(SerializeTupleVariant, serialize_field);

pub(crate) struct MapV {
    keys: Vec<Value>,
    values: Vec<Value>,
}

impl ser::SerializeMap for MapV {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.keys.push(key.serialize(ValueSer)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.values.push(value.serialize(ValueSer)?);
        Ok(())
    }
    fn end(self) -> Result<Value> {
        // A map whose keys are all strings (a flattened struct, say) stays a map.
        let (kt, keys) = unify(self.keys);
        let (vt, values) = unify(self.values);
        Ok(Value::Map(MapValue::new(kt, vt, keys.into_iter().zip(values).collect())?))
    }
}

pub(crate) struct StructV {
    name: &'static str,
    fields: Vec<(&'static str, Value)>,
    variant: Option<&'static str>,
}

macro_rules! structv {
    ($tr:ident) => {
        impl ser::$tr for StructV {
            type Ok = Value;
            type Error = Error;
            fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
                self.fields.push((key, value.serialize(ValueSer)?));
                Ok(())
            }
            fn end(self) -> Result<Value> {
                let ty = StructMetadata::new(self.name, self.fields.iter().map(|(n, v)| (*n, v.metadata())))?;
                let s = Value::Struct(StructValue::new(ty, self.fields.into_iter().map(|(_, v)| v).collect())?);
                match self.variant {
                    Some(enum_name) => one_variant(enum_name, self.name, s),
                    None => Ok(s),
                }
            }
        }
    };
}
structv!(SerializeStruct);
structv!(SerializeStructVariant);

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::TypeMismatch, msg.to_string())
    }
}
