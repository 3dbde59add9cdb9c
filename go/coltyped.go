package xbf

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// Typed reading of columns (SPEC 22) for the common shape, a vec of structs
// whose fields are integers, floats, booleans and strings: each column is
// decoded into its Go field directly, without a dynamic Value per value
// and without the detour through rows. The columns are read in the same
// order, with the same checks and the same budget charges (22.3) as the
// dynamic reader, so errors are the same; wire fields the Go type lacks go
// through the dynamic reader and are dropped. Any other shape returns
// ok = false from colPlanFor and takes the dynamic path.

// colField says how one wire field of the struct lands in the Go struct.
type colField struct {
	name  string
	wire  *Type
	index int // Go field index, -1: decoded and dropped
	kind  reflect.Kind
}

type colPlan struct {
	elem   *Type // the struct of the vec
	fields []colField
}

// colPlanFor returns the typed plan for reading wire type wt into rt.
func colPlanFor(wt *Type, rt reflect.Type) (*colPlan, bool) {
	if wt.Kind != Vec || wt.Elem.Kind != Struct || rt.Kind() != reflect.Slice || rt.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	st := rt.Elem()
	if reflect.PointerTo(st).Implements(typUnmarshaler) || st.Implements(typUnmarshaler) || st == typTime {
		return nil, false
	}
	// Fields promoted from embedded structs, and Go fields the data lacks
	// (an error unless optional: SPEC 23.2 rule 3), take the dynamic path.
	byName := map[string]int{}
	for _, f := range goFields(st) {
		if len(f.index) != 1 || (wt.Elem.FieldIndex(f.name) < 0 && !f.optional()) {
			return nil, false
		}
		byName[f.name] = f.index[0]
	}
	p := &colPlan{elem: wt.Elem}
	for _, wf := range wt.Elem.Fields {
		cf := colField{name: wf.Name, wire: wf.Type, index: -1}
		if i, ok := byName[wf.Name]; ok {
			ft := st.Field(i).Type
			if !colFits(wf.Type.Kind, ft) {
				return nil, false
			}
			cf.index, cf.kind = i, ft.Kind()
		}
		p.fields = append(p.fields, cf)
	}
	return p, true
}

// colFits reports whether a column of wire kind k goes straight into Go
// type ft (anything with its own hooks, or any other pairing, does not).
func colFits(k Kind, ft reflect.Type) bool {
	if ft.Implements(typUnmarshaler) || reflect.PointerTo(ft).Implements(typUnmarshaler) || ft == typDate || ft == typTime {
		return false
	}
	switch k {
	case String:
		return ft.Kind() == reflect.String
	case Bool:
		return ft.Kind() == reflect.Bool
	case F32, F64:
		return ft.Kind() == reflect.Float32 || ft.Kind() == reflect.Float64
	case U8, U16, U32, U64, I8, I16, I32, I64,
		FixedU16, FixedU32, FixedU64, FixedI16, FixedI32, FixedI64:
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return true
		}
	}
	return false
}

// read decodes the root vec node (the message's one value) into target, a
// slice, as cr.node would decode it into Values.
func (p *colPlan) read(cr *colReader, c *cursor, target reflect.Value, colStart int64) error {
	if err := cr.chargeValues(c.offset(), 1); err != nil {
		return err
	}
	lens, err := cr.ints(c, 1, 64)
	if err != nil {
		return err
	}
	n := lens[0].lo
	out := reflect.MakeSlice(target.Type(), 0, 0)
	bad, err := p.readStructs(cr, c, n, &out, colStart)
	if err != nil {
		return within(err, "[]")
	}
	if bad != nil {
		return bad // its path names the element already
	}
	target.Set(out)
	return nil
}

// readStructs reads the struct node's n values, field by field. A value
// that its Go field cannot hold is reported only once every column has
// been read (the dynamic path checks all columns first, then fills the Go
// value in row order): bad is the first such value in row order.
func (p *colPlan) readStructs(cr *colReader, c *cursor, n uint64, out *reflect.Value, colStart int64) (bad *Error, err error) {
	if err := cr.chargeValues(c.offset(), n); err != nil {
		return nil, err
	}
	// n × 48 bytes passed the budget, so n structs can be made.
	*out = reflect.MakeSlice(out.Type(), int(n), int(n))
	badAt := -1
	for _, f := range p.fields {
		i, e, err := p.readField(cr, c, n, *out, f, colStart)
		if err != nil {
			return nil, within(err, "."+f.name)
		}
		if e != nil && (badAt < 0 || i < badAt) {
			bad, badAt = e, i
		}
	}
	return bad, nil
}

