package xbf

import "fmt"

// cursor reads a column or a part of one. base is the message offset of
// data[0]; in a decompressed column (fixed) every error reports base, since
// its bytes have no place in the message.
type cursor struct {
	data  []byte
	pos   int
	base  int64
	fixed bool
	// file: the bytes are a block of an XBF file, where the file-only
	// integer encodings 04 and 05 may stand (SPEC 22.2); in a message they
	// are unknown-discriminant.
	file bool
}

func (c *cursor) offset() int64 {
	if c.fixed {
		return c.base
	}
	return c.base + int64(c.pos)
}

func (c *cursor) remaining() uint64 { return uint64(len(c.data) - c.pos) }
func (c *cursor) atEnd() bool       { return c.pos == len(c.data) }

func (c *cursor) errAt(kind string, at int64, detail string) *Error {
	return &Error{Kind: kind, Offset: at, Detail: detail}
}

func (c *cursor) invalid(at int64, detail string) *Error {
	return c.errAt(KindInvalidColumn, at, detail)
}

func (c *cursor) u8() (byte, error) {
	if c.pos >= len(c.data) {
		return 0, c.errAt(KindTruncated, c.offset(), "needs 1 byte, 0 remain")
	}
	b := c.data[c.pos]
	c.pos++
	return b, nil
}

func (c *cursor) peek() byte {
	if c.pos < len(c.data) {
		return c.data[c.pos]
	}
	return 0
}

// take returns the next n bytes (n may be anything a u64 or more holds).
func (c *cursor) take(n uint64) ([]byte, error) {
	if n > c.remaining() {
		return nil, c.errAt(KindTruncated, c.offset(), fmt.Sprintf("needs %d bytes, %d remain", n, c.remaining()))
	}
	s := c.data[c.pos : c.pos+int(n)]
	c.pos += int(n)
	return s, nil
}

// takeMul takes n × size bytes, n × size computed without overflow.
func (c *cursor) takeMul(n, size uint64) ([]byte, error) {
	if size != 0 && n > c.remaining()/size {
		return nil, c.errAt(KindTruncated, c.offset(), fmt.Sprintf("needs %d × %d bytes, %d remain", n, size, c.remaining()))
	}
	return c.take(n * size)
}

func (c *cursor) checkFits(at int64, n, m uint64) error {
	if satMul(n, m) > c.remaining() {
		return c.errAt(KindTruncated, at, fmt.Sprintf("%d items of at least %d bytes do not fit in %d", n, m, c.remaining()))
	}
	return nil
}

// varint reads a canonical varint of at most bits bits (1 to 128).
func (c *cursor) varint(bits int) (u128, error) {
	start := c.offset()
	var x u128
	shift := 0
	for {
		b, err := c.u8()
		if err != nil {
			return x, c.errAt(KindTruncated, start, "the input ends inside a varint")
		}
		low := uint64(b & 0x7f)
		if shift+7 > bits && low>>(bits-shift) != 0 {
			return x, c.errAt(KindInvalidVarint, start, fmt.Sprintf("does not fit in %d bits", bits))
		}
		x = u128{x.lo | low<<shift, x.hi}
		if shift >= 64 {
			x = u128{x.lo, x.hi | low<<(shift-64)}
		} else if shift > 57 {
			x.hi |= low >> (64 - shift)
		}
		if b&0x80 == 0 {
			if b == 0 && shift > 0 {
				return x, c.errAt(KindInvalidVarint, start, "overlong: it ends with a zero byte")
			}
			return x, nil
		}
		shift += 7
		if shift >= bits {
			return x, c.errAt(KindInvalidVarint, start, fmt.Sprintf("longer than a %d-bit varint can be", bits))
		}
	}
}

func (c *cursor) varint64() (uint64, error) {
	x, err := c.varint(64)
	return x.lo, err
}

// block reads a varint length and returns a cursor over that many bytes.
func (c *cursor) block() (*cursor, error) {
	at := c.offset()
	n, err := c.varint64()
	if err != nil {
		return nil, err
	}
	bodyAt := c.offset()
	b, err := c.take(n)
	if err != nil {
		e := err.(*Error)
		e.Offset = at
		return nil, e
	}
	return &cursor{data: b, base: bodyAt, fixed: c.fixed, file: c.file}, nil
}

func (c *cursor) finish(what string) error {
	if c.atEnd() {
		return nil
	}
	return c.invalid(c.offset(), fmt.Sprintf("%d bytes of the %s are left over", c.remaining(), what))
}
