package xbf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/klauspost/compress/zstd"
)

// Column encoding bytes (SPEC 22.2).
const (
	encVarint   = 0x00
	encFOR      = 0x01
	encDelta    = 0x02
	encRLE      = 0x03
	encEntropy  = 0x04 // XBF files only (colfile.go)
	encRuns     = 0x05 // XBF files only (colfile.go)
	encWide     = 0x08
	encPlainF   = 0x10
	encDecimal  = 0x11
	encFloatDic = 0x12
	encXOR      = 0x13
	encPlainS   = 0x20
	encDictS    = 0x21
	encPrefix   = 0x22
	encTypes    = 0x30
	encZstd     = 0x80
)

// colReader decodes the columns of one message (22.1 to 22.3).
type colReader struct {
	maxDepth int
	left     uint64 // what remains of the decoding budget
	limit    uint64
	zdec     *zstd.Decoder
	// onColumn, if set, is told each column's bytes as skip passes them
	// (the file writer measures its columns so).
	onColumn func(start, end int)
}

// charge takes n bytes from the budget (22.3); a cost that does not fit in
// 64 bits comes as overflow, and always passes it (as Rust's u128 sums do).
func (cr *colReader) charge(at int64, n uint64, overflow bool) error {
	if overflow || n > cr.left {
		return &Error{Kind: KindTooLarge, Offset: at,
			Detail: fmt.Sprintf("decoding would take more than the %d bytes allowed (MaxDecodedBytes)", cr.limit)}
	}
	cr.left -= n
	return nil
}

// budgetSum adds costs exactly, noting when the sum passes 64 bits.
type budgetSum struct {
	n    uint64
	over bool
}

func (s *budgetSum) add(x uint64) {
	var carry uint64
	s.n, carry = bits.Add64(s.n, x, 0)
	s.over = s.over || carry != 0
}

// chargeValues charges n values, 48 bytes each.
func (cr *colReader) chargeValues(at int64, n uint64) error {
	return cr.charge(at, n*DecodedValueBytes, n > cr.left/DecodedValueBytes)
}

// within prefixes an error's path with a segment, on its way up.
func within(err error, s string) error {
	if e, ok := err.(*Error); ok {
		e.Path = s + e.Path
	}
	return err
}

func (m DecMode) decodeColumnar(r *reader, t *Type) (v Value, err error) {
	v, _, err = m.decodeColumns(r, t, true)
	return v, err
}

// decodeColumns reads the root node's columns; whole requires them to end
// the input, and used is where they end.
func (m DecMode) decodeColumns(r *reader, t *Type, whole bool) (v Value, used int, err error) {
	cr := &colReader{maxDepth: m.maxDepth}
	rest := r.data[r.pos:]
	cr.limit = m.maxBytes
	cr.left = cr.limit
	c := &cursor{data: rest, base: int64(r.pos)}
	vals, err := cr.node(t, 1, c, 0)
	if err == nil && whole && !c.atEnd() {
		err = &Error{Kind: KindTrailingBytes, Offset: c.offset(), Detail: "bytes remain after the columns"}
	}
	if err != nil {
		if t.Kind == Struct || t.Kind == Enum {
			err = within(err, t.Name)
		}
		return Value{}, 0, err
	}
	return vals[0], r.pos + c.pos, nil
}

