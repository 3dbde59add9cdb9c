// Package vectorform converts between XBF types and values and the JSON
// form of the conformance vectors (vectors/README.md, SPEC 9 and 21.1).
package vectorform

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	xbf "github.com/xbf-format/xbf/go"
)

// ParseType reads a type in the vector form.
func ParseType(j any) (*xbf.Type, error) {
	switch j := j.(type) {
	case string:
		if j == "any" {
			return xbf.Prim(xbf.Any), nil
		}
		k, ok := xbf.KindFromWord(j)
		if !ok {
			return nil, fmt.Errorf("unknown type word %q", j)
		}
		return xbf.Prim(k), nil
	case map[string]any:
		switch {
		case has(j, "vec"):
			el, err := ParseType(j["vec"])
			if err != nil {
				return nil, err
			}
			return xbf.VecOf(el), nil
		case has(j, "option"):
			el, err := ParseType(j["option"])
			if err != nil {
				return nil, err
			}
			return xbf.OptionOf(el), nil
		case has(j, "array", "len"):
			n, err := strconv.ParseUint(fmt.Sprint(j["len"]), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("array len: %v", err)
			}
			el, err := ParseType(j["array"])
			if err != nil {
				return nil, err
			}
			return xbf.ArrayOf(n, el), nil
		case has(j, "tuple"):
			list, ok := j["tuple"].([]any)
			if !ok {
				return nil, fmt.Errorf("tuple is not a list")
			}
			ts := make([]*xbf.Type, len(list))
			for i, e := range list {
				t, err := ParseType(e)
				if err != nil {
					return nil, err
				}
				ts[i] = t
			}
			return xbf.TupleOf(ts...), nil
		case has(j, "map"):
			kv, ok := j["map"].([]any)
			if !ok || len(kv) != 2 {
				return nil, fmt.Errorf("map is not [key, value]")
			}
			k, err := ParseType(kv[0])
			if err != nil {
				return nil, err
			}
			v, err := ParseType(kv[1])
			if err != nil {
				return nil, err
			}
			return xbf.MapOf(k, v), nil
		case has(j, "struct", "fields"):
			name, _ := j["struct"].(string)
			fs, err := named(j["fields"])
			if err != nil {
				return nil, err
			}
			return xbf.StructOf(name, fs)
		case has(j, "enum", "variants"):
			name, _ := j["enum"].(string)
			fs, err := named(j["variants"])
			if err != nil {
				return nil, err
			}
			return xbf.EnumOf(name, fs)
		}
	}
	return nil, fmt.Errorf("%v is not a type", j)
}

func has(m map[string]any, keys ...string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func named(j any) ([]xbf.Field, error) {
	list, ok := j.([]any)
	if !ok {
		return nil, fmt.Errorf("%v is not a list of [name, type]", j)
	}
	fs := make([]xbf.Field, len(list))
	for i, f := range list {
		pair, ok := f.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("%v is not [name, type]", f)
		}
		name, ok := pair[0].(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a name", pair[0])
		}
		t, err := ParseType(pair[1])
		if err != nil {
			return nil, err
		}
		fs[i] = xbf.Field{Name: name, Type: t}
	}
	return fs, nil
}

