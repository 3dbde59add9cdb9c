package xbf

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Writing XBF files (SPEC 24.5), as the Rust FileWriter writes them
// (crates/xbf/src/file/writer.rs, stats.rs): the same blocks, statistics
// and footer bytes for the same records and block sizes.

// FileOptions configure a FileWriter. Zero values mean the Rust writer's
// defaults.
type FileOptions struct {
	// BlockRows closes a block at this many records (default 131,072).
	BlockRows int
	// BlockBytes closes a block once its records take about this many
	// bytes as values (8 a scalar, strings and bytes by their length;
	// default 32 MiB).
	BlockBytes int
	// ZstdLevel adds the zstd stage to the columns where it makes them
	// smaller (0: none).
	ZstdLevel int
	// SchemaByReference writes the type's fingerprint instead of its
	// metadata (readers need it in their Registry).
	SchemaByReference bool
}

// FileWriter writes an XBF file: the header and type once, then blocks of
// records in columns, each with its CRC-32C, then the footer (Close).
// Memory holds one block of records.
type FileWriter struct {
	w       io.Writer
	typ     *Type
	opts    FileOptions
	slots   []slot
	stats   bool // the type has statistics (no `any`)
	pending []Value
	bytes   int
	pos     uint64
	blocks  []BlockInfo
	err     error
	// Marshal: the codec last checked against the file's type, and the
	// buffer each record's rows are written to.
	lastCodec *codec
	scratch   []byte
}

func (o FileOptions) withDefaults() FileOptions {
	if o.BlockRows <= 0 {
		o.BlockRows = 131072
	}
	if o.BlockBytes <= 0 {
		o.BlockBytes = 32 << 20
	}
	return o
}

// NewFileWriter starts a file of records of type t: it writes the header
// and the type.
func NewFileWriter(w io.Writer, t *Type, o FileOptions) (*FileWriter, error) {
	if o.ZstdLevel < 0 || o.ZstdLevel > 22 {
		return nil, optionsErr(fmt.Sprintf("zstd level %d out of range 0..22", o.ZstdLevel))
	}
	o = o.withDefaults()
	flags := byte(flagColumnar | flagStream | flagChecksum)
	head := []byte{0xc2, 0}
	if o.SchemaByReference {
		flags |= flagByRef
		fp := t.Fingerprint()
		head = append(head, fp[:]...)
	} else {
		head = t.AppendMetadata(head)
	}
	head[1] = flags
	if _, err := w.Write(head); err != nil {
		return nil, &Error{Kind: KindIO, Offset: -1, Detail: err.Error()}
	}
	return resumeFile(w, t, o, uint64(len(head)), nil), nil
}

func resumeFile(w io.Writer, t *Type, o FileOptions, pos uint64, blocks []BlockInfo) *FileWriter {
	slots, ok := fileSlots(t)
	return &FileWriter{w: w, typ: t, opts: o, slots: slots, stats: ok, pos: pos, blocks: blocks}
}

// AppendFile opens a finished file of size bytes for appending (SPEC
// 24.5): it reads the type and footer, then writes new blocks after the
// end, and Close writes a footer listing the old blocks and the new.
// Nothing written before changes. o.SchemaByReference must be the file's.
func AppendFile(f interface {
	io.ReaderAt
	io.WriteSeeker
}, size int64, o FileOptions) (*FileWriter, error) {
	return defaultDec.AppendFile(f, size, o)
}

// AppendFile is AppendFile with m's options (its Registry for a file that
// names its type by fingerprint).
func (m DecMode) AppendFile(f interface {
	io.ReaderAt
	io.WriteSeeker
}, size int64, o FileOptions) (*FileWriter, error) {
	r, err := m.OpenFile(f, size)
	if err != nil {
		return nil, err
	}
	if r.ByReference() != o.SchemaByReference {
		return nil, &Error{Kind: KindUnsupported, Offset: -1, Detail: "appending must keep the file's schema-by-reference flag"}
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return nil, &Error{Kind: KindIO, Offset: -1, Detail: err.Error()}
	}
	return resumeFile(f, r.Type(), o.withDefaults(), uint64(size), append([]BlockInfo(nil), r.Blocks()...)), nil
}

