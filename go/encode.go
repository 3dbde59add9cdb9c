package xbf

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"unicode/utf8"
)

// EncOptions configure encoding. The zero value writes XBF 2 rows.
type EncOptions struct {
	// Version is 2 (default) or 1.
	Version int
	// Layout picks rows, columns or whichever is smaller (XBF 2 only).
	Layout Layout
	// SchemaByReference writes the type's fingerprint instead of its
	// metadata (XBF 2 only; the reader needs the type in its registry).
	SchemaByReference bool
	// ZstdLevel > 0 adds the zstd stage to columns where it makes them smaller.
	ZstdLevel int
}

// EncMode is a validated, immutable set of encoding options.
type EncMode struct{ o EncOptions }

// EncMode validates the options once.
func (o EncOptions) EncMode() (EncMode, error) {
	if o.Version == 0 {
		o.Version = 2
	}
	if o.Version != 1 && o.Version != 2 {
		return EncMode{}, optionsErr(fmt.Sprintf("Version %d: only 1 and 2 exist", o.Version))
	}
	if o.Version == 1 && (o.Layout != LayoutRows || o.SchemaByReference || o.ZstdLevel != 0) {
		return EncMode{}, optionsErr("v1 has only rows with inline metadata")
	}
	if o.Layout < LayoutRows || o.Layout > LayoutAuto {
		return EncMode{}, optionsErr(fmt.Sprintf("unknown layout %d", o.Layout))
	}
	if o.ZstdLevel < 0 || o.ZstdLevel > 22 {
		return EncMode{}, optionsErr(fmt.Sprintf("zstd level %d out of range 0..22", o.ZstdLevel))
	}
	return EncMode{o}, nil
}

var defaultEnc, _ = EncOptions{}.EncMode()

// Encode writes v as an XBF 2 message in rows.
func Encode(v Value) ([]byte, error) { return defaultEnc.Encode(v) }

// Encode writes v as one message.
func (m EncMode) Encode(v Value) ([]byte, error) {
	if v.Type == nil {
		return nil, encErr(KindTypeMismatch, "", "a Value without a type")
	}
	e := encoder{v1: m.o.Version == 1}
	if e.v1 {
		if err := checkV1(v.Type, ""); err != nil {
			return nil, err
		}
		if err := v1Meta(v.Type); err != nil {
			return nil, err
		}
		e.out = appendMetadataV1(nil, v.Type)
		if err := e.value(v, v.Type); err != nil {
			return nil, err
		}
		return e.out, nil
	}
	head := []byte{0xc2, 0}
	if m.o.SchemaByReference {
		head[1] = flagByRef
		fp := v.Type.Fingerprint()
		head = append(head, fp[:]...)
	} else {
		head = v.Type.AppendMetadata(head)
	}
	switch m.o.Layout {
	case LayoutColumns:
		head[1] |= flagColumnar
		return appendColumns(head, v, m.o.ZstdLevel)
	case LayoutAuto:
		return m.encodeAuto(head, v)
	}
	e.out = head
	if err := e.value(v, v.Type); err != nil {
		return nil, err
	}
	return e.out, nil
}

// encoder writes values in rows.
type encoder struct {
	out []byte
	v1  bool
}

func mismatch(t *Type, what string) error {
	return encErr(KindTypeMismatch, "", fmt.Sprintf("%s for type %s", what, t))
}

func (e *encoder) count(n uint64) {
	if e.v1 {
		e.out = binary.LittleEndian.AppendUint64(e.out, n)
	} else {
		e.out = appendUvarint(e.out, n)
	}
}