// column returns the next column's body, decompressed if it is zstd.
func (cr *colReader) column(c *cursor) (*cursor, error) {
	b, err := c.block()
	if err != nil {
		return nil, err
	}
	if b.peek() != encZstd || b.atEnd() {
		return b, nil
	}
	at := b.offset()
	b.u8()
	rawLen, err := b.varint64()
	if err != nil {
		return nil, err
	}
	if err := cr.charge(at, rawLen, false); err != nil {
		return nil, err
	}
	packed := b.data[b.pos:]
	if cr.zdec == nil {
		if cr.zdec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)); err != nil {
			return nil, &Error{Kind: KindInternal, Offset: at, Detail: err.Error()}
		}
	}
	if err := cr.zdec.Reset(bytes.NewReader(packed)); err != nil {
		return nil, &Error{Kind: KindInvalidColumn, Offset: at, Detail: "the zstd frame does not decompress: " + err.Error()}
	}
	// Read at most rawLen + 1 bytes: the length was charged, nothing more.
	raw := make([]byte, 0, min(rawLen, 1<<20))
	lr := io.LimitReader(cr.zdec, int64(min(rawLen, math.MaxInt64-1))+1)
	buf := bytes.NewBuffer(raw)
	if _, err := buf.ReadFrom(lr); err != nil {
		return nil, &Error{Kind: KindInvalidColumn, Offset: at, Detail: "the zstd frame does not decompress: " + err.Error()}
	}
	if uint64(buf.Len()) != rawLen {
		return nil, &Error{Kind: KindInvalidColumn, Offset: at,
			Detail: fmt.Sprintf("the column decompresses to %d bytes or more, not the %d it declares", buf.Len(), rawLen)}
	}
	return &cursor{data: buf.Bytes(), base: at, fixed: true, file: b.file}, nil
}

// ints reads an integer column of n values of at most bits bits.
func (cr *colReader) ints(c *cursor, n uint64, bits int) ([]u128, error) {
	col, err := cr.column(c)
	if err != nil {
		return nil, err
	}
	vals, err := decodeInts(col, n, bits)
	if err != nil {
		return nil, err
	}
	return vals, col.finish("column")
}

