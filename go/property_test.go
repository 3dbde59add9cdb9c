package xbf

import (
	"bytes"
	"math"
	"math/big"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
)

// genType makes a random XBF 2 type of at most depth levels.
func genType(r *rand.Rand, depth int) *Type {
	if depth == 0 || r.Intn(3) == 0 {
		for {
			k := Kind(r.Intn(int(kindCount)))
			if !k.hasParams() && k != Any {
				return Prim(k)
			}
		}
	}
	switch r.Intn(8) {
	case 0:
		return VecOf(genType(r, depth-1))
	case 1:
		return OptionOf(genType(r, depth-1))
	case 2:
		return ArrayOf(uint64(r.Intn(4)), genType(r, depth-1))
	case 3:
		n := r.Intn(4)
		ts := make([]*Type, n)
		for i := range ts {
			ts[i] = genType(r, depth-1)
		}
		return TupleOf(ts...)
	case 4:
		return MapOf(genType(r, 0), genType(r, depth-1))
	case 5:
		n := 1 + r.Intn(3)
		fs := make([]Field, n)
		for i := range fs {
			fs[i] = Field{string(rune('a' + i)), genType(r, depth-1)}
		}
		t, _ := EnumOf("E", fs)
		return t
	case 6:
		return Prim(Any)
	}
	n := r.Intn(5)
	fs := make([]Field, n)
	for i := range fs {
		fs[i] = Field{string(rune('a' + i)), genType(r, depth-1)}
	}
	t, _ := StructOf("S", fs)
	return t
}

var bigOne = big.NewInt(1)

func genBig(r *rand.Rand, bits uint, signed bool) *big.Int {
	x := new(big.Int).Rand(r, new(big.Int).Lsh(bigOne, bits))
	if signed {
		x.Sub(x, new(big.Int).Lsh(bigOne, bits-1))
	}
	return x
}

// genValue makes a random value of t.
func genValue(r *rand.Rand, t *Type, depth int) Value {
	v := Value{Type: t}
	switch t.Kind {
	case Bool:
		v.Bool = r.Intn(2) == 1
	case U8, U16, U32, U64, FixedU16, FixedU32, FixedU64:
		v.Uint = r.Uint64() >> (64 - uintWidthOrByte(t.Kind))
		if r.Intn(2) == 0 {
			v.Uint &= 0x3ff
		}
	case I8, I16, I32, I64, FixedI16, FixedI32, FixedI64, DateKind, Timestamp:
		w := uintWidthOrByte(t.Kind)
		v.Int = int64(r.Uint64()) >> (64 - w)
		if r.Intn(2) == 0 && w >= 16 {
			v.Int = int64(r.Intn(2000) - 1000)
		}
	case U128, FixedU128:
		v.Big = genBig(r, 128, false)
	case I128, FixedI128:
		v.Big = genBig(r, 128, true)
	case U256:
		v.Big = genBig(r, 256, false)
	case I256:
		v.Big = genBig(r, 256, true)
	case F32:
		v.Uint = uint64(math.Float32bits(float32(r.NormFloat64())))
		if r.Intn(3) == 0 {
			v.Uint = uint64(r.Uint32())
		}
	case F64:
		v.Uint = math.Float64bits(float64(r.Intn(100000)) / 100)
		if r.Intn(3) == 0 {
			v.Uint = r.Uint64()
		}
	case String:
		v.Str = []string{"", "a", "héllo", "ab", "abc"}[r.Intn(5)]
	case Bytes:
		v.Bytes = []byte{byte(r.Intn(256)), 2}[:r.Intn(3)]
	case Vec:
		n := r.Intn(6)
		for i := 0; i < n; i++ {
			v.Items = append(v.Items, genValue(r, t.Elem, depth+1))
		}
	case Array:
		for i := uint64(0); i < t.Len; i++ {
			v.Items = append(v.Items, genValue(r, t.Elem, depth+1))
		}
	case Struct:
		for _, f := range t.Fields {
			v.Items = append(v.Items, genValue(r, f.Type, depth+1))
		}
	case Tuple:
		for _, e := range t.Elems {
			v.Items = append(v.Items, genValue(r, e, depth+1))
		}
	case Option:
		if r.Intn(2) == 0 {
			v.Items = []Value{genValue(r, t.Elem, depth+1)}
		}
	case Map:
		seen := map[string]bool{}
		for i := 0; i < r.Intn(4); i++ {
			k := genValue(r, t.Key, depth+1)
			e := encoder{}
			_ = e.value(k, t.Key)
			if seen[string(e.out)] {
				continue
			}
			seen[string(e.out)] = true
			v.Items = append(v.Items, k, genValue(r, t.Elem, depth+1))
		}
	case Enum:
		v.Uint = uint64(r.Intn(len(t.Fields)))
		v.Items = []Value{genValue(r, t.Fields[v.Uint].Type, depth+1)}
	case Any:
		own := genType(r, 1)
		v.Items = []Value{genValue(r, own, depth+1)}
	}
	return v
}

func uintWidthOrByte(k Kind) uint {
	if k == U8 || k == I8 {
		return 8
	}
	return uintWidth(k)
}

type randomValue struct{ V Value }

func (randomValue) Generate(r *rand.Rand, _ int) reflect.Value {
	t := genType(r, 3)
	return reflect.ValueOf(randomValue{genValue(r, t, 0)})
}

// Every value comes back from rows and from columns, and the columns of
// its decoded value are the same bytes (the writer is deterministic).
func TestPropertyRoundTrip(t *testing.T) {
	cols, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	zst, _ := EncOptions{Layout: LayoutColumns, ZstdLevel: 3}.EncMode()
	prop := func(rv randomValue) bool {
		v := rv.V
		for _, m := range []EncMode{defaultEnc, cols, zst} {
			b, err := m.Encode(v)
			if err != nil {
				t.Logf("encode %s: %v", v.Type, err)
				return false
			}
			back, err := Decode(b)
			if err != nil || !Same(back, v) {
				t.Logf("%s: %x: %v", v.Type, b, err)
				return false
			}
			again, _ := m.Encode(back)
			if !bytes.Equal(again, b) {
				t.Logf("%s: re-encoded differently", v.Type)
				return false
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 1500}); err != nil {
		t.Fatal(err)
	}
}

// Every proper prefix of a valid message fails, and never panics.
func TestPropertyPrefixesFail(t *testing.T) {
	prop := func(rv randomValue) bool {
		b, _ := Encode(rv.V)
		for i := 0; i < len(b); i++ {
			if _, err := Decode(b[:i]); err == nil {
				// A prefix may itself be a whole message only if the
				// value ends early, which rows never allow.
				t.Logf("%s: prefix %d of %x decoded", rv.V.Type, i, b)
				return false
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
}

type quickRec struct {
	A int16
	B string
	C []uint32
	D *float64
	E map[string]bool
	F [3]int8
	G uint64 `xbf:"g,omitempty"`
}

// Marshal then Unmarshal gives the struct back.
func TestPropertyMarshal(t *testing.T) {
	prop := func(in []quickRec) bool {
		b, err := Marshal(in)
		if err != nil {
			return false
		}
		var out []quickRec
		if err := Unmarshal(b, &out); err != nil {
			t.Log(err)
			return false
		}
		if len(in) == 0 && len(out) == 0 {
			return true
		}
		for i := range in {
			if in[i].C == nil {
				in[i].C = []uint32{}
			}
			if in[i].E == nil {
				in[i].E = map[string]bool{}
			}
		}
		return reflect.DeepEqual(in, out)
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
}
