package xbf

// The decoder's limits, kept in one place (SPEC 7, 16.1, 16.2, 22.3): the
// nesting depth and one decoded-memory budget, shared by rows, columns and
// each block of a stream.

const (
	// DefaultMaxDepth is SPEC 7.1 / 16.1's nesting limit.
	DefaultMaxDepth = 128
	// DefaultMaxDecodedBytes is the decoded-memory budget of SPEC 16.2:
	// 2^30 bytes (1 GiB) a message, or a stream block.
	DefaultMaxDecodedBytes = 1 << 30
	// DecodedValueBytes is what one value costs against the budget: the
	// size of the Rust reader's Value, fixed by SPEC 16.2 for every
	// implementation so that all refuse the same inputs (a Go Value is
	// larger; see the README).
	DecodedValueBytes = 48
)

// zsLimit charges the zero-size values of rows (SPEC 7.2, 16.2) for one
// message or one stream block. Costs are kept in values, not bytes: the
// budget allows ⌊budget / 48⌋ of them, as the Rust reader counts.
type zsLimit struct {
	total   uint64
	allowed uint64
}

func newZSLimit(maxBytes uint64) zsLimit {
	return zsLimit{allowed: maxBytes / DecodedValueBytes}
}

// add charges w zero-size values; false means the budget is passed.
func (z *zsLimit) add(w uint64) bool {
	z.total = satAdd(z.total, w)
	return z.total <= z.allowed
}