// decodeInts reads an integer column body of exactly n values; n was
// charged to the budget already, so allocating n values is bounded.
func decodeInts(c *cursor, n uint64, maxBits int) ([]u128, error) {
	at := c.offset()
	enc, err := c.u8()
	if err != nil {
		return nil, err
	}
	var out []u128
	bad := false
	push := func(v u128) {
		if !v.fits(maxBits) {
			bad = true
		}
		out = append(out, v)
	}
	switch enc {
	case encVarint:
		if err := c.checkFits(at, n, 1); err != nil {
			return nil, err
		}
		out = make([]u128, 0, n)
		for i := uint64(0); i < n; i++ {
			v, err := c.varint(maxBits)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	case encFOR:
		out = make([]u128, 0, n)
		if err := readFOR(c, n, maxBits, push); err != nil {
			return nil, err
		}
	case encDelta:
		if n == 0 {
			return nil, c.invalid(at, "a delta column of no values")
		}
		first, err := c.varint(128)
		if err != nil {
			return nil, err
		}
		out = make([]u128, 0, n)
		var deltas []u128
		if err := readFOR(c, n-1, 128, func(d u128) { deltas = append(deltas, d) }); err != nil {
			return nil, err
		}
		v := first
		push(v)
		for _, d := range deltas {
			v, _ = v.add(unzigzag128(d))
			push(v)
		}
	case encRLE:
		type run struct {
			n uint64
			v u128
		}
		var runs []run
		count := uint64(0)
		for count < n {
			runAt := c.offset()
			rn, err := c.varint64()
			if err != nil {
				return nil, err
			}
			v, err := c.varint(128)
			if err != nil {
				return nil, err
			}
			if rn == 0 || rn > n-count {
				return nil, c.invalid(runAt, fmt.Sprintf("a run of %d values where %d remain", rn, n-count))
			}
			runs = append(runs, run{rn, v})
			count += rn
		}
		out = make([]u128, 0, n)
		for _, r := range runs {
			if !r.v.fits(maxBits) {
				bad = true
			}
			for i := uint64(0); i < r.n; i++ {
				out = append(out, r.v)
			}
		}
	case encEntropy, encRuns:
		if !c.file {
			return nil, c.errAt(KindUnknownDiscriminant, at,
				fmt.Sprintf("0x%02x is an integer column encoding of XBF files only, not of messages", enc))
		}
		if enc == encEntropy {
			out, err = decodeEntropy(c, n, maxBits)
		} else {
			out, err = decodeRuns(c, n, maxBits)
		}
		if err != nil {
			return nil, err
		}
	default:
		return nil, c.errAt(KindUnknownDiscriminant, at, fmt.Sprintf("0x%02x is not an integer column encoding", enc))
	}
	if bad {
		return nil, c.invalid(at, fmt.Sprintf("a value passes the %d bits of the column's type", maxBits))
	}
	return out, nil
}

// readFOR reads a frame-of-reference block of n values.
func readFOR(c *cursor, n uint64, maxBits int, push func(u128)) error {
	base, err := c.varint(128)
	if err != nil {
		return err
	}
	at := c.offset()
	width, err := c.u8()
	if err != nil {
		return err
	}
	if int(width) > maxBits {
		return c.invalid(at, fmt.Sprintf("a bit width of %d passes the %d bits of the type", width, maxBits))
	}
	w := uint64(width)
	var nbytes uint64
	if hi, lo := mulHi(n, w); hi != 0 || lo > math.MaxUint64-7 {
		nbytes = math.MaxUint64
	} else {
		nbytes = (lo + 7) / 8
	}
	packedAt := c.offset()
	packed, err := c.take(nbytes)
	if err != nil {
		return err
	}
	// The last byte's padding bits are 0 (SPEC 22.2): one form for a column.
	// n*w cannot wrap here: its bytes were in the input.
	if r := (n * w) % 8; r != 0 && packed[len(packed)-1]>>r != 0 {
		return c.invalid(packedAt, "the padding bits of the frame of reference are not 0")
	}
	bit := uint64(0)
	for i := uint64(0); i < n; i++ {
		var v u128
		got := uint64(0)
		for got < w {
			b := packed[bit/8]
			off := bit % 8
			take := min(8-off, w-got)
			part := uint64(b>>off) & (1<<take - 1)
			v = v.or(u128{part, 0}.shl(uint(got)))
			got += take
			bit += take
		}
		s, over := base.add(v)
		if over {
			return c.invalid(at, "base + value overflows")
		}
		push(s)
	}
	return nil
}

func (a u128) or(b u128) u128 { return u128{a.lo | b.lo, a.hi | b.hi} }

func mulHi(a, b uint64) (uint64, uint64) {
	if a == 0 || b == 0 {
		return 0, 0
	}
	p := a * b
	if p/b != a {
		return 1, p
	}
	return 0, p
}

// node decodes the n values of type t whose columns start at c.
func (cr *colReader) node(t *Type, n uint64, c *cursor, depth int) ([]Value, error) {
	at := c.offset()
	if err := cr.chargeValues(at, n); err != nil {
		return nil, err
	}
	child := depth + 1
	out := make([]Value, n)
	switch t.Kind {
	case Unit:
		for i := range out {
			out[i].Type = t
		}
	case Vec, Map:
		lens, err := cr.ints(c, n, 64)
		if err != nil {
			return nil, err
		}
		var total uint64
		for _, l := range lens {
			if l.lo > math.MaxUint64-total {
				return nil, c.invalid(at, "the lengths add up past 2^64")
			}
			total += l.lo
		}
		if t.Kind == Vec {
			flat, err := cr.node(t.Elem, total, c, child)
			if err != nil {
				return nil, within(err, "[]")
			}
			k := uint64(0)
			for i, l := range lens {
				out[i] = Value{Type: t, Items: flat[k : k+l.lo : k+l.lo]}
				k += l.lo
			}
			return out, nil
		}
		keys, err := cr.node(t.Key, total, c, child)
		if err != nil {
			// The paths of a map's key and value types in metadata
			// (SPEC 17.3): `[].key`, `[].value`.
			return nil, within(within(err, ".key"), "[]")
		}
		vals, err := cr.node(t.Elem, total, c, child)
		if err != nil {
			return nil, within(within(err, ".value"), "[]")
		}
		k := uint64(0)
		for i, l := range lens {
			items := make([]Value, 0, 2*l.lo)
			var seen map[string]struct{}
			if l.lo > 1 {
				seen = make(map[string]struct{}, l.lo)
			}
			for j := k; j < k+l.lo; j++ {
				if seen != nil {
					e := encoder{}
					if err := e.value(keys[j], t.Key); err != nil {
						return nil, err
					}
					if _, dup := seen[string(e.out)]; dup {
						return nil, &Error{Kind: KindDuplicateKey, Offset: at, Detail: "a key appears twice in one map"}
					}
					seen[string(e.out)] = struct{}{}
				}
				items = append(items, keys[j], vals[j])
			}
			out[i] = Value{Type: t, Items: items}
			k += l.lo
		}
	case Array:
		hi, total := mulHi(n, t.Len)
		if hi != 0 {
			// More values than any budget holds (22.3): too-large at the
			// element node, with its path.
			return nil, within(cr.charge(at, 0, true), "[]")
		}
		flat, err := cr.node(t.Elem, total, c, child)
		if err != nil {
			return nil, within(err, "[]")
		}
		for i := range out {
			k := uint64(i) * t.Len
			out[i] = Value{Type: t, Items: flat[k : k+t.Len : k+t.Len]}
		}
	case Struct, Tuple:
		members := t.Elems
		if t.Kind == Struct {
			members = make([]*Type, len(t.Fields))
			for i, f := range t.Fields {
				members[i] = f.Type
			}
		}
		cols := make([][]Value, len(members))
		for j, mt := range members {
			vals, err := cr.node(mt, n, c, child)
			if err != nil {
				if t.Kind == Struct {
					return nil, within(err, "."+t.Fields[j].Name)
				}
				return nil, within(err, fmt.Sprintf(".%d", j))
			}
			cols[j] = vals
		}
		all := make([]Value, n*uint64(len(members)))
		for i := range out {
			items := all[i*len(members) : (i+1)*len(members) : (i+1)*len(members)]
			for j := range members {
				items[j] = cols[j][i]
			}
			out[i] = Value{Type: t, Items: items}
		}
	case Option:
		present, err := cr.ints(c, n, 1)
		if err != nil {
			return nil, err
		}
		count := uint64(0)
		for _, p := range present {
			count += p.lo
		}
		vals, err := cr.node(t.Elem, count, c, child)
		if err != nil {
			return nil, err
		}
		k := 0
		for i, p := range present {
			out[i] = Value{Type: t}
			if p.lo == 1 {
				out[i].Items = vals[k : k+1 : k+1]
				k++
			}
		}
	case Enum:
		tagsAt := c.offset()
		tags, err := cr.ints(c, n, 64)
		if err != nil {
			return nil, err
		}
		counts := make([]uint64, len(t.Fields))
		for _, tg := range tags {
			if tg.lo >= uint64(len(t.Fields)) {
				return nil, &Error{Kind: KindUnknownVariant, Offset: tagsAt,
					Detail: fmt.Sprintf("enum %s has no variant %d", t.Name, tg.lo)}
			}
			counts[tg.lo]++
		}
		payloads := make([][]Value, len(t.Fields))
		for j, f := range t.Fields {
			if payloads[j], err = cr.node(f.Type, counts[j], c, child); err != nil {
				return nil, within(err, "."+f.Name)
			}
		}
		next := make([]int, len(t.Fields))
		for i, tg := range tags {
			j := tg.lo
			out[i] = Value{Type: t, Uint: j, Items: payloads[j][next[j] : next[j]+1 : next[j]+1]}
			next[j]++
		}
	case Any:
		types, err := cr.anyTypes(c, child)
		if err != nil {
			return nil, err
		}
		tagsAt := c.offset()
		tags, err := cr.ints(c, n, 64)
		if err != nil {
			return nil, err
		}
		counts := make([]uint64, len(types))
		for _, tg := range tags {
			if tg.lo >= uint64(len(types)) {
				return nil, c.invalid(tagsAt, fmt.Sprintf("a type index %d past the %d types of the column", tg.lo, len(types)))
			}
			counts[tg.lo]++
		}
		parts := make([][]Value, len(types))
		for j, ty := range types {
			// The types column nests one level deeper than the node.
			if parts[j], err = cr.node(ty, counts[j], c, child); err != nil {
				return nil, err
			}
		}
		next := make([]int, len(types))
		for i, tg := range tags {
			j := tg.lo
			out[i] = Value{Type: t, Items: parts[j][next[j] : next[j]+1 : next[j]+1]}
			next[j]++
		}
	default:
		return cr.primitive(t, n, c, out)
	}
	return out, nil
}

// anyTypes reads an `any` node's column of types.
func (cr *colReader) anyTypes(c *cursor, depth int) ([]*Type, error) {
	if depth > cr.maxDepth {
		return nil, &Error{Kind: KindTooDeep, Offset: c.offset(), Detail: fmt.Sprintf("more than %d levels of nesting", cr.maxDepth)}
	}
	col, err := c.block()
	if err != nil {
		return nil, err
	}
	at := col.offset()
	enc, err := col.u8()
	if err != nil {
		return nil, err
	}
	if enc != encTypes {
		return nil, &Error{Kind: KindUnknownDiscriminant, Offset: at, Detail: "not a column of types"}
	}
	dAt := col.offset()
	d, err := col.varint64()
	if err != nil {
		return nil, err
	}
	if err := col.checkFits(dAt, d, 1); err != nil {
		return nil, err
	}
	types := make([]*Type, 0, d)
	for i := uint64(0); i < d; i++ {
		// The metadata is read as XBF 2 metadata with the depth that is
		// left; offsets inside it are shifted to the message's. As in rows
		// (SPEC 17.3), the name of a struct or enum inside an `any` is not
		// part of the path: its errors get the node's path only.
		r := &reader{data: col.data, pos: col.pos, end: len(col.data), maxDepth: cr.maxDepth - depth}
		t, err := r.typ(0, false)
		if err != nil {
			e := err.(*Error)
			if col.fixed {
				e.Offset = col.base
			} else {
				e.Offset += col.base
			}
			return nil, e
		}
		col.pos = r.pos
		types = append(types, t)
	}
	return types, col.finish("column of types")
}

func (cr *colReader) primitive(t *Type, n uint64, c *cursor, out []Value) ([]Value, error) {
	switch t.Kind {
	case F32, F64:
		col, err := cr.column(c)
		if err != nil {
			return nil, err
		}
		size := uint64(8)
		if t.Kind == F32 {
			size = 4
		}
		bits, err := decodeFloats(col, n, size)
		if err != nil {
			return nil, err
		}
		if err := col.finish("column"); err != nil {
			return nil, err
		}
		for i, b := range bits {
			out[i] = Value{Type: t, Uint: b}
		}
		return out, nil
	case String, Bytes:
		col, err := cr.column(c)
		if err != nil {
			return nil, err
		}
		at := col.offset()
		vals, err := cr.decodeStrings(col, n)
		if err != nil {
			return nil, err
		}
		if err := col.finish("column"); err != nil {
			return nil, err
		}
		if t.Kind == Bytes {
			for i, b := range vals {
				out[i] = Value{Type: t, Bytes: b}
			}
			return out, nil
		}
		err = columnStrings(vals, at, func(i int, str string) { out[i] = Value{Type: t, Str: str} })
		if err != nil {
			return nil, err
		}
		return out, nil
	case U256, I256:
		col, err := cr.column(c)
		if err != nil {
			return nil, err
		}
		at := col.offset()
		enc, err := col.u8()
		if err != nil {
			return nil, err
		}
		if enc != encWide {
			return nil, &Error{Kind: KindUnknownDiscriminant, Offset: at, Detail: "not a 256-bit integer column encoding"}
		}
		b, err := col.takeMul(n, 32)
		if err != nil {
			return nil, err
		}
		if err := col.finish("column"); err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = Value{Type: t, Big: bigFromLE(b[32*i:32*i+32], t.Kind == I256)}
		}
		return out, nil
	}
	bits, signed := intColumnBits(t.Kind)
	vals, err := cr.ints(c, n, bits)
	if err != nil {
		return nil, err
	}
	for i, v := range vals {
		out[i] = intValue(t, v, signed)
	}
	return out, nil
}

