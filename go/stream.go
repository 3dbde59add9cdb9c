package xbf

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// StreamReader reads the records of an XBF 2 record stream (section 15)
// held in memory, one at a time.
type StreamReader struct {
	r       *reader
	typ     *Type
	checks  bool
	record  uint64 // records yielded so far, over the whole stream
	left    uint64 // records left in the current block
	bodyEnd int
	counted bool // the block's records are zero-size and charged already
	err     error
}

// NewStreamReader reads the stream's header and metadata.
func NewStreamReader(data []byte) (*StreamReader, error) { return defaultDec.NewStreamReader(data) }

// NewStreamReader reads the stream's header and metadata with m's options.
func (m DecMode) NewStreamReader(data []byte) (s *StreamReader, err error) {
	defer catchInternal(&err)
	r := m.newReader(data)
	t, flags, err := m.header(r, true)
	if err != nil {
		return nil, err
	}
	r.path = r.path[:0] // records' paths start with #r, without the root name
	return &StreamReader{r: r, typ: t, checks: flags&flagChecksum != 0}, nil
}

// Type is the record type.
func (s *StreamReader) Type() *Type { return s.typ }

// Next returns the next record, io.EOF at a clean end, or the stream's
// error (after which it keeps returning that error).
func (s *StreamReader) Next() (v Value, err error) {
	if s.err != nil {
		return Value{}, s.err
	}
	defer func() {
		catchInternal(&err)
		if err != nil && s.err == nil {
			s.err = err
		}
	}()
	r := s.r
	if s.left == 0 {
		if err := s.block(); err != nil {
			return Value{}, err
		}
	}
	r.path = append(r.path[:0], seg{kind: '#', idx: s.record})
	v, err = r.value(s.typ, 0, s.counted)
	if err != nil {
		return Value{}, err
	}
	r.path = r.path[:0]
	s.record++
	s.left--
	if s.left == 0 {
		// The record is whole and is yielded; a bad block end is the
		// error of the next call (15.3, steps 5 and 6).
		if r.pos != s.bodyEnd {
			if s.bodyEnd > len(r.data) {
				s.err = errAt(KindTruncated, len(r.data), "")
			} else {
				s.err = errAt(KindTrailingBytes, r.pos, "")
			}
			return v, nil
		}
		if s.checks {
			r.pos += 4
		}
		r.end = len(r.data)
	}
	return v, nil
}

// block reads a block's framing (15.3, step 3) up to its first record.
func (s *StreamReader) block() error {
	r := s.r
	r.end = len(r.data)
	if r.pos == len(r.data) {
		return io.EOF
	}
	loff := r.pos
	l, err := r.uvarint(w64)
	if err != nil {
		return err
	}
	if l == 0 {
		return errAt(KindInvalidVarint, loff, "a block of length 0")
	}
	body := r.pos
	if s.checks {
		if uint64(len(r.data)-body) < l || uint64(len(r.data)-body)-l < 4 {
			return errAt(KindTruncated, loff, "")
		}
		end := body + int(l)
		want := binary.LittleEndian.Uint32(r.data[end:])
		if crc32.Checksum(r.data[body:end], castagnoli) != want {
			return errAt(KindBadChecksum, end, "")
		}
	}
	s.bodyEnd = math.MaxInt64 // a body longer than any input: only its size relation matters
	if l < uint64(math.MaxInt64-body) {
		s.bodyEnd = body + int(l)
	}
	r.end = min(s.bodyEnd, len(r.data))
	r.zs.total = 0 // the budget is per block (16.2)
	coff := r.pos
	n, err := r.uvarint(w64)
	if err != nil {
		return err
	}
	if n == 0 {
		return errAt(KindInvalidVarint, coff, "a block of 0 records")
	}
	if s.typ.min > 0 {
		// Against the body's length, not the input: a cut body still
		// yields the records that lie whole before the cut (15.4).
		// In u64, as declared: a body of 2^63 bytes or more is not cut to
		// what an int holds.
		if n > (l-uint64(r.pos-body))/s.typ.min {
			return errAt(KindTruncated, coff, "")
		}
		s.counted = false
	} else {
		if !r.zs.add(satMul(n, s.typ.weight)) {
			return errAt(KindTooLarge, coff, "")
		}
		s.counted = true
	}
	s.left = n
	return nil
}

// StreamOptions configure a StreamWriter.
type StreamOptions struct {
	Checksums         bool
	SchemaByReference bool
	// BlockBytes is the body size after which Write ends a block (default 64 KiB).
	BlockBytes int
}

// StreamWriter writes a record stream to an io.Writer, block by block.
type StreamWriter struct {
	w     io.Writer
	typ   *Type
	opts  StreamOptions
	body  []byte // records of the open block
	n     uint64
	err   error
	frame []byte
}

// NewStreamWriter writes the header and the type of a stream of t records.
func NewStreamWriter(w io.Writer, t *Type, o StreamOptions) (*StreamWriter, error) {
	if o.BlockBytes <= 0 {
		o.BlockBytes = 64 << 10
	}
	flags := byte(flagStream)
	if o.Checksums {
		flags |= flagChecksum
	}
	hdr := []byte{0xc2, 0}
	if o.SchemaByReference {
		flags |= flagByRef
		fp := t.Fingerprint()
		hdr = append(hdr, fp[:]...)
	} else {
		hdr = t.AppendMetadata(hdr)
	}
	hdr[1] = flags
	if _, err := w.Write(hdr); err != nil {
		return nil, &Error{Kind: KindIO, Offset: -1, Detail: err.Error()}
	}
	return &StreamWriter{w: w, typ: t, opts: o}, nil
}

// Write appends a record; the block is written out once it passes BlockBytes.
func (s *StreamWriter) Write(v Value) error {
	if s.err != nil {
		return s.err
	}
	e := encoder{}
	e.out = s.body
	if err := e.value(v, s.typ); err != nil {
		return err
	}
	s.body = e.out
	s.n++
	if len(s.body) >= s.opts.BlockBytes {
		return s.Flush()
	}
	return nil
}

// Flush ends the open block, if it holds any record.
func (s *StreamWriter) Flush() error {
	if s.err != nil || s.n == 0 {
		return s.err
	}
	count := appendUvarint(nil, s.n)
	f := appendUvarint(s.frame[:0], uint64(len(count)+len(s.body)))
	f = append(f, count...)
	f = append(f, s.body...)
	if s.opts.Checksums {
		c := crc32.Update(crc32.Checksum(count, castagnoli), castagnoli, s.body)
		f = binary.LittleEndian.AppendUint32(f, c)
	}
	s.frame = f
	s.body, s.n = s.body[:0], 0
	if _, err := s.w.Write(f); err != nil {
		s.err = &Error{Kind: KindIO, Offset: -1, Detail: err.Error()}
	}
	return s.err
}

// Close flushes the last block.
func (s *StreamWriter) Close() error { return s.Flush() }