// ParseValue reads a value of type t in the vector form. Numbers must have
// been decoded with json.Decoder.UseNumber.
func ParseValue(j any, t *xbf.Type) (xbf.Value, error) {
	v := xbf.Value{Type: t}
	bad := func() (xbf.Value, error) { return v, fmt.Errorf("%v is not a %s value", j, t) }
	switch t.Kind {
	case xbf.Unit:
		if j != nil {
			return bad()
		}
	case xbf.Bool:
		b, ok := j.(bool)
		if !ok {
			return bad()
		}
		v.Bool = b
	case xbf.U8, xbf.U16, xbf.U32, xbf.U64, xbf.FixedU16, xbf.FixedU32, xbf.FixedU64:
		x, err := strconv.ParseUint(numText(j), 10, 64)
		if err != nil {
			return bad()
		}
		v.Uint = x
	case xbf.I8, xbf.I16, xbf.I32, xbf.I64, xbf.FixedI16, xbf.FixedI32, xbf.FixedI64, xbf.DateKind, xbf.Timestamp:
		x, err := strconv.ParseInt(numText(j), 10, 64)
		if err != nil {
			return bad()
		}
		v.Int = x
	case xbf.U128, xbf.I128, xbf.U256, xbf.I256, xbf.FixedU128, xbf.FixedI128:
		b, ok := new(big.Int).SetString(numText(j), 10)
		if !ok {
			return bad()
		}
		v.Big = b
	case xbf.F32, xbf.F64:
		f, ok := parseFloat(j)
		if !ok {
			return bad()
		}
		if t.Kind == xbf.F64 {
			v.Uint = math.Float64bits(f)
		} else {
			g := float32(f)
			if f != f {
				g = math.Float32frombits(0x7fc00000)
			} else if float64(g) != f {
				return v, fmt.Errorf("%v is not exactly an f32", j)
			}
			v.Uint = uint64(math.Float32bits(g))
		}
	case xbf.String:
		s, ok := j.(string)
		if !ok {
			return bad()
		}
		v.Str = s
	case xbf.Bytes:
		s, ok := j.(string)
		if !ok {
			return bad()
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return bad()
		}
		v.Bytes = b
	case xbf.Vec, xbf.Array:
		list, ok := j.([]any)
		if !ok {
			return bad()
		}
		if t.Kind == xbf.Array && uint64(len(list)) != t.Len {
			return bad()
		}
		v.Items = make([]xbf.Value, len(list))
		for i, e := range list {
			var err error
			if v.Items[i], err = ParseValue(e, t.Elem); err != nil {
				return v, err
			}
		}
	case xbf.Tuple:
		list, ok := j.([]any)
		if !ok || len(list) != len(t.Elems) {
			return bad()
		}
		v.Items = make([]xbf.Value, len(list))
		for i, e := range list {
			var err error
			if v.Items[i], err = ParseValue(e, t.Elems[i]); err != nil {
				return v, err
			}
		}
	case xbf.Struct:
		obj, ok := j.(map[string]any)
		if !ok || len(obj) != len(t.Fields) {
			return bad()
		}
		v.Items = make([]xbf.Value, len(t.Fields))
		for i, f := range t.Fields {
			fj, ok := obj[f.Name]
			if !ok {
				return v, fmt.Errorf("no key %q", f.Name)
			}
			var err error
			if v.Items[i], err = ParseValue(fj, f.Type); err != nil {
				return v, err
			}
		}
	case xbf.Option:
		if j == nil {
			return v, nil
		}
		obj, ok := j.(map[string]any)
		if !ok || !has(obj, "some") {
			return bad()
		}
		p, err := ParseValue(obj["some"], t.Elem)
		if err != nil {
			return v, err
		}
		v.Items = []xbf.Value{p}
	case xbf.Map:
		list, ok := j.([]any)
		if !ok {
			return bad()
		}
		for _, e := range list {
			pair, ok := e.([]any)
			if !ok || len(pair) != 2 {
				return bad()
			}
			k, err := ParseValue(pair[0], t.Key)
			if err != nil {
				return v, err
			}
			val, err := ParseValue(pair[1], t.Elem)
			if err != nil {
				return v, err
			}
			v.Items = append(v.Items, k, val)
		}
	case xbf.Enum:
		obj, ok := j.(map[string]any)
		if !ok || !has(obj, "variant", "value") {
			return bad()
		}
		name, _ := obj["variant"].(string)
		i := t.FieldIndex(name)
		if i < 0 {
			return v, fmt.Errorf("no variant %q", name)
		}
		p, err := ParseValue(obj["value"], t.Fields[i].Type)
		if err != nil {
			return v, err
		}
		v.Uint, v.Items = uint64(i), []xbf.Value{p}
	case xbf.Any:
		obj, ok := j.(map[string]any)
		if !ok || !has(obj, "type", "value") {
			return bad()
		}
		own, err := ParseType(obj["type"])
		if err != nil {
			return v, err
		}
		p, err := ParseValue(obj["value"], own)
		if err != nil {
			return v, err
		}
		v.Items = []xbf.Value{p}
	default:
		return bad()
	}
	return v, nil
}