// intColumnBits gives the bits of an integer-valued column and whether its
// values are zigzag-mapped.
func intColumnBits(k Kind) (int, bool) {
	switch k {
	case Bool:
		return 1, false
	case U8:
		return 8, false
	case U16, FixedU16:
		return 16, false
	case U32, FixedU32:
		return 32, false
	case U64, FixedU64:
		return 64, false
	case U128, FixedU128:
		return 128, false
	case I8:
		return 8, true
	case I16, FixedI16:
		return 16, true
	case I32, FixedI32, DateKind:
		return 32, true
	case I128, FixedI128:
		return 128, true
	}
	return 64, true // i64, fixed-i64, timestamp
}

func intValue(t *Type, v u128, signed bool) Value {
	switch t.Kind {
	case Bool:
		return Value{Type: t, Bool: v.lo == 1}
	case U128, FixedU128:
		return Value{Type: t, Big: from128(v.lo, v.hi)}
	case I128, FixedI128:
		return Value{Type: t, Big: unzigzagBig(v.lo, v.hi)}
	}
	if signed {
		return Value{Type: t, Int: unzigzag(v.lo)}
	}
	return Value{Type: t, Uint: v.lo}
}

var pow10f64 = func() (t [23]float64) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] * 10
	}
	return
}()

var pow10f32 = func() (t [11]float32) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] * 10
	}
	return
}()

