package xbf

import (
	"reflect"
	"sort"
	"strings"
	"sync"
)

// goField is a field of a Go struct as XBF sees it. The fields of a
// struct are found as encoding/json finds them: exported fields under
// their name or `xbf:"name"` tag, and the fields of embedded (anonymous)
// structs and pointers to structs promoted to the outer struct unless the
// embedded field has a name in its tag. Of several fields with one name,
// the shallowest wins, then the only tagged one among the shallowest;
// otherwise all of them are left out, as encoding/json leaves them out.
type goField struct {
	name      string
	index     []int // the path of field indices, through embedded structs
	typ       reflect.Type
	tagged    bool
	omitempty bool   // `,omitempty`: written as an option, absent when empty
	dflt      bool   // `,default`: the data may lack it (the field is left as it is)
	opt       string // `,u128`, `,i128`, `,u256`, `,i256` for big.Int
}

// optional says whether the data may lack the field (SPEC 23.2 rule 3):
// options (pointers other than *big.Int with a width, omitempty fields)
// and fields tagged `default`.
func (f *goField) optional() bool {
	if f.dflt || f.omitempty {
		return true
	}
	return f.typ.Kind() == reflect.Pointer && !(f.typ.Elem() == typBigInt && f.opt != "")
}

var goFieldCache sync.Map // reflect.Type -> []goField

// goFields lists the fields of struct type rt in the order encoding/json
// gives them: by their index paths.
func goFields(rt reflect.Type) []goField {
	if fs, ok := goFieldCache.Load(rt); ok {
		return fs.([]goField)
	}
	fs := findFields(rt)
	goFieldCache.Store(rt, fs)
	return fs
}

func findFields(rt reflect.Type) []goField {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var current, next []level
	next = []level{{typ: rt}}
	count, nextCount := map[reflect.Type]int{}, map[reflect.Type]int{}
	visited := map[reflect.Type]bool{}
	var fields []goField
	// Breadth first, one depth of embedding at a time, as encoding/json's
	// typeFields: a type embedded twice at one depth gives duplicate
	// fields, which the conflict rule then removes.
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := 0; i < lv.typ.NumField(); i++ {
				sf := lv.typ.Field(i)
				if sf.Anonymous {
					t := sf.Type
					if t.Kind() == reflect.Pointer {
						if !sf.IsExported() {
							continue // an unexported embedded pointer cannot be allocated
						}
						t = t.Elem()
					}
					if !sf.IsExported() && t.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("xbf")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(append(make([]int, 0, len(lv.index)+1), lv.index...), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct && ft != typTime && ft != typBigInt {
					nextCount[ft]++
					if nextCount[ft] == 1 {
						next = append(next, level{typ: ft, index: index})
					}
					continue
				}
				f := goField{name: name, index: index, typ: sf.Type, tagged: name != ""}
				if name == "" {
					f.name = sf.Name
				}
				for _, o := range strings.Split(opts, ",") {
					switch o {
					case "omitempty":
						f.omitempty = true
					case "default":
						f.dflt = true
					case "u128", "i128", "u256", "i256":
						f.opt = o
					}
				}
				fields = append(fields, f)
				if count[lv.typ] > 1 {
					fields = append(fields, f) // embedded twice: a duplicate to annihilate
				}
			}
		}
	}
	// By name, then depth, then tagged first, then index sequence.
	sort.SliceStable(fields, func(i, j int) bool {
		a, b := fields[i], fields[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.tagged != b.tagged {
			return a.tagged
		}
		return lessIndex(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		// The dominant field: alone at the shallowest depth, or the only
		// tagged one there.
		group := fields[i:j]
		if len(group) == 1 || len(group[1].index) > len(group[0].index) || (group[0].tagged && !group[1].tagged) {
			out = append(out, group[0])
		}
		i = j
	}
	sort.Slice(out, func(i, j int) bool { return lessIndex(out[i].index, out[j].index) })
	return out
}

func lessIndex(a, b []int) bool {
	for k := range a {
		if k >= len(b) {
			return false
		}
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// fieldToRead is the field at index in v; a nil embedded pointer on the
// way gives the field's zero value (written as such: the type fixes the
// fields, whatever the value).
func fieldToRead(v reflect.Value, f *goField) reflect.Value {
	for k, i := range f.index {
		if k > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Zero(f.typ)
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

// fieldToWrite is the field at index in v, allocating nil embedded
// pointers on the way.
func fieldToWrite(v reflect.Value, f *goField) reflect.Value {
	for k, i := range f.index {
		if k > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}