// Type is the record type.
func (f *FileWriter) Type() *Type { return f.typ }

// Blocks are the blocks written so far.
func (f *FileWriter) Blocks() []BlockInfo { return f.blocks }

// Write adds a record (type-mismatch unless it is of the file's type) and
// writes a block once enough records are buffered.
func (f *FileWriter) Write(v Value) error {
	if f.err != nil {
		return f.err
	}
	if v.Type == nil || !v.Type.Equal(f.typ) {
		return &Error{Kind: KindTypeMismatch, Offset: -1, Detail: fmt.Sprintf("a file of %s given a %v", f.typ, v.Type)}
	}
	if err := (&encoder{}).value(v, f.typ); err != nil {
		return err
	}
	return f.add(v)
}

// Marshal adds a Go value as a record; its type (as Marshal gives it) must
// be the file's.
func (f *FileWriter) Marshal(v any) error {
	if f.err != nil {
		return f.err
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return encErr(KindUnsupported, "", "Marshal of a nil interface")
	}
	c, err := codecFor(rv.Type())
	if err != nil {
		return err
	}
	if c != f.lastCodec {
		if !c.xt.Equal(f.typ) {
			return &Error{Kind: KindTypeMismatch, Offset: -1, Detail: fmt.Sprintf("a file of %s given a %s", f.typ, c.xt)}
		}
		f.lastCodec = c
	}
	// The record's rows, read back as a Value of the file's type: no
	// header or metadata to parse for each record.
	if f.scratch, err = c.enc(f.scratch[:0], rv); err != nil {
		return err
	}
	r := &reader{data: f.scratch, end: len(f.scratch), maxDepth: math.MaxInt, zs: newZSLimit(math.MaxUint64)}
	x, err := r.value(f.typ, 0, false)
	if err != nil {
		return err
	}
	x = detach(x)
	return f.add(x)
}

// detach copies the bytes a decoded value borrows from the scratch buffer.
func detach(v Value) Value {
	if v.Bytes != nil {
		v.Bytes = append([]byte(nil), v.Bytes...)
	}
	for i := range v.Items {
		v.Items[i] = detach(v.Items[i])
	}
	return v
}

func (f *FileWriter) add(v Value) error {
	f.bytes += approxSize(v)
	f.pending = append(f.pending, v)
	if len(f.pending) >= f.opts.BlockRows || f.bytes >= f.opts.BlockBytes {
		return f.FlushBlock()
	}
	return nil
}

// FlushBlock writes the buffered records as a block now (nothing if none).
func (f *FileWriter) FlushBlock() error {
	if f.err != nil || len(f.pending) == 0 {
		return f.err
	}
	recs := f.pending
	f.pending, f.bytes = nil, 0
	body := appendUvarint(nil, uint64(len(recs)))
	colsAt := len(body)
	w := colWriter{out: body, level: f.opts.ZstdLevel, ic: intCoder{file: true}}
	w.node(f.typ, recs)
	body = w.out
	// The columns' sizes, by walking what was just written.
	var spans [][2]int
	cr := &colReader{maxDepth: math.MaxInt, left: math.MaxUint64, limit: math.MaxUint64,
		onColumn: func(a, b int) { spans = append(spans, [2]int{a, b}) }}
	c := &cursor{data: body[colsAt:], file: true}
	if err := cr.skip(f.typ, c, -1); err != nil {
		return &Error{Kind: KindInternal, Offset: -1, Detail: "a block the writer cannot walk: " + err.Error()}
	}
	var stats map[string]ColumnStats
	if f.stats {
		stats = gatherStats(f.typ, recs)
	}
	cols := make([]ColumnInfo, len(spans))
	for j, s := range spans {
		bytes := body[colsAt+s[0] : colsAt+s[1]]
		cols[j] = ColumnInfo{Size: uint64(len(bytes)), CRC: crc32.Checksum(bytes, castagnoli)}
		if f.stats && f.slots[j].stat != nil {
			cols[j].Stats = stats[f.slots[j].path]
		}
	}
	block := appendUvarint(make([]byte, 0, len(body)+14), uint64(len(body)))
	block = append(block, body...)
	block = binary.LittleEndian.AppendUint32(block, crc32.Checksum(body, castagnoli))
	if _, err := f.w.Write(block); err != nil {
		f.err = &Error{Kind: KindIO, Offset: int64(f.pos), Detail: err.Error()}
		return f.err
	}
	f.blocks = append(f.blocks, BlockInfo{Offset: f.pos, Size: uint64(len(block)), Records: uint64(len(recs)), Columns: cols})
	f.pos += uint64(len(block))
	return nil
}