// decodeFloats reads a float column body of n values of size 4 or 8 bytes,
// returning their bits.
func decodeFloats(c *cursor, n, size uint64) ([]uint64, error) {
	at := c.offset()
	enc, err := c.u8()
	if err != nil {
		return nil, err
	}
	raw := func(b []byte) uint64 {
		if size == 4 {
			return uint64(binary.LittleEndian.Uint32(b))
		}
		return binary.LittleEndian.Uint64(b)
	}
	switch enc {
	case encPlainF:
		b, err := c.takeMul(n, size)
		if err != nil {
			return nil, err
		}
		out := make([]uint64, n)
		for i := range out {
			out[i] = raw(b[uint64(i)*size:])
		}
		return out, nil
	case encDecimal:
		eAt := c.offset()
		e, err := c.u8()
		if err != nil {
			return nil, err
		}
		maxE := byte(18)
		if size == 4 {
			maxE = 10
		}
		if e > maxE {
			return nil, c.invalid(eAt, fmt.Sprintf("the exponent %d passes %d", e, maxE))
		}
		body, err := c.block()
		if err != nil {
			return nil, err
		}
		ints, err := decodeInts(body, n, 64)
		if err != nil {
			return nil, err
		}
		if err := body.finish("integer block"); err != nil {
			return nil, err
		}
		out := make([]uint64, n)
		for i, z := range ints {
			x := unzigzag(z.lo)
			if size == 4 {
				out[i] = uint64(math.Float32bits(float32(x) / pow10f32[e]))
			} else {
				out[i] = math.Float64bits(float64(x) / pow10f64[e])
			}
		}
		countAt := c.offset()
		k, err := c.varint64()
		if err != nil {
			return nil, err
		}
		if k > n {
			return nil, c.invalid(countAt, fmt.Sprintf("%d exceptions in a column of %d values", k, n))
		}
		if k > 0 {
			pos, err := c.block()
			if err != nil {
				return nil, err
			}
			positions, err := decodeInts(pos, k, 64)
			if err != nil {
				return nil, err
			}
			if err := pos.finish("exception positions"); err != nil {
				return nil, err
			}
			b, err := c.takeMul(k, size)
			if err != nil {
				return nil, err
			}
			// Strictly ascending (SPEC 22.2): one form, and no exception overwrites another.
			for j := 1; j < len(positions); j++ {
				if positions[j].lo <= positions[j-1].lo {
					return nil, c.invalid(countAt, "the exception positions are not strictly ascending")
				}
			}
			for j, p := range positions {
				if p.lo >= n {
					return nil, c.invalid(countAt, fmt.Sprintf("an exception at position %d of a column of %d", p.lo, n))
				}
				out[p.lo] = raw(b[uint64(j)*size:])
			}
		}
		return out, nil
	case encFloatDic:
		dAt := c.offset()
		d, err := c.varint64()
		if err != nil {
			return nil, err
		}
		// No more distinct values than values (SPEC 22.2): this bounds the
		// dictionary by the n already charged to the budget; the bytes left
		// do not, since a decimal column of width 0 holds any number of values.
		if d > n {
			return nil, c.invalid(dAt, fmt.Sprintf("a dictionary of %d values for a column of %d", d, n))
		}
		inner, err := c.block()
		if err != nil {
			return nil, err
		}
		if p := inner.peek(); p == encFloatDic || p == encXOR {
			return nil, c.invalid(dAt, "a dictionary's values are neither plain nor decimal")
		}
		distinct, err := decodeFloats(inner, d, size)
		if err != nil {
			return nil, err
		}
		if err := inner.finish("dictionary"); err != nil {
			return nil, err
		}
		ids, err := decodeInts(c, n, 64)
		if err != nil {
			return nil, err
		}
		out := make([]uint64, n)
		for i, id := range ids {
			if id.lo >= d {
				return nil, c.invalid(dAt, fmt.Sprintf("a dictionary index %d past its %d values", id.lo, d))
			}
			out[i] = distinct[id.lo]
		}
		return out, nil
	case encXOR:
		return decodeXOR(c, n, size)
	}
	return nil, c.errAt(KindUnknownDiscriminant, at, fmt.Sprintf("0x%02x is not a float column encoding", enc))
}

