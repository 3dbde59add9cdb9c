package xbf

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// decFn reads one value of a wire type into v (settable). counted tells a
// zero-size value that its weight was charged at its vec's count.
type decFn func(r *reader, v reflect.Value, counted bool) error

type planKey struct {
	rt   reflect.Type
	v1   bool
	meta string
}

var (
	plans     sync.Map // planKey -> decFn
	planCount atomic.Int64
)

// maxPlans bounds the plan cache: the metadata comes from the input, and a
// peer sending ever new types must not grow memory without end. Past it,
// plans are compiled for each message and dropped.
const maxPlans = 4096

// planFor compiles (once) how to read wire type wt into Go type rt.
func planFor(wt *Type, rt reflect.Type, v1 bool, meta string) decFn {
	key := planKey{rt, v1, meta}
	if f, ok := plans.Load(key); ok {
		return f.(decFn)
	}
	f := compileDec(wt, rt, 0, "")
	if planCount.Load() < maxPlans {
		if _, loaded := plans.LoadOrStore(key, f); !loaded {
			planCount.Add(1)
		}
	}
	return f
}

func mismatchAt(r *reader, off int, detail string) error {
	return r.failf(KindTypeMismatch, off, detail)
}

// readInt reads an integer of any wire integer type as (signed value,
// unsigned value, negative, fits in 64 bits).
func (r *reader) readInt(k Kind) (u uint64, neg bool, big128 *big.Int, err error) {
	switch k {
	case U8:
		b, err := r.byte1()
		return uint64(b), false, nil, err
	case I8:
		b, err := r.byte1()
		x := int64(int8(b))
		return uint64(x), x < 0, nil, err
	case U16, U32, U64:
		if r.v1 {
			v, err := r.fixedInt(Prim(k), int(uintWidth(k)/8), false)
			return v.Uint, false, nil, err
		}
		x, err := r.uvarint(int(uintWidth(k)))
		return x, false, nil, err
	case I16, I32, I64:
		if r.v1 {
			v, err := r.fixedInt(Prim(k), int(uintWidth(k)/8), true)
			return uint64(v.Int), v.Int < 0, nil, err
		}
		x, err := r.uvarint(int(uintWidth(k)))
		s := unzigzag(x)
		return uint64(s), s < 0, nil, err
	case FixedU16, FixedU32, FixedU64:
		v, err := r.fixedInt(Prim(k), int(uintWidth(k)/8), false)
		return v.Uint, false, nil, err
	case FixedI16, FixedI32, FixedI64:
		v, err := r.fixedInt(Prim(k), int(uintWidth(k)/8), true)
		return uint64(v.Int), v.Int < 0, nil, err
	}
	// 128 and 256 bits.
	v, err := r.value(Prim(k), 0, false)
	if err != nil {
		return 0, false, nil, err
	}
	return 0, v.Big.Sign() < 0, v.Big, nil
}

func isIntKind(k Kind) bool {
	switch k {
	case U8, U16, U32, U64, U128, U256, I8, I16, I32, I64, I128, I256,
		FixedU16, FixedU32, FixedU64, FixedU128, FixedI16, FixedI32, FixedI64, FixedI128:
		return true
	}
	return false
}

// compileDec builds the reader of wire type wt into Go type rt. depth is
// the number of levels open around the value (for `any`).
func compileDec(wt *Type, rt reflect.Type, depth int, opt string) decFn {
	inner := compileDec0(wt, rt, depth, opt)
	if wt.min != 0 {
		return inner
	}
	// A zero-size value charges its weight once, where it stands, unless
	// its vec's count did; what it holds is then counted with it (16.2).
	w := wt.weight
	return func(r *reader, v reflect.Value, counted bool) error {
		if !counted {
			if err := r.chargeZS(w, r.pos); err != nil {
				return err
			}
		}
		return inner(r, v, true)
	}
}

