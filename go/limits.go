package xbf

// The decoder's limits, kept in one place (SPEC 7, 16.2, 22.3). Issue 18
// replaces the zero-size budget and the columnar allowance with one absolute
// decode budget; only this file and its callers' two hooks need to change.

const (
	// DefaultMaxDepth is SPEC 7.1 / 16.1's nesting limit.
	DefaultMaxDepth = 128
	// DefaultZeroSizeBudget is the zero-size value budget of 7.2 / 16.2.
	DefaultZeroSizeBudget = 65536
	// DefaultZeroSizeRate is the per-byte allowance of 7.2 / 16.2.
	DefaultZeroSizeRate = 8
	// columnarValueCost is what one value of a columnar node costs against
	// the decoding budget (22.3: the Rust reader counts its 48-byte Value).
	columnarValueCost = 48
	// columnarBudgetPerByte and columnarBudgetFixed give the default
	// decoding budget of 22.3: 64 × message length + 16 MiB.
	columnarBudgetPerByte = 64
	columnarBudgetFixed   = 16 << 20
)

// zsLimit tracks zero-size values for one message or one stream block.
type zsLimit struct {
	total  uint64
	budget uint64
	rate   uint64
}

// add charges w at offset p (counted from the message or block start);
// false means the allowance, max(budget, rate × p), is passed.
func (z *zsLimit) add(w uint64, p int) bool {
	z.total = satAdd(z.total, w)
	allow := max(z.budget, satMul(z.rate, uint64(p)))
	return z.total <= allow
}

// columnarBudget is the default decoding budget for a columnar message of n bytes.
func columnarBudget(n int, max uint64) uint64 {
	if max > 0 {
		return max
	}
	return satAdd(satMul(columnarBudgetPerByte, uint64(n)), columnarBudgetFixed)
}