func (e *encoder) value(v Value, t *Type) error {
	if v.Type != t && !v.Type.Equal(t) {
		return mismatch(t, "a value of type "+v.Type.String())
	}
	switch t.Kind {
	case Bool:
		b := byte(0)
		if v.Bool {
			b = 1
		}
		e.out = append(e.out, b)
	case U8:
		if v.Uint > 0xff {
			return mismatch(t, "out of range")
		}
		e.out = append(e.out, byte(v.Uint))
	case I8:
		if v.Int != int64(int8(v.Int)) {
			return mismatch(t, "out of range")
		}
		e.out = append(e.out, byte(v.Int))
	case U16, U32, U64, FixedU16, FixedU32, FixedU64:
		w := uintWidth(t.Kind)
		if w < 64 && v.Uint>>w != 0 {
			return mismatch(t, "out of range")
		}
		if e.v1 || t.Kind >= FixedU16 {
			e.out = appendLE(e.out, v.Uint, w/8)
		} else {
			e.out = appendUvarint(e.out, v.Uint)
		}
	case I16, I32, I64, FixedI16, FixedI32, FixedI64, DateKind, Timestamp:
		w := uintWidth(t.Kind)
		if w < 64 && v.Int != v.Int<<(64-w)>>(64-w) {
			return mismatch(t, "out of range")
		}
		if e.v1 || (t.Kind >= FixedI16 && t.Kind <= FixedI64) {
			e.out = appendLE(e.out, uint64(v.Int), w/8)
		} else {
			e.out = appendUvarint(e.out, zigzag(v.Int))
		}
	case U128, I128, U256, I256, FixedU128, FixedI128:
		if v.Big == nil {
			return mismatch(t, "no integer")
		}
		n, signed := 16, t.Kind == I128 || t.Kind == FixedI128
		if t.Kind == U256 || t.Kind == I256 {
			n, signed = 32, t.Kind == I256
		}
		le, ok := bigToLE(v.Big, n, signed)
		if !ok {
			return mismatch(t, "out of range")
		}
		if e.v1 || n == 32 || t.Kind >= FixedU128 {
			e.out = append(e.out, le...)
		} else {
			lo, hi := binary.LittleEndian.Uint64(le), binary.LittleEndian.Uint64(le[8:])
			if signed { // zigzag in 128 bits
				s := -(hi >> 63)
				lo, hi = lo<<1^s, (hi<<1|lo>>63)^s
			}
			e.out = appendUvarint128(e.out, lo, hi)
		}
	case F32:
		e.out = binary.LittleEndian.AppendUint32(e.out, uint32(v.Uint))
	case F64:
		e.out = binary.LittleEndian.AppendUint64(e.out, v.Uint)
	case String:
		if !utf8.ValidString(v.Str) {
			return encErr(KindInvalidUTF8, "", "a string value")
		}
		e.count(uint64(len(v.Str)))
		e.out = append(e.out, v.Str...)
	case Bytes:
		e.count(uint64(len(v.Bytes)))
		e.out = append(e.out, v.Bytes...)
	case Unit:
	case Vec:
		e.count(uint64(len(v.Items)))
		for _, it := range v.Items {
			if err := e.value(it, t.Elem); err != nil {
				return err
			}
		}
	case Array:
		if uint64(len(v.Items)) != t.Len {
			return mismatch(t, fmt.Sprintf("%d items", len(v.Items)))
		}
		for _, it := range v.Items {
			if err := e.value(it, t.Elem); err != nil {
				return err
			}
		}
	case Struct:
		if len(v.Items) != len(t.Fields) {
			return mismatch(t, fmt.Sprintf("%d fields", len(v.Items)))
		}
		for i, f := range t.Fields {
			if err := e.value(v.Items[i], f.Type); err != nil {
				return err
			}
		}
	case Tuple:
		if len(v.Items) != len(t.Elems) {
			return mismatch(t, fmt.Sprintf("%d items", len(v.Items)))
		}
		for i, et := range t.Elems {
			if err := e.value(v.Items[i], et); err != nil {
				return err
			}
		}
	case Option:
		switch len(v.Items) {
		case 0:
			e.out = append(e.out, 0)
		case 1:
			e.out = append(e.out, 1)
			return e.value(v.Items[0], t.Elem)
		default:
			return mismatch(t, "more than one payload")
		}
	case Map:
		if len(v.Items)%2 != 0 {
			return mismatch(t, "an odd number of items")
		}
		e.count(uint64(len(v.Items) / 2))
		var seen map[string]struct{}
		if len(v.Items) > 2 {
			seen = make(map[string]struct{}, len(v.Items)/2)
		}
		for i := 0; i < len(v.Items); i += 2 {
			start := len(e.out)
			if err := e.value(v.Items[i], t.Key); err != nil {
				return err
			}
			if seen != nil {
				k := string(e.out[start:])
				if _, dup := seen[k]; dup {
					return encErr(KindDuplicateKey, "", "a repeated map key")
				}
				seen[k] = struct{}{}
			}
			if err := e.value(v.Items[i+1], t.Elem); err != nil {
				return err
			}
		}
	case Enum:
		if v.Uint >= uint64(len(t.Fields)) || len(v.Items) != 1 {
			return mismatch(t, "no such variant")
		}
		e.out = appendUvarint(e.out, v.Uint)
		return e.value(v.Items[0], t.Fields[v.Uint].Type)
	case Any:
		if len(v.Items) != 1 || v.Items[0].Type == nil {
			return mismatch(t, "an any without its value")
		}
		e.out = v.Items[0].Type.AppendMetadata(e.out)
		return e.value(v.Items[0], v.Items[0].Type)
	default:
		return mismatch(t, "unknown kind")
	}
	return nil
}

