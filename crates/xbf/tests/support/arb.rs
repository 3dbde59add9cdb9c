//! Random XBF types and values of those types, for property tests: shared
//! by the core's `properties_v2` and the Arrow bridge's property tests
//! (`#[path]`-included; cargo does not build `tests/support/` as a test).
#![allow(dead_code)]

use proptest::collection::vec;
use proptest::prelude::*;
use xbf::{
    AnyValue, EncodeOptions, EnumMetadata, EnumValue, MapValue, Metadata, OptionValue, PrimitiveType as P,
    StructMetadata, StructValue, TupleValue, Value, VecValue, I256, U256,
};

pub const SCALARS: [P; 28] = P::ALL;

pub fn arb_name() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), "[a-z]{1,6}", Just("日本".to_owned())]
}

/// Distinct names for members.
pub fn names(n: usize) -> impl Strategy<Value = Vec<String>> {
    proptest::collection::hash_set(arb_name(), n).prop_map(|s| s.into_iter().collect())
}

pub fn arb_metadata() -> impl Strategy<Value = Metadata> {
    let leaf = prop_oneof![
        9 => proptest::sample::select(SCALARS.to_vec()).prop_map(Metadata::from),
        1 => Just(Metadata::Any),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Metadata::vec),
            inner.clone().prop_map(Metadata::option),
            (0u64..4, inner.clone()).prop_map(|(n, t)| Metadata::array(n, t)),
            vec(inner.clone(), 0..4).prop_map(Metadata::tuple),
            (inner.clone(), inner.clone()).prop_map(|(k, v)| Metadata::map(k, v)),
            vec(inner.clone(), 0..4).prop_flat_map(|types| {
                names(types.len())
                    .prop_map(move |ns| StructMetadata::new("S", ns.into_iter().zip(types.clone())).unwrap().into())
            }),
            vec(inner, 1..4).prop_flat_map(|types| {
                names(types.len())
                    .prop_map(move |ns| EnumMetadata::new("E", ns.into_iter().zip(types.clone())).unwrap().into())
            }),
        ]
    })
}

pub fn arb_scalar(p: P) -> BoxedStrategy<Value> {
    match p.integer_type() {
        P::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        P::U8 => any::<u8>().prop_map(Value::U8).boxed(),
        P::U16 => any::<u16>().prop_map(Value::U16).boxed(),
        P::U32 => any::<u32>().prop_map(Value::U32).boxed(),
        P::U64 => prop_oneof![any::<u64>(), 0u64..300].prop_map(Value::U64).boxed(),
        P::U128 => any::<u128>().prop_map(Value::U128).boxed(),
        P::U256 => any::<[u8; 32]>().prop_map(|b| Value::U256(U256::from_le_bytes(b))).boxed(),
        P::I8 => any::<i8>().prop_map(Value::I8).boxed(),
        P::I16 => any::<i16>().prop_map(Value::I16).boxed(),
        P::I32 => any::<i32>().prop_map(Value::I32).boxed(),
        P::I64 => prop_oneof![any::<i64>(), -300i64..300].prop_map(Value::I64).boxed(),
        P::I128 => any::<i128>().prop_map(Value::I128).boxed(),
        P::I256 => any::<[u8; 32]>().prop_map(|b| Value::I256(I256::from_le_bytes(b))).boxed(),
        // Bits, not values: NaN payloads and -0.0 must survive.
        P::F32 => any::<u32>().prop_map(|b| Value::F32(f32::from_bits(b))).boxed(),
        P::F64 => any::<u64>().prop_map(|b| Value::F64(f64::from_bits(b))).boxed(),
        P::Bytes => vec(any::<u8>(), 0..6).prop_map(Value::Bytes).boxed(),
        P::String => ".{0,5}".prop_map(Value::String).boxed(),
        P::Unit => Just(Value::Unit).boxed(),
        P::Date => any::<i32>().prop_map(Value::Date).boxed(),
        P::Timestamp => any::<i64>().prop_map(Value::Timestamp).boxed(),
        other => unreachable!("{other} is an integer type's fixed form"),
    }
}

pub fn arb_value(ty: &Metadata) -> BoxedStrategy<Value> {
    match ty {
        Metadata::Primitive(p) => arb_scalar(*p),
        Metadata::Any => (0usize..SCALARS.len())
            .prop_flat_map(|i| {
                let own = Metadata::from(SCALARS[i]);
                arb_value(&own).prop_map(move |v| Value::Any(Box::new(AnyValue::new(own.clone(), v).unwrap())))
            })
            .boxed(),
        Metadata::Vec(e) => {
            let e = (**e).clone();
            vec(arb_value(&e), 0..3).prop_map(move |items| VecValue::new(e.clone(), items).unwrap().into()).boxed()
        }
        Metadata::Array(a) => {
            let e = a.element.clone();
            vec(arb_value(&e), a.len as usize)
                .prop_map(move |items| Value::Array(VecValue::new(e.clone(), items).unwrap()))
                .boxed()
        }
        Metadata::Option(inner) => {
            let inner = (**inner).clone();
            let none = Value::Option(OptionValue::none(inner.clone()));
            prop_oneof![
                Just(none),
                arb_value(&inner).prop_map(move |v| Value::Option(OptionValue::some(inner.clone(), v).unwrap())),
            ]
            .boxed()
        }
        Metadata::Tuple(ts) => {
            let ts = ts.to_vec();
            let parts: Vec<_> = ts.iter().map(arb_value).collect();
            parts.prop_map(move |items| Value::Tuple(TupleValue::new(ts.clone(), items).unwrap())).boxed()
        }
        Metadata::Struct(s) => {
            let s = s.clone();
            let parts: Vec<_> = s.fields().map(|(_, t)| arb_value(t)).collect();
            parts.prop_map(move |vals| StructValue::new(s.clone(), vals).unwrap().into()).boxed()
        }
        Metadata::Map(m) => {
            let (k, v) = (m.key.clone(), m.value.clone());
            vec((arb_value(&k), arb_value(&v)), 0..3)
                .prop_map(move |pairs| {
                    // Keep the first of equal keys: map keys are unique.
                    let mut entries: Vec<(Value, Value)> = Vec::new();
                    for (key, val) in pairs {
                        let bytes = EncodeOptions::v2().encode_value(&key).unwrap();
                        if !entries.iter().any(|(k2, _)| EncodeOptions::v2().encode_value(k2).unwrap() == bytes) {
                            entries.push((key, val));
                        }
                    }
                    Value::Map(MapValue::new(k.clone(), v.clone(), entries).unwrap())
                })
                .boxed()
        }
        Metadata::Enum(e) => {
            let e = e.clone();
            (0..e.len())
                .prop_flat_map(move |i| {
                    let e = e.clone();
                    let (name, pty) = e.variant_at(i).unwrap();
                    let name = name.to_owned();
                    arb_value(pty).prop_map(move |p| Value::Enum(EnumValue::new(e.clone(), &name, p).unwrap()))
                })
                .boxed()
        }
        other => panic!("no strategy for {other}"),
    }
}
