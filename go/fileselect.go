package xbf

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// What a read of an XBF file decodes: a projection (SPEC 22.6) and a
// filter `FIELD OP VALUE` whose statistics can rule blocks out (SPEC 24.4).

// selection is a projection: for each selected field, nil (all of it) or
// the selection below it. Names continue through vecs, arrays and options.
type selection struct {
	fields map[string]*selection
}

func selectionOf(paths []string) *selection {
	root := &selection{fields: map[string]*selection{}}
	for _, p := range paths {
		at := root
		parts := strings.Split(p, ".")
		for i, part := range parts {
			sub, seen := at.fields[part]
			if seen && sub == nil {
				break // a shorter path already selects all of it
			}
			if i == len(parts)-1 {
				at.fields[part] = nil
				break
			}
			if !seen {
				sub = &selection{fields: map[string]*selection{}}
				at.fields[part] = sub
			}
			at = sub
		}
	}
	return root
}

// pruneType is t with only the selected fields (nil if none is left); it
// is t itself when nothing is left out, so that a decoder can tell.
func pruneType(t *Type, sel *selection) *Type {
	if sel == nil {
		return t
	}
	switch t.Kind {
	case Struct:
		var fields []Field
		same := true
		for _, f := range t.Fields {
			sub, ok := sel.fields[f.Name]
			if !ok {
				same = false
				continue
			}
			ft := pruneType(f.Type, sub)
			if ft == nil {
				same = false
				continue
			}
			same = same && ft == f.Type
			fields = append(fields, Field{Name: f.Name, Type: ft})
		}
		if same {
			return t
		}
		if len(fields) == 0 {
			return nil
		}
		return newStruct(t.Name, fields)
	case Vec, Array, Option:
		e := pruneType(t.Elem, sel)
		switch {
		case e == nil:
			return nil
		case e == t.Elem:
			return t
		case t.Kind == Vec:
			return VecOf(e)
		case t.Kind == Array:
			return ArrayOf(t.Len, e)
		}
		return OptionOf(e)
	}
	return t
}

// wanted says whether a projection reads the column s.
func (s slot) wanted(sel *selection) bool {
	at := sel
	for _, name := range s.names {
		if at == nil {
			return true
		}
		sub, ok := at.fields[name]
		if !ok {
			return false
		}
		at = sub
	}
	return true
}

// pruneValue rebuilds v (of a type pruneType widened) as a value of pt.
func pruneValue(v Value, pt *Type) Value {
	if v.Type == pt {
		return v
	}
	out := Value{Type: pt}
	switch pt.Kind {
	case Struct:
		out.Items = make([]Value, len(pt.Fields))
		for j, f := range pt.Fields {
			out.Items[j] = pruneValue(v.Items[v.Type.FieldIndex(f.Name)], f.Type)
		}
	case Vec, Array, Option:
		out.Items = make([]Value, len(v.Items))
		for i, it := range v.Items {
			out.Items[i] = pruneValue(it, pt.Elem)
		}
	default:
		return v
	}
	return out
}

// Op is a comparison of a filter.
type Op int

const (
	OpEq Op = iota // =
	OpNe           // !=
	OpLt           // <
	OpLe           // <=
	OpGt           // >
	OpGe           // >=
)

var opWords = [...]string{"=", "!=", "<", "<=", ">", ">="}

func (o Op) String() string { return opWords[o] }

// Predicate is a filter on records, FIELD OP VALUE: FIELD a dotted path
// through structs and options to a primitive, VALUE read as that
// primitive's type (dates as 2006-01-02, timestamps in RFC 3339). A record
// whose field is absent matches nothing; a NaN matches only !=.
type Predicate struct {
	Field string
	Op    Op
	Value string
}

// ParsePredicate reads `FIELD OP VALUE` (`delay >= 60`, `origin = "SFO"`,
// `origin=SFO`); a value in double quotes keeps its spaces.
func ParsePredicate(text string) (Predicate, error) {
	bad := &Error{Kind: KindUnsupported, Offset: -1,
		Detail: fmt.Sprintf("%q is not FIELD OP VALUE with OP one of = != < <= > >=", text)}
	at := strings.IndexAny(text, "=!<>")
	if at < 0 {
		return Predicate{}, bad
	}
	field, rest := strings.TrimSpace(text[:at]), text[at:]
	for _, o := range []Op{OpNe, OpLe, OpGe, OpEq, OpLt, OpGt} {
		if strings.HasPrefix(rest, o.String()) {
			v := strings.TrimSpace(rest[len(o.String()):])
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			if field == "" {
				return Predicate{}, bad
			}
			return Predicate{Field: field, Op: o, Value: v}, nil
		}
	}
	return Predicate{}, bad
}

// boundPred is a predicate checked against a record type.
type boundPred struct {
	names []string
	op    Op
	value Value
}

