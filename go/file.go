package xbf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"math"
	"reflect"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Reading XBF files (SPEC 24): from the end through the footer (FileReader:
// any block directly, only the columns asked for, blocks skipped by their
// statistics), or forward as a stream of blocks (FileStreamReader: pipes,
// and files whose writer died before the footer). The checks, kinds and
// offsets are those of the Rust reader (crates/xbf/src/file/reader.rs).

// ReadOptions say what a read of a file hands out.
type ReadOptions struct {
	// Fields, if not nil, are the dotted paths (SPEC 22.6) of the fields to
	// decode; only their columns' bytes are read. Records then have the
	// projected type (a struct with only those fields).
	Fields []string
	// Where, if set, is a filter `FIELD OP VALUE` (see Predicate): only
	// matching records are handed out, and blocks whose statistics rule it
	// out are not read at all.
	Where string
	// SkipDamaged skips a damaged block (bad checksum, bad columns) instead
	// of failing; FileReader.Damaged lists the blocks skipped.
	SkipDamaged bool
}

// DamagedBlock is a block a read skipped: its number, its bytes and why.
type DamagedBlock struct {
	Index      int
	Start, End uint64
	Err        error
}

// IsFile reports whether data (at least its first two bytes) starts an XBF
// file rather than a message or a record stream.
func IsFile(data []byte) bool {
	return len(data) >= 2 && data[0] == 0xc2 && data[1]&^flagByRef == flagColumnar|flagStream|flagChecksum
}

// fileHead reads an XBF file's header and type from data; used is where
// the first block starts.
func (m DecMode) fileHead(data []byte) (t *Type, used int, err error) {
	defer catchInternal(&err)
	if len(data) == 0 {
		return nil, 0, errAt(KindTruncated, 0, "")
	}
	if data[0] != 0xc2 {
		return nil, 0, errAt(KindUnsupported, 0, fmt.Sprintf("an XBF file starts with c2, not %#02x", data[0]))
	}
	if len(data) < 2 {
		return nil, 0, errAt(KindTruncated, 1, "")
	}
	const file = flagColumnar | flagStream | flagChecksum
	if flags := data[1]; flags&0xf0 != 0 || flags&file != file {
		return nil, 0, errAt(KindUnsupported, 1, fmt.Sprintf("header flags %#02x are not those of an XBF file (0e or 0f)", flags))
	}
	r := m.newReader(data)
	r.pos = 2
	t, err = m.headerType(r, data[1])
	return t, r.pos, err
}

// headFrom reads the header and type from the first bytes of an input,
// asking fetch for more (up to its end) while they are cut short.
func (m DecMode) headFrom(fetch func(n int) (data []byte, all bool, err error)) (*Type, []byte, int, error) {
	for n := 512; ; n *= 4 {
		data, all, err := fetch(n)
		if err != nil {
			return nil, nil, 0, err
		}
		t, used, err := m.fileHead(data)
		var xe *Error
		if err != nil && !all && errors.As(err, &xe) && xe.Kind == KindTruncated {
			continue
		}
		return t, data, used, err
	}
}

func ioErr(at uint64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Kind: KindTruncated, Offset: int64(at), Detail: "the file ends early"}
	}
	return &Error{Kind: KindIO, Offset: int64(at), Detail: err.Error()}
}

// blockReader decodes block bodies; one per reader, for its zstd context.
type blockReader struct {
	m    DecMode
	typ  *Type
	zdec *zstd.Decoder
}

