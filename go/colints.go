package xbf

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
