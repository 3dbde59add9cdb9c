package xbf

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Date is a calendar day, the XBF `date` type: days since 1970-01-01.
type Date int32

// DateOf is the day of t (in t's location).
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// Time is the start of the day, in UTC.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

func (d Date) String() string { return d.Time().Format("2006-01-02") }

// Marshaler is implemented by types that write themselves as an XBF value
// of a fixed type (the metadata comes from the type, not the value).
type Marshaler interface {
	XBFType() *Type
	MarshalXBF() (Value, error)
}

// Unmarshaler is implemented by types that read themselves from a value.
type Unmarshaler interface {
	UnmarshalXBF(Value) error
}

var (
	typTime        = reflect.TypeOf(time.Time{})
	typDate        = reflect.TypeOf(Date(0))
	typBigInt      = reflect.TypeOf(big.Int{})
	typValue       = reflect.TypeOf(Value{})
	typMarshaler   = reflect.TypeOf((*Marshaler)(nil)).Elem()
	typUnmarshaler = reflect.TypeOf((*Unmarshaler)(nil)).Elem()
	typBinMarsh    = reflect.TypeOf((*encoding.BinaryMarshaler)(nil)).Elem()
	typBinUnmarsh  = reflect.TypeOf((*encoding.BinaryUnmarshaler)(nil)).Elem()
)

// encFn appends the value v (XBF 2 rows).
type encFn func(b []byte, v reflect.Value) ([]byte, error)

// codec is what a Go type maps to, built once per type (and big.Int
// width): its XBF type, metadata bytes and row encoder.
type codec struct {
	xt   *Type
	meta []byte
	enc  encFn
	hint atomic.Int64 // the size of the last message Marshal wrote
}

type codecKey struct {
	rt  reflect.Type
	opt string // width option for big.Int fields
}

var codecs sync.Map // codecKey -> *codec

// codecFor returns the cached codec of rt.
func codecFor(rt reflect.Type) (*codec, error) { return codecOpt(rt, "", nil) }

func codecOpt(rt reflect.Type, opt string, building map[reflect.Type]bool) (*codec, error) {
	key := codecKey{rt, opt}
	if c, ok := codecs.Load(key); ok {
		return c.(*codec), nil
	}
	if building == nil {
		building = map[reflect.Type]bool{}
	}
	if building[rt] {
		return nil, encErr(KindUnsupported, "", "recursive type "+rt.String()+" has no XBF type")
	}
	building[rt] = true
	defer delete(building, rt)
	c, err := buildCodec(rt, opt, building)
	if err != nil {
		return nil, err
	}
	c.meta = c.xt.AppendMetadata(nil)
	actual, _ := codecs.LoadOrStore(key, c)
	return actual.(*codec), nil
}

// fieldInfo is one struct field as XBF sees it (goFields), with its codec.
type fieldInfo struct {
	goField
	c *codec
}

func structFields(rt reflect.Type, building map[reflect.Type]bool) ([]fieldInfo, error) {
	var fs []fieldInfo
	for _, f := range goFields(rt) {
		fi := fieldInfo{goField: f}
		c, err := codecOpt(f.typ, f.opt, building)
		if err != nil {
			return nil, within(err, "."+f.name)
		}
		if f.omitempty && f.typ.Kind() != reflect.Pointer {
			c = omitCodec(c, f.typ)
		}
		fi.c = c
		fs = append(fs, fi)
	}
	return fs, nil
}

// omitCodec makes a field option<T>, absent when the value is empty.
func omitCodec(c *codec, rt reflect.Type) *codec {
	inner := c.enc
	return &codec{xt: OptionOf(c.xt), enc: func(b []byte, v reflect.Value) ([]byte, error) {
		if isEmpty(v) {
			return append(b, 0), nil
		}
		return inner(append(b, 1), v)
	}}
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array:
		return v.Len() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return v.IsZero()
}

