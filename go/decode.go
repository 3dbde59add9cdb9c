package xbf

import (
	"encoding/binary"
	"math/big"
	"unicode/utf8"
)

// reader decodes rows (v1 or XBF 2) from a byte slice, front to back.
type reader struct {
	data     []byte
	pos      int
	end      int // the end of the input, or of the stream block's body
	v1       bool
	maxDepth int
	zs       zsLimit
	path     pathStack
	// allowMissing: typed reads leave Go fields the data lacks as they are
	// (DecOptions.AllowMissingFields) instead of failing.
	allowMissing bool

	// Strings of typed reads are cut from copies of the input made a chunk
	// at a time (one allocation per chunk, not per string); a string keeps
	// at most its chunk alive.
	arena      string
	arenaStart int
}

const arenaChunk = 4096

// str returns data[a:b] as a string, from the current chunk copy.
func (r *reader) str(a, b int) string {
	if a >= r.arenaStart && b <= r.arenaStart+len(r.arena) {
		return r.arena[a-r.arenaStart : b-r.arenaStart]
	}
	if b-a > 1024 {
		return string(r.data[a:b])
	}
	end := min(a+arenaChunk, r.end)
	r.arena, r.arenaStart = string(r.data[a:end]), a
	return r.arena[:b-a]
}

func (r *reader) fail(kind string, off int) *Error {
	return &Error{Kind: kind, Offset: int64(off), Path: r.path.String()}
}

func (r *reader) failf(kind string, off int, detail string) *Error {
	e := r.fail(kind, off)
	e.Detail = detail
	return e
}

func (r *reader) remaining() uint64 { return uint64(r.end - r.pos) }

func (r *reader) byte1() (byte, error) {
	if r.pos >= r.end {
		return 0, r.fail(KindTruncated, r.pos)
	}
	b := r.data[r.pos]
	r.pos++
	return b, nil
}

