package xbf

func appendUvarint(out []byte, x uint64) []byte {
	for x >= 0x80 {
		out = append(out, byte(x)|0x80)
		x >>= 7
	}
	return append(out, byte(x))
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func zigzag(n int64) uint64   { return uint64(n<<1) ^ uint64(n>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// Widths of varints (SPEC 11.2): the longest form in bytes and the value bits.
const (
	w16  = 16
	w32  = 32
	w64  = 64
	w128 = 128
)