func buildCodec(rt reflect.Type, opt string, building map[reflect.Type]bool) (*codec, error) {
	// Hooks and special types first.
	switch {
	case rt == typTime:
		return &codec{xt: Prim(Timestamp), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			t := v.Interface().(time.Time)
			return appendUvarint(b, zigzag(t.UnixMicro())), nil
		}}, nil
	case rt == typDate:
		return &codec{xt: Prim(DateKind), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			return appendUvarint(b, zigzag(v.Int())), nil
		}}, nil
	case rt == typBigInt:
		return bigCodec(opt, false), nil
	case rt.Kind() == reflect.Pointer && rt.Elem() == typBigInt && opt != "":
		return bigCodec(opt, true), nil
	case rt == typValue:
		return &codec{xt: Prim(Any), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			x := v.Interface().(Value)
			if x.Type == nil {
				return b, encErr(KindTypeMismatch, "", "a Value without a type")
			}
			e := encoder{out: x.Type.AppendMetadata(b)}
			err := e.value(x, x.Type)
			return e.out, err
		}}, nil
	case rt.Implements(typMarshaler) && rt.Kind() != reflect.Pointer:
		xt := reflect.Zero(rt).Interface().(Marshaler).XBFType()
		return &codec{xt: xt, enc: func(b []byte, v reflect.Value) ([]byte, error) {
			x, err := v.Interface().(Marshaler).MarshalXBF()
			if err != nil {
				return b, err
			}
			e := encoder{out: b}
			err = e.value(x, xt)
			return e.out, err
		}}, nil
	case rt.Implements(typBinMarsh) && rt.Kind() != reflect.Pointer:
		return &codec{xt: Prim(Bytes), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			x, err := v.Interface().(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return b, err
			}
			return append(appendUvarint(b, uint64(len(x))), x...), nil
		}}, nil
	}
	switch rt.Kind() {
	case reflect.Bool:
		return &codec{xt: Prim(Bool), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			if v.Bool() {
				return append(b, 1), nil
			}
			return append(b, 0), nil
		}}, nil
	case reflect.Int8:
		return &codec{xt: Prim(I8), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			return append(b, byte(v.Int())), nil
		}}, nil
	case reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		k := map[reflect.Kind]Kind{reflect.Int16: I16, reflect.Int32: I32, reflect.Int64: I64, reflect.Int: I64}[rt.Kind()]
		return &codec{xt: Prim(k), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			return appendUvarint(b, zigzag(v.Int())), nil
		}}, nil
	case reflect.Uint8:
		return &codec{xt: Prim(U8), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			return append(b, byte(v.Uint())), nil
		}}, nil
	case reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint, reflect.Uintptr:
		k := map[reflect.Kind]Kind{reflect.Uint16: U16, reflect.Uint32: U32}[rt.Kind()]
		if k == 0 {
			k = U64
		}
		return &codec{xt: Prim(k), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			return appendUvarint(b, v.Uint()), nil
		}}, nil
	case reflect.Float32:
		return &codec{xt: Prim(F32), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v.Float()))), nil
		}}, nil
	case reflect.Float64:
		return &codec{xt: Prim(F64), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float())), nil
		}}, nil
	case reflect.String:
		return &codec{xt: Prim(String), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			s := v.String()
			if !validUTF8String(s) {
				return b, encErr(KindInvalidUTF8, "", "a string that is not UTF-8")
			}
			return append(appendUvarint(b, uint64(len(s))), s...), nil
		}}, nil
	case reflect.Slice:
		if rt.Elem().Kind() == reflect.Uint8 && !rt.Elem().Implements(typMarshaler) {
			return &codec{xt: Prim(Bytes), enc: func(b []byte, v reflect.Value) ([]byte, error) {
				x := v.Bytes()
				return append(appendUvarint(b, uint64(len(x))), x...), nil
			}}, nil
		}
		ec, err := codecOpt(rt.Elem(), opt, building)
		if err != nil {
			return nil, within(err, "[]")
		}
		eenc := ec.enc
		return &codec{xt: VecOf(ec.xt), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			n := v.Len()
			b = appendUvarint(b, uint64(n))
			var err error
			for i := 0; i < n; i++ {
				if b, err = eenc(b, v.Index(i)); err != nil {
					return b, within(err, fmt.Sprintf("[%d]", i))
				}
			}
			return b, nil
		}}, nil
	case reflect.Array:
		ec, err := codecOpt(rt.Elem(), opt, building)
		if err != nil {
			return nil, within(err, "[]")
		}
		eenc := ec.enc
		return &codec{xt: ArrayOf(uint64(rt.Len()), ec.xt), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			var err error
			for i := 0; i < v.Len(); i++ {
				if b, err = eenc(b, v.Index(i)); err != nil {
					return b, within(err, fmt.Sprintf("[%d]", i))
				}
			}
			return b, nil
		}}, nil
	case reflect.Pointer:
		ec, err := codecOpt(rt.Elem(), opt, building)
		if err != nil {
			return nil, err
		}
		eenc := ec.enc
		return &codec{xt: OptionOf(ec.xt), enc: func(b []byte, v reflect.Value) ([]byte, error) {
			if v.IsNil() {
				return append(b, 0), nil
			}
			return eenc(append(b, 1), v.Elem())
		}}, nil
	case reflect.Map:
		kc, err := codecOpt(rt.Key(), "", building)
		if err != nil {
			return nil, within(err, "[].key")
		}
		vc, err := codecOpt(rt.Elem(), opt, building)
		if err != nil {
			return nil, within(err, "[].value")
		}
		return &codec{xt: MapOf(kc.xt, vc.xt), enc: mapEncoder(kc.enc, vc.enc)}, nil
	case reflect.Struct:
		if isEnumStruct(rt) {
			return enumCodec(rt, building)
		}
		fs, err := structFields(rt, building)
		if err != nil {
			return nil, within(err, rt.Name())
		}
		fields := make([]Field, len(fs))
		for i, f := range fs {
			fields[i] = Field{f.name, f.c.xt}
		}
		xt, err := StructOf(rt.Name(), fields)
		if err != nil {
			return nil, err
		}
		ops := make([]byte, len(fs))
		for i, f := range fs {
			if len(f.index) == 1 {
				ops[i] = encOp(f.typ, f.c)
			}
		}
		return &codec{xt: xt, enc: func(b []byte, v reflect.Value) ([]byte, error) {
			var err error
			for i := range fs {
				f := &fs[i]
				switch ops[i] {
				case opVarintInt:
					b = appendUvarint(b, zigzag(v.Field(f.index[0]).Int()))
				case opString:
					s := v.Field(f.index[0]).String()
					if !validUTF8String(s) {
						return b, within(encErr(KindInvalidUTF8, "", "a string that is not UTF-8"), "."+f.name)
					}
					b = append(appendUvarint(b, uint64(len(s))), s...)
				default:
					if b, err = f.c.enc(b, fieldToRead(v, &f.goField)); err != nil {
						return b, within(err, "."+f.name)
					}
				}
			}
			return b, nil
		}}, nil
	case reflect.Interface:
		return &codec{xt: Prim(Any), enc: encodeAny}, nil
	}
	return nil, encErr(KindUnsupported, "", "Go type "+rt.String()+" has no XBF type")
}

