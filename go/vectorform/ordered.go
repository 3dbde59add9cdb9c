package vectorform

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	xbf "github.com/xbf-format/xbf/go"
)

// The vectors' form written as JSON text with the keys in the order the
// Rust CLI writes them (struct fields in field order, "type" before
// "value"), for the differential fuzzer, which compares answers in order.

// AppendString appends s as a JSON string.
func AppendString(b []byte, s string) []byte { return appendStr(b, s) }

func appendStr(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// AppendType appends t's vector form.
func AppendType(b []byte, t *xbf.Type) []byte {
	switch t.Kind {
	case xbf.Vec:
		return append(AppendType(append(b, `{"vec":`...), t.Elem), '}')
	case xbf.Option:
		return append(AppendType(append(b, `{"option":`...), t.Elem), '}')
	case xbf.Array:
		b = AppendType(append(b, `{"array":`...), t.Elem)
		return append(strconv.AppendUint(append(b, `,"len":`...), t.Len, 10), '}')
	case xbf.Tuple:
		b = append(b, `{"tuple":[`...)
		for i, e := range t.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendType(b, e)
		}
		return append(b, "]}"...)
	case xbf.Map:
		b = AppendType(append(b, `{"map":[`...), t.Key)
		return append(AppendType(append(b, ','), t.Elem), "]}"...)
	case xbf.Struct, xbf.Enum:
		if t.Kind == xbf.Struct {
			b = append(appendStr(append(b, `{"struct":`...), t.Name), `,"fields":[`...)
		} else {
			b = append(appendStr(append(b, `{"enum":`...), t.Name), `,"variants":[`...)
		}
		for i, f := range t.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(AppendType(append(appendStr(append(b, '['), f.Name), ','), f.Type), ']')
		}
		return append(b, "]}"...)
	}
	return appendStr(b, t.Kind.String())
}

// AppendValue appends v's vector form; a NaN is "NaN:" and its bits in hex
// (8 or 16 digits), so that payloads are compared.
func AppendValue(b []byte, v xbf.Value) []byte {
	t := v.Type
	switch t.Kind {
	case xbf.Unit:
		return append(b, "null"...)
	case xbf.Bool:
		return strconv.AppendBool(b, v.Bool)
	case xbf.U8, xbf.U16, xbf.U32, xbf.FixedU16, xbf.FixedU32:
		return strconv.AppendUint(b, v.Uint, 10)
	case xbf.I8, xbf.I16, xbf.I32, xbf.FixedI16, xbf.FixedI32, xbf.DateKind:
		return strconv.AppendInt(b, v.Int, 10)
	case xbf.U64, xbf.FixedU64:
		return append(strconv.AppendUint(append(b, '"'), v.Uint, 10), '"')
	case xbf.I64, xbf.FixedI64, xbf.Timestamp:
		return append(strconv.AppendInt(append(b, '"'), v.Int, 10), '"')
	case xbf.U128, xbf.I128, xbf.U256, xbf.I256, xbf.FixedU128, xbf.FixedI128:
		return appendStr(b, v.Big.String())
	case xbf.F32, xbf.F64:
		f := v.Float()
		switch {
		case math.IsNaN(f) && t.Kind == xbf.F32:
			return appendStr(b, fmt.Sprintf("NaN:%08x", uint32(v.Uint)))
		case math.IsNaN(f):
			return appendStr(b, fmt.Sprintf("NaN:%016x", v.Uint))
		case math.IsInf(f, 1):
			return appendStr(b, "Infinity")
		case math.IsInf(f, -1):
			return appendStr(b, "-Infinity")
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		return append(b, s...)
	case xbf.String:
		return appendStr(b, v.Str)
	case xbf.Bytes:
		return appendStr(b, hex.EncodeToString(v.Bytes))
	case xbf.Vec, xbf.Array, xbf.Tuple:
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendValue(b, it)
		}
		return append(b, ']')
	case xbf.Struct:
		b = append(b, '{')
		for i, f := range t.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendValue(append(appendStr(b, f.Name), ':'), v.Items[i])
		}
		return append(b, '}')
	case xbf.Option:
		if len(v.Items) == 0 {
			return append(b, "null"...)
		}
		return append(AppendValue(append(b, `{"some":`...), v.Items[0]), '}')
	case xbf.Map:
		b = append(b, '[')
		for i := 0; i < len(v.Items); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendValue(append(AppendValue(append(b, '['), v.Items[i]), ','), v.Items[i+1])
			b = append(b, ']')
		}
		return append(b, ']')
	case xbf.Enum:
		b = appendStr(append(b, `{"variant":`...), t.Fields[v.Uint].Name)
		return append(AppendValue(append(b, `,"value":`...), v.Items[0]), '}')
	case xbf.Any:
		b = AppendType(append(b, `{"type":`...), v.Items[0].Type)
		return append(AppendValue(append(b, `,"value":`...), v.Items[0]), '}')
	}
	return appendStr(b, "no vector form: "+t.String())
}