func uintWidth(k Kind) uint {
	switch k {
	case U16, I16, FixedU16, FixedI16:
		return 16
	case U32, I32, FixedU32, FixedI32, DateKind:
		return 32
	}
	return 64
}

func appendLE(out []byte, x uint64, n uint) []byte {
	for i := uint(0); i < n; i++ {
		out = append(out, byte(x>>(8*i)))
	}
	return out
}

func appendUvarint128(out []byte, lo, hi uint64) []byte {
	for hi != 0 || lo >= 0x80 {
		out = append(out, byte(lo)|0x80)
		lo = lo>>7 | hi<<57
		hi >>= 7
	}
	return append(out, byte(lo))
}

// bigToLE writes x in n bytes of two's complement (signed) or unsigned LE.
func bigToLE(x *big.Int, n int, signed bool) ([]byte, bool) {
	bitsN := uint(8 * n)
	lim := new(big.Int).Lsh(big.NewInt(1), bitsN)
	y := new(big.Int).Set(x)
	if signed {
		half := new(big.Int).Lsh(big.NewInt(1), bitsN-1)
		if y.Cmp(half) >= 0 || y.Cmp(new(big.Int).Neg(half)) < 0 {
			return nil, false
		}
		if y.Sign() < 0 {
			y.Add(y, lim)
		}
	} else if y.Sign() < 0 || y.Cmp(lim) >= 0 {
		return nil, false
	}
	be := y.FillBytes(make([]byte, n))
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		be[i], be[j] = be[j], be[i]
	}
	return be, true
}

// checkV1 refuses types v1 lacks (SPEC 23.1: unsupported, with the path).
func checkV1(t *Type, path string) error {
	switch t.Kind {
	case Vec:
		return checkV1(t.Elem, path+"[]")
	case Struct:
		for _, f := range t.Fields {
			if err := checkV1(f.Type, path+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	}
	if t.Kind > Struct {
		return encErr(KindUnsupported, path, "XBF v1 has no type "+t.String())
	}
	return nil
}

func v1Meta(t *Type) error {
	switch t.Kind {
	case Vec:
		return v1Meta(t.Elem)
	case Struct:
		if len(t.Fields) > 65535 {
			return encErr(KindTooLarge, "", "more than 65,535 fields")
		}
		for _, f := range t.Fields {
			if err := v1Meta(f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

func appendMetadataV1(out []byte, t *Type) []byte {
	out = append(out, byte(t.Kind))
	switch t.Kind {
	case Vec:
		out = appendMetadataV1(out, t.Elem)
	case Struct:
		out = binary.LittleEndian.AppendUint64(out, uint64(len(t.Name)))
		out = append(out, t.Name...)
		out = binary.LittleEndian.AppendUint16(out, uint16(len(t.Fields)))
		for _, f := range t.Fields {
			out = binary.LittleEndian.AppendUint64(out, uint64(len(f.Name)))
			out = append(out, f.Name...)
			out = appendMetadataV1(out, f.Type)
		}
	}
	return out
}