// encOp picks the struct fields that the struct encoder writes inline:
// plain Go ints (i64 varints) and strings, without hooks.
func encOp(rt reflect.Type, c *codec) byte {
	if rt.Implements(typMarshaler) || rt.Implements(typBinMarsh) || rt == typDate {
		return opNone
	}
	switch {
	case c.xt.Kind == I64 && (rt.Kind() == reflect.Int || rt.Kind() == reflect.Int64):
		return opVarintInt
	case c.xt.Kind == String && rt.Kind() == reflect.String:
		return opString
	}
	return opNone
}

// encodeAny writes an interface value as `any`: its dynamic type's
// metadata, then the value.
func encodeAny(b []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		return append(b, byte(Unit)), nil
	}
	inner := v.Elem()
	if x, ok := inner.Interface().(Value); ok {
		e := encoder{out: x.Type.AppendMetadata(b)}
		err := e.value(x, x.Type)
		return e.out, err
	}
	c, err := codecFor(inner.Type())
	if err != nil {
		return b, err
	}
	return c.enc(append(b, c.meta...), inner)
}

// mapEncoder writes entries sorted by their keys' bytes, so that one map
// always gives the same message (Go's map order is random).
func mapEncoder(kenc, venc encFn) encFn {
	return func(b []byte, v reflect.Value) ([]byte, error) {
		n := v.Len()
		b = appendUvarint(b, uint64(n))
		type entry struct {
			k []byte
			v reflect.Value
		}
		entries := make([]entry, 0, n)
		it := v.MapRange()
		for it.Next() {
			kb, err := kenc(nil, it.Key())
			if err != nil {
				return b, err
			}
			entries = append(entries, entry{kb, it.Value()})
		}
		sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].k, entries[j].k) < 0 })
		var err error
		for i, e := range entries {
			if i > 0 && bytes.Equal(e.k, entries[i-1].k) {
				return b, encErr(KindDuplicateKey, "", "two keys encode alike")
			}
			b = append(b, e.k...)
			if b, err = venc(b, e.v); err != nil {
				return b, err
			}
		}
		return b, nil
	}
}

