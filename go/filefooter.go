package xbf

import (
	"bytes"
	"fmt"
	"strings"
)

// The footer of an XBF file (SPEC 24.3, 24.4), after crates/xbf/src/file/footer.rs.

// fileMagic ends a finished XBF file; the trailer is the footer's CRC-32C,
// its length (u32 LE) and the magic.
var fileMagic = []byte("XBFF")

const fileTrailer = 12

// BlockInfo is what the footer says of one block.
type BlockInfo struct {
	Offset  uint64 // the file offset of the block's length prefix
	Size    uint64 // the whole block: length prefix, body and CRC-32C
	Records uint64
	Columns []ColumnInfo // in the order of the columnar walk (SPEC 22.1)
}

// ColumnInfo is one column of one block: its bytes (length prefix
// included), their CRC-32C and the column's statistics.
type ColumnInfo struct {
	Size  uint64
	CRC   uint32
	Stats ColumnStats
}

// ColumnStats are a column's statistics (SPEC 24.4). HasMinMax says
// whether Min and Max are set (values of the column's statistics type);
// Exact whether they are values of the column rather than bounds.
type ColumnStats struct {
	HasMinMax bool
	Exact     bool
	Min, Max  Value
	Nulls     uint64 // values absent at this column's place (an absent option on the way)
	NaNs      uint64
}

// bodyLen is the block's body length: its size less the CRC-32C and the
// body length's own varint.
func (b *BlockInfo) bodyLen() uint64 { return bodyLenOf(satSub(b.Size, 4)) }

func (b *BlockInfo) bodyOffset() uint64 { return b.Offset + uint64(uvarintLen(b.bodyLen())) }

// columnOffsets gives each column's first byte, the first right after the
// record count.
func (b *BlockInfo) columnOffsets() []uint64 {
	at := b.bodyOffset() + uint64(uvarintLen(b.Records))
	out := make([]uint64, len(b.Columns))
	for j, c := range b.Columns {
		out[j] = at
		at += c.Size
	}
	return out
}

// bodyLenOf is the b such that a varint of b and b bytes take total bytes
// (0 if there is none).
func bodyLenOf(total uint64) uint64 {
	for p := uint64(1); p <= 10 && p <= total; p++ {
		if b := total - p; uint64(uvarintLen(b))+b == total {
			return b
		}
	}
	return 0
}

func satSub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// slot is a column of a record type as the columnar walk meets it.
type slot struct {
	path  string   // as `xbf stats` names it: a.[].b, a.(lengths)
	stat  *Type    // the statistics type of a value column, or nil
	names []string // the struct fields on the way, as far as projection reaches
}

// fileSlots lists the columns of t in walk order; ok is false when t holds
// `any`, whose columns depend on the block.
func fileSlots(t *Type) (out []slot, ok bool) {
	var path, names []string
	push := func(label string, stat *Type) {
		p := append([]string(nil), path...)
		if label != "" {
			p = append(p, label)
		}
		out = append(out, slot{path: strings.Join(p, "."), stat: stat, names: append([]string(nil), names...)})
	}
	var walk func(t *Type, sel bool) bool
	nested := func(name string, field bool, t *Type, sel bool) bool {
		path = append(path, name)
		named := field && sel
		if named {
			names = append(names, name)
		}
		ok := walk(t, sel)
		if named {
			names = names[:len(names)-1]
		}
		path = path[:len(path)-1]
		return ok
	}
	walk = func(t *Type, sel bool) bool {
		switch t.Kind {
		case Unit:
			return true
		case Vec:
			push("(lengths)", nil)
			return nested("[]", false, t.Elem, sel)
		case Array:
			return nested("[]", false, t.Elem, sel)
		case Struct:
			for _, f := range t.Fields {
				if !nested(f.Name, true, f.Type, sel) {
					return false
				}
			}
			return true
		case Tuple:
			for i, e := range t.Elems {
				if !nested(fmt.Sprint(i), false, e, false) {
					return false
				}
			}
			return true
		case Option:
			push("(present)", nil)
			return walk(t.Elem, sel)
		case Map:
			push("(lengths)", nil)
			return nested("key", false, t.Key, false) && nested("value", false, t.Elem, false)
		case Enum:
			push("(variant)", nil)
			for _, f := range t.Fields {
				if !nested(f.Name, false, f.Type, false) {
					return false
				}
			}
			return true
		case Any:
			return false
		}
		push("", statType(t.Kind))
		return true
	}
	ok = walk(t, true)
	return out, ok
}

// statType is the type of a primitive column's statistics (the varint
// type of a fixed-width integer), nil for unit, u256 and i256.
func statType(k Kind) *Type {
	switch k {
	case Unit, U256, I256:
		return nil
	case FixedU16:
		k = U16
	case FixedU32:
		k = U32
	case FixedU64:
		k = U64
	case FixedU128:
		k = U128
	case FixedI16:
		k = I16
	case FixedI32:
		k = I32
	case FixedI64:
		k = I64
	case FixedI128:
		k = I128
	}
	return Prim(k)
}

func footerInvalid(at int64, what string) *Error {
	return &Error{Kind: KindInvalidColumn, Offset: at, Detail: "the footer " + what}
}

const (
	statMinMax = 0x01
	statExact  = 0x02
)

