package xbf

import (
	"strconv"
	"strings"
)

// A path segment (SPEC 8.3, 17.3). Segments are pushed and popped while
// decoding and rendered only when an error is made.
type seg struct {
	kind byte // 'r' root name, '.' field/member name, 'i' index, 'e' "[]", '#' record
	name string
	idx  uint64
}

type pathStack []seg

func (p pathStack) String() string {
	var b strings.Builder
	for _, s := range p {
		switch s.kind {
		case 'r':
			b.WriteString(s.name)
		case '.':
			b.WriteByte('.')
			b.WriteString(s.name)
		case 'i':
			b.WriteByte('[')
			b.WriteString(strconv.FormatUint(s.idx, 10))
			b.WriteByte(']')
		case 'e':
			b.WriteString("[]")
		case '#':
			b.WriteByte('#')
			b.WriteString(strconv.FormatUint(s.idx, 10))
		case 'n': // tuple element: .j
			b.WriteByte('.')
			b.WriteString(strconv.FormatUint(s.idx, 10))
		}
	}
	return b.String()
}