func bigCodec(opt string, ptr bool) *codec {
	k := map[string]Kind{"": I128, "i128": I128, "u128": U128, "i256": I256, "u256": U256}[opt]
	signed := k == I128 || k == I256
	n := 16
	if k == U256 || k == I256 {
		n = 32
	}
	return &codec{xt: Prim(k), enc: func(b []byte, v reflect.Value) ([]byte, error) {
		var x *big.Int
		if ptr {
			if v.IsNil() {
				x = new(big.Int)
			} else {
				x = v.Interface().(*big.Int)
			}
		} else {
			bi := v.Interface().(big.Int)
			x = &bi
		}
		le, ok := bigToLE(x, n, signed)
		if !ok {
			return b, encErr(KindTypeMismatch, "", fmt.Sprintf("%s does not fit %s", x, k))
		}
		if n == 32 {
			return append(b, le...), nil
		}
		u := u128{binary.LittleEndian.Uint64(le), binary.LittleEndian.Uint64(le[8:])}
		if signed {
			u = zigzag128(u)
		}
		return appendVarint128(b, u), nil
	}}
}

// TypeOf is the XBF type that Marshal writes for values of v's Go type.
func TypeOf(v any) (*Type, error) {
	c, err := codecFor(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	return c.xt, nil
}

// Marshal writes v as an XBF 2 message in rows, its type taken from v's Go type.
func Marshal(v any) ([]byte, error) { return defaultEnc.Marshal(v) }

// Marshal writes v as one message with m's options.
func (m EncMode) Marshal(v any) ([]byte, error) {
	return m.appendMarshal(nil, v)
}

func (m EncMode) appendMarshal(out []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, encErr(KindUnsupported, "", "Marshal of a nil interface")
	}
	c, err := codecFor(rv.Type())
	if err != nil {
		return nil, err
	}
	if m.o.Version != 1 && m.o.Layout == LayoutColumns && rv.Kind() == reflect.Slice && !noTypedColumns {
		if b, ok := m.appendColumnsTyped(out, c, rv); ok {
			return b, nil
		}
	}
	if m.o.Version == 1 || m.o.Layout != LayoutRows {
		// Other layouts and v1 go through the dynamic value.
		rows, err := defaultEnc.appendMarshal(nil, v)
		if err != nil {
			return nil, err
		}
		val, err := Decode(rows)
		if err != nil {
			return nil, err
		}
		enc, err := m.Encode(val)
		if err != nil {
			return nil, err
		}
		return append(out, enc...), nil
	}
	if out == nil {
		// As large as the last message of this type, so that a run of
		// similar messages grows no buffer.
		out = make([]byte, 0, max(64, c.hint.Load()))
	}
	start := len(out)
	out = append(out, 0xc2, 0)
	if m.o.SchemaByReference {
		out[start+1] = flagByRef
		fp := c.xt.Fingerprint()
		out = append(out, fp[:]...)
	} else {
		out = append(out, c.meta...)
	}
	out, err = c.enc(out, rv)
	if err != nil {
		if e, ok := err.(*Error); ok && c.xt.Kind == Struct {
			e.Path = c.xt.Name + e.Path
		}
		return nil, err
	}
	c.hint.Store(int64(len(out) - start))
	return out, nil
}
