package xbf

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"
)

// The two integer encodings that stand only in the blocks of XBF files
// (SPEC 22.2.2 and 22.2.3): entropy-coded (04) and cascaded runs (05).
// The Go writer does not produce them; the reader follows the Rust
// reader's checks and offsets (crates/xbf/src/columnar/entropy.rs, runs.rs).

const (
	maxCodeLen = 24 // the longest Huffman code
	codeTable  = 11 // codes of up to this many bits are decoded by one lookup
)

// decodeEntropy reads the payload of an entropy-coded column of n values
// (the encoding byte was read). n was charged to the budget, and d ≤ n.
func decodeEntropy(c *cursor, n uint64, maxBits int) ([]u128, error) {
	at := c.offset()
	d, err := c.varint64()
	if err != nil {
		return nil, err
	}
	if d < 2 || d > n {
		return nil, c.invalid(at, fmt.Sprintf("%d distinct values for a column of %d", d, n))
	}
	values, err := innerBlock(c, d, maxBits, encEntropy, "an entropy-coded block inside an entropy-coded column")
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(values); i++ {
		if !values[i-1].less(values[i]) {
			return nil, c.invalid(at, "the distinct values are not in ascending order")
		}
	}
	lensAt := c.offset()
	wide, err := innerBlock(c, d, 8, encEntropy, "an entropy-coded block inside an entropy-coded column")
	if err != nil {
		return nil, err
	}
	// A complete code of lengths 1 to 24: the Kraft sum is exactly 2^24.
	lens := make([]uint8, d)
	var count [maxCodeLen + 1]uint32
	kraft := uint64(0)
	for i, l := range wide {
		if l.lo == 0 || l.lo > maxCodeLen {
			return nil, c.invalid(lensAt, fmt.Sprintf("a code length of %d", l.lo))
		}
		lens[i] = uint8(l.lo)
		kraft += 1 << (maxCodeLen - l.lo)
		count[l.lo]++
	}
	if kraft != 1<<maxCodeLen {
		return nil, c.invalid(lensAt, "the code lengths do not make a complete prefix code")
	}
	// Canonical codes: symbols ordered by (length, value); each code is the
	// one before plus 1, shifted left by the difference of their lengths.
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lens[order[a]] < lens[order[b]] })
	type entry struct {
		sym uint32
		len uint8
	}
	table := make([]entry, 1<<codeTable)
	code, prev := uint32(0), uint8(0)
	for k, i := range order {
		if k > 0 {
			code++
		}
		code <<= lens[i] - prev
		prev = lens[i]
		if l := lens[i]; l <= codeTable {
			// The stream holds a code first bit first from the low bit up:
			// the lookup index is the code's bits reversed.
			rev := bits.Reverse32(code) >> (32 - uint(l))
			for hi := uint32(0); hi < 1<<(codeTable-l); hi++ {
				table[rev|hi<<l] = entry{uint32(i), l}
			}
		}
	}
	streamAt := c.offset()
	stream := c.data[c.pos:]
	c.pos = len(c.data)
	total := uint64(len(stream)) * 8
	peek := func(bit uint64) uint32 {
		i := bit / 8
		var w uint64
		if i+8 <= uint64(len(stream)) {
			w = binary.LittleEndian.Uint64(stream[i:])
		} else {
			var b [8]byte
			if i < uint64(len(stream)) {
				copy(b[:], stream[i:])
			}
			w = binary.LittleEndian.Uint64(b[:])
		}
		return uint32(w>>(bit%8)) & (1<<codeTable - 1)
	}
	ended := func() error {
		return c.errAt(KindTruncated, streamAt, "the entropy-coded values end early")
	}
	out := make([]u128, 0, n)
	bit := uint64(0)
	for range n {
		if e := table[peek(bit)]; e.len > 0 {
			if bit+uint64(e.len) > total {
				return nil, ended()
			}
			bit += uint64(e.len)
			out = append(out, values[e.sym])
			continue
		}
		// A longer code, a bit at a time: first is the first code of the
		// current length, index the number of symbols of shorter codes.
		code, first, index := uint32(0), uint32(0), uint32(0)
		for l := 1; ; l++ {
			if l > maxCodeLen {
				return nil, c.invalid(streamAt, "a code longer than any in the table")
			}
			if bit >= total {
				return nil, ended()
			}
			code |= uint32(stream[bit/8]>>(bit%8)) & 1
			bit++
			if k := count[l]; code < first+k {
				out = append(out, values[order[index+code-first]])
				break
			} else {
				index += k
				first = (first + k) << 1
				code <<= 1
			}
		}
	}
	// The stream ends in its last byte, padded with zero bits.
	used := (bit + 7) / 8
	if used != uint64(len(stream)) || (bit%8 != 0 && stream[used-1]>>(bit%8) != 0) {
		return nil, c.invalid(streamAt, "bits or bytes left over after the entropy-coded values")
	}
	return out, nil
}

// decodeRuns reads the payload of a cascaded-runs column of n values (the
// encoding byte was read).
func decodeRuns(c *cursor, n uint64, maxBits int) ([]u128, error) {
	at := c.offset()
	k, err := c.varint64()
	if err != nil {
		return nil, err
	}
	if k == 0 || k > n {
		return nil, c.invalid(at, fmt.Sprintf("%d runs for a column of %d values", k, n))
	}
	// k ≤ n, which the budget paid for.
	const nested = "runs inside a runs column"
	lens, err := innerBlock(c, k, 64, encRuns, nested)
	if err != nil {
		return nil, err
	}
	lensAt := c.offset() // as Rust reports it: the values block's offset
	vals, err := innerBlock(c, k, maxBits, encRuns, nested)
	if err != nil {
		return nil, err
	}
	total := uint64(0)
	for _, l := range lens {
		if l.lo == 0 {
			return nil, c.invalid(lensAt, "a run of length 0")
		}
		total = satAdd(total, l.lo)
	}
	if total != n {
		return nil, c.invalid(lensAt, fmt.Sprintf("runs of %d values for a column of %d", total, n))
	}
	out := make([]u128, 0, n)
	for i, l := range lens {
		for range l.lo {
			out = append(out, vals[i])
		}
	}
	return out, nil
}

// innerBlock reads a length-prefixed integer block of n values inside an
// 04 or 05 column, which may not use the encoding of the column around it
// (tables do not nest, runs do not nest).
func innerBlock(c *cursor, n uint64, maxBits int, not byte, why string) ([]u128, error) {
	b, err := c.block()
	if err != nil {
		return nil, err
	}
	at := b.offset()
	if !b.atEnd() && b.peek() == not {
		return nil, b.invalid(at, why)
	}
	v, err := decodeInts(b, n, maxBits)
	if err != nil {
		return nil, err
	}
	return v, b.finish("integer block")
}
