package xbf

import "fmt"

// The FSST string encoding (23), which stands only in the blocks of XBF
// files (SPEC 22.2.4): a table of up to 255 symbols of 1 to 8 bytes, the
// values' lengths as an integer block, then the values' bytes, joined, as
// codes (a byte below 255 stands for its symbol, 255 for the byte after
// it). The Go writer does not produce it; the reader follows the Rust
// reader's checks and offsets (crates/xbf/src/columnar/fsst.rs).

const (
	encFsst    = 0x23
	fsstEscape = 255
)

// decodeFsst reads the payload of an FSST column of n values (the encoding
// byte, at offset at, was read); the codes run to the end of c.
func (cr *colReader) decodeFsst(c *cursor, n uint64, at int64) ([][]byte, error) {
	tableAt := c.offset()
	count, err := c.u8()
	if err != nil {
		return nil, err
	}
	widths, err := c.take(uint64(count))
	if err != nil {
		return nil, err
	}
	need := uint64(0)
	for i, w := range widths {
		if w < 1 || w > 8 {
			return nil, c.invalid(tableAt, fmt.Sprintf("symbol %d of %d bytes (FSST symbols take 1 to 8)", i, w))
		}
		need += uint64(w)
	}
	symBytes, err := c.take(need)
	if err != nil {
		return nil, err
	}
	var symbols [255][8]byte
	for i, w := range widths {
		copy(symbols[i][:], symBytes[:w])
		symBytes = symBytes[w:]
	}
	lens, err := readLens(c, n)
	if err != nil {
		return nil, err
	}
	codesAt, codesPos := c.offset(), c.pos
	codes, _ := c.take(c.remaining())
	// offsetOf is the offset of codes[i] as the cursor reports offsets.
	offsetOf := func(i int) int64 {
		if c.fixed {
			return codesAt
		}
		return c.base + int64(codesPos+i)
	}
	var size budgetSum
	for _, l := range lens {
		size.add(l)
	}
	// A code makes at most 8 bytes: a claim past that is refused before
	// anything is allocated, and so is one past the budget.
	if size.over || size.n > 8*uint64(len(codes)) {
		return nil, c.invalid(at, fmt.Sprintf("%d bytes of codes cannot make the %d bytes of the values", len(codes), size.n))
	}
	if err := cr.charge(at, size.n, size.over); err != nil {
		return nil, err
	}
	total := int(size.n)
	buf := make([]byte, total+8)
	end := 0
	for i := 0; i < len(codes); {
		code := codes[i]
		var word [8]byte
		width, step := 1, 1
		if code == fsstEscape {
			if i+1 >= len(codes) {
				return nil, c.errAt(KindTruncated, offsetOf(i), "an FSST escape with no byte after it")
			}
			word[0] = codes[i+1]
			step = 2
		} else {
			if int(code) >= len(widths) {
				return nil, c.invalid(offsetOf(i), fmt.Sprintf("FSST code %d past the %d symbols", code, len(widths)))
			}
			word, width = symbols[code], int(widths[code])
		}
		if end+width > total {
			return nil, c.invalid(offsetOf(i), fmt.Sprintf("the FSST codes make more than the %d bytes of the values", total))
		}
		copy(buf[end:end+8], word[:])
		end += width
		i += step
	}
	if end != total {
		return nil, c.invalid(at, fmt.Sprintf("the FSST codes make %d bytes, the lengths %d", end, total))
	}
	out := make([][]byte, n)
	k := uint64(0)
	for i, l := range lens {
		out[i] = buf[k : k+l : k+l]
		k += l
	}
	return out, nil
}
