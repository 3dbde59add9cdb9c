package xbf

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Float column writer (SPEC 22.2: plain, decimal, dictionary, XOR), a port
// of the Rust writer's choices so that both write the same bytes. Values
// are IEEE bits; size is 4 (f32) or 8 (f64).

type floatKind struct {
	size   int
	field  uint
	maxExp int
	near   float64
	limit  uint64
	ic     intCoder // the integer blocks' encodings (04 and 05 in files)
}

var (
	fk64 = floatKind{size: 8, field: 6, maxExp: 18, near: 1.0 / float64(uint64(1)<<51), limit: 9_000_000_000_000_000}
	fk32 = floatKind{size: 4, field: 5, maxExp: 10, near: 1.0 / float64(uint64(1)<<22), limit: 16_000_000}
)

func (k floatKind) toF64(b uint64) float64 {
	if k.size == 4 {
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.Float64frombits(b)
}

func (k floatKind) fromDecimal(n int64, e int) uint64 {
	if k.size == 4 {
		return uint64(math.Float32bits(float32(float32(n) / pow10f32[e])))
	}
	return math.Float64bits(float64(float64(n) / pow10f64[e]))
}

// exactDecimal gives the integer n with n / 10^e == v bit for bit, if one
// exists that the decimal encoding can hold.
func (k floatKind) exactDecimal(v uint64, e int) (int64, bool) {
	x := float64(k.toF64(v) * pow10f64[e])
	if x != x || math.Abs(x) >= 4.0e18 {
		return 0, false
	}
	t := int64(x)
	f := float64(x - float64(t))
	n := t
	if f >= 0.5 {
		n++
	}
	if f <= -0.5 {
		n--
	}
	af := math.Abs(f)
	off := math.Min(af, float64(1.0-af))
	an := uint64(n)
	if n < 0 {
		an = uint64(-n)
	}
	if an >= k.limit || off > float64(math.Abs(x)*k.near) {
		return 0, false
	}
	return n, k.fromDecimal(n, e) == v
}

func (k floatKind) appendRaw(out []byte, v uint64) []byte {
	if k.size == 4 {
		return binary.LittleEndian.AppendUint32(out, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(out, v)
}

func (k floatKind) plain(vals []uint64) []byte {
	out := make([]byte, 0, 1+len(vals)*k.size)
	out = append(out, encPlainF)
	for _, v := range vals {
		out = k.appendRaw(out, v)
	}
	return out
}

func (k floatKind) decimal(vals []uint64, e int, known []int64) []byte {
	ints := make([]u128, len(vals))
	var exc []uint64
	if known != nil {
		for i, n := range known {
			ints[i] = u128{zigzag(n), 0}
		}
	} else {
		for i, v := range vals {
			if n, ok := k.exactDecimal(v, e); ok {
				ints[i] = u128{zigzag(n), 0}
			} else {
				exc = append(exc, uint64(i))
			}
		}
	}
	out := []byte{encDecimal, byte(e)}
	body := k.ic.appendInts(nil, ints)
	out = appendUvarint(out, uint64(len(body)))
	out = append(out, body...)
	out = appendUvarint(out, uint64(len(exc)))
	if len(exc) > 0 {
		pos := k.ic.appendInts(nil, u64s(exc))
		out = appendUvarint(out, uint64(len(pos)))
		out = append(out, pos...)
		for _, i := range exc {
			out = k.appendRaw(out, vals[i])
		}
	}
	return out
}

// direct is the smaller of the plain and the decimal encoding; the
// exponent is chosen on a sample of about 256 values.
func (k floatKind) direct(vals []uint64) []byte {
	n := len(vals)
	plainLen := 1 + n*k.size
	if n == 0 {
		return k.plain(vals)
	}
	step := max(n/256, 1)
	var sample []uint64
	for i := 0; i < n; i += step {
		sample = append(sample, vals[i])
	}
	fits := func(v uint64, e int) bool { _, ok := k.exactDecimal(v, e); return ok }
	useless := len(sample)/2 + 1
	var ns []int64
	zero := -1
	for e := 0; e <= k.maxExp; e++ {
		if !fits(sample[0], e) {
			continue
		}
		ns = ns[:0]
		for _, v := range sample {
			x, ok := k.exactDecimal(v, e)
			if !ok {
				break
			}
			ns = append(ns, x)
		}
		if len(ns) == len(sample) {
			zero = e
			break
		}
	}
	if zero >= 0 && len(sample) == n {
		c := k.decimal(vals, zero, ns)
		if len(c) < plainLen {
			return c
		}
		return k.plain(vals)
	}
	type cand struct{ misses, e int }
	var best3 []cand
	if zero >= 0 {
		best3 = append(best3, cand{0, zero})
	} else {
		for e := 0; e <= k.maxExp; e++ {
			bound := useless
			if len(best3) == 3 {
				bound = min(best3[2].misses, useless)
			}
			misses := 0
			for _, v := range sample {
				if !fits(v, e) {
					misses++
				}
				if misses >= bound {
					break
				}
			}
			if misses >= bound {
				continue
			}
			at := len(best3)
			for i, c := range best3 {
				if c.misses > misses {
					at = i
					break
				}
			}
			best3 = append(best3[:at], append([]cand{{misses, e}}, best3[at:]...)...)
			if len(best3) > 3 {
				best3 = best3[:3]
			}
		}
	}
	tries := 3
	if len(best3) > 0 && best3[0].misses == 0 {
		tries = 1
	}
	var best []byte
	for i := 0; i < tries && i < len(best3); i++ {
		c := k.decimal(vals, best3[i].e, nil)
		limit := plainLen
		if best != nil {
			limit = len(best)
		}
		if len(c) < limit {
			best = c
		}
	}
	if best == nil {
		return k.plain(vals)
	}
	return best
}

// xorFields calls emit(bits, width) for each field of the XOR bit stream;
// emit returns false to stop.
func (k floatKind) xorFields(vals []uint64, emit func(uint64, uint) bool) {
	width := uint(8 * k.size)
	if len(vals) == 0 {
		return
	}
	var wl, wlen uint
	open := false
	prev := vals[0]
	for _, v := range vals[1:] {
		x := v ^ prev
		prev = v
		if x == 0 {
			if !emit(0, 1) {
				return
			}
			continue
		}
		lead := uint(bits.LeadingZeros64(x)) - (64 - width)
		trail := uint(bits.TrailingZeros64(x))
		ln := width - lead - trail
		if open && lead >= wl && trail >= width-wl-wlen && wlen <= ln+2*k.field {
			if !(emit(0b01, 2) && emit(x>>(width-wl-wlen), wlen)) {
				return
			}
			continue
		}
		wl, wlen, open = lead, ln, true
		if !(emit(0b11, 2) && emit(uint64(lead), k.field) && emit(uint64(ln-1), k.field) && emit(x>>trail, ln)) {
			return
		}
	}
}

// xorSizeBelow is the XOR encoding's size if below limit.
func (k floatKind) xorSizeBelow(vals []uint64, limit int) (int, bool) {
	nbits := uint64(0)
	size := func(b uint64) int { return 1 + k.size + int((b+7)/8) }
	below := size(0) < limit
	k.xorFields(vals, func(_ uint64, w uint) bool {
		nbits += uint64(w)
		below = size(nbits) < limit
		return below
	})
	return size(nbits), below
}

func (k floatKind) xor(vals []uint64) []byte {
	out := []byte{encXOR}
	out = k.appendRaw(out, vals[0])
	var acc uint64
	var filled uint
	k.xorFields(vals, func(v uint64, w uint) bool {
		for w > 0 {
			take := min(w, 64-filled)
			part := v
			if take < 64 {
				part &= 1<<take - 1
			}
			acc |= part << filled
			filled += take
			w -= take
			if take < 64 {
				v >>= take
			} else {
				v = 0
			}
			for filled >= 8 {
				out = append(out, byte(acc))
				acc >>= 8
				filled -= 8
			}
		}
		return true
	})
	if filled > 0 {
		out = append(out, byte(acc))
	}
	return out
}

func mostlyDistinct(seen, distinct, n int) bool { return n > 8192 && seen == 4096 && distinct > 3072 }

// encode is the smallest lossless encoding of a float column.
func (k floatKind) encode(vals []uint64) []byte {
	best := k.direct(vals)
	const sample = 4096
	n := len(vals)
	promising := n <= 4*sample
	if !promising {
		xs, _ := k.xorSizeBelow(vals[:sample], math.MaxInt)
		promising = xs*n < len(best)*sample+len(best)*sample/8
	}
	if n > 0 && promising {
		if _, ok := k.xorSizeBelow(vals, len(best)); ok {
			best = k.xor(vals)
		}
	}
	// The dictionary, unless most values are distinct.
	index := make(map[uint64]uint64)
	var distinct []uint64
	ids := make([]u128, 0, n)
	ok := true
	for i, v := range vals {
		id, seen := index[v]
		if !seen {
			id = uint64(len(distinct))
			index[v] = id
			distinct = append(distinct, v)
		}
		ids = append(ids, u128{id, 0})
		if len(distinct) > n/2+16 || mostlyDistinct(i+1, len(distinct), n) {
			ok = false
			break
		}
	}
	if ok {
		d := []byte{encFloatDic}
		d = appendUvarint(d, uint64(len(distinct)))
		inner := k.direct(distinct)
		d = appendUvarint(d, uint64(len(inner)))
		d = append(d, inner...)
		d = k.ic.appendInts(d, ids)
		if len(d) < len(best) {
			best = d
		}
	}
	return best
}
