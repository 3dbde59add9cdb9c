package xbf

import (
	"math"
	"math/big"
)

// Value is a dynamic XBF value together with its type. Which members hold
// the value depends on Type.Kind:
//
//   - Bool: Bool
//   - u8, u16, u32, u64, fixed-u16/32/64: Uint
//   - i8, i16, i32, i64, fixed-i16/32/64, date (days), timestamp (µs): Int
//   - f32, f64: Uint holds the IEEE bits (every NaN payload is kept)
//   - u128, i128, u256, i256, fixed-u128, fixed-i128: Big
//   - bytes: Bytes; string: Str
//   - vec, array, tuple, struct (fields in metadata order): Items
//   - option: Items has 0 (absent) or 1 element
//   - map: Items holds key0, value0, key1, value1, ... in wire order
//   - enum: Uint is the variant index, Items[0] the payload
//   - any: Items[0] is the value, carrying its own Type
//   - unit: nothing
type Value struct {
	Type  *Type
	Bool  bool
	Uint  uint64
	Int   int64
	Big   *big.Int
	Bytes []byte
	Str   string
	Items []Value
}

// Float returns an f32 or f64 value as float64.
func (v Value) Float() float64 {
	if v.Type.Kind == F32 {
		return float64(math.Float32frombits(uint32(v.Uint)))
	}
	return math.Float64frombits(v.Uint)
}

// Constructors for common values.
func BoolValue(b bool) Value            { return Value{Type: Prim(Bool), Bool: b} }
func UintValue(k Kind, x uint64) Value  { return Value{Type: Prim(k), Uint: x} }
func IntValue(k Kind, x int64) Value    { return Value{Type: Prim(k), Int: x} }
func F64Value(f float64) Value          { return Value{Type: Prim(F64), Uint: math.Float64bits(f)} }
func F32Value(f float32) Value          { return Value{Type: Prim(F32), Uint: uint64(math.Float32bits(f))} }
func StringValue(s string) Value        { return Value{Type: Prim(String), Str: s} }
func BytesValue(b []byte) Value         { return Value{Type: Prim(Bytes), Bytes: b} }
func UnitValue() Value                  { return Value{Type: Prim(Unit)} }
func BigValue(k Kind, b *big.Int) Value { return Value{Type: Prim(k), Big: b} }

// Same reports whether two values are equal as the conformance checker
// compares them: types equal, floats by bits except that any NaN equals
// any NaN (the vector form writes all NaNs alike), -0.0 differs from 0.0.
func Same(a, b Value) bool {
	if !a.Type.Equal(b.Type) {
		return false
	}
	switch a.Type.Kind {
	case Bool:
		return a.Bool == b.Bool
	case F32:
		fa, fb := math.Float32frombits(uint32(a.Uint)), math.Float32frombits(uint32(b.Uint))
		return a.Uint == b.Uint || (fa != fa && fb != fb)
	case F64:
		fa, fb := math.Float64frombits(a.Uint), math.Float64frombits(b.Uint)
		return a.Uint == b.Uint || (fa != fa && fb != fb)
	case U8, U16, U32, U64, FixedU16, FixedU32, FixedU64:
		return a.Uint == b.Uint
	case I8, I16, I32, I64, FixedI16, FixedI32, FixedI64, DateKind, Timestamp:
		return a.Int == b.Int
	case U128, I128, U256, I256, FixedU128, FixedI128:
		return a.Big.Cmp(b.Big) == 0
	case Bytes:
		return string(a.Bytes) == string(b.Bytes)
	case String:
		return a.Str == b.Str
	case Unit:
		return true
	case Enum:
		if a.Uint != b.Uint {
			return false
		}
	}
	if len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		if !Same(a.Items[i], b.Items[i]) {
			return false
		}
	}
	return true
}

// zeroValue is the only value of a zero-size type.
func zeroValue(t *Type) Value {
	v := Value{Type: t}
	switch t.Kind {
	case Struct:
		v.Items = make([]Value, len(t.Fields))
		for i, f := range t.Fields {
			v.Items[i] = zeroValue(f.Type)
		}
	case Tuple:
		v.Items = make([]Value, len(t.Elems))
		for i, e := range t.Elems {
			v.Items[i] = zeroValue(e)
		}
	case Array:
		v.Items = make([]Value, t.Len)
		if t.Len > 0 {
			z := zeroValue(t.Elem)
			for i := range v.Items {
				v.Items[i] = z
			}
		}
	}
	return v
}
