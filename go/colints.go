package xbf

import (
	"container/heap"
	"encoding/binary"
	"sort"
)

// Integer column writer (SPEC 22.2, encodings 00 to 03): the sizes of the
// four encodings are worked out exactly and only the smallest is written,
// ties going to the earlier encoding byte, as the Rust writer does (the
// vectors hold its bytes).

type intPlan struct {
	size       int
	enc        byte
	min        u128
	width      int
	deltaMin   u128
	deltaWidth int
	first      u128
	n          int
	body       []byte // an 04 or 05 body (encoding byte included), written as it is
}

func zigzagDelta(v, prev u128) u128 { return zigzag128(v.sub(prev)) }

func planInts(vals []u128) intPlan {
	n := len(vals)
	if n == 0 {
		return intPlan{enc: encVarint}
	}
	first := vals[0]
	lo, hi := first, first
	varintSize := 0
	rle := 0
	prev, run := first, 0
	var dlo, dhi u128
	if n > 1 {
		dlo = u128{^uint64(0), ^uint64(0)}
	}
	for i, v := range vals {
		varintSize += varintLen128(v)
		if v.less(lo) {
			lo = v
		}
		if hi.less(v) {
			hi = v
		}
		if v != prev {
			rle += uvarintLen(uint64(run)) + varintLen128(prev)
			prev, run = v, 0
		}
		run++
		if i > 0 {
			d := zigzagDelta(v, vals[i-1])
			if d.less(dlo) {
				dlo = d
			}
			if dhi.less(d) {
				dhi = d
			}
		}
	}
	rle += uvarintLen(uint64(run)) + varintLen128(prev)
	p := intPlan{min: lo, first: first, n: n, deltaMin: dlo}
	p.width = hi.sub(lo).bitLen()
	forSize := varintLen128(lo) + 1 + (n*p.width+7)/8
	sizes := [4]int{varintSize, forSize, int(^uint(0) >> 1), rle}
	if n > 1 {
		p.deltaWidth = dhi.sub(dlo).bitLen()
		sizes[2] = varintLen128(first) + varintLen128(dlo) + 1 + ((n-1)*p.deltaWidth+7)/8
	}
	best := 0
	for i := 1; i < 4; i++ {
		if sizes[i] < sizes[best] {
			best = i
		}
	}
	p.size, p.enc = sizes[best], byte(best)
	return p
}

// packBits appends values of width bits each, least significant bit first.
func packBits(out []byte, vals []u128, min u128, width int) []byte {
	if width == 0 {
		return out
	}
	var acc uint64
	filled := 0
	for _, v := range vals {
		v = v.sub(min)
		left := width
		for left > 0 {
			take := min64(left, 64-filled)
			part := v.lo
			if take < 64 {
				part &= 1<<uint(take) - 1
			}
			acc |= part << uint(filled)
			filled += take
			left -= take
			v = v.shr(uint(take))
			for filled >= 8 {
				out = append(out, byte(acc))
				acc >>= 8
				filled -= 8
			}
		}
	}
	if filled > 0 {
		out = append(out, byte(acc))
	}
	return out
}

