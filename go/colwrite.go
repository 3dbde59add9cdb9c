package xbf

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// colWriter writes the columns of a value (SPEC 22.1): each node's own
// columns, then its children's.
type colWriter struct {
	out   []byte
	level int // zstd level, 0 for none
	ic    intCoder
}

// appendColumns writes v's columns after head (header and metadata).
func appendColumns(head []byte, v Value, level int) ([]byte, error) {
	if err := (&encoder{}).value(v, v.Type); err != nil { // type-check once, as rows do
		return nil, err
	}
	w := colWriter{out: head, level: level}
	w.node(v.Type, []Value{v})
	return w.out, nil
}

func (w *colWriter) node(t *Type, vals []Value) {
	switch t.Kind {
	case Unit:
	case Vec, Map:
		lens := make([]u128, len(vals))
		total := 0
		for i, v := range vals {
			n := len(v.Items)
			if t.Kind == Map {
				n /= 2
			}
			lens[i] = u128{uint64(n), 0}
			total += n
		}
		w.column(w.ic.appendInts(nil, lens))
		if t.Kind == Vec {
			flat := make([]Value, 0, total)
			for _, v := range vals {
				flat = append(flat, v.Items...)
			}
			w.node(t.Elem, flat)
			return
		}
		keys, items := make([]Value, 0, total), make([]Value, 0, total)
		for _, v := range vals {
			for i := 0; i < len(v.Items); i += 2 {
				keys = append(keys, v.Items[i])
				items = append(items, v.Items[i+1])
			}
		}
		w.node(t.Key, keys)
		w.node(t.Elem, items)
	case Array:
		flat := make([]Value, 0, uint64(len(vals))*t.Len)
		for _, v := range vals {
			flat = append(flat, v.Items...)
		}
		w.node(t.Elem, flat)
	case Struct, Tuple:
		members := len(t.Elems)
		if t.Kind == Struct {
			members = len(t.Fields)
		}
		col := make([]Value, len(vals))
		for j := 0; j < members; j++ {
			for i, v := range vals {
				col[i] = v.Items[j]
			}
			if t.Kind == Struct {
				w.node(t.Fields[j].Type, col)
			} else {
				w.node(t.Elems[j], col)
			}
		}
	case Option:
		present := make([]u128, len(vals))
		var inner []Value
		for i, v := range vals {
			if len(v.Items) == 1 {
				present[i] = u128{1, 0}
				inner = append(inner, v.Items[0])
			}
		}
		w.column(w.ic.appendInts(nil, present))
		w.node(t.Elem, inner)
	case Enum:
		tags := make([]u128, len(vals))
		payloads := make([][]Value, len(t.Fields))
		for i, v := range vals {
			tags[i] = u128{v.Uint, 0}
			payloads[v.Uint] = append(payloads[v.Uint], v.Items[0])
		}
		w.column(w.ic.appendInts(nil, tags))
		for j, f := range t.Fields {
			w.node(f.Type, payloads[j])
		}
	case Any:
		// The distinct types by their wire bytes, in first-seen order.
		index := map[string]int{}
		var types []*Type
		var parts [][]Value
		tags := make([]u128, len(vals))
		for i, v := range vals {
			inner := v.Items[0]
			key := string(inner.Type.AppendMetadata(nil))
			j, ok := index[key]
			if !ok {
				j = len(types)
				index[key] = j
				types = append(types, inner.Type)
				parts = append(parts, nil)
			}
			tags[i] = u128{uint64(j), 0}
			parts[j] = append(parts[j], inner)
		}
		body := []byte{encTypes}
		body = appendUvarint(body, uint64(len(types)))
		for _, ty := range types {
			body = ty.AppendMetadata(body)
		}
		// The column of types is never compressed.
		w.out = appendUvarint(w.out, uint64(len(body)))
		w.out = append(w.out, body...)
		w.column(w.ic.appendInts(nil, tags))
		for j, ty := range types {
			w.node(ty, parts[j])
		}
	case F32, F64:
		bits := make([]uint64, len(vals))
		for i, v := range vals {
			bits[i] = v.Uint
		}
		w.floats(t.Kind, bits)
	case String, Bytes:
		bs := make([]string, len(vals))
		for i, v := range vals {
			if t.Kind == String {
				bs[i] = v.Str
			} else {
				bs[i] = string(v.Bytes)
			}
		}
		w.strings(bs)
	case U256, I256:
		body := make([]byte, 1, 1+32*len(vals))
		body[0] = encWide
		for _, v := range vals {
			le, _ := bigToLE(v.Big, 32, t.Kind == I256)
			body = append(body, le...)
		}
		w.column(body)
	default:
		bits, signed := intColumnBits(t.Kind)
		col := make([]u128, len(vals))
		for i, v := range vals {
			col[i] = intColumnValue(v, bits, signed)
		}
		w.column(w.ic.appendInts(nil, col))
	}
}