// Close writes the last block and the footer. It does not close the
// underlying writer.
func (f *FileWriter) Close() error {
	if err := f.FlushBlock(); err != nil {
		return err
	}
	body := encodeFooter(f.blocks)
	if uint64(len(body)) > math.MaxUint32 {
		return &Error{Kind: KindTooLarge, Offset: -1, Detail: "a footer of 4 GiB or more: write fewer, larger blocks"}
	}
	tail := appendUvarint([]byte{0}, uint64(len(body)))
	tail = append(tail, body...)
	tail = binary.LittleEndian.AppendUint32(tail, crc32.Checksum(body, castagnoli))
	tail = binary.LittleEndian.AppendUint32(tail, uint32(len(body)))
	tail = append(tail, fileMagic...)
	if _, err := f.w.Write(tail); err != nil {
		f.err = &Error{Kind: KindIO, Offset: int64(f.pos), Detail: err.Error()}
		return f.err
	}
	f.pos += uint64(len(tail))
	f.err = &Error{Kind: KindIO, Offset: -1, Detail: "the file writer is closed"}
	return nil
}

// approxSize estimates a record's size as values, to cut blocks.
func approxSize(v Value) int {
	switch v.Type.Kind {
	case String:
		return 8 + len(v.Str)
	case Bytes:
		return 8 + len(v.Bytes)
	case Vec, Array, Map:
		n := 8
		for _, x := range v.Items {
			n += approxSize(x)
		}
		return n
	case Struct, Tuple:
		n := 0
		for _, x := range v.Items {
			n += approxSize(x)
		}
		return n
	case Option, Enum, Any:
		n := 1
		for _, x := range v.Items {
			n += approxSize(x)
		}
		return n
	}
	return 8
}

// encodeFooter is the footer's body: every block's entry (SPEC 24.3).
func encodeFooter(blocks []BlockInfo) []byte {
	out := appendUvarint(nil, uint64(len(blocks)))
	for _, b := range blocks {
		out = appendUvarint(out, b.Offset)
		out = appendUvarint(out, b.Size)
		out = appendUvarint(out, b.Records)
		out = appendUvarint(out, uint64(len(b.Columns)))
		for _, c := range b.Columns {
			out = appendUvarint(out, c.Size)
			out = binary.LittleEndian.AppendUint32(out, c.CRC)
			st := c.Stats
			if st.HasMinMax {
				flags := byte(statMinMax)
				if st.Exact {
					flags |= statExact
				}
				out = append(out, flags)
				for _, v := range []Value{st.Min, st.Max} {
					e := encoder{}
					e.value(v, v.Type) // a primitive of its own type: it encodes
					out = appendUvarint(out, uint64(len(e.out)))
					out = append(out, e.out...)
				}
			} else {
				out = append(out, 0)
			}
			out = appendUvarint(out, st.Nulls)
			out = appendUvarint(out, st.NaNs)
		}
	}
	return out
}

// maxStatBytes: longer strings and bytes are cut to bounds in statistics.
const maxStatBytes = 64

