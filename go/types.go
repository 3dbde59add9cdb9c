package xbf

import (
	"crypto/sha256"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Kind is a type's discriminant (SPEC 12.1; 0x00..0x12 are also v1's).
type Kind byte

const (
	Bool Kind = iota
	U8
	U16
	U32
	U64
	U128
	U256
	I8
	I16
	I32
	I64
	I128
	I256
	F32
	F64
	Bytes
	String
	Vec
	Struct
	Unit
	Option
	Array
	Tuple
	Map
	Enum
	Any
	DateKind
	Timestamp
	FixedU16
	FixedU32
	FixedU64
	FixedU128
	FixedI16
	FixedI32
	FixedI64
	FixedI128
	kindCount
)

var kindWords = [...]string{"bool", "u8", "u16", "u32", "u64", "u128", "u256", "i8", "i16", "i32", "i64",
	"i128", "i256", "f32", "f64", "bytes", "string", "vec", "struct", "unit", "option", "array", "tuple",
	"map", "enum", "any", "date", "timestamp", "fixed-u16", "fixed-u32", "fixed-u64", "fixed-u128",
	"fixed-i16", "fixed-i32", "fixed-i64", "fixed-i128"}

// String is the kind's type word, as the vectors write it.
func (k Kind) String() string {
	if int(k) < len(kindWords) {
		return kindWords[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// KindFromWord is the inverse of Kind.String for kinds without parameters.
func KindFromWord(w string) (Kind, bool) {
	for i, s := range kindWords {
		if s == w && !Kind(i).hasParams() {
			return Kind(i), true
		}
	}
	return 0, false
}

func (k Kind) hasParams() bool {
	switch k {
	case Vec, Struct, Option, Array, Tuple, Map, Enum:
		return true
	}
	return false
}

// Field is a struct field or an enum variant: a name and its type.
type Field struct {
	Name string
	Type *Type
}

// Type is XBF metadata. Which members are used depends on Kind:
// Elem (vec, option, array), Len (array), Name + Fields (struct, enum; for an
// enum the fields are the variants), Elems (tuple), Key + Elem (map: Elem is
// the value type). Types are immutable once built; share them freely.
type Type struct {
	Kind   Kind
	Elem   *Type
	Key    *Type
	Len    uint64
	Name   string
	Fields []Field
	Elems  []*Type

	// Computed once by finish: minimum size, zero-size weight, depth.
	min    uint64
	min1   uint64 // minimum size in v1 (fixed-width integers, 8-byte prefixes)
	weight uint64
	depth  int
	done   bool
}

var primTypes [kindCount]*Type

func init() {
	for k := Kind(0); k < kindCount; k++ {
		if !k.hasParams() {
			primTypes[k] = (&Type{Kind: k}).finish()
		}
	}
}

// Prim is the shared type of a kind without parameters (panics for others).
func Prim(k Kind) *Type {
	if int(k) >= len(primTypes) || primTypes[k] == nil {
		panic("xbf: Prim of a kind with parameters: " + k.String())
	}
	return primTypes[k]
}

// VecOf, OptionOf, ArrayOf, TupleOf, MapOf build composite types.
func VecOf(t *Type) *Type             { return (&Type{Kind: Vec, Elem: t}).finish() }
func OptionOf(t *Type) *Type          { return (&Type{Kind: Option, Elem: t}).finish() }
func ArrayOf(n uint64, t *Type) *Type { return (&Type{Kind: Array, Elem: t, Len: n}).finish() }
func TupleOf(ts ...*Type) *Type       { return (&Type{Kind: Tuple, Elems: ts}).finish() }
func MapOf(k, v *Type) *Type          { return (&Type{Kind: Map, Key: k, Elem: v}).finish() }
func newStruct(name string, f []Field) *Type {
	return (&Type{Kind: Struct, Name: name, Fields: f}).finish()
}

// StructOf builds a struct type; repeated field names are duplicate-field.
func StructOf(name string, fields []Field) (*Type, error) {
	if err := distinct(fields); err != nil {
		return nil, err
	}
	return newStruct(name, fields), nil
}

// EnumOf builds an enum type; repeated variant names are duplicate-field.
func EnumOf(name string, variants []Field) (*Type, error) {
	if err := distinct(variants); err != nil {
		return nil, err
	}
	return (&Type{Kind: Enum, Name: name, Fields: variants}).finish(), nil
}

func distinct(fs []Field) error {
	seen := make(map[string]struct{}, len(fs))
	for _, f := range fs {
		if _, ok := seen[f.Name]; ok {
			return encErr(KindDuplicateField, "", "repeated name "+strconv.Quote(f.Name))
		}
		seen[f.Name] = struct{}{}
	}
	return nil
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return math.MaxUint64
	}
	return s
}

func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// finish computes the XBF 2 minimum size (16.2), the zero-size weight and
// the nesting depth (16.1). Children are finished already.
func (t *Type) finish() *Type {
	switch t.Kind {
	case Bool, U8, I8:
		t.min = 1
	case U256, I256:
		t.min = 32
	case F32, FixedU32, FixedI32:
		t.min = 4
	case F64, FixedU64, FixedI64:
		t.min = 8
	case FixedU16, FixedI16:
		t.min = 2
	case FixedU128, FixedI128:
		t.min = 16
	case Unit:
		t.min, t.weight = 0, 1
	case Struct:
		t.depth = 1
		w := uint64(1)
		for _, f := range t.Fields {
			t.min = satAdd(t.min, f.Type.min)
			w = satAdd(w, f.Type.weight)
			t.depth = max(t.depth, 1+f.Type.depth)
		}
		if t.min == 0 {
			t.weight = w
		}
	case Tuple:
		t.depth = 1
		w := uint64(1)
		for _, e := range t.Elems {
			t.min = satAdd(t.min, e.min)
			w = satAdd(w, e.weight)
			t.depth = max(t.depth, 1+e.depth)
		}
		if t.min == 0 {
			t.weight = w
		}
	case Array:
		t.depth = 1 + t.Elem.depth
		t.min = satMul(t.Len, t.Elem.min)
		if t.min == 0 {
			t.weight = satAdd(1, satMul(t.Len, t.Elem.weight))
		}
	case Vec, Option:
		t.min, t.depth = 1, 1+t.Elem.depth
	case Map:
		t.min, t.depth = 1, 1+max(t.Key.depth, t.Elem.depth)
	case Enum:
		t.min, t.depth = 1, 1
		for _, f := range t.Fields {
			t.depth = max(t.depth, 1+f.Type.depth)
		}
	default: // varint kinds, bytes, string, any, date, timestamp
		t.min = 1
	}
	t.min1 = t.min
	switch t.Kind {
	case U16, I16:
		t.min1 = 2
	case U32, I32:
		t.min1 = 4
	case U64, I64:
		t.min1 = 8
	case U128, I128:
		t.min1 = 16
	case Bytes, String, Vec:
		t.min1 = 8
	case Struct:
		t.min1 = 0
		for _, f := range t.Fields {
			t.min1 = satAdd(t.min1, f.Type.min1)
		}
	}
	t.done = true
	return t
}

// ZeroSize reports whether values of t take no bytes (SPEC 16.2).
func (t *Type) ZeroSize() bool { return t.min == 0 }

// Depth is the number of nesting levels t opens (16.1).
func (t *Type) Depth() int { return t.depth }

// Equal reports whether two types are the same type.
func (t *Type) Equal(u *Type) bool {
	if t == u {
		return true
	}
	if t == nil || u == nil || t.Kind != u.Kind || t.Len != u.Len || t.Name != u.Name ||
		len(t.Fields) != len(u.Fields) || len(t.Elems) != len(u.Elems) {
		return false
	}
	if (t.Elem == nil) != (u.Elem == nil) || (t.Elem != nil && !t.Elem.Equal(u.Elem)) {
		return false
	}
	if (t.Key == nil) != (u.Key == nil) || (t.Key != nil && !t.Key.Equal(u.Key)) {
		return false
	}
	for i := range t.Fields {
		if t.Fields[i].Name != u.Fields[i].Name || !t.Fields[i].Type.Equal(u.Fields[i].Type) {
			return false
		}
	}
	for i := range t.Elems {
		if !t.Elems[i].Equal(u.Elems[i]) {
			return false
		}
	}
	return true
}

// String renders the type in a Rust-like notation (vec<u64>, struct Point { a: u8 }).
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	switch t.Kind {
	case Vec, Option:
		b.WriteString(t.Kind.String() + "<")
		t.Elem.write(b)
		b.WriteString(">")
	case Array:
		b.WriteString("[")
		t.Elem.write(b)
		b.WriteString("; " + strconv.FormatUint(t.Len, 10) + "]")
	case Map:
		b.WriteString("map<")
		t.Key.write(b)
		b.WriteString(", ")
		t.Elem.write(b)
		b.WriteString(">")
	case Tuple:
		b.WriteString("(")
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteString(")")
	case Struct, Enum:
		b.WriteString(t.Kind.String() + " " + t.Name + " {")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + f.Name + ": ")
			f.Type.write(b)
		}
		b.WriteString(" }")
	default:
		b.WriteString(t.Kind.String())
	}
}