func min64(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// appendInts appends the encoding byte and payload of the smallest encoding.
func appendInts(out []byte, vals []u128) []byte {
	return appendPlanned(out, vals, planInts(vals))
}

func appendPlanned(out []byte, vals []u128, p intPlan) []byte {
	if p.body != nil {
		return append(out, p.body...)
	}
	out = append(out, p.enc)
	switch p.enc {
	case encVarint:
		for _, v := range vals {
			out = appendVarint128(out, v)
		}
	case encFOR:
		out = appendVarint128(out, p.min)
		out = append(out, byte(p.width))
		out = packBits(out, vals, p.min, p.width)
	case encDelta:
		out = appendVarint128(out, vals[0])
		ds := make([]u128, len(vals)-1)
		for i := 1; i < len(vals); i++ {
			ds[i-1] = zigzagDelta(vals[i], vals[i-1])
		}
		out = appendVarint128(out, p.deltaMin)
		out = append(out, byte(p.deltaWidth))
		out = packBits(out, ds, p.deltaMin, p.deltaWidth)
	default:
		for i := 0; i < len(vals); {
			j := i
			for j < len(vals) && vals[j] == vals[i] {
				j++
			}
			out = appendUvarint(out, uint64(j-i))
			out = appendVarint128(out, vals[i])
			i = j
		}
	}
	return out
}

// intBlockSize is the size of a length-prefixed integer block.
func intBlockSize(p intPlan) int { return uvarintLen(uint64(p.size+1)) + p.size + 1 }

func appendIntBlock(out []byte, vals []u128, p intPlan) []byte {
	out = appendUvarint(out, uint64(p.size+1))
	return appendPlanned(out, vals, p)
}

func u64s(xs []uint64) []u128 {
	out := make([]u128, len(xs))
	for i, x := range xs {
		out[i] = u128{x, 0}
	}
	return out
}

// intCoder picks integer encodings. In the blocks of XBF files (file) it
// also tries the file-only encodings 04 and 05 (SPEC 22.2.2, 22.2.3) on
// columns of at least 1,024 values, where they are strictly smaller, as
// the Rust file writer does (crates/xbf/src/columnar/ints.rs, Planned).
type intCoder struct{ file bool }

const fileIntsMin = 1024

// plan is Rust's Planned::new: the plain plan, else entropy-coded, else
// cascaded runs, whichever is strictly smaller.
func (ic intCoder) plan(vals []u128) intPlan {
	p := ic.planNoRuns(vals)
	if ic.file {
		if body := encodeRuns(vals, p.size+1); body != nil {
			p.body, p.size, p.enc = body, len(body)-1, body[0]
		}
	}
	return p
}

// planNoRuns is Rust's Planned::no_runs (the blocks inside a runs column).
func (ic intCoder) planNoRuns(vals []u128) intPlan {
	p := planInts(vals)
	if ic.file {
		if body := encodeEntropy(vals, p.size+1); body != nil {
			p.body, p.size, p.enc = body, len(body)-1, body[0]
		}
	}
	return p
}

func (ic intCoder) appendInts(out []byte, vals []u128) []byte {
	return appendPlanned(out, vals, ic.plan(vals))
}

// encodeEntropy is the entropy-coded body of vals (encoding byte
// included) if it is smaller than than bytes: canonical Huffman codes of at
// most 24 bits, the tables as plain integer blocks.
func encodeEntropy(vals []u128, than int) []byte {
	if len(vals) < fileIntsMin {
		return nil
	}
	counts := map[u128]uint64{}
	for _, v := range vals {
		counts[v]++
		if len(counts) > len(vals)/4 {
			return nil // mostly distinct: the table would cost more than it saves
		}
	}
	if len(counts) < 2 {
		return nil
	}
	distinct := make([]u128, 0, len(counts))
	for v := range counts {
		distinct = append(distinct, v)
	}
	sort.Slice(distinct, func(i, j int) bool { return distinct[i].less(distinct[j]) })
	freq := make([]uint64, len(distinct))
	for i, v := range distinct {
		freq[i] = counts[v]
	}
	lens := huffmanLengths(freq)
	bits := uint64(0)
	for i, l := range lens {
		if l > maxCodeLen {
			return nil
		}
		bits += freq[i] * uint64(l)
	}
	lensWide := make([]u128, len(lens))
	for i, l := range lens {
		lensWide[i] = u128{uint64(l), 0}
	}
	dict, lensPlan := planInts(distinct), planInts(lensWide)
	size := 1 + uvarintLen(uint64(len(distinct))) + intBlockSize(dict) + intBlockSize(lensPlan) + int((bits+7)/8)
	if size >= than {
		return nil
	}
	out := make([]byte, 0, size)
	out = append(out, encEntropy)
	out = appendUvarint(out, uint64(len(distinct)))
	out = appendIntBlock(out, distinct, dict)
	out = appendIntBlock(out, lensWide, lensPlan)
	codes := canonicalCodes(lens)
	index := make(map[u128]int, len(distinct))
	for i, v := range distinct {
		index[v] = i
	}
	var acc uint64
	filled := 0
	for _, v := range vals {
		i := index[v]
		code, l := codes[i], int(lens[i])
		for b := l - 1; b >= 0; b-- { // first bit first, into the stream's next bits
			acc |= uint64(code>>uint(b)&1) << uint(filled)
			filled++
			if filled == 64 {
				out = binary.LittleEndian.AppendUint64(out, acc)
				acc, filled = 0, 0
			}
		}
	}
	for ; filled > 0; filled -= 8 {
		out = append(out, byte(acc))
		acc >>= 8
	}
	return out
}

// huffmanLengths gives the code length of each symbol (counts all > 0, at
// least two), merging the two least (count, node id) nodes each time, as
// the Rust writer does, so that both write the same codes.
func huffmanLengths(counts []uint64) []uint8 {
	d := len(counts)
	parent := make([]int, 2*d-1)
	h := &nodeHeap{}
	for i, c := range counts {
		*h = append(*h, hnode{c, i})
	}
	heap.Init(h)
	next := d
	for h.Len() > 1 {
		a := heap.Pop(h).(hnode)
		b := heap.Pop(h).(hnode)
		parent[a.id], parent[b.id] = next, next
		heap.Push(h, hnode{a.count + b.count, next})
		next++
	}
	depth := make([]uint8, 2*d-1)
	for n := 2*d - 3; n >= 0; n-- {
		if depth[parent[n]] < 255 {
			depth[n] = depth[parent[n]] + 1
		} else {
			depth[n] = 255
		}
	}
	return depth[:d]
}

type hnode struct {
	count uint64
	id    int
}

type nodeHeap []hnode

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	return h[i].count < h[j].count || (h[i].count == h[j].count && h[i].id < h[j].id)
}
func (h nodeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)   { *h = append(*h, x.(hnode)) }
func (h *nodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// canonicalCodes gives each symbol its canonical code (by length, then by
// symbol), most significant bit first.
func canonicalCodes(lens []uint8) []uint32 {
	order := make([]int, len(lens))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lens[order[a]] < lens[order[b]] })
	codes := make([]uint32, len(lens))
	code, prev := uint32(0), uint8(0)
	for k, i := range order {
		if k > 0 {
			code++
		}
		code <<= lens[i] - prev
		prev = lens[i]
		codes[i] = code
	}
	return codes
}

// encodeRuns is the cascaded-runs body of vals (encoding byte included) if
// it is smaller than than bytes.
func encodeRuns(vals []u128, than int) []byte {
	if len(vals) < fileIntsMin {
		return nil
	}
	var lens, runVals []u128
	for i, v := range vals {
		if i > 0 && v == runVals[len(runVals)-1] {
			lens[len(lens)-1].lo++
			continue
		}
		// Runs of one or two values on average leave nothing to gain.
		if 2*(len(runVals)+1) > len(vals) {
			return nil
		}
		runVals = append(runVals, v)
		lens = append(lens, u128{1, 0})
	}
	ic := intCoder{file: true}
	lp, vp := ic.planNoRuns(lens), ic.planNoRuns(runVals)
	size := 1 + uvarintLen(uint64(len(runVals))) + intBlockSize(lp) + intBlockSize(vp)
	if size >= than {
		return nil
	}
	out := make([]byte, 0, size)
	out = append(out, encRuns)
	out = appendUvarint(out, uint64(len(runVals)))
	out = appendIntBlock(out, lens, lp)
	return appendIntBlock(out, runVals, vp)
}