// gatherStats gives the statistics of every primitive column of the
// records, by the column's path (as fileSlots names it).
func gatherStats(t *Type, recs []Value) map[string]ColumnStats {
	out := map[string]ColumnStats{}
	var path []string
	var walk func(t *Type, vals []Value, nulls uint64)
	nested := func(name string, t *Type, vals []Value, nulls uint64) {
		path = append(path, name)
		walk(t, vals, nulls)
		path = path[:len(path)-1]
	}
	walk = func(t *Type, vals []Value, nulls uint64) {
		switch t.Kind {
		case Vec, Array:
			var items []Value
			for _, v := range vals {
				items = append(items, v.Items...)
			}
			nested("[]", t.Elem, items, 0)
		case Struct:
			for i, f := range t.Fields {
				col := make([]Value, len(vals))
				for k, v := range vals {
					col[k] = v.Items[i]
				}
				nested(f.Name, f.Type, col, nulls)
			}
		case Tuple:
			for i, et := range t.Elems {
				col := make([]Value, len(vals))
				for k, v := range vals {
					col[k] = v.Items[i]
				}
				nested(fmt.Sprint(i), et, col, nulls)
			}
		case Option:
			var present []Value
			for _, v := range vals {
				present = append(present, v.Items...)
			}
			walk(t.Elem, present, nulls+uint64(len(vals)-len(present)))
		case Map:
			var keys, items []Value
			for _, v := range vals {
				for i := 0; i+1 < len(v.Items); i += 2 {
					keys, items = append(keys, v.Items[i]), append(items, v.Items[i+1])
				}
			}
			nested("key", t.Key, keys, 0)
			nested("value", t.Elem, items, 0)
		case Enum:
			for i, f := range t.Fields {
				var payloads []Value
				for _, v := range vals {
					if v.Uint == uint64(i) {
						payloads = append(payloads, v.Items[0])
					}
				}
				nested(f.Name, f.Type, payloads, 0)
			}
		case Any:
		default:
			if st := statType(t.Kind); st != nil {
				out[strings.Join(path, ".")] = statsOf(st, vals, nulls)
			}
		}
	}
	walk(t, recs, 0)
	return out
}

// statsOf gives one primitive column's statistics; its min and max are
// values of st, the column's statistics type.
func statsOf(st *Type, vals []Value, nulls uint64) ColumnStats {
	s := ColumnStats{Nulls: nulls}
	var lo, hi *Value
	for i := range vals {
		v := &vals[i]
		if (v.Type.Kind == F32 || v.Type.Kind == F64) && v.Float() != v.Float() {
			s.NaNs++
			continue
		}
		if lo == nil {
			lo, hi = v, v
			continue
		}
		if o, _ := compareStat(*v, *lo); o < 0 {
			lo = v
		}
		if o, _ := compareStat(*v, *hi); o > 0 {
			hi = v
		}
	}
	if lo == nil {
		return s
	}
	min, loExact := cutLow(*lo)
	max, hiExact, ok := cutHigh(*hi)
	if !ok {
		return s
	}
	min.Type, max.Type = st, st
	s.HasMinMax, s.Exact, s.Min, s.Max = true, loExact && hiExact, min, max
	return s
}

// cutLow is a lower bound of at most maxStatBytes: a prefix is never larger.
func cutLow(v Value) (Value, bool) {
	switch {
	case v.Type.Kind == String && len(v.Str) > maxStatBytes:
		end := maxStatBytes
		for !utf8.RuneStart(v.Str[end]) {
			end--
		}
		return Value{Type: v.Type, Str: v.Str[:end]}, false
	case v.Type.Kind == Bytes && len(v.Bytes) > maxStatBytes:
		return Value{Type: v.Type, Bytes: v.Bytes[:maxStatBytes]}, false
	}
	return v, true
}

// cutHigh is an upper bound of at most maxStatBytes: a prefix whose last
// character (or byte) is made larger; ok is false when there is none.
func cutHigh(v Value) (out Value, exact, ok bool) {
	switch {
	case v.Type.Kind == String && len(v.Str) > maxStatBytes:
		end := maxStatBytes
		for !utf8.RuneStart(v.Str[end]) {
			end--
		}
		rs := []rune(v.Str[:end])
		for len(rs) > 0 {
			c := rs[len(rs)-1]
			rs = rs[:len(rs)-1]
			next := c + 1
			if next >= 0xd800 && next <= 0xdfff {
				next = 0xe000
			}
			if next <= utf8.MaxRune {
				return Value{Type: v.Type, Str: string(append(rs, next))}, false, true
			}
		}
		return v, false, false
	case v.Type.Kind == Bytes && len(v.Bytes) > maxStatBytes:
		p := append([]byte(nil), v.Bytes[:maxStatBytes]...)
		for len(p) > 0 {
			last := p[len(p)-1]
			p = p[:len(p)-1]
			if last < 0xff {
				return Value{Type: v.Type, Bytes: append(p, last+1)}, false, true
			}
		}
		return v, false, false
	}
	return v, true, true
}