// floats writes a float column (bits of F32 or F64 values): the smallest
// encoding, or with zstd the smallest once compressed.
func (w *colWriter) floats(k Kind, bits []uint64) {
	fk := fk64
	if k == F32 {
		fk = fk32
	}
	fk.ic = w.ic
	best := fk.encode(bits)
	if w.level > 0 && best[0] != encPlainF {
		w.best(best, fk.plain(bits))
	} else {
		w.column(best)
	}
}

// strings writes a string or bytes column, as floats does.
func (w *colWriter) strings(bs []string) {
	best := encodeStrings(bs, w.ic)
	if w.level > 0 && best[0] != encPlainS {
		w.best(best, plainStrings(bs, w.ic))
	} else {
		w.column(best)
	}
}

// intColumnValue is an integer-valued scalar as the unsigned value its
// column holds (zigzag for signed ones, 0 and 1 for bools).
func intColumnValue(v Value, bits int, signed bool) u128 {
	switch v.Type.Kind {
	case Bool:
		if v.Bool {
			return u128{1, 0}
		}
		return u128{}
	case U128, FixedU128, I128, FixedI128:
		le, _ := bigToLE(v.Big, 16, signed)
		x := u128{leU64(le[:8]), leU64(le[8:])}
		if signed {
			return zigzag128(x)
		}
		return x
	}
	if signed {
		return u128{zigzag(v.Int), 0}
	}
	return u128{v.Uint, 0}
}

func leU64(b []byte) uint64 {
	var x uint64
	for i := 7; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

var zstdEncoders sync.Map // level -> *zstd.Encoder

func zstdEncoder(level int) *zstd.Encoder {
	if e, ok := zstdEncoders.Load(level); ok {
		return e.(*zstd.Encoder)
	}
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil
	}
	zstdEncoders.Store(level, e)
	return e
}

// column writes a column: its length, then the body, compressed when
// compression is on and makes it smaller.
func (w *colWriter) column(body []byte) {
	if w.level > 0 && len(body) > 32 {
		if enc := zstdEncoder(w.level); enc != nil {
			wrapped := []byte{encZstd}
			wrapped = appendUvarint(wrapped, uint64(len(body)))
			wrapped = enc.EncodeAll(body, wrapped)
			if len(wrapped) < len(body) {
				body = wrapped
			}
		}
	}
	w.out = appendUvarint(w.out, uint64(len(body)))
	w.out = append(w.out, body...)
}

// best writes whichever candidate is smallest once compressed.
func (w *colWriter) best(cands ...[]byte) {
	var best []byte
	for _, c := range cands {
		t := colWriter{level: w.level}
		t.column(c)
		if best == nil || len(t.out) < len(best) {
			best = t.out
		}
	}
	w.out = append(w.out, best...)
}

// worthColumns reports whether v holds at least 16 repeated items near
// the root (22.5), the Rust writer's test before it tries columns.
func worthColumns(v Value) bool {
	var items func(v Value, depth int) int
	items = func(v Value, depth int) int {
		if depth > 3 {
			return 0
		}
		switch v.Type.Kind {
		case Vec, Array:
			n := len(v.Items)
			for i := 0; i < len(v.Items) && i < 4; i++ {
				n += items(v.Items[i], depth+1)
			}
			return n
		case Map:
			return len(v.Items) / 2
		case Struct:
			n := 0
			for _, f := range v.Items {
				n += items(f, depth+1)
			}
			return n
		}
		return 0
	}
	return items(v, 0) >= 16
}

// encodeAuto writes columns when they come out smaller than rows (22.5),
// choosing as the Rust writer does: for a vec of more than 8,192 items, four
// runs of 256 items spread over it are written both ways first, and a layout
// smaller by more than 15% on them is written alone.
func (m EncMode) encodeAuto(head []byte, v Value) ([]byte, error) {
	rows := func() ([]byte, error) {
		e := encoder{out: append([]byte(nil), head...)}
		err := e.value(v, v.Type)
		return e.out, err
	}
	cols := func() []byte {
		colHead := append([]byte(nil), head...)
		colHead[1] |= flagColumnar
		w := colWriter{out: colHead, level: m.o.ZstdLevel}
		w.node(v.Type, []Value{v})
		return w.out
	}
	if !worthColumns(v) {
		return rows()
	}
	if err := (&encoder{}).value(v, v.Type); err != nil {
		return nil, err
	}
	if v.Type.Kind == Vec && len(v.Items) > 8192 {
		const run, runs = 256, 4
		sample := make([]Value, 0, run*runs)
		for j := 0; j < runs; j++ {
			start := j * (len(v.Items) - run) / (runs - 1)
			sample = append(sample, v.Items[start:start+run]...)
		}
		w := colWriter{level: m.o.ZstdLevel}
		w.node(v.Type.Elem, sample)
		e := encoder{}
		for _, it := range sample {
			_ = e.value(it, v.Type.Elem)
		}
		c, r := float64(len(w.out)), float64(len(e.out))
		switch {
		case c < r*0.85:
			return cols(), nil
		case c > r*1.15:
			return rows()
		}
	}
	c := cols()
	r, err := rows()
	if err != nil {
		return nil, err
	}
	if len(c) < len(r) {
		return c, nil
	}
	return r, nil
}
