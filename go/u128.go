package xbf

import "math/bits"

// u128 is an unsigned 128-bit integer, the value type of integer columns.
type u128 struct{ lo, hi uint64 }

func (a u128) add(b u128) (u128, bool) {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, c2 := bits.Add64(a.hi, b.hi, c)
	return u128{lo, hi}, c2 != 0
}

func (a u128) sub(b u128) u128 {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, c)
	return u128{lo, hi}
}

func (a u128) less(b u128) bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo) }

// bitLen is the number of bits a takes (0 for 0).
func (a u128) bitLen() int {
	if a.hi != 0 {
		return 64 + bits.Len64(a.hi)
	}
	return bits.Len64(a.lo)
}

// fits reports whether a takes at most n bits.
func (a u128) fits(n int) bool { return a.bitLen() <= n }

func (a u128) shr(n uint) u128 {
	switch {
	case n == 0:
		return a
	case n >= 128:
		return u128{}
	case n >= 64:
		return u128{a.hi >> (n - 64), 0}
	}
	return u128{a.lo>>n | a.hi<<(64-n), a.hi >> n}
}

func (a u128) shl(n uint) u128 {
	switch {
	case n == 0:
		return a
	case n >= 128:
		return u128{}
	case n >= 64:
		return u128{0, a.lo << (n - 64)}
	}
	return u128{a.lo << n, a.hi<<n | a.lo>>(64-n)}
}

// zigzag128 maps a two's complement 128-bit integer to its zigzag code.
func zigzag128(a u128) u128 {
	s := -(a.hi >> 63)
	return u128{a.lo<<1 ^ s, (a.hi<<1 | a.lo>>63) ^ s}
}

// unzigzag128 is the inverse: (u >> 1) XOR -(u AND 1), in two's complement.
func unzigzag128(a u128) u128 {
	s := -(a.lo & 1)
	h := a.shr(1)
	return u128{h.lo ^ s, h.hi ^ s}
}

func appendVarint128(out []byte, a u128) []byte { return appendUvarint128(out, a.lo, a.hi) }

func varintLen128(a u128) int {
	n := a.bitLen()
	if n == 0 {
		return 1
	}
	return (n + 6) / 7
}