// AppendMetadata appends t's XBF 2 metadata (section 12.2).
func (t *Type) AppendMetadata(out []byte) []byte {
	out = append(out, byte(t.Kind))
	switch t.Kind {
	case Vec, Option:
		out = t.Elem.AppendMetadata(out)
	case Array:
		out = appendUvarint(out, t.Len)
		out = t.Elem.AppendMetadata(out)
	case Tuple:
		out = appendUvarint(out, uint64(len(t.Elems)))
		for _, e := range t.Elems {
			out = e.AppendMetadata(out)
		}
	case Map:
		out = t.Key.AppendMetadata(out)
		out = t.Elem.AppendMetadata(out)
	case Struct, Enum:
		out = appendUvarint(out, uint64(len(t.Name)))
		out = append(out, t.Name...)
		out = appendUvarint(out, uint64(len(t.Fields)))
		for _, f := range t.Fields {
			out = appendUvarint(out, uint64(len(f.Name)))
			out = append(out, f.Name...)
			out = f.Type.AppendMetadata(out)
		}
	}
	return out
}

// Fingerprint is the first 8 bytes of the SHA-256 of t's metadata (14.1).
func (t *Type) Fingerprint() [8]byte {
	sum := sha256.Sum256(t.AppendMetadata(nil))
	var fp [8]byte
	copy(fp[:], sum[:8])
	return fp
}

// FieldIndex returns the index of the struct field or enum variant named name.
func (t *Type) FieldIndex(name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// entryWeight is the zero-size weight of one map entry, charged at the
// map's count when key and value are both zero-size. It weighs the entry as
// the tuple (key, value), 1 plus both halves, as the Rust, Python and
// TypeScript readers do; SPEC 16.2's wording ("key plus value") would give
// one less per entry (an open SPEC question).
func entryWeight(key, val *Type) uint64 {
	return satAdd(1, satAdd(key.weight, val.weight))
}