func (p Predicate) bind(t *Type) (*boundPred, error) {
	notFound := func(why string) error {
		return &Error{Kind: KindTypeMismatch, Offset: -1, Detail: fmt.Sprintf("filter field %q: %s in type %s", p.Field, why, t)}
	}
	at := t
	for _, part := range strings.Split(p.Field, ".") {
		for at.Kind == Option {
			at = at.Elem
		}
		if at.Kind != Struct {
			return nil, notFound("a path through structs and options only")
		}
		i := at.FieldIndex(part)
		if i < 0 {
			return nil, notFound(fmt.Sprintf("no field %q", part))
		}
		at = at.Fields[i].Type
	}
	for at.Kind == Option {
		at = at.Elem
	}
	if at.Kind.hasParams() || at.Kind == Any {
		return nil, notFound("not a primitive")
	}
	st := statType(at.Kind)
	if st == nil {
		return nil, notFound("a type without an order")
	}
	v, ok := parseLiteral(st, p.Value)
	if !ok {
		return nil, &Error{Kind: KindTypeMismatch, Offset: -1,
			Detail: fmt.Sprintf("filter: %q is not a value of %s (field %s)", p.Value, st, p.Field)}
	}
	return &boundPred{names: strings.Split(p.Field, "."), op: p.Op, value: v}, nil
}

func parseLiteral(t *Type, s string) (Value, bool) {
	v := Value{Type: t}
	var err error
	switch t.Kind {
	case Bool:
		v.Bool, err = strconv.ParseBool(s)
		return v, err == nil && (s == "true" || s == "false")
	case U8, U16, U32, U64:
		bits, _ := intColumnBits(t.Kind)
		v.Uint, err = strconv.ParseUint(s, 10, bits)
	case I8, I16, I32, I64:
		bits, _ := intColumnBits(t.Kind)
		v.Int, err = strconv.ParseInt(s, 10, bits)
	case U128, I128:
		b, ok := new(big.Int).SetString(s, 10)
		if !ok || b.BitLen() > 128 || (t.Kind == U128 && b.Sign() < 0) ||
			(t.Kind == I128 && (b.Cmp(minI128) < 0 || b.Cmp(maxI128) > 0)) {
			return v, false
		}
		v.Big = b
	case F32:
		var f float64
		f, err = strconv.ParseFloat(s, 32)
		v = F32Value(float32(f))
	case F64:
		var f float64
		f, err = strconv.ParseFloat(s, 64)
		v = F64Value(f)
	case String:
		v.Str = s
	case Bytes:
		v.Bytes = []byte(s)
	case DateKind:
		var d time.Time
		d, err = time.Parse("2006-01-02", s)
		v.Int = int64(DateOf(d))
	case Timestamp:
		var ts time.Time
		ts, err = time.Parse(time.RFC3339Nano, s)
		v.Int = ts.UnixMicro()
	default:
		return v, false
	}
	return v, err == nil
}

var (
	maxI128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	minI128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
)

// matches says whether a record passes the filter.
func (b *boundPred) matches(rec Value) bool {
	at := rec
	unwrap := func() bool {
		for at.Type.Kind == Option {
			if len(at.Items) == 0 {
				return false
			}
			at = at.Items[0]
		}
		return true
	}
	for _, name := range b.names {
		if !unwrap() {
			return false
		}
		if at.Type.Kind != Struct {
			return false
		}
		i := at.Type.FieldIndex(name)
		if i < 0 || i >= len(at.Items) {
			return false
		}
		at = at.Items[i]
	}
	if !unwrap() {
		return false
	}
	o, ok := compareStat(at, b.value)
	switch b.op {
	case OpNe:
		return !ok || o != 0
	case OpEq:
		return ok && o == 0
	case OpLt:
		return ok && o < 0
	case OpLe:
		return ok && o <= 0
	case OpGt:
		return ok && o > 0
	}
	return ok && o >= 0
}

// rulesOut says whether a column's statistics show that no record of a
// block of n records matches.
func (b *boundPred) rulesOut(st ColumnStats, n uint64) bool {
	if !st.HasMinMax {
		// No ordered value: only absent values and NaN, unless a long
		// string had no upper bound (then nulls + NaN fall short).
		return satAdd(st.Nulls, st.NaNs) >= n && (b.op != OpNe || st.NaNs == 0)
	}
	lo, ok1 := compareStat(b.value, st.Min)
	hi, ok2 := compareStat(b.value, st.Max)
	if !ok1 || !ok2 {
		return false
	}
	switch b.op {
	case OpEq:
		return lo < 0 || hi > 0
	case OpNe:
		return st.NaNs == 0 && lo == 0 && hi == 0
	case OpLt:
		return lo <= 0
	case OpLe:
		return lo < 0
	case OpGt:
		return hi >= 0
	}
	return hi > 0
}

// filePlan is a read's projection and filter, bound to the file's type.
type filePlan struct {
	decode *selection // what to decode (nil: everything): the fields and the filter's field
	dt     *Type      // the type decoded
	kt     *Type      // what to hand out, when it is less than dt
	filter *boundPred
}