// readField decodes the n values of one field's node into the slice's
// elements (or drops them). bad is the first element whose field cannot
// hold its value, at index i.
func (p *colPlan) readField(cr *colReader, c *cursor, n uint64, s reflect.Value, f colField, colStart int64) (i int, bad *Error, err error) {
	if f.index < 0 {
		_, err := cr.node(f.wire, n, c, 2)
		return 0, nil, err
	}
	return p.fillField(cr, c, n, s, f, colStart)
}

func (p *colPlan) fillField(cr *colReader, c *cursor, n uint64, s reflect.Value, f colField, colStart int64) (int, *Error, error) {
	if err := cr.chargeValues(c.offset(), n); err != nil {
		return 0, nil, err
	}
	switch k := f.wire.Kind; k {
	case String:
		col, err := cr.column(c)
		if err != nil {
			return 0, nil, err
		}
		at := col.offset()
		vals, err := cr.decodeStrings(col, n)
		if err != nil {
			return 0, nil, err
		}
		if err := col.finish("column"); err != nil {
			return 0, nil, err
		}
		err = columnStrings(vals, at, func(i int, str string) { s.Index(i).Field(f.index).SetString(str) })
		return 0, nil, err
	case F32, F64:
		col, err := cr.column(c)
		if err != nil {
			return 0, nil, err
		}
		size := uint64(8)
		if k == F32 {
			size = 4
		}
		bits, err := decodeFloats(col, n, size)
		if err != nil {
			return 0, nil, err
		}
		if err := col.finish("column"); err != nil {
			return 0, nil, err
		}
		for i, b := range bits {
			x := math.Float64frombits(b)
			if k == F32 {
				x = float64(math.Float32frombits(uint32(b)))
			}
			s.Index(i).Field(f.index).SetFloat(x)
		}
		return 0, nil, nil
	}
	bitsN, signed := intColumnBits(f.wire.Kind)
	vals, err := cr.ints(c, n, bitsN)
	if err != nil {
		return 0, nil, err
	}
	for i, v := range vals {
		fv := s.Index(i).Field(f.index)
		if f.kind == reflect.Bool {
			fv.SetBool(v.lo == 1)
			continue
		}
		if err := setColInt(fv, f.kind, v.lo, signed); err != nil {
			return i, &Error{Kind: KindTypeMismatch, Offset: colStart,
				Path: fmt.Sprintf("[%d].%s", i, f.name), Detail: err.Error()}, nil
		}
	}
	return 0, nil, nil
}

// setColInt stores an integer column's value (zigzag if signed) into an
// integer field, refusing one the field cannot hold (SPEC 23.2).
func setColInt(fv reflect.Value, kind reflect.Kind, raw uint64, signed bool) error {
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var x int64
		if signed {
			x = unzigzag(raw)
		} else if raw > math.MaxInt64 {
			return fmt.Errorf("invalid value: integer %d, expected %s", raw, fv.Type())
		} else {
			x = int64(raw)
		}
		if fv.OverflowInt(x) {
			return fmt.Errorf("invalid value: integer %d, expected %s", x, fv.Type())
		}
		fv.SetInt(x)
	default:
		x := raw
		if signed {
			sx := unzigzag(raw)
			if sx < 0 {
				return fmt.Errorf("invalid value: integer %d, expected %s", sx, fv.Type())
			}
			x = uint64(sx)
		}
		if fv.OverflowUint(x) {
			return fmt.Errorf("invalid value: integer %d, expected %s", x, fv.Type())
		}
		fv.SetUint(x)
	}
	return nil
}