// decode decodes a block body (record count, then columns) at file offset
// base, under a budget of its own (SPEC 24.2).
func (b *blockReader) decode(body []byte, base uint64, p *filePlan) ([]Value, error) {
	c := &cursor{data: body, base: int64(base), file: true}
	nAt := c.offset()
	n, err := c.varint64()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, &Error{Kind: KindInvalidVarint, Offset: nAt, Detail: "a block holds at least one record"}
	}
	cr := &colReader{maxDepth: b.m.maxDepth, left: b.m.maxBytes, limit: b.m.maxBytes, zdec: b.zdec}
	vals, err := cr.nodeSel(b.typ, p.dt, p.decode, n, c, 0)
	b.zdec = cr.zdec
	if err != nil {
		if b.typ.Kind == Struct {
			err = within(err, b.typ.Name)
		}
		return nil, err
	}
	if !c.atEnd() {
		return nil, &Error{Kind: KindTrailingBytes, Offset: c.offset(), Detail: "bytes remain after the block's columns"}
	}
	if p.filter == nil && p.kt == nil {
		return vals, nil
	}
	out := vals[:0]
	for _, v := range vals {
		if p.filter == nil || p.filter.matches(v) {
			if p.kt != nil {
				v = pruneValue(v, p.kt)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// unmarshalRecords reads records into out (a pointer to a slice), by field
// name as Unmarshal does; a type-mismatch reports the block's offset.
func (m DecMode) unmarshalRecords(t *Type, recs []Value, out any, at uint64) error {
	rows, err := Encode(Value{Type: VecOf(t), Items: recs})
	if err != nil {
		return err
	}
	if err := m.Unmarshal(rows, out); err != nil {
		if e, ok := err.(*Error); ok {
			e.Offset = int64(at)
		}
		return err
	}
	return nil
}

func withBlock(err error, i int, start, end uint64) error {
	if e, ok := err.(*Error); ok {
		e.Detail = fmt.Sprintf("block %d (bytes %d..%d): %s", i, start, end, e.Detail)
	}
	return err
}

// planCache keeps the plan of the last ReadOptions seen.
type planCache struct {
	key  string
	plan *filePlan
}

func (pc *planCache) get(t *Type, q ReadOptions) (*filePlan, error) {
	key := q.Where + "\x00" + strings.Join(q.Fields, "\x00")
	if q.Fields == nil {
		key += "\x01"
	}
	if pc.plan != nil && pc.key == key {
		return pc.plan, nil
	}
	p, err := newFilePlan(t, q)
	if err != nil {
		return nil, err
	}
	pc.key, pc.plan = key, p
	return p, nil
}

// FileReader reads an XBF file from the end: the footer first, then any
// block, or any column of a block, directly. It is not safe for
// concurrent use; open one per goroutine (the io.ReaderAt may be shared).
type FileReader struct {
	src       io.ReaderAt
	size      uint64
	byRef     bool
	dataStart uint64
	blocks    []BlockInfo
	slots     []slot
	hasSlots  bool
	damaged   []DamagedBlock
	br        blockReader
	plans     planCache
}

// OpenFile opens an XBF file of size bytes with the default options.
func OpenFile(src io.ReaderAt, size int64) (*FileReader, error) {
	return defaultDec.OpenFile(src, size)
}

// OpenFile reads the file's header, type and footer (SPEC 24.2). A file
// without a footer (its writer died, or is still writing) fails with
// truncated at its length: read it with a FileStreamReader.
func (m DecMode) OpenFile(src io.ReaderAt, size int64) (f *FileReader, err error) {
	defer catchInternal(&err)
	if size < 0 {
		return nil, &Error{Kind: KindIO, Offset: -1, Detail: "a negative file size"}
	}
	n := uint64(size)
	t, data, used, err := m.headFrom(func(want int) ([]byte, bool, error) {
		k := min(uint64(want), n)
		buf := make([]byte, k)
		if got, err := src.ReadAt(buf, 0); uint64(got) < k {
			return nil, false, ioErr(uint64(got), err)
		}
		return buf, k == n, nil
	})
	if err != nil {
		return nil, err
	}
	dataStart := uint64(used)
	if n < dataStart+2+fileTrailer {
		return nil, unfinished(n)
	}
	trailerAt := n - fileTrailer
	var trailer [fileTrailer]byte
	if got, err := src.ReadAt(trailer[:], int64(trailerAt)); got < fileTrailer {
		return nil, ioErr(trailerAt+uint64(got), err)
	}
	if !bytes.Equal(trailer[8:], fileMagic) {
		return nil, unfinished(n)
	}
	stored := binary.LittleEndian.Uint32(trailer[:4])
	flen := uint64(binary.LittleEndian.Uint32(trailer[4:8]))
	head := 1 + uint64(uvarintLen(flen))
	if trailerAt < flen+head || trailerAt-flen-head < dataStart {
		return nil, &Error{Kind: KindInvalidColumn, Offset: int64(trailerAt + 4), Detail: "the footer's length reaches past the blocks"}
	}
	markerAt := trailerAt - flen - head
	footer := make([]byte, head+flen) // within the file, which is really there
	if got, err := src.ReadAt(footer, int64(markerAt)); got < len(footer) {
		return nil, ioErr(markerAt+uint64(got), err)
	}
	if !bytes.Equal(footer[:head], appendUvarint([]byte{0}, flen)) {
		return nil, &Error{Kind: KindInvalidColumn, Offset: int64(markerAt), Detail: "the footer does not start with 00 and its length"}
	}
	body := footer[head:]
	if got := crc32.Checksum(body, castagnoli); got != stored {
		return nil, &Error{Kind: KindBadChecksum, Offset: int64(trailerAt),
			Detail: fmt.Sprintf("the footer's CRC-32C is %08x, the file says %08x", got, stored)}
	}
	slots, hasSlots := fileSlots(t)
	blocks, err := m.parseFooter(body, int64(markerAt+head), slots, hasSlots, dataStart, markerAt)
	if err != nil {
		return nil, err
	}
	return &FileReader{src: src, size: n, byRef: data[1]&flagByRef != 0, dataStart: dataStart, blocks: blocks,
		slots: slots, hasSlots: hasSlots, br: blockReader{m: m, typ: t}}, nil
}

func unfinished(n uint64) error {
	return &Error{Kind: KindTruncated, Offset: int64(n),
		Detail: "the file has no footer (unfinished?): read it forward for its whole blocks"}
}

// Type is the record type.
func (f *FileReader) Type() *Type { return f.br.typ }

// ByReference reports whether the header names the type by fingerprint.
func (f *FileReader) ByReference() bool { return f.byRef }

// Blocks is every block, as the footer lists it (do not modify).
func (f *FileReader) Blocks() []BlockInfo { return f.blocks }

// NumRecords is the number of records in the file.
func (f *FileReader) NumRecords() uint64 {
	total := uint64(0)
	for _, b := range f.blocks {
		total = satAdd(total, b.Records)
	}
	return total
}

// ColumnPaths names the columns of every block (`a.[].b`, `a.(lengths)`),
// in the order of the footer's column entries; ok is false for a type
// holding `any`, whose columns differ from block to block.
func (f *FileReader) ColumnPaths() (paths []string, ok bool) {
	for _, s := range f.slots {
		paths = append(paths, s.path)
	}
	return paths, f.hasSlots
}

// Damaged lists the blocks skipped so far by reads with SkipDamaged.
func (f *FileReader) Damaged() []DamagedBlock { return f.damaged }

// ProjectedType is the type of the records a read with q hands out.
func (f *FileReader) ProjectedType(q ReadOptions) (*Type, error) {
	p, err := f.plans.get(f.br.typ, q)
	if err != nil {
		return nil, err
	}
	if p.kt != nil {
		return p.kt, nil
	}
	return p.dt, nil
}

// ruledOut says whether block i's statistics show that no record matches.
func (f *FileReader) ruledOut(i int, p *filePlan) bool {
	if p.filter == nil || !f.hasSlots {
		return false
	}
	path := strings.Join(p.filter.names, ".")
	b := &f.blocks[i]
	for j, s := range f.slots {
		if s.stat != nil && s.path == path && p.filter.rulesOut(b.Columns[j].Stats, b.Records) {
			return true
		}
	}
	return false
}

// BlocksRuledOut is the number of blocks q's filter rules out by their
// statistics alone (blocks a read with q does not read).
func (f *FileReader) BlocksRuledOut(q ReadOptions) (int, error) {
	p, err := f.plans.get(f.br.typ, q)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range f.blocks {
		if f.ruledOut(i, p) {
			n++
		}
	}
	return n, nil
}

func (f *FileReader) readAt(buf []byte, at uint64) error {
	if got, err := f.src.ReadAt(buf, int64(at)); got < len(buf) {
		return ioErr(at+uint64(got), err)
	}
	return nil
}

// fetch reads block i's body: all of it, checked by the block's CRC-32C,
// or only the wanted columns, each checked by the CRC-32C the footer gives
// it (the others stand as their length and zeros, skipped unread).
func (f *FileReader) fetch(i int, p *filePlan) ([]byte, uint64, error) {
	b := &f.blocks[i]
	base, bl := b.bodyOffset(), b.bodyLen()
	partial := false
	if f.hasSlots && p.decode != nil {
		for _, s := range f.slots {
			if !s.wanted(p.decode) {
				partial = true
			}
		}
	}
	if !partial {
		raw := make([]byte, b.Size) // the footer placed it within the file
		if err := f.readAt(raw, b.Offset); err != nil {
			return nil, 0, err
		}
		c := &cursor{data: raw, base: int64(b.Offset), file: true}
		l, err := c.varint64()
		if err != nil {
			return nil, 0, err
		}
		if l != bl {
			return nil, 0, &Error{Kind: KindInvalidColumn, Offset: int64(b.Offset), Detail: "the block's length is not the footer's"}
		}
		body := raw[c.pos : c.pos+int(bl)]
		stored := binary.LittleEndian.Uint32(raw[len(raw)-4:])
		if got := crc32.Checksum(body, castagnoli); got != stored {
			return nil, 0, &Error{Kind: KindBadChecksum, Offset: int64(base + bl),
				Detail: fmt.Sprintf("the block's CRC-32C is %08x, the file says %08x", got, stored)}
		}
		c = &cursor{data: body, base: int64(base), file: true}
		count, err := c.varint64()
		if err != nil {
			return nil, 0, err
		}
		if count == 0 {
			return nil, 0, &Error{Kind: KindInvalidVarint, Offset: int64(base), Detail: "a block holds at least one record"}
		}
		if count != b.Records {
			return nil, 0, &Error{Kind: KindInvalidColumn, Offset: int64(base), Detail: "the block's record count is not the footer's"}
		}
		return body, base, nil
	}
	body := make([]byte, 0, bl)
	body = appendUvarint(body, b.Records)
	for j, at := range b.columnOffsets() {
		col := b.Columns[j]
		if f.slots[j].wanted(p.decode) {
			start := len(body)
			body = append(body, make([]byte, col.Size)...)
			if err := f.readAt(body[start:], at); err != nil {
				return nil, 0, err
			}
			if got := crc32.Checksum(body[start:], castagnoli); got != col.CRC {
				return nil, 0, &Error{Kind: KindBadChecksum, Offset: int64(at),
					Detail: fmt.Sprintf("the column's CRC-32C is %08x, the footer says %08x", got, col.CRC)}
			}
			continue
		}
		inner := bodyLenOf(col.Size)
		body = appendUvarint(body, inner)
		body = append(body, make([]byte, inner)...)
	}
	return body, base, nil
}

func (f *FileReader) block(i int, p *filePlan) ([]Value, error) {
	if f.ruledOut(i, p) {
		return nil, nil
	}
	body, base, err := f.fetch(i, p)
	if err == nil {
		var recs []Value
		if recs, err = f.br.decode(body, base, p); err == nil {
			return recs, nil
		}
	}
	b := &f.blocks[i]
	return nil, withBlock(err, i, b.Offset, b.Offset+b.Size)
}

// ReadBlock returns the records of block i that q asks for (none, and
// nothing read, if its statistics rule q's filter out).
func (f *FileReader) ReadBlock(i int, q ReadOptions) (recs []Value, err error) {
	defer catchInternal(&err)
	if i < 0 || i >= len(f.blocks) {
		return nil, &Error{Kind: KindTruncated, Offset: -1, Detail: fmt.Sprintf("block %d of a file of %d", i, len(f.blocks))}
	}
	p, err := f.plans.get(f.br.typ, q)
	if err != nil {
		return nil, err
	}
	return f.block(i, p)
}

// UnmarshalBlock reads the records of block i that q asks for into out, a
// pointer to a slice of any type Unmarshal can fill from the record type
// (by field name: SPEC 23.2).
func (f *FileReader) UnmarshalBlock(i int, q ReadOptions, out any) (err error) {
	if q.Fields == nil && q.Where == "" && i >= 0 && i < len(f.blocks) {
		if done, err := f.unmarshalColumns(i, out); done {
			return err
		}
	}
	recs, err := f.ReadBlock(i, q)
	if err != nil {
		return err
	}
	t, err := f.ProjectedType(q)
	if err != nil {
		return err
	}
	return f.br.m.unmarshalRecords(t, recs, out, f.blocks[i].Offset)
}

// UnmarshalAll reads the records q asks for, from every block in file
// order, into out, a pointer to a slice (see UnmarshalBlock); blocks ruled
// out by q's filter are not read, damaged ones are skipped with
// SkipDamaged (Damaged lists them).
func (f *FileReader) UnmarshalAll(q ReadOptions, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Slice {
		return &Error{Kind: KindUnsupported, Offset: -1, Detail: fmt.Sprintf("UnmarshalAll into %T, not a pointer to a slice", out)}
	}
	p, err := f.plans.get(f.br.typ, q)
	if err != nil {
		return err
	}
	all := reflect.MakeSlice(rv.Elem().Type(), 0, int(min(f.NumRecords(), 1<<20)))
	part := reflect.New(rv.Elem().Type())
	for i := range f.blocks {
		if f.ruledOut(i, p) {
			continue
		}
		if err := f.UnmarshalBlock(i, q, part.Interface()); err != nil {
			var xe *Error
			if q.SkipDamaged && errors.As(err, &xe) && xe.Kind != KindTypeMismatch {
				b := &f.blocks[i]
				f.damaged = append(f.damaged, DamagedBlock{Index: i, Start: b.Offset, End: b.Offset + b.Size, Err: err})
				continue
			}
			return err
		}
		all = reflect.AppendSlice(all, part.Elem())
	}
	rv.Elem().Set(all)
	return nil
}

// unmarshalColumns reads block i straight from its columns into out when
// it is a slice of flat structs the typed column reader fills (as
// Unmarshal does for a columnar vec: coltyped.go); done is false otherwise.
func (f *FileReader) unmarshalColumns(i int, out any) (done bool, err error) {
	defer catchInternal(&err)
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false, nil
	}
	p, ok := colPlanFor(VecOf(f.br.typ), rv.Type().Elem())
	if !ok || noTypedColumns {
		return false, nil
	}
	b := &f.blocks[i]
	fail := func(err error) (bool, error) { return true, withBlock(err, i, b.Offset, b.Offset+b.Size) }
	body, base, err := f.fetch(i, &filePlan{dt: f.br.typ})
	if err != nil {
		return fail(err)
	}
	c := &cursor{data: body, base: int64(base), file: true}
	n, err := c.varint64() // checked by fetch: the footer's count, at least 1
	if err != nil {
		return fail(err)
	}
	m := f.br.m
	cr := &colReader{maxDepth: m.maxDepth, left: m.maxBytes, limit: m.maxBytes, zdec: f.br.zdec}
	s := reflect.New(rv.Type().Elem()).Elem()
	// A value a Go field cannot hold: at the block's offset with the path
	// of the record ([3].small), as the other path reports it.
	bad, err := p.readStructs(cr, c, n, &s, int64(b.Offset))
	f.br.zdec = cr.zdec
	if err == nil && !c.atEnd() {
		err = &Error{Kind: KindTrailingBytes, Offset: c.offset(), Detail: "bytes remain after the block's columns"}
	}
	if err != nil {
		return fail(within(err, f.br.typ.Name))
	}
	if bad != nil {
		return fail(bad)
	}
	rv.Elem().Set(s)
	return true, nil
}

// Records yields the records q asks for, block by block, in file order;
// after an error (other than a damaged block skipped with SkipDamaged) it
// stops.
//
//	for rec, err := range r.Records(xbf.ReadOptions{Where: "delay > 60"}) { ... }
func (f *FileReader) Records(q ReadOptions) iter.Seq2[Value, error] {
	return func(yield func(Value, error) bool) {
		p, err := f.plans.get(f.br.typ, q)
		if err != nil {
			yield(Value{}, err)
			return
		}
		for i := range f.blocks {
			recs, err := func() (recs []Value, err error) {
				defer catchInternal(&err)
				return f.block(i, p)
			}()
			if err != nil {
				if q.SkipDamaged {
					b := &f.blocks[i]
					f.damaged = append(f.damaged, DamagedBlock{Index: i, Start: b.Offset, End: b.Offset + b.Size, Err: err})
					continue
				}
				yield(Value{}, err)
				return
			}
			for _, r := range recs {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// FileStreamReader reads an XBF file forward (SPEC 24.6), needing nothing
// but the bytes in order: for pipes, and for files whose writer died
// before the footer (every whole block is read, then the end fails with
// truncated).
type FileStreamReader struct {
	in          *bufio.Reader
	pos         uint64
	dataStart   uint64
	blocks      int
	afterFooter bool
	seen        [][3]uint64 // offset, size and record count of each block read
	slots       []slot
	hasSlots    bool
	br          blockReader
	plans       planCache
	lastAt      uint64
	err         error // a cut input: every later call fails alike
	damaged     []DamagedBlock
	blockErr    bool // the last error was a damaged block, which can be passed
}

// unknownCount stands for the record count of a block whose checksum failed.
const unknownCount = ^uint64(0)

// NewFileStreamReader reads the header and type with the default options.
func NewFileStreamReader(r io.Reader) (*FileStreamReader, error) {
	return defaultDec.NewFileStreamReader(r)
}

// NewFileStreamReader reads the header and type from r.
func (m DecMode) NewFileStreamReader(r io.Reader) (s *FileStreamReader, err error) {
	defer catchInternal(&err)
	var got []byte
	eof := false
	t, data, used, err := m.headFrom(func(n int) ([]byte, bool, error) {
		for len(got) < n && !eof {
			buf := make([]byte, n-len(got))
			k, err := io.ReadFull(r, buf)
			got = append(got, buf[:k]...)
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				eof = true
			} else if err != nil {
				return nil, false, &Error{Kind: KindIO, Offset: int64(len(got)), Detail: err.Error()}
			}
		}
		return got, eof, nil
	})
	if err != nil {
		return nil, err
	}
	slots, hasSlots := fileSlots(t)
	return &FileStreamReader{
		in:        bufio.NewReader(io.MultiReader(bytes.NewReader(data[used:]), r)),
		pos:       uint64(used),
		dataStart: uint64(used),
		slots:     slots, hasSlots: hasSlots,
		br: blockReader{m: m, typ: t},
	}, nil
}

// Type is the record type.
func (s *FileStreamReader) Type() *Type { return s.br.typ }

// uvarint reads a varint of at most bits bits whose first byte is first.
func (s *FileStreamReader) uvarint(first byte, start uint64, bits int) (uint64, error) {
	x, shift := uint64(0), 0
	b := first
	for {
		low := uint64(b & 0x7f)
		if shift+7 > bits && low>>(bits-shift) != 0 {
			return 0, &Error{Kind: KindInvalidVarint, Offset: int64(start), Detail: fmt.Sprintf("does not fit in %d bits", bits)}
		}
		x |= low << shift
		if b&0x80 == 0 {
			if b == 0 && shift > 0 {
				return 0, &Error{Kind: KindInvalidVarint, Offset: int64(start), Detail: "overlong: it ends with a zero byte"}
			}
			return x, nil
		}
		shift += 7
		if shift >= bits {
			return 0, &Error{Kind: KindInvalidVarint, Offset: int64(start), Detail: fmt.Sprintf("longer than a %d-bit varint can be", bits)}
		}
		var err error
		if b, err = s.in.ReadByte(); err != nil {
			return 0, s.cut(start, err)
		}
		s.pos++
	}
}

// cut is the error of an input that ends (or fails) early: truncated at
// at, or io.
func (s *FileStreamReader) cut(at uint64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		s.err = &Error{Kind: KindTruncated, Offset: int64(at), Detail: "the file ends early"}
	} else {
		s.err = &Error{Kind: KindIO, Offset: int64(s.pos), Detail: err.Error()}
	}
	return s.err
}

// bytes reads n bytes; the buffer grows only as the input delivers them.
func (s *FileStreamReader) bytes(n uint64, cutAt uint64) ([]byte, error) {
	var buf bytes.Buffer
	got, err := io.Copy(&buf, io.LimitReader(s.in, int64(min(n, math.MaxInt64))))
	s.pos += uint64(got)
	if err != nil {
		return nil, s.cut(cutAt, err)
	}
	if uint64(got) < n {
		return nil, s.cut(cutAt, io.EOF)
	}
	return buf.Bytes(), nil
}

// NextBlock returns the next block's records that q asks for (q's filter
// tests each record: there are no statistics going forward); io.EOF after
// the footer at the end of the file. After a damaged block it can go on
// with the next one; after a cut input it fails again.
func (s *FileStreamReader) NextBlock(q ReadOptions) (recs []Value, err error) {
	defer catchInternal(&err)
	if s.err != nil {
		return nil, s.err
	}
	p, err := s.plans.get(s.br.typ, q)
	if err != nil {
		return nil, err
	}
	s.blockErr = false
	for {
		lenAt := s.pos
		first, err := s.in.ReadByte()
		if err == io.EOF {
			if s.afterFooter {
				return nil, io.EOF
			}
			s.err = &Error{Kind: KindTruncated, Offset: int64(lenAt),
				Detail: fmt.Sprintf("the file ends after %d whole blocks, without a footer", s.blocks)}
			return nil, s.err
		}
		if err != nil {
			return nil, s.cut(lenAt, err)
		}
		s.pos++
		l, err := s.uvarint(first, lenAt, 64)
		if err != nil {
			return nil, err
		}
		if l == 0 {
			if err := s.footer(lenAt); err != nil {
				return nil, err
			}
			continue
		}
		s.afterFooter = false
		base := s.pos
		body, err := s.bytes(l, lenAt)
		if err != nil {
			return nil, err
		}
		crcAt := s.pos
		crc, err := s.bytes(4, lenAt)
		if err != nil {
			return nil, err
		}
		end := crcAt + 4
		i := s.blocks
		s.blocks++
		stored := binary.LittleEndian.Uint32(crc)
		s.lastAt, s.blockErr = lenAt, true
		if got := crc32.Checksum(body, castagnoli); got != stored {
			// Its place is known, its record count is not: a footer after
			// it (read with SkipDamaged) is held to the place alone.
			s.seen = append(s.seen, [3]uint64{lenAt, end - lenAt, unknownCount})
			e := &Error{Kind: KindBadChecksum, Offset: int64(crcAt),
				Detail: fmt.Sprintf("the block's CRC-32C is %08x, the file says %08x", got, stored)}
			return nil, withBlock(e, i, lenAt, end)
		}
		s.seen = append(s.seen, [3]uint64{lenAt, end - lenAt, 0})
		c := &cursor{data: body, base: int64(base)}
		count, err := c.varint64()
		if err != nil {
			return nil, withBlock(err, i, lenAt, end)
		}
		s.seen[len(s.seen)-1][2] = count
		recs, err := s.br.decode(body, base, p)
		if err != nil {
			return nil, withBlock(err, i, lenAt, end)
		}
		s.blockErr = false
		return recs, nil
	}
}

// footer reads and checks a footer part met going forward: it must list
// exactly the blocks read so far.
func (s *FileStreamReader) footer(at uint64) error {
	fAt := s.pos
	first, err := s.in.ReadByte()
	if err != nil {
		return s.cut(fAt, err)
	}
	s.pos++
	flen, err := s.uvarint(first, fAt, 32)
	if err != nil {
		return err
	}
	base := s.pos
	body, err := s.bytes(flen, base)
	if err != nil {
		return err
	}
	trailerAt := s.pos
	trailer, err := s.bytes(fileTrailer, trailerAt)
	if err != nil {
		return err
	}
	stored := binary.LittleEndian.Uint32(trailer[:4])
	if !bytes.Equal(trailer[8:], fileMagic) || uint64(binary.LittleEndian.Uint32(trailer[4:8])) != flen {
		return &Error{Kind: KindInvalidColumn, Offset: int64(trailerAt), Detail: "the footer's trailer is not its length and XBFF"}
	}
	if got := crc32.Checksum(body, castagnoli); got != stored {
		return &Error{Kind: KindBadChecksum, Offset: int64(trailerAt),
			Detail: fmt.Sprintf("the footer's CRC-32C is %08x, the file says %08x", got, stored)}
	}
	blocks, err := s.br.m.parseFooter(body, int64(base), s.slots, s.hasSlots, s.dataStart, at)
	if err != nil {
		return err
	}
	same := len(blocks) == len(s.seen)
	for i := 0; same && i < len(blocks); i++ {
		b, seen := blocks[i], s.seen[i]
		if seen[2] == unknownCount {
			seen[2] = b.Records
		}
		same = [3]uint64{b.Offset, b.Size, b.Records} == seen
	}
	if !same {
		return &Error{Kind: KindInvalidColumn, Offset: int64(base),
			Detail: fmt.Sprintf("the footer lists %d blocks other than the %d read before it", len(blocks), len(s.seen))}
	}
	s.afterFooter = true
	return nil
}

// Damaged lists the blocks Records skipped with SkipDamaged.
func (s *FileStreamReader) Damaged() []DamagedBlock { return s.damaged }

// UnmarshalNextBlock reads the next block's records that q asks for into
// out, a pointer to a slice (see FileReader.UnmarshalBlock); io.EOF at the
// end of the file.
func (s *FileStreamReader) UnmarshalNextBlock(q ReadOptions, out any) error {
	recs, err := s.NextBlock(q)
	if err != nil {
		return err
	}
	p, _ := s.plans.get(s.br.typ, q)
	t := p.dt
	if p.kt != nil {
		t = p.kt
	}
	return s.br.m.unmarshalRecords(t, recs, out, s.lastAt)
}

// Records yields the records q asks for, block by block; it stops after
// the first error (a clean end is no error), except that with SkipDamaged
// a damaged block is listed by Damaged and passed.
func (s *FileStreamReader) Records(q ReadOptions) iter.Seq2[Value, error] {
	return func(yield func(Value, error) bool) {
		for {
			recs, err := s.NextBlock(q)
			if err == io.EOF {
				return
			}
			if err != nil && q.SkipDamaged && s.blockErr {
				s.damaged = append(s.damaged, DamagedBlock{Index: s.blocks - 1, Start: s.lastAt, End: s.pos, Err: err})
				continue
			}
			if err != nil {
				yield(Value{}, err)
				return
			}
			for _, r := range recs {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}