// parseFooter reads a footer body at file offset base. slots are the
// record type's columns (hasSlots false with `any`: no statistics); the
// blocks must lie in order between dataStart and dataEnd.
func (m DecMode) parseFooter(body []byte, base int64, slots []slot, hasSlots bool, dataStart, dataEnd uint64) ([]BlockInfo, error) {
	c := &cursor{data: body, base: base}
	at := c.offset()
	count, err := c.varint64()
	if err != nil {
		return nil, err
	}
	// An entry takes at least 4 bytes: offset, size, records, columns.
	if err := c.checkFits(at, count, 4); err != nil {
		return nil, err
	}
	blocks := make([]BlockInfo, 0, count)
	next := dataStart
	for i := range count {
		at := c.offset()
		var offset, size, records, k uint64
		for _, p := range []*uint64{&offset, &size, &records} {
			if *p, err = c.varint64(); err != nil {
				return nil, err
			}
		}
		kAt := c.offset()
		if k, err = c.varint64(); err != nil {
			return nil, err
		}
		end := offset + size
		if end < offset || offset < next || end > dataEnd {
			return nil, footerInvalid(at, fmt.Sprintf("places block %d at %d..+%d, outside %d..%d", i, offset, size, next, dataEnd))
		}
		next = end
		if records == 0 {
			return nil, footerInvalid(at, fmt.Sprintf("gives block %d no records", i))
		}
		// A column entry takes at least 8 bytes.
		if err := c.checkFits(kAt, k, 8); err != nil {
			return nil, err
		}
		if hasSlots && k != uint64(len(slots)) {
			return nil, footerInvalid(kAt, fmt.Sprintf("gives block %d %d columns; its type has %d", i, k, len(slots)))
		}
		cols := make([]ColumnInfo, 0, k)
		sum := uint64(uvarintLen(records))
		for j := range k {
			var col ColumnInfo
			if col.Size, err = c.varint64(); err != nil {
				return nil, err
			}
			sum = satAdd(sum, col.Size)
			crc, err := c.take(4)
			if err != nil {
				return nil, err
			}
			col.CRC = uint32(crc[0]) | uint32(crc[1])<<8 | uint32(crc[2])<<16 | uint32(crc[3])<<24
			flagsAt := c.offset()
			flags, err := c.u8()
			if err != nil {
				return nil, err
			}
			if flags&^(statMinMax|statExact) != 0 || flags == statExact {
				return nil, footerInvalid(flagsAt, fmt.Sprintf("has statistics flags 0x%02x", flags))
			}
			var st *Type
			if hasSlots {
				st = slots[j].stat
			}
			if flags&statMinMax != 0 {
				if st == nil {
					return nil, footerInvalid(flagsAt, fmt.Sprintf("gives statistics to column %d of block %d, which has none", j, i))
				}
				var pair [2]Value
				for p := range pair {
					v, err := c.block()
					if err != nil {
						return nil, err
					}
					if pair[p], err = m.decodeBare(v.data, st, v.base); err != nil {
						return nil, err
					}
				}
				if o, ok := compareStat(pair[0], pair[1]); !ok || o > 0 {
					return nil, footerInvalid(flagsAt, fmt.Sprintf("gives column %d of block %d a min above its max", j, i))
				}
				col.Stats = ColumnStats{HasMinMax: true, Exact: flags&statExact != 0, Min: pair[0], Max: pair[1]}
			}
			countsAt := c.offset()
			if col.Stats.Nulls, err = c.varint64(); err != nil {
				return nil, err
			}
			if col.Stats.NaNs, err = c.varint64(); err != nil {
				return nil, err
			}
			if st == nil && (col.Stats.Nulls != 0 || col.Stats.NaNs != 0) {
				return nil, footerInvalid(countsAt, fmt.Sprintf("counts nulls or NaN in column %d of block %d, which has none", j, i))
			}
			cols = append(cols, col)
		}
		b := BlockInfo{Offset: offset, Size: size, Records: records, Columns: cols}
		bl := b.bodyLen()
		if bl == 0 || b.bodyOffset()+bl+4 != end || sum != bl {
			return nil, footerInvalid(at, fmt.Sprintf("gives block %d columns of %d bytes in a body of %d", i, sum, bl))
		}
		blocks = append(blocks, b)
	}
	if !c.atEnd() {
		return nil, &Error{Kind: KindTrailingBytes, Offset: c.offset(), Detail: "bytes remain after the footer's blocks"}
	}
	return blocks, nil
}

// decodeBare decodes one XBF 2 value of type t (rows, no header) that
// fills data, with offsets from base.
func (m DecMode) decodeBare(data []byte, t *Type, base int64) (v Value, err error) {
	r := m.newReader(data)
	v, err = r.value(t, 0, false)
	if err == nil && r.pos != len(data) {
		err = errAt(KindTrailingBytes, r.pos, "")
	}
	if e, ok := err.(*Error); ok && e.Offset >= 0 {
		e.Offset += base
	}
	return v, err
}

// compareStat orders two values of one statistics type: integers, dates
// and timestamps by value, floats by value (false for NaN), bools
// false < true, strings and bytes by their bytes.
func compareStat(a, b Value) (int, bool) {
	switch a.Type.Kind {
	case Bool:
		return cmpBool(a.Bool, b.Bool), true
	case U8, U16, U32, U64, FixedU16, FixedU32, FixedU64:
		return cmp3(a.Uint < b.Uint, a.Uint > b.Uint), true
	case I8, I16, I32, I64, FixedI16, FixedI32, FixedI64, DateKind, Timestamp:
		return cmp3(a.Int < b.Int, a.Int > b.Int), true
	case U128, I128, FixedU128, FixedI128:
		if a.Big == nil || b.Big == nil {
			return 0, false
		}
		return a.Big.Cmp(b.Big), true
	case F32, F64:
		x, y := a.Float(), b.Float()
		if x != x || y != y {
			return 0, false
		}
		return cmp3(x < y, x > y), true
	case String:
		return strings.Compare(a.Str, b.Str), true
	case Bytes:
		return bytes.Compare(a.Bytes, b.Bytes), true
	}
	return 0, false
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}