// columnStrings checks a column's values as UTF-8 and cuts them from one
// string holding them all (their bytes were checked against the input or
// the budget): one allocation for the column. set receives each string.
func columnStrings(vals [][]byte, at int64, set func(i int, s string)) error {
	total := 0
	for _, b := range vals {
		if !validUTF8(b) {
			return &Error{Kind: KindInvalidUTF8, Offset: at, Detail: "a string of the column is not UTF-8"}
		}
		total += len(b)
	}
	var sb strings.Builder // String() hands over its buffer without a copy
	sb.Grow(total)
	for _, b := range vals {
		sb.Write(b)
	}
	all, k := sb.String(), 0
	for i, b := range vals {
		set(i, all[k:k+len(b)])
		k += len(b)
	}
	return nil
}

// Typed writing of columns: the same shape (a slice of structs with
// integer, float, bool and string fields) is written column by column from
// the Go fields, with the dynamic writer's encoders, so the bytes are the
// ones the dynamic path writes. Anything else, or a value the rows writer
// would refuse (a string that is not UTF-8), returns ok = false, and
// Marshal takes the dynamic path, which reports it.

type colEncField struct {
	wire  *Type
	index int
}

var colEncPlans sync.Map // reflect.Type -> []colEncField, or nil when the shape does not fit

func colEncPlanFor(xt *Type, rt reflect.Type) ([]colEncField, bool) {
	if p, ok := colEncPlans.Load(rt); ok {
		f := p.([]colEncField)
		return f, f != nil
	}
	f := compileColEnc(xt, rt)
	colEncPlans.Store(rt, f) // one entry per Go type, which the program names
	return f, f != nil
}

func compileColEnc(xt *Type, rt reflect.Type) []colEncField {
	if xt.Kind != Vec || xt.Elem.Kind != Struct || rt.Kind() != reflect.Slice || rt.Elem().Kind() != reflect.Struct {
		return nil
	}
	p, ok := colPlanFor(xt, rt)
	if !ok {
		return nil
	}
	out := make([]colEncField, 0, len(p.fields))
	st := rt.Elem()
	for _, f := range p.fields {
		if f.index < 0 {
			return nil
		}
		ft := st.Field(f.index).Type
		for _, hook := range []reflect.Type{typMarshaler, typBinMarsh} {
			if ft.Implements(hook) || reflect.PointerTo(ft).Implements(hook) {
				return nil
			}
		}
		out = append(out, colEncField{wire: f.wire, index: f.index})
	}
	return out
}

// appendColumnsTyped writes the slice rv of Go type with codec c as a
// columnar message after out.
func (m EncMode) appendColumnsTyped(out []byte, c *codec, rv reflect.Value) ([]byte, bool) {
	fields, ok := colEncPlanFor(c.xt, rv.Type())
	if !ok {
		return nil, false
	}
	start := len(out)
	out = append(out, 0xc2, flagColumnar)
	if m.o.SchemaByReference {
		out[start+1] |= flagByRef
		fp := c.xt.Fingerprint()
		out = append(out, fp[:]...)
	} else {
		out = append(out, c.meta...)
	}
	n := rv.Len()
	w := colWriter{out: out, level: m.o.ZstdLevel}
	w.column(appendInts(nil, []u128{{uint64(n), 0}}))
	for _, f := range fields {
		switch k := f.wire.Kind; k {
		case String:
			bs := make([]string, n)
			for i := range bs {
				s := rv.Index(i).Field(f.index).String()
				if !validUTF8String(s) {
					return nil, false
				}
				bs[i] = s
			}
			w.strings(bs)
		case F32, F64:
			bits := make([]uint64, n)
			for i := range bits {
				x := rv.Index(i).Field(f.index).Float()
				if k == F32 {
					bits[i] = uint64(math.Float32bits(float32(x)))
				} else {
					bits[i] = math.Float64bits(x)
				}
			}
			w.floats(k, bits)
		default:
			_, signed := intColumnBits(k)
			col := make([]u128, n)
			for i := range col {
				fv := rv.Index(i).Field(f.index)
				switch {
				case k == Bool:
					if fv.Bool() {
						col[i] = u128{1, 0}
					}
				case signed:
					col[i] = u128{zigzag(fv.Int()), 0}
				default:
					col[i] = u128{fv.Uint(), 0}
				}
			}
			w.column(appendInts(nil, col))
		}
	}
	return w.out, true
}