func compileDec0(wt *Type, rt reflect.Type, depth int, opt string) decFn {
	// Wire options: absent leaves the target as it is, present reads on.
	if wt.Kind == Option && rt.Kind() != reflect.Pointer && rt != typValue && rt.Kind() != reflect.Interface {
		inner := compileDec(wt.Elem, rt, depth+1, opt)
		return func(r *reader, v reflect.Value, counted bool) error {
			off := r.pos
			b, err := r.byte1()
			if err != nil {
				return err
			}
			switch b {
			case 0:
				v.SetZero()
				return nil
			case 1:
				return inner(r, v, false)
			}
			return r.fail(KindInvalidBool, off)
		}
	}
	// JSON's missing keys (SPEC 19.1): enum "json.optional" { absent, present: T }
	// reads as an option of T: absent leaves the target as it is.
	if isJSONOptional(wt) && rt != typValue && rt.Kind() != reflect.Interface {
		inner := compileDec(wt.Fields[1].Type, rt, depth+1, opt)
		return func(r *reader, v reflect.Value, counted bool) error {
			off := r.pos
			idx, err := r.uvarint(w64)
			if err != nil {
				return err
			}
			switch idx {
			case 0:
				return r.chargeZS(wt.Fields[0].Type.weight, r.pos)
			case 1:
				if err := inner(r, v, false); err != nil {
					return within(err, ".present")
				}
				return nil
			}
			return r.fail(KindUnknownVariant, off)
		}
	}
	// Dynamic targets and hooks.
	switch {
	case rt == typValue:
		return func(r *reader, v reflect.Value, counted bool) error {
			x, err := r.value(wt, depth, counted)
			if err != nil {
				return err
			}
			if wt.Kind == Any {
				x = x.Items[0]
			}
			v.Set(reflect.ValueOf(x))
			return nil
		}
	case rt.Kind() == reflect.Interface && rt.NumMethod() == 0:
		return func(r *reader, v reflect.Value, counted bool) error {
			x, err := r.value(wt, depth, counted)
			if err != nil {
				return err
			}
			if wt.Kind == Any {
				x = x.Items[0]
			}
			v.Set(reflect.ValueOf(x))
			return nil
		}
	case reflect.PointerTo(rt).Implements(typUnmarshaler):
		return func(r *reader, v reflect.Value, counted bool) error {
			off := r.pos
			x, err := r.value(wt, depth, counted)
			if err != nil {
				return err
			}
			if err := v.Addr().Interface().(Unmarshaler).UnmarshalXBF(x); err != nil {
				return mismatchAt(r, off, err.Error())
			}
			return nil
		}
	case rt == typTime && wt.Kind == DateKind:
		return func(r *reader, v reflect.Value, counted bool) error {
			x, err := r.uvarint(w32)
			if err != nil {
				return err
			}
			v.Set(reflect.ValueOf(Date(unzigzag(x)).Time()))
			return nil
		}
	case rt == typTime:
		if wt.Kind != Timestamp {
			break
		}
		return func(r *reader, v reflect.Value, counted bool) error {
			x, err := r.uvarint(w64)
			if err != nil {
				return err
			}
			v.Set(reflect.ValueOf(time.UnixMicro(unzigzag(x)).UTC()))
			return nil
		}
	case rt == typBigInt || (rt.Kind() == reflect.Pointer && rt.Elem() == typBigInt):
		if !isIntKind(wt.Kind) {
			break
		}
		ptr := rt.Kind() == reflect.Pointer
		return func(r *reader, v reflect.Value, counted bool) error {
			u, neg, b, err := r.readInt(wt.Kind)
			if err != nil {
				return err
			}
			if b == nil {
				if neg {
					b = big.NewInt(int64(u))
				} else {
					b = new(big.Int).SetUint64(u)
				}
			}
			if ptr {
				v.Set(reflect.ValueOf(b))
			} else {
				v.Set(reflect.ValueOf(*b))
			}
			return nil
		}
	case reflect.PointerTo(rt).Implements(typBinUnmarsh) && wt.Kind == Bytes:
		return func(r *reader, v reflect.Value, counted bool) error {
			off := r.pos
			x, err := r.value(wt, depth, counted)
			if err != nil {
				return err
			}
			if err := v.Addr().Interface().(encoding.BinaryUnmarshaler).UnmarshalBinary(x.Bytes); err != nil {
				return mismatchAt(r, off, err.Error())
			}
			return nil
		}
	}
	if wt.Kind == Any {
		// The value carries its own type: compile for it when it comes.
		return func(r *reader, v reflect.Value, counted bool) error {
			off := r.pos
			if depth+1 > r.maxDepth {
				return r.fail(KindTooDeep, off)
			}
			own, err := r.typ(depth+1, false)
			if err != nil {
				return err
			}
			return compileDec(own, rt, depth+1, opt)(r, v, false)
		}
	}
	if wt.Kind == Unit {
		// Unit (JSON's null) sets any target to its zero value (nil for a
		// pointer); compileDec charged it.
		return func(r *reader, v reflect.Value, counted bool) error {
			v.SetZero()
			return nil
		}
	}
	switch rt.Kind() {
	case reflect.Pointer:
		elem := rt.Elem()
		if wt.Kind == Option {
			inner := compileDec(wt.Elem, elem, depth+1, opt)
			return func(r *reader, v reflect.Value, counted bool) error {
				off := r.pos
				b, err := r.byte1()
				if err != nil {
					return err
				}
				switch b {
				case 0:
					v.SetZero()
					return nil
				case 1:
					p := reflect.New(elem)
					if err := inner(r, p.Elem(), false); err != nil {
						return err
					}
					v.Set(p)
					return nil
				}
				return r.fail(KindInvalidBool, off)
			}
		}
		inner := compileDec(wt, elem, depth, opt)
		return func(r *reader, v reflect.Value, counted bool) error {
			p := reflect.New(elem)
			if err := inner(r, p.Elem(), counted); err != nil {
				return err
			}
			v.Set(p)
			return nil
		}
	case reflect.Bool:
		if wt.Kind == Bool {
			return func(r *reader, v reflect.Value, counted bool) error {
				off := r.pos
				b, err := r.byte1()
				if err != nil {
					return err
				}
				if b > 1 {
					return r.fail(KindInvalidBool, off)
				}
				v.SetBool(b == 1)
				return nil
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if rt == typDate && wt.Kind == DateKind {
			return func(r *reader, v reflect.Value, counted bool) error {
				x, err := r.uvarint(w32)
				v.SetInt(unzigzag(x))
				return err
			}
		}
		if isIntKind(wt.Kind) {
			bits := uint(rt.Bits())
			if wt.Kind == I64 && bits == 64 {
				// The common case: a varint i64 into int or int64.
				return func(r *reader, v reflect.Value, counted bool) error {
					var x uint64
					if r.pos < r.end && r.data[r.pos] < 0x80 && !r.v1 {
						x = uint64(r.data[r.pos])
						r.pos++
					} else if r.v1 {
						u, _, _, err := r.readInt(I64)
						if err != nil {
							return err
						}
						v.SetInt(int64(u))
						return nil
					} else {
						var err error
						if x, err = r.uvarint(w64); err != nil {
							return err
						}
					}
					v.SetInt(unzigzag(x))
					return nil
				}
			}
			return func(r *reader, v reflect.Value, counted bool) error {
				off := r.pos
				u, neg, b, err := r.readInt(wt.Kind)
				if err != nil {
					return err
				}
				if b != nil {
					if !b.IsInt64() {
						return mismatchAt(r, off, fmt.Sprintf("invalid value: integer %s, expected %s", b, rt))
					}
					u, neg = uint64(b.Int64()), b.Sign() < 0
				}
				s := int64(u)
				if (!neg && u > math.MaxInt64) || s<<(64-bits)>>(64-bits) != s {
					return mismatchAt(r, off, fmt.Sprintf("invalid value: integer %s, expected %s", intText(u, neg), rt))
				}
				v.SetInt(s)
				return nil
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if isIntKind(wt.Kind) {
			bits := uint(rt.Bits())
			return func(r *reader, v reflect.Value, counted bool) error {
				off := r.pos
				u, neg, b, err := r.readInt(wt.Kind)
				if err != nil {
					return err
				}
				if b != nil {
					if !b.IsUint64() {
						return mismatchAt(r, off, fmt.Sprintf("invalid value: integer %s, expected %s", b, rt))
					}
					u, neg = b.Uint64(), false
				}
				if neg || (bits < 64 && u>>bits != 0) {
					return mismatchAt(r, off, fmt.Sprintf("invalid value: integer %s, expected %s", intText(u, neg), rt))
				}
				v.SetUint(u)
				return nil
			}
		}
	case reflect.Float32, reflect.Float64:
		switch {
		case wt.Kind == F64:
			return func(r *reader, v reflect.Value, counted bool) error {
				b, err := r.fixed(8)
				if err != nil {
					return err
				}
				v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
				return nil
			}
		case wt.Kind == F32:
			return func(r *reader, v reflect.Value, counted bool) error {
				b, err := r.fixed(4)
				if err != nil {
					return err
				}
				v.SetFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
				return nil
			}
		case isIntKind(wt.Kind):
			return func(r *reader, v reflect.Value, counted bool) error {
				u, neg, b, err := r.readInt(wt.Kind)
				if err != nil {
					return err
				}
				switch {
				case b != nil:
					f, _ := new(big.Float).SetInt(b).Float64()
					v.SetFloat(f)
				case neg:
					v.SetFloat(float64(int64(u)))
				default:
					v.SetFloat(float64(u))
				}
				return nil
			}
		}
	case reflect.String:
		if wt.Kind == String {
			return func(r *reader, v reflect.Value, counted bool) error {
				s, err := r.textArena()
				v.SetString(s)
				return err
			}
		}
	case reflect.Slice:
		if rt.Elem().Kind() == reflect.Uint8 && wt.Kind == Bytes {
			return func(r *reader, v reflect.Value, counted bool) error {
				off := r.pos
				n, err := r.count()
				if err != nil {
					return err
				}
				if n > r.remaining() {
					return r.fail(KindTruncated, off)
				}
				b := make([]byte, n)
				copy(b, r.data[r.pos:])
				r.pos += int(n)
				v.SetBytes(b)
				return nil
			}
		}
		if wt.Kind == Vec || wt.Kind == Array {
			return seqDec(wt, rt, depth, opt)
		}
		if wt.Kind == Tuple {
			return tupleDec(wt, rt, depth, opt)
		}
	case reflect.Array:
		if wt.Kind == Vec || wt.Kind == Array {
			return seqDec(wt, rt, depth, opt)
		}
		if wt.Kind == Tuple {
			return tupleDec(wt, rt, depth, opt)
		}
	case reflect.Map:
		if wt.Kind == Map {
			return mapDec(wt, rt, depth, opt)
		}
		if wt.Kind == Struct && rt.Key().Kind() == reflect.String {
			return structToMapDec(wt, rt, depth, opt)
		}
	case reflect.Struct:
		if isEnumStruct(rt) {
			return enumDec(wt, rt, depth)
		}
		if wt.Kind == Struct {
			return structDec(wt, rt, depth)
		}
		if wt.Kind == Tuple {
			return tupleDec(wt, rt, depth, opt)
		}
	}
	return func(r *reader, v reflect.Value, counted bool) error {
		return mismatchAt(r, r.pos, fmt.Sprintf("invalid type: %s data, expected %s", wt, rt))
	}
}

func isJSONOptional(t *Type) bool {
	return t.Kind == Enum && t.Name == "json.optional" && len(t.Fields) == 2 && t.Fields[0].Name == "absent" &&
		t.Fields[0].Type.Kind == Unit && t.Fields[1].Name == "present"
}

func intText(u uint64, neg bool) string {
	if neg {
		return fmt.Sprint(int64(u))
	}
	return fmt.Sprint(u)
}

// seqDec reads a vec or an array into a slice or array; an array target
// takes what fits and skips the rest.
func seqDec(wt *Type, rt reflect.Type, depth int, opt string) decFn {
	elemFn := compileDec(wt.Elem, rt.Elem(), depth+1, opt)
	isSlice := rt.Kind() == reflect.Slice
	esize := uint64(rt.Elem().Size())
	return func(r *reader, v reflect.Value, counted bool) error {
		off := r.pos
		var n uint64
		if wt.Kind == Vec {
			var err error
			if n, err = r.count(); err != nil {
				return err
			}
			if counted, err = r.checkCount(n, r.minOf(wt.Elem), wt.Elem.weight, off); err != nil {
				return err
			}
		} else {
			n = wt.Len // a zero-size array passes counted on to its elements
			if m := r.minOf(wt.Elem); m > 0 && n > r.remaining()/m {
				return r.fail(KindTruncated, off)
			}
		}
		take := n
		if isSlice && n > prealloc(r, esize) {
			// More Go memory than the input justifies up front: grow as
			// elements actually decode, as encoding/json does.
			return growDec(r, v, rt, n, func(i uint64, el reflect.Value) error { return elemFn(r, el, counted) })
		}
		if isSlice {
			if v.IsNil() || uint64(v.Cap()) < n {
				v.Set(reflect.MakeSlice(rt, int(n), int(n)))
			} else {
				// Reused elements start from zero: fields the data lacks
				// must not keep an earlier message's values.
				v.SetLen(int(n))
				for i := 0; i < int(n); i++ {
					v.Index(i).SetZero()
				}
			}
		} else {
			take = min(n, uint64(v.Len()))
			for i := int(take); i < v.Len(); i++ {
				v.Index(i).SetZero()
			}
		}
		for i := uint64(0); i < n; i++ {
			var err error
			if i < take {
				err = elemFn(r, v.Index(int(i)), counted)
			} else {
				err = r.skip(wt.Elem, depth+1, counted)
			}
			if err != nil {
				return within(err, "["+utoa(i)+"]")
			}
		}
		return nil
	}
}

// tupleDec reads a tuple into a slice or array (element by element) or a
// struct (field by position, SPEC 23.2 rule 9); elements past the target
// are skipped.
func tupleDec(wt *Type, rt reflect.Type, depth int, opt string) decFn {
	var targets []int // the Go field of each element, or -1
	fns := make([]decFn, len(wt.Elems))
	for i, et := range wt.Elems {
		switch rt.Kind() {
		case reflect.Struct:
			idx := -1
			for j, k := 0, 0; j < rt.NumField(); j++ {
				if f := rt.Field(j); f.IsExported() && f.Tag.Get("xbf") != "-" {
					if k == i {
						idx = j
						break
					}
					k++
				}
			}
			targets = append(targets, idx)
			if idx >= 0 {
				fns[i] = compileDec(et, rt.Field(idx).Type, depth+1, "")
			}
		case reflect.Array:
			targets = append(targets, i)
			if i >= rt.Len() {
				targets[i] = -1
			}
			fns[i] = compileDec(et, rt.Elem(), depth+1, opt)
		default:
			targets = append(targets, i)
			fns[i] = compileDec(et, rt.Elem(), depth+1, opt)
		}
	}
	return func(r *reader, v reflect.Value, counted bool) error {
		if rt.Kind() == reflect.Slice {
			v.Set(reflect.MakeSlice(rt, len(wt.Elems), len(wt.Elems)))
		}
		for i, et := range wt.Elems {
			var err error
			switch {
			case targets[i] < 0:
				err = r.skip(et, depth+1, counted)
			case rt.Kind() == reflect.Struct:
				err = fns[i](r, v.Field(targets[i]), counted)
			default:
				err = fns[i](r, v.Index(i), counted)
			}
			if err != nil {
				return within(err, "."+utoa(uint64(i)))
			}
		}
		return nil
	}
}

// prealloc is how many elements of esize bytes a slice may be given before
// any is decoded: 64 bytes of Go memory per input byte, plus 1 MiB.
func prealloc(r *reader, esize uint64) uint64 {
	if esize == 0 {
		return math.MaxUint64
	}
	return satAdd(satMul(64, uint64(len(r.data))), 1<<20) / esize
}

// growDec fills a slice of n elements, growing it as they decode.
func growDec(r *reader, v reflect.Value, rt reflect.Type, n uint64, elem func(uint64, reflect.Value) error) error {
	s := reflect.New(rt).Elem() // settable, so that it can grow in place
	s.Set(reflect.MakeSlice(rt, 0, 64))
	for i := uint64(0); i < n; i++ {
		if s.Len() == s.Cap() {
			s.Grow(s.Cap())
		}
		s.SetLen(s.Len() + 1)
		if err := elem(i, s.Index(int(i))); err != nil {
			return within(err, "["+utoa(i)+"]")
		}
	}
	v.Set(s)
	return nil
}

func mapDec(wt *Type, rt reflect.Type, depth int, opt string) decFn {
	kf := compileDec(wt.Key, rt.Key(), depth+1, "")
	vf := compileDec(wt.Elem, rt.Elem(), depth+1, opt)
	return func(r *reader, v reflect.Value, _ bool) error {
		off := r.pos
		n, err := r.uvarint(w64)
		if err != nil {
			return err
		}
		counted, err := r.checkCount(n, satAdd(wt.Key.min, wt.Elem.min), entryWeight(wt.Key, wt.Elem), off)
		if err != nil {
			return err
		}
		m := reflect.MakeMapWithSize(rt, int(min(n, 1024)))
		var seen map[string]struct{}
		if n > 1 {
			seen = make(map[string]struct{}, min(n, 1024))
		}
		for i := uint64(0); i < n; i++ {
			kstart := r.pos
			k := reflect.New(rt.Key()).Elem()
			if err := kf(r, k, counted); err != nil {
				return within(err, "["+utoa(i)+"].key")
			}
			if seen != nil {
				kb := string(r.data[kstart:r.pos])
				if _, dup := seen[kb]; dup {
					return within(r.fail(KindDuplicateKey, kstart), "["+utoa(i)+"].key")
				}
				seen[kb] = struct{}{}
			}
			val := reflect.New(rt.Elem()).Elem()
			if err := vf(r, val, counted); err != nil {
				return within(err, "["+utoa(i)+"].value")
			}
			m.SetMapIndex(k, val)
		}
		v.Set(m)
		return nil
	}
}

// structToMapDec reads a struct into a map with string keys.
func structToMapDec(wt *Type, rt reflect.Type, depth int, opt string) decFn {
	fns := make([]decFn, len(wt.Fields))
	for i, f := range wt.Fields {
		fns[i] = compileDec(f.Type, rt.Elem(), depth+1, opt)
	}
	return func(r *reader, v reflect.Value, _ bool) error {
		m := reflect.MakeMapWithSize(rt, len(wt.Fields))
		for i, f := range wt.Fields {
			val := reflect.New(rt.Elem()).Elem()
			if err := fns[i](r, val, false); err != nil {
				return within(err, "."+f.Name)
			}
			m.SetMapIndex(reflect.ValueOf(f.Name).Convert(rt.Key()), val)
		}
		v.Set(m)
		return nil
	}
}

// structDec matches wire fields to Go fields by name (SPEC 23.2): fields
// the Go type lacks are skipped; a Go field the data lacks is an error
// (type-mismatch at the struct, rule 3) unless it is optional (a pointer,
// `omitempty` or `default`: left as it is) or DecOptions.AllowMissingFields.
func structDec(wt *Type, rt reflect.Type, depth int) decFn {
	type step struct {
		index int      // Go field, or -1 to skip
		path  *goField // a field promoted from an embedded struct
		op    byte
		fn    decFn
		wire  *Type
		name  string
	}
	fields := goFields(rt)
	byName := make(map[string]*goField, len(fields))
	for i := range fields {
		byName[fields[i].name] = &fields[i]
	}
	steps := make([]step, len(wt.Fields))
	for i, wf := range wt.Fields {
		steps[i] = step{index: -1, wire: wf.Type, name: wf.Name}
		if f, ok := byName[wf.Name]; ok {
			steps[i].fn = compileDec(wf.Type, f.typ, depth+1, f.opt)
			if len(f.index) == 1 {
				steps[i].index = f.index[0]
				steps[i].op = fastOp(wf.Type, f.typ)
			} else {
				steps[i].path = f
			}
		}
	}
	var missing string // the first required Go field the data lacks
	for i := range fields {
		if f := &fields[i]; wt.FieldIndex(f.name) < 0 && !f.optional() {
			missing = f.name
			break
		}
	}
	return func(r *reader, v reflect.Value, counted bool) error {
		start := r.pos
		for i := range steps {
			s := &steps[i]
			var err error
			switch {
			case s.path != nil:
				err = s.fn(r, fieldToWrite(v, s.path), counted)
			case s.op == opString && !r.v1:
				var str string
				str, err = r.textArena()
				v.Field(s.index).SetString(str)
			case s.op == opVarintInt && !r.v1:
				if p := r.pos; p < r.end && r.data[p] < 0x80 {
					v.Field(s.index).SetInt(unzigzag(uint64(r.data[p])))
					r.pos++
				} else if p+1 < r.end && r.data[p+1] < 0x80 && r.data[p+1] != 0 {
					// Two bytes, canonical (a second byte of 0 is overlong).
					v.Field(s.index).SetInt(unzigzag(uint64(r.data[p]&0x7f) | uint64(r.data[p+1])<<7))
					r.pos += 2
				} else {
					var x uint64
					x, err = r.uvarint(w64)
					v.Field(s.index).SetInt(unzigzag(x))
				}
			case s.index >= 0:
				err = s.fn(r, v.Field(s.index), counted)
			default:
				err = r.skip(s.wire, depth+1, counted)
			}
			if err != nil {
				return within(err, "."+s.name)
			}
		}
		if missing != "" && !r.allowMissing {
			return mismatchAt(r, start, "missing field `"+missing+
				"`: the data has no such field and the reader's type gives it no default")
		}
		return nil
	}
}

// Field reads done inline by structDec, without a call through decFn.
const (
	opNone byte = iota
	opString
	opVarintInt // wire i64 into a Go int or int64
)

func fastOp(wt *Type, rt reflect.Type) byte {
	if rt.Implements(typUnmarshaler) || reflect.PointerTo(rt).Implements(typUnmarshaler) {
		return opNone
	}
	switch {
	case wt.Kind == String && rt.Kind() == reflect.String:
		return opString
	case wt.Kind == I64 && (rt.Kind() == reflect.Int || rt.Kind() == reflect.Int64) && rt != typDate:
		return opVarintInt
	}
	return opNone
}

func reflectCut(tag string) (string, string, bool) {
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", false
}

// Unmarshal reads one whole message (v1 or XBF 2, rows or columns) into
// the value v points to, matching struct fields by name (SPEC 23.2).
func Unmarshal(data []byte, v any) error { return defaultDec.Unmarshal(data, v) }

// Unmarshal reads one whole message into v with m's options.
func (m DecMode) Unmarshal(data []byte, v any) error {
	n, err := m.unmarshal(data, v, true)
	_ = n
	return err
}

// unmarshal reads a message from the front of data; whole means every
// byte must be used. It returns the bytes used.
func (m DecMode) unmarshal(data []byte, v any, whole bool) (used int, err error) {
	defer catchInternal(&err)
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return 0, &Error{Kind: KindTypeMismatch, Offset: -1, Detail: "Unmarshal needs a non-nil pointer"}
	}
	target := rv.Elem()
	r := m.newReader(data)
	metaStart := 2
	var wt *Type
	var flags byte
	// Fast path: the writer's type is the reader's own, inline.
	if c, cerr := codecFor(target.Type()); cerr == nil && len(data) >= 2+len(c.meta) && data[0] == 0xc2 &&
		data[1] == 0 && string(data[2:2+len(c.meta)]) == string(c.meta) {
		wt, r.pos = c.xt, 2+len(c.meta)
	} else {
		if wt, flags, err = m.header(r, false); err != nil {
			return 0, err
		}
		if r.v1 {
			metaStart = 0
		}
	}
	root := ""
	if wt.Kind == Struct || wt.Kind == Enum {
		root = wt.Name
	}
	if flags&flagColumnar != 0 {
		return m.unmarshalColumnar(r, wt, target, whole)
	}
	meta := ""
	if flags&flagByRef != 0 {
		meta = string(data[2:10])
	} else {
		meta = string(data[metaStart:r.pos])
	}
	r.path = r.path[:0]
	fn := planFor(wt, target.Type(), r.v1, meta)
	if err := fn(r, target, false); err != nil {
		return 0, within(err, root)
	}
	if whole && r.pos != len(data) {
		return 0, errAt(KindTrailingBytes, r.pos, "")
	}
	return r.pos, nil
}

// unmarshalColumnar decodes the columns dynamically (every check with its
// offsets), then reads the value into the target through its rows. A
// type-mismatch then reports the offset of the first column.
func (m DecMode) unmarshalColumnar(r *reader, wt *Type, target reflect.Value, whole bool) (int, error) {
	colStart := r.pos
	if p, ok := colPlanFor(wt, target.Type()); ok && !noTypedColumns {
		return m.unmarshalColumnsTyped(r, p, target, whole)
	}
	val, used, err := m.decodeColumns(r, wt, whole)
	if err != nil {
		return 0, err
	}
	rows, err := Encode(val)
	if err != nil {
		return 0, err
	}
	rr := m.newReader(rows)
	if _, _, err := m.header(rr, false); err != nil {
		return 0, err
	}
	rr.path = rr.path[:0]
	fn := planFor(wt, target.Type(), false, string(rows[2:rr.pos]))
	if err := fn(rr, target, false); err != nil {
		if e, ok := err.(*Error); ok {
			e.Offset = int64(colStart)
			if wt.Kind == Struct {
				e.Path = wt.Name + e.Path
			}
		}
		return 0, err
	}
	return used, nil
}

// noTypedColumns turns the typed column reader off (tests compare the two).
var noTypedColumns = false

// unmarshalColumnsTyped reads columns straight into the Go slice (coltyped.go).
func (m DecMode) unmarshalColumnsTyped(r *reader, p *colPlan, target reflect.Value, whole bool) (int, error) {
	cr := &colReader{maxDepth: m.maxDepth, limit: m.maxBytes, left: m.maxBytes}
	c := &cursor{data: r.data[r.pos:], base: int64(r.pos)}
	if err := p.read(cr, c, target, int64(r.pos)); err != nil {
		return 0, err
	}
	if whole && !c.atEnd() {
		return 0, &Error{Kind: KindTrailingBytes, Offset: c.offset(), Detail: "bytes remain after the columns"}
	}
	return r.pos + c.pos, nil
}