// bitReader reads fields of bits, least significant first (22.2).
type bitReader struct {
	b   []byte
	bit uint64
}

func (r *bitReader) read(w uint64) (uint64, bool) {
	if r.bit+w > uint64(len(r.b))*8 {
		return 0, false
	}
	var v uint64
	got := uint64(0)
	for got < w {
		by := r.b[r.bit/8]
		off := r.bit % 8
		take := min(8-off, w-got)
		v |= (uint64(by>>off) & (1<<take - 1)) << got
		got += take
		r.bit += take
	}
	return v, true
}

func decodeXOR(c *cursor, n, size uint64) ([]uint64, error) {
	at := c.offset() // the payload, after the encoding byte
	if n == 0 {
		return nil, c.invalid(at, "an XOR column of no values")
	}
	first, err := c.take(size)
	if err != nil {
		return nil, err
	}
	streamAt := c.offset()
	stream := c.data[c.pos:]
	c.pos = len(c.data)
	if (n-1+7)/8 > uint64(len(stream)) {
		return nil, c.errAt(KindTruncated, streamAt, fmt.Sprintf("%d values cannot fit in %d bytes of bits", n-1, len(stream)))
	}
	width, field := uint64(64), uint64(6)
	prev := binary.LittleEndian.Uint64(append(append([]byte{}, first...), make([]byte, 8-size)...))
	if size == 4 {
		width, field = 32, 5
	}
	short := func() error {
		return c.errAt(KindTruncated, streamAt, fmt.Sprintf("the bits end before the %d values of the column", n))
	}
	br := bitReader{b: stream}
	out := make([]uint64, 0, n)
	out = append(out, prev)
	var lead, length uint64
	open := false
	for i := uint64(1); i < n; i++ {
		b, ok := br.read(1)
		if !ok {
			return nil, short()
		}
		if b == 1 {
			nb, ok := br.read(1)
			if !ok {
				return nil, short()
			}
			if nb == 1 {
				l, ok1 := br.read(field)
				ln, ok2 := br.read(field)
				if !ok1 || !ok2 {
					return nil, short()
				}
				if l+ln+1 > width {
					return nil, c.invalid(streamAt, fmt.Sprintf("value %d: %d leading zeros and %d bits pass the %d bits of the float", i, l, ln+1, width))
				}
				lead, length, open = l, ln+1, true
			} else if !open {
				return nil, c.invalid(streamAt, fmt.Sprintf("value %d reuses a window before any was opened", i))
			}
			m, ok := br.read(length)
			if !ok {
				return nil, short()
			}
			prev ^= m << (width - lead - length)
		}
		out = append(out, prev)
	}
	if (br.bit+7)/8 != uint64(len(stream)) {
		return nil, c.invalid(streamAt, "bytes of the XOR bits are left over")
	}
	if br.bit%8 != 0 && stream[br.bit/8]>>(br.bit%8) != 0 {
		return nil, c.invalid(streamAt, "the padding bits of the XOR column are not 0")
	}
	return out, nil
}