func numText(j any) string {
	switch j := j.(type) {
	case json.Number:
		return j.String()
	case string:
		return j
	}
	return "?"
}

func parseFloat(j any) (float64, bool) {
	switch j := j.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(j.String(), 64)
		return f, err == nil
	case string:
		switch j {
		case "NaN": // the canonical quiet NaN (math.NaN has a payload bit)
			return math.Float64frombits(0x7ff8000000000000), true
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
	}
	return 0, false
}

// TypeJSON renders a type in the vector form.
func TypeJSON(t *xbf.Type) any {
	switch t.Kind {
	case xbf.Vec:
		return map[string]any{"vec": TypeJSON(t.Elem)}
	case xbf.Option:
		return map[string]any{"option": TypeJSON(t.Elem)}
	case xbf.Array:
		return map[string]any{"array": TypeJSON(t.Elem), "len": t.Len}
	case xbf.Tuple:
		l := make([]any, len(t.Elems))
		for i, e := range t.Elems {
			l[i] = TypeJSON(e)
		}
		return map[string]any{"tuple": l}
	case xbf.Map:
		return map[string]any{"map": []any{TypeJSON(t.Key), TypeJSON(t.Elem)}}
	case xbf.Struct, xbf.Enum:
		l := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			l[i] = []any{f.Name, TypeJSON(f.Type)}
		}
		if t.Kind == xbf.Struct {
			return map[string]any{"struct": t.Name, "fields": l}
		}
		return map[string]any{"enum": t.Name, "variants": l}
	}
	return t.Kind.String()
}

// ValueJSON renders a value in the vector form (structs as JSON objects;
// encoding/json sorts their keys, which the form allows).
func ValueJSON(v xbf.Value) any {
	t := v.Type
	switch t.Kind {
	case xbf.Unit:
		return nil
	case xbf.Bool:
		return v.Bool
	case xbf.U8, xbf.U16, xbf.U32, xbf.FixedU16, xbf.FixedU32:
		return v.Uint
	case xbf.U64, xbf.FixedU64:
		return strconv.FormatUint(v.Uint, 10)
	case xbf.I8, xbf.I16, xbf.I32, xbf.FixedI16, xbf.FixedI32, xbf.DateKind:
		return v.Int
	case xbf.I64, xbf.FixedI64, xbf.Timestamp:
		return strconv.FormatInt(v.Int, 10)
	case xbf.U128, xbf.I128, xbf.U256, xbf.I256, xbf.FixedU128, xbf.FixedI128:
		return v.Big.String()
	case xbf.F32, xbf.F64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case xbf.String:
		return v.Str
	case xbf.Bytes:
		return hex.EncodeToString(v.Bytes)
	case xbf.Vec, xbf.Array, xbf.Tuple:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
			l[i] = ValueJSON(it)
		}
		return l
	case xbf.Struct:
		m := make(map[string]any, len(t.Fields))
		for i, f := range t.Fields {
			m[f.Name] = ValueJSON(v.Items[i])
		}
		return m
	case xbf.Option:
		if len(v.Items) == 0 {
			return nil
		}
		return map[string]any{"some": ValueJSON(v.Items[0])}
	case xbf.Map:
		l := make([]any, 0, len(v.Items)/2)
		for i := 0; i < len(v.Items); i += 2 {
			l = append(l, []any{ValueJSON(v.Items[i]), ValueJSON(v.Items[i+1])})
		}
		return l
	case xbf.Enum:
		return map[string]any{"variant": t.Fields[v.Uint].Name, "value": ValueJSON(v.Items[0])}
	case xbf.Any:
		return map[string]any{"type": TypeJSON(v.Items[0].Type), "value": ValueJSON(v.Items[0])}
	}
	return nil
}
