package xbf

// String column writer (SPEC 22.2: plain, dictionary, shared prefixes),
// the smallest of the three, ties in that order, as the Rust writer picks.

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func sharesPrefixes(vals []string) bool {
	if len(vals) <= 8192 {
		return true
	}
	shared := 0
	for i := 1; i < 1024; i++ {
		shared += commonPrefix(vals[i-1], vals[i])
	}
	return shared >= 512
}

func encodeStrings(vals []string, ic intCoder) []byte {
	n := len(vals)
	const none = int(^uint(0) >> 1)
	bytesTotal := 0
	for _, v := range vals {
		bytesTotal += len(v)
	}
	// Dictionary.
	dictSize := none
	var distinct []string
	var ids []u128
	var dLens []u128
	var dLensPlan, idsPlan intPlan
	dBytes := 0
	{
		index := make(map[string]uint64)
		ok := true
		ids = make([]u128, 0, n)
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
			dLens = make([]u128, len(distinct))
			for i, v := range distinct {
				dLens[i] = u128{uint64(len(v)), 0}
				dBytes += len(v)
			}
			dLensPlan, idsPlan = ic.plan(dLens), ic.plan(ids)
			dictSize = 1 + uvarintLen(uint64(len(distinct))) + intBlockSize(dLensPlan) +
				uvarintLen(uint64(dBytes)) + dBytes + idsPlan.size + 1
		}
	}
	// Plain.
	plainSize := none
	var lens []u128
	var lensPlan intPlan
	if dictSize >= 3+bytesTotal {
		lens = make([]u128, n)
		for i, v := range vals {
			lens[i] = u128{uint64(len(v)), 0}
		}
		lensPlan = ic.plan(lens)
		plainSize = 1 + intBlockSize(lensPlan) + bytesTotal
	}
	// Shared prefixes.
	others := min(plainSize, dictSize)
	atLeast, prevLen := 0, 0
	for _, v := range vals {
		if len(v) > prevLen {
			atLeast += len(v) - prevLen
		}
		prevLen = len(v)
	}
	prefixSize := none
	var shared, restLens []u128
	var sharedPlan, restPlan intPlan
	if sharesPrefixes(vals) && 5+atLeast < others {
		shared, restLens = make([]u128, n), make([]u128, n)
		rest := 0
		prev := ""
		for i, v := range vals {
			p := commonPrefix(prev, v)
			shared[i], restLens[i] = u128{uint64(p), 0}, u128{uint64(len(v) - p), 0}
			rest += len(v) - p
			prev = v
		}
		if 5+rest < others {
			sharedPlan, restPlan = ic.plan(shared), ic.plan(restLens)
			prefixSize = 1 + intBlockSize(sharedPlan) + intBlockSize(restPlan) + rest
		}
	}
	switch {
	case plainSize <= dictSize && plainSize <= prefixSize:
		out := make([]byte, 0, plainSize)
		out = append(out, encPlainS)
		out = appendIntBlock(out, lens, lensPlan)
		for _, v := range vals {
			out = append(out, v...)
		}
		return out
	case dictSize <= prefixSize:
		out := make([]byte, 0, dictSize)
		out = append(out, encDictS)
		out = appendUvarint(out, uint64(len(distinct)))
		out = appendIntBlock(out, dLens, dLensPlan)
		out = appendUvarint(out, uint64(dBytes))
		for _, v := range distinct {
			out = append(out, v...)
		}
		return appendPlanned(out, ids, idsPlan)
	}
	out := make([]byte, 0, prefixSize)
	out = append(out, encPrefix)
	out = appendIntBlock(out, shared, sharedPlan)
	out = appendIntBlock(out, restLens, restPlan)
	for i, v := range vals {
		out = append(out, v[shared[i].lo:]...)
	}
	return out
}

// plainStrings is the plain encoding, a candidate for zstd.
func plainStrings(vals []string, ic intCoder) []byte {
	lens := make([]u128, len(vals))
	for i, v := range vals {
		lens[i] = u128{uint64(len(v)), 0}
	}
	out := []byte{encPlainS}
	out = appendIntBlock(out, lens, ic.plan(lens))
	for _, v := range vals {
		out = append(out, v...)
	}
	return out
}