func newFilePlan(t *Type, q ReadOptions) (*filePlan, error) {
	p := &filePlan{dt: t}
	if q.Where != "" {
		pred, err := ParsePredicate(q.Where)
		if err != nil {
			return nil, err
		}
		if p.filter, err = pred.bind(t); err != nil {
			return nil, err
		}
	}
	if q.Fields == nil {
		return p, nil
	}
	kt := pruneType(t, selectionOf(q.Fields))
	if kt == nil {
		return nil, &Error{Kind: KindTypeMismatch, Offset: -1, Detail: fmt.Sprintf("no field of %s is among %q", t, q.Fields)}
	}
	all := q.Fields
	if p.filter != nil {
		all = append(append([]string(nil), q.Fields...), strings.Join(p.filter.names, "."))
	}
	p.decode = selectionOf(all)
	p.dt = pruneType(t, p.decode)
	if !p.dt.Equal(kt) {
		p.kt = kt
	}
	return p, nil
}

// skip passes over the columns of a node of type t unread (a field left
// out by a projection); an `any` node's types column says what follows.
func (cr *colReader) skip(t *Type, c *cursor, depth int) error {
	one := func() error {
		at := c.pos
		_, err := c.block()
		if err == nil && cr.onColumn != nil {
			cr.onColumn(at, c.pos)
		}
		return err
	}
	switch t.Kind {
	case Unit:
		return nil
	case Vec, Option:
		if err := one(); err != nil {
			return err
		}
		return cr.skip(t.Elem, c, depth+1)
	case Array:
		return cr.skip(t.Elem, c, depth+1)
	case Map:
		if err := one(); err != nil {
			return err
		}
		if err := cr.skip(t.Key, c, depth+1); err != nil {
			return err
		}
		return cr.skip(t.Elem, c, depth+1)
	case Struct, Enum:
		if t.Kind == Enum {
			if err := one(); err != nil {
				return err
			}
		}
		for _, f := range t.Fields {
			if err := cr.skip(f.Type, c, depth+1); err != nil {
				return err
			}
		}
		return nil
	case Tuple:
		for _, e := range t.Elems {
			if err := cr.skip(e, c, depth+1); err != nil {
				return err
			}
		}
		return nil
	case Any:
		at := c.pos
		types, err := cr.anyTypes(c, depth+1)
		if err != nil {
			return err
		}
		if cr.onColumn != nil {
			cr.onColumn(at, c.pos)
		}
		if err := one(); err != nil {
			return err
		}
		for _, ty := range types {
			if err := cr.skip(ty, c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return one()
}

// nodeSel decodes the n values of type t at c as values of pt, the type
// pruned by sel: the columns of fields left out are skipped unread.
func (cr *colReader) nodeSel(t, pt *Type, sel *selection, n uint64, c *cursor, depth int) ([]Value, error) {
	if sel == nil || t == pt {
		return cr.node(t, n, c, depth)
	}
	at := c.offset()
	switch t.Kind {
	case Struct:
		if err := cr.chargeValues(at, n); err != nil {
			return nil, err
		}
		cols := make([][]Value, len(pt.Fields))
		for _, f := range t.Fields {
			j := pt.FieldIndex(f.Name)
			if j < 0 {
				if err := cr.skip(f.Type, c, depth+1); err != nil {
					return nil, within(err, "."+f.Name)
				}
				continue
			}
			vals, err := cr.nodeSel(f.Type, pt.Fields[j].Type, sel.fields[f.Name], n, c, depth+1)
			if err != nil {
				return nil, within(err, "."+f.Name)
			}
			cols[j] = vals
		}
		out := make([]Value, n)
		all := make([]Value, n*uint64(len(cols)))
		for i := range out {
			items := all[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
			for j := range cols {
				items[j] = cols[j][i]
			}
			out[i] = Value{Type: pt, Items: items}
		}
		return out, nil
	case Vec, Array, Option:
		if err := cr.chargeValues(at, n); err != nil {
			return nil, err
		}
		counts := make([]uint64, n)
		var total uint64
		switch t.Kind {
		case Vec, Option:
			bits := 64
			if t.Kind == Option {
				bits = 1
			}
			lens, err := cr.ints(c, n, bits)
			if err != nil {
				return nil, err
			}
			for i, l := range lens {
				if l.lo > ^uint64(0)-total {
					return nil, c.invalid(at, "the lengths add up past 2^64")
				}
				counts[i] = l.lo
				total += l.lo
			}
		case Array:
			hi, lo := mulHi(n, t.Len)
			if hi != 0 {
				return nil, within(cr.charge(at, 0, true), "[]")
			}
			for i := range counts {
				counts[i] = t.Len
			}
			total = lo
		}
		flat, err := cr.nodeSel(t.Elem, pt.Elem, sel, total, c, depth+1)
		if err != nil {
			if t.Kind == Option {
				return nil, err
			}
			return nil, within(err, "[]")
		}
		out := make([]Value, n)
		k := uint64(0)
		for i, l := range counts {
			out[i] = Value{Type: pt, Items: flat[k : k+l : k+l]}
			k += l
		}
		return out, nil
	}
	return cr.node(t, n, c, depth)
}