func (r *reader) fixed(n int) ([]byte, error) {
	if r.end-r.pos < n {
		return nil, r.fail(KindTruncated, r.pos)
	}
	b := r.data[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

// uvarint reads a canonical varint of the given width (16, 32 or 64 bits).
func (r *reader) uvarint(width int) (uint64, error) {
	start := r.pos
	longest := (width + 6) / 7
	var x uint64
	for i := 0; ; i++ {
		if r.pos >= r.end {
			return 0, r.fail(KindTruncated, start)
		}
		b := r.data[r.pos]
		r.pos++
		if i == longest-1 {
			if b&0x80 != 0 || uint64(b)>>(width-7*i) != 0 {
				return 0, r.fail(KindInvalidVarint, start)
			}
		}
		if b < 0x80 {
			if i > 0 && b == 0 {
				return 0, r.fail(KindInvalidVarint, start)
			}
			return x | uint64(b)<<(7*i), nil
		}
		x |= uint64(b&0x7f) << (7 * i)
	}
}

// uvarint128 reads a u128-width varint into (lo, hi).
func (r *reader) uvarint128() (lo, hi uint64, err error) {
	start := r.pos
	for i := 0; ; i++ {
		if r.pos >= r.end {
			return 0, 0, r.fail(KindTruncated, start)
		}
		b := r.data[r.pos]
		r.pos++
		if i == 18 && (b&0x80 != 0 || b>>2 != 0) {
			return 0, 0, r.fail(KindInvalidVarint, start)
		}
		g := uint64(b & 0x7f)
		sh := uint(7 * i)
		if sh < 64 {
			lo |= g << sh
			if sh > 57 {
				hi |= g >> (64 - sh)
			}
		} else {
			hi |= g << (sh - 64)
		}
		if b < 0x80 {
			if i > 0 && b == 0 {
				return 0, 0, r.fail(KindInvalidVarint, start)
			}
			return lo, hi, nil
		}
	}
}

// count reads a length or count: u64 LE in v1, a u64 varint in XBF 2.
func (r *reader) count() (uint64, error) {
	if r.v1 {
		b, err := r.fixed(8)
		if err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(b), nil
	}
	return r.uvarint(w64)
}

// text reads a length-prefixed UTF-8 string (a name or a string value).
func (r *reader) text() (string, error) {
	off := r.pos
	n, err := r.count()
	if err != nil {
		return "", err
	}
	if n > r.remaining() {
		return "", r.fail(KindTruncated, off)
	}
	b := r.data[r.pos : r.pos+int(n)]
	if !utf8.Valid(b) {
		return "", r.fail(KindInvalidUTF8, off)
	}
	r.pos += int(n)
	return string(b), nil
}

func (r *reader) minOf(t *Type) uint64 {
	if r.v1 {
		return t.min1
	}
	return t.min
}

// typ reads metadata. depth is the number of levels already open; root is
// true for a message's outermost type, whose struct or enum name starts
// the path.
func (r *reader) typ(depth int, root bool) (*Type, error) {
	off := r.pos
	d, err := r.byte1()
	if err != nil {
		return nil, err
	}
	k := Kind(d)
	if (r.v1 && d > byte(Struct)) || k >= kindCount {
		return nil, r.fail(KindUnknownDiscriminant, off)
	}
	if !k.hasParams() {
		return primTypes[k], nil
	}
	if depth+1 > r.maxDepth {
		return nil, r.fail(KindTooDeep, off)
	}
	depth++
	switch k {
	case Vec:
		r.path = append(r.path, seg{kind: 'e'})
		el, err := r.typ(depth, false)
		if err != nil {
			return nil, err
		}
		r.path = r.path[:len(r.path)-1]
		return VecOf(el), nil
	case Option:
		el, err := r.typ(depth, false)
		if err != nil {
			return nil, err
		}
		return OptionOf(el), nil
	case Array:
		n, err := r.uvarint(w64)
		if err != nil {
			return nil, err
		}
		r.path = append(r.path, seg{kind: 'e'})
		el, err := r.typ(depth, false)
		if err != nil {
			return nil, err
		}
		r.path = r.path[:len(r.path)-1]
		return ArrayOf(n, el), nil
	case Tuple:
		coff := r.pos
		n, err := r.uvarint(w64)
		if err != nil {
			return nil, err
		}
		if n > r.remaining() {
			return nil, r.fail(KindTruncated, coff)
		}
		elems := make([]*Type, n)
		for i := range elems {
			r.path = append(r.path, seg{kind: 'n', idx: uint64(i)})
			if elems[i], err = r.typ(depth, false); err != nil {
				return nil, err
			}
			r.path = r.path[:len(r.path)-1]
		}
		return TupleOf(elems...), nil
	case Map:
		r.path = append(r.path, seg{kind: 'e'}, seg{kind: '.', name: "key"})
		key, err := r.typ(depth, false)
		if err != nil {
			return nil, err
		}
		r.path[len(r.path)-1].name = "value"
		val, err := r.typ(depth, false)
		if err != nil {
			return nil, err
		}
		r.path = r.path[:len(r.path)-2]
		return MapOf(key, val), nil
	}
	// struct or enum
	name, err := r.text()
	if err != nil {
		return nil, err
	}
	if root {
		r.path = append(r.path, seg{kind: 'r', name: name})
	}
	coff := r.pos
	var n uint64
	var minMember uint64 = 2
	if r.v1 {
		b, err := r.fixed(2)
		if err != nil {
			return nil, err
		}
		n, minMember = uint64(binary.LittleEndian.Uint16(b)), 9
	} else if n, err = r.uvarint(w64); err != nil {
		return nil, err
	}
	if n > r.remaining()/minMember {
		return nil, r.fail(KindTruncated, coff)
	}
	fields := make([]Field, n)
	var seen map[string]struct{}
	if n > 8 {
		seen = make(map[string]struct{}, n)
	}
	for i := range fields {
		noff := r.pos
		fname, err := r.text()
		if err != nil {
			return nil, err
		}
		dup := false
		if seen != nil {
			_, dup = seen[fname]
			seen[fname] = struct{}{}
		} else {
			for j := 0; j < i; j++ {
				if fields[j].Name == fname {
					dup = true
				}
			}
		}
		if dup {
			return nil, r.fail(KindDuplicateField, noff)
		}
		r.path = append(r.path, seg{kind: '.', name: fname})
		ft, err := r.typ(depth, false)
		if err != nil {
			return nil, err
		}
		r.path = r.path[:len(r.path)-1]
		fields[i] = Field{fname, ft}
	}
	if k == Enum {
		return (&Type{Kind: Enum, Name: name, Fields: fields}).finish(), nil
	}
	return newStruct(name, fields), nil
}

func (r *reader) chargeZS(w uint64, off int) error {
	if !r.zs.add(w) {
		return r.fail(KindTooLarge, off)
	}
	return nil
}

// value reads one value of t. depth is the number of levels open around
// it (for `any`); counted means its zero-size weight is already charged.
func (r *reader) value(t *Type, depth int, counted bool) (Value, error) {
	if r.minOf(t) == 0 {
		if !counted {
			if err := r.chargeZS(t.weight, r.pos); err != nil {
				return Value{}, err
			}
		}
		return zeroValue(t), nil
	}
	v := Value{Type: t}
	off := r.pos
	switch t.Kind {
	case Bool:
		b, err := r.byte1()
		if err != nil {
			return v, err
		}
		if b > 1 {
			return v, r.fail(KindInvalidBool, off)
		}
		v.Bool = b == 1
	case U8:
		b, err := r.byte1()
		v.Uint = uint64(b)
		return v, err
	case I8:
		b, err := r.byte1()
		v.Int = int64(int8(b))
		return v, err
	case U16, U32, U64:
		if r.v1 {
			return r.fixedInt(t, 1<<(t.Kind-U16+1), false)
		}
		x, err := r.uvarint(16 << (t.Kind - U16))
		v.Uint = x
		return v, err
	case I16, I32, I64, DateKind, Timestamp:
		if r.v1 {
			return r.fixedInt(t, 1<<(t.Kind-I16+1), true)
		}
		w := w64
		switch t.Kind {
		case I16:
			w = w16
		case I32, DateKind:
			w = w32
		}
		x, err := r.uvarint(w)
		v.Int = unzigzag(x)
		return v, err
	case FixedU16, FixedU32, FixedU64:
		return r.fixedInt(t, 2<<(t.Kind-FixedU16), false)
	case FixedI16, FixedI32, FixedI64:
		return r.fixedInt(t, 2<<(t.Kind-FixedI16), true)
	case U128, I128:
		if r.v1 {
			return r.bigLE(t, 16, t.Kind == I128)
		}
		lo, hi, err := r.uvarint128()
		if err != nil {
			return v, err
		}
		v.Big = from128(lo, hi)
		if t.Kind == I128 {
			v.Big = unzigzagBig(lo, hi)
		}
	case FixedU128, FixedI128:
		return r.bigLE(t, 16, t.Kind == FixedI128)
	case U256, I256:
		return r.bigLE(t, 32, t.Kind == I256)
	case F32:
		b, err := r.fixed(4)
		if err != nil {
			return v, err
		}
		v.Uint = uint64(binary.LittleEndian.Uint32(b))
	case F64:
		b, err := r.fixed(8)
		if err != nil {
			return v, err
		}
		v.Uint = binary.LittleEndian.Uint64(b)
	case String:
		s, err := r.textArena()
		v.Str = s
		return v, err
	case Bytes:
		n, err := r.count()
		if err != nil {
			return v, err
		}
		if n > r.remaining() {
			return v, r.fail(KindTruncated, off)
		}
		v.Bytes = append([]byte(nil), r.data[r.pos:r.pos+int(n)]...)
		r.pos += int(n)
	case Vec:
		n, err := r.count()
		if err != nil {
			return v, err
		}
		el := t.Elem
		counted, err := r.checkCount(n, r.minOf(el), el.weight, off)
		if err != nil {
			return v, err
		}
		v.Items = make([]Value, n)
		// The fields of a vec's structs share one allocation.
		var slab []Value
		if el.Kind == Struct && !counted && n > 0 {
			slab = make([]Value, n*uint64(len(el.Fields)))
		}
		for i := range v.Items {
			r.path = append(r.path, seg{kind: 'i', idx: uint64(i)})
			if slab != nil {
				k := len(el.Fields)
				v.Items[i], err = r.structInto(el, depth+1, slab[i*k:(i+1)*k:(i+1)*k])
			} else {
				v.Items[i], err = r.value(el, depth+1, counted)
			}
			if err != nil {
				return v, err
			}
			r.path = r.path[:len(r.path)-1]
		}
	case Array:
		if t.Len > r.remaining()/r.minOf(t.Elem) {
			return v, r.fail(KindTruncated, off)
		}
		v.Items = make([]Value, t.Len)
		var err error
		for i := range v.Items {
			r.path = append(r.path, seg{kind: 'i', idx: uint64(i)})
			if v.Items[i], err = r.value(t.Elem, depth+1, false); err != nil {
				return v, err
			}
			r.path = r.path[:len(r.path)-1]
		}
	case Struct:
		return r.structInto(t, depth, make([]Value, len(t.Fields)))
	case Tuple:
		v.Items = make([]Value, len(t.Elems))
		var err error
		for i, e := range t.Elems {
			r.path = append(r.path, seg{kind: 'n', idx: uint64(i)})
			if v.Items[i], err = r.value(e, depth+1, false); err != nil {
				return v, err
			}
			r.path = r.path[:len(r.path)-1]
		}
	case Option:
		b, err := r.byte1()
		if err != nil {
			return v, err
		}
		if b > 1 {
			return v, r.fail(KindInvalidBool, off)
		}
		if b == 1 {
			p, err := r.value(t.Elem, depth+1, false)
			if err != nil {
				return v, err
			}
			v.Items = []Value{p}
		}
	case Map:
		n, err := r.uvarint(w64)
		if err != nil {
			return v, err
		}
		counted, err := r.checkCount(n, satAdd(t.Key.min, t.Elem.min), entryWeight(t.Key, t.Elem), off)
		if err != nil {
			return v, err
		}
		v.Items = make([]Value, 2*n)
		var seen map[string]struct{}
		if n > 1 {
			seen = make(map[string]struct{}, min(n, 1024))
		}
		for i := uint64(0); i < n; i++ {
			r.path = append(r.path, seg{kind: 'i', idx: i}, seg{kind: '.', name: "key"})
			kstart := r.pos
			if v.Items[2*i], err = r.value(t.Key, depth+1, counted); err != nil {
				return v, err
			}
			if seen != nil {
				kb := string(r.data[kstart:r.pos])
				if _, dup := seen[kb]; dup {
					return v, r.fail(KindDuplicateKey, kstart)
				}
				seen[kb] = struct{}{}
			}
			r.path[len(r.path)-1].name = "value"
			if v.Items[2*i+1], err = r.value(t.Elem, depth+1, counted); err != nil {
				return v, err
			}
			r.path = r.path[:len(r.path)-2]
		}
	case Enum:
		idx, err := r.uvarint(w64)
		if err != nil {
			return v, err
		}
		if idx >= uint64(len(t.Fields)) {
			return v, r.fail(KindUnknownVariant, off)
		}
		f := t.Fields[idx]
		r.path = append(r.path, seg{kind: '.', name: f.Name})
		p, err := r.value(f.Type, depth+1, false)
		if err != nil {
			return v, err
		}
		r.path = r.path[:len(r.path)-1]
		v.Uint, v.Items = idx, []Value{p}
	case Any:
		if depth+1 > r.maxDepth {
			return v, r.fail(KindTooDeep, off)
		}
		own, err := r.typ(depth+1, false)
		if err != nil {
			return v, err
		}
		inner, err := r.value(own, depth+1, false)
		if err != nil {
			return v, err
		}
		v.Items = []Value{inner}
	default:
		return v, r.fail(KindUnsupported, off)
	}
	return v, nil
}

// structInto reads a struct that is not zero-size, its fields into items.
func (r *reader) structInto(t *Type, depth int, items []Value) (Value, error) {
	v := Value{Type: t, Items: items}
	var err error
	for i, f := range t.Fields {
		r.path = append(r.path, seg{kind: '.', name: f.Name})
		if items[i], err = r.value(f.Type, depth+1, false); err != nil {
			return v, err
		}
		r.path = r.path[:len(r.path)-1]
	}
	return v, nil
}

// checkCount checks a vec or map count n against the input (items of
// minimum size m) or, for zero-size items, charges n × w to the zero-size
// budget. It reports whether the items are charged already.
func (r *reader) checkCount(n, m, w uint64, off int) (bool, error) {
	if m > 0 {
		if n > r.remaining()/m {
			return false, r.fail(KindTruncated, off)
		}
		return false, nil
	}
	return true, r.chargeZS(satMul(n, w), off)
}

func (r *reader) fixedInt(t *Type, n int, signed bool) (Value, error) {
	v := Value{Type: t}
	b, err := r.fixed(n)
	if err != nil {
		return v, err
	}
	var x uint64
	for i := n - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	if signed {
		sh := uint(64 - 8*n)
		v.Int = int64(x<<sh) >> sh
	} else {
		v.Uint = x
	}
	return v, nil
}

func (r *reader) bigLE(t *Type, n int, signed bool) (Value, error) {
	b, err := r.fixed(n)
	if err != nil {
		return Value{Type: t}, err
	}
	return Value{Type: t, Big: bigFromLE(b, signed)}, nil
}

func bigFromLE(b []byte, signed bool) *big.Int {
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	x := new(big.Int).SetBytes(be)
	if signed && b[len(b)-1]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

func from128(lo, hi uint64) *big.Int {
	x := new(big.Int).SetUint64(hi)
	x.Lsh(x, 64)
	return x.Or(x, new(big.Int).SetUint64(lo))
}

func unzigzagBig(lo, hi uint64) *big.Int {
	neg := lo&1 == 1
	// u >> 1
	lo = lo>>1 | hi<<63
	hi >>= 1
	x := from128(lo, hi)
	if neg {
		x.Neg(x).Sub(x, big.NewInt(1)) // -(u>>1) - 1
	}
	return x
}
