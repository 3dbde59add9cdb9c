package xbf

import (
	"fmt"
	"reflect"
)

// OneOf, embedded in a struct, makes the struct an XBF enum: each other
// field is a variant (named by its field name or `xbf:"name"` tag, in
// field order) and is a pointer to the variant's payload; a value has
// exactly one of them set. A pointer to an empty struct (*struct{}) is a
// variant without data (payload unit).
//
//	type Shape struct {
//		xbf.OneOf
//		Circle *float64  // Circle(f64)
//		Rect   *Rect     // Rect { h, w }: the payload is a struct Rect
//		Empty  *struct{} // Empty (unit)
//	}
//
// Reading matches variants by name, as the Rust reader does (SPEC 23.2
// rule 6): the Go type may order its variants otherwise or have more; a
// variant the Go type lacks is type-mismatch ("unknown variant"); a unit
// variant skips any payload the data gives it; a string in the data names
// a variant without data. Reading sets the variant read and clears the
// others.
type OneOf struct{}

var typOneOf = reflect.TypeOf(OneOf{})

// isEnumStruct reports whether rt embeds OneOf.
func isEnumStruct(rt reflect.Type) bool {
	for i := 0; i < rt.NumField(); i++ {
		if f := rt.Field(i); f.Anonymous && f.Type == typOneOf {
			return true
		}
	}
	return false
}

// enumVariants lists the variant fields of an enum struct.
func enumVariants(rt reflect.Type) ([]goField, error) {
	fs := goFields(rt)
	if len(fs) == 0 {
		return nil, encErr(KindUnsupported, "", "enum "+rt.String()+" has no variants")
	}
	for _, f := range fs {
		if len(f.index) != 1 || f.typ.Kind() != reflect.Pointer {
			return nil, encErr(KindUnsupported, "."+f.name,
				fmt.Sprintf("a variant of enum %s is a %s, not a pointer to its payload", rt, f.typ))
		}
	}
	return fs, nil
}

func isUnitPayload(t reflect.Type) bool { return t.Kind() == reflect.Struct && t.NumField() == 0 }

// enumCodec writes an enum struct: the index of its one set variant, then
// the payload.
func enumCodec(rt reflect.Type, building map[reflect.Type]bool) (*codec, error) {
	fs, err := enumVariants(rt)
	if err != nil {
		return nil, err
	}
	variants := make([]Field, len(fs))
	encs := make([]func([]byte, reflect.Value) ([]byte, error), len(fs))
	for i, f := range fs {
		if isUnitPayload(f.typ.Elem()) {
			variants[i] = Field{f.name, Prim(Unit)}
			continue
		}
		c, err := codecOpt(f.typ.Elem(), f.opt, building)
		if err != nil {
			return nil, within(err, "."+f.name)
		}
		variants[i], encs[i] = Field{f.name, c.xt}, c.enc
	}
	xt, err := EnumOf(rt.Name(), variants)
	if err != nil {
		return nil, err
	}
	return &codec{xt: xt, enc: func(b []byte, v reflect.Value) ([]byte, error) {
		set := -1
		for i, f := range fs {
			if !v.Field(f.index[0]).IsNil() {
				if set >= 0 {
					return b, encErr(KindTypeMismatch, "", fmt.Sprintf("enum %s has variants %s and %s set; a value has one", rt, fs[set].name, f.name))
				}
				set = i
			}
		}
		if set < 0 {
			return b, encErr(KindTypeMismatch, "", fmt.Sprintf("enum %s has no variant set", rt))
		}
		b = appendUvarint(b, uint64(set))
		if encs[set] == nil {
			return b, nil
		}
		b, err := encs[set](b, v.Field(fs[set].index[0]).Elem())
		if err != nil {
			return b, within(err, "."+fs[set].name)
		}
		return b, nil
	}}, nil
}

// enumDec reads wire enum (or string) data into an enum struct.
func enumDec(wt *Type, rt reflect.Type, depth int) decFn {
	fs, err := enumVariants(rt)
	if err != nil {
		return func(r *reader, v reflect.Value, counted bool) error { return mismatchAt(r, r.pos, err.Error()) }
	}
	byName := map[string]int{}
	for i, f := range fs {
		byName[f.name] = i
	}
	set := func(v reflect.Value, i int) reflect.Value {
		for _, f := range fs {
			v.Field(f.index[0]).SetZero()
		}
		p := reflect.New(fs[i].typ.Elem())
		v.Field(fs[i].index[0]).Set(p)
		return p.Elem()
	}
	unknown := func(r *reader, off int, name string) error {
		return mismatchAt(r, off, fmt.Sprintf("unknown variant `%s`, expected one of the variants of %s", name, rt))
	}
	switch wt.Kind {
	case String:
		return func(r *reader, v reflect.Value, counted bool) error {
			off := r.pos
			name, err := r.text()
			if err != nil {
				return err
			}
			i, ok := byName[name]
			if !ok {
				return unknown(r, off, name)
			}
			if !isUnitPayload(fs[i].typ.Elem()) {
				return mismatchAt(r, off, fmt.Sprintf("invalid type: a variant name, expected the payload of %s", fs[i].name))
			}
			set(v, i)
			return nil
		}
	case Enum:
	default:
		return func(r *reader, v reflect.Value, counted bool) error {
			return mismatchAt(r, r.pos, fmt.Sprintf("invalid type: %s data, expected enum %s", wt, rt))
		}
	}
	// For each wire variant: the Go variant and the payload's reader (nil:
	// skipped, for a unit variant).
	target := make([]int, len(wt.Fields))
	fns := make([]decFn, len(wt.Fields))
	for j, wf := range wt.Fields {
		i, ok := byName[wf.Name]
		target[j] = -1
		if !ok {
			continue
		}
		target[j] = i
		if !isUnitPayload(fs[i].typ.Elem()) {
			fns[j] = compileDec(wf.Type, fs[i].typ.Elem(), depth+1, fs[i].opt)
		}
	}
	return func(r *reader, v reflect.Value, counted bool) error {
		off := r.pos
		idx, err := r.uvarint(w64)
		if err != nil {
			return err
		}
		if idx >= uint64(len(wt.Fields)) {
			return r.fail(KindUnknownVariant, off)
		}
		wf := wt.Fields[idx]
		if target[idx] < 0 {
			return unknown(r, off, wf.Name)
		}
		into := set(v, target[idx])
		if fns[idx] == nil {
			err = r.skip(wf.Type, depth+1, false)
		} else {
			err = fns[idx](r, into, false)
		}
		return within(err, "."+wf.Name)
	}
}