// readLens reads a length-prefixed integer block of n lengths, each at
// most the rest of the column plus 2^32, so that sums cannot overflow.
func readLens(c *cursor, n uint64) ([]uint64, error) {
	b, err := c.block()
	if err != nil {
		return nil, err
	}
	at := b.offset()
	vals, err := decodeInts(b, n, 64)
	if err != nil {
		return nil, err
	}
	if err := b.finish("integer block"); err != nil {
		return nil, err
	}
	limit := c.remaining() + 1<<32
	out := make([]uint64, n)
	for i, v := range vals {
		if v.lo > limit {
			return nil, c.errAt(KindTruncated, at, fmt.Sprintf("a length of %d passes the column", v.lo))
		}
		out[i] = v.lo
	}
	return out, nil
}

func sumLens(ls []uint64) uint64 {
	s := uint64(0)
	for _, l := range ls {
		s = satAdd(s, l)
	}
	return s
}

// decodeStrings reads a string or bytes column body of n values.
func (cr *colReader) decodeStrings(c *cursor, n uint64) ([][]byte, error) {
	at := c.offset()
	enc, err := c.u8()
	if err != nil {
		return nil, err
	}
	switch enc {
	case encPlainS:
		lens, err := readLens(c, n)
		if err != nil {
			return nil, err
		}
		b, err := c.take(sumLens(lens))
		if err != nil {
			return nil, err
		}
		out := make([][]byte, n)
		k := uint64(0)
		for i, l := range lens {
			out[i] = b[k : k+l : k+l]
			k += l
		}
		return out, nil
	case encDictS:
		dAt := c.offset()
		d, err := c.varint64()
		if err != nil {
			return nil, err
		}
		if err := c.checkFits(dAt, d, 1); err != nil {
			return nil, err
		}
		lens, err := readLens(c, d)
		if err != nil {
			return nil, err
		}
		blk, err := c.block()
		if err != nil {
			return nil, err
		}
		vals, err := blk.take(sumLens(lens))
		if err != nil {
			return nil, err
		}
		if err := blk.finish("dictionary"); err != nil {
			return nil, err
		}
		ids, err := decodeInts(c, n, 64)
		if err != nil {
			return nil, err
		}
		var size budgetSum
		for _, id := range ids {
			if id.lo < d {
				size.add(lens[id.lo])
			}
		}
		if err := cr.charge(at, size.n, size.over); err != nil {
			return nil, err
		}
		starts := make([]uint64, d+1)
		for i, l := range lens {
			starts[i+1] = starts[i] + l
		}
		out := make([][]byte, n)
		for i, id := range ids {
			if id.lo >= d {
				return nil, c.invalid(at, fmt.Sprintf("a dictionary index %d past its %d values", id.lo, d))
			}
			out[i] = vals[starts[id.lo]:starts[id.lo+1]:starts[id.lo+1]]
		}
		return out, nil
	case encPrefix:
		shared, err := readLens(c, n)
		if err != nil {
			return nil, err
		}
		restLens, err := readLens(c, n)
		if err != nil {
			return nil, err
		}
		rest, err := c.take(sumLens(restLens))
		if err != nil {
			return nil, err
		}
		var size budgetSum
		for i := range shared {
			size.add(shared[i])
			size.add(restLens[i])
		}
		if err := cr.charge(at, size.n, size.over); err != nil {
			return nil, err
		}
		// Every value is rebuilt into one buffer, whose size was charged.
		out := make([][]byte, n)
		buf := make([]byte, 0, min(satAdd(sumLens(shared), sumLens(restLens)), 1<<24))
		var prev []byte
		k := uint64(0)
		for i := range out {
			p, r := shared[i], restLens[i]
			if p > uint64(len(prev)) {
				return nil, c.invalid(at, fmt.Sprintf("value %d shares %d bytes with a value of %d", i, p, len(prev)))
			}
			start := len(buf)
			buf = append(append(buf, prev[:p]...), rest[k:k+r]...)
			k += r
			out[i] = buf[start:len(buf):len(buf)]
			prev = out[i]
		}
		return out, nil
	case encFsst:
		if c.file {
			return cr.decodeFsst(c, n, at)
		}
	}
	return nil, c.errAt(KindUnknownDiscriminant, at, fmt.Sprintf("0x%02x is not a string column encoding", enc))
}
