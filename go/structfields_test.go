package xbf

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type point2 struct {
	First int8 `xbf:"first"`
	Last  int8 `xbf:"last"`
}

// A Go field the data lacks fails as in Rust (SPEC 23.2 rule 3), at the
// struct's offset with its path, unless it is optional.
func TestMissingFields(t *testing.T) {
	type needs struct {
		ID uint32 `xbf:"id"`
	}
	type outerNeeds struct {
		In needs `xbf:"in"`
	}
	type outer struct {
		In point2 `xbf:"in"`
	}
	cols, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	one, _ := Marshal(point2{1, 2})
	vec, _ := Marshal([]point2{{1, 2}})
	nested, _ := Marshal(outer{point2{1, 2}})
	columns, _ := cols.Marshal([]point2{{1, 2}, {3, 4}})
	for _, c := range []struct {
		data   []byte
		into   any
		offset int64
		path   string
	}{
		{one, &needs{}, 24, "point2"},
		{vec, &[]needs{}, 26, "[0]"},
		{nested, &outerNeeds{}, 35, "outer.in"},
		{columns, &[]needs{}, 25, "[0]"}, // columns: the first column's offset
	} {
		err := Unmarshal(c.data, c.into)
		var xe *Error
		if !errors.As(err, &xe) || xe.Kind != KindTypeMismatch || xe.Offset != c.offset || xe.Path != c.path ||
			!strings.Contains(xe.Detail, "missing field `id`") {
			t.Errorf("%x into %T: %v, want type-mismatch at %d in %s", c.data, c.into, err, c.offset, c.path)
		}
		// AllowMissingFields: encoding/json's rule, every field.
		lax, _ := DecOptions{AllowMissingFields: true}.DecMode()
		if err := lax.Unmarshal(c.data, c.into); err != nil {
			t.Errorf("%x into %T with AllowMissingFields: %v", c.data, c.into, err)
		}
	}
	// Optional fields may be missing: pointers, omitempty and default
	// (left as they are).
	type optional struct {
		First int8    `xbf:"first"`
		P     *string `xbf:"p"`
		O     string  `xbf:"o,omitempty"`
		D     int     `xbf:"d,default"`
	}
	out := optional{D: 7, O: "kept"}
	if err := Unmarshal(one, &out); err != nil || out.First != 1 || out.P != nil || out.O != "kept" || out.D != 7 {
		t.Fatalf("%+v %v", out, err)
	}
	var outs []optional
	if err := Unmarshal(columns, &outs); err != nil || len(outs) != 2 || outs[1].First != 3 {
		t.Fatalf("%+v %v", outs, err)
	}
	// A missing field is reported after the struct's own errors.
	type both struct {
		First uint8  `xbf:"first"`
		X     string `xbf:"x"`
	}
	neg, _ := Marshal(point2{-1, 2})
	var xe *Error
	if err := Unmarshal(neg, &both{}); !errors.As(err, &xe) || xe.Path != "point2.first" {
		t.Fatalf("%v", err)
	}
}

type base struct {
	ID   int    `xbf:"id"`
	Name string `xbf:"name"`
}

type Audit struct {
	By   string `xbf:"by"`
	Name string // "Name", not base's "name": both stay
}

type withEmbedded struct {
	base
	*Audit
	Price float64 `xbf:"price"`
	ID    int     `xbf:"id"` // the outer ID wins over base's
}

// Embedded structs are promoted as encoding/json promotes them, writing
// and reading, with the same conflict rules.
func TestEmbeddedStructs(t *testing.T) {
	in := withEmbedded{base: base{ID: 1, Name: "n"}, Audit: &Audit{By: "me", Name: "A"}, Price: 2.5, ID: 9}
	b, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	// The fields json would write, in json's order (base's id loses to
	// the outer one).
	if got := v.Type.String(); got != "struct withEmbedded { name: string, by: string, Name: string, price: f64, id: i64 }" {
		t.Fatalf("type %s", got)
	}
	var out withEmbedded
	if err := Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	want := in
	want.base.ID = 0 // shadowed: neither written nor read
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("%+v, want %+v", out, want)
	}
	// In columns too (the dynamic column path, for promoted fields).
	cols, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	cb, err := cols.Marshal([]withEmbedded{in, in})
	if err != nil {
		t.Fatal(err)
	}
	var outs []withEmbedded
	if err := Unmarshal(cb, &outs); err != nil || len(outs) != 2 || !reflect.DeepEqual(outs[1], want) {
		t.Fatalf("columns: %+v %v", outs, err)
	}
	// A nil embedded pointer writes its fields' zero values (the type fixes
	// the fields) and reads back allocated.
	in.Audit = nil
	b, _ = Marshal(in)
	out = withEmbedded{}
	if err := Unmarshal(b, &out); err != nil || out.Audit == nil || *out.Audit != (Audit{}) {
		t.Fatalf("%+v %v", out, err)
	}
	// Against encoding/json on the same shapes: the same field names.
	for _, x := range []any{conflict{}, tagged{}, deeper{}, twice{}} {
		rt := reflect.TypeOf(x)
		var names []string
		for _, f := range goFields(rt) {
			names = append(names, f.name)
		}
		jb, _ := json.Marshal(x)
		var m map[string]any
		json.Unmarshal(jb, &m)
		if len(m) != len(names) {
			t.Errorf("%s: xbf %v, json %s", rt, names, jb)
		}
		for _, n := range names {
			if _, ok := m[n]; !ok {
				t.Errorf("%s: xbf %v, json %s", rt, names, jb)
			}
		}
	}
}

type inner1 struct{ A, B int }
type inner2 struct{ A, C int }

// Two A at one depth, untagged: both left out.
type conflict struct {
	inner1
	inner2
}

type innerTagged struct {
	A int `xbf:"A" json:"A"`
}

// A tagged A beats an untagged one at the same depth.
type tagged struct {
	inner1
	innerTagged
}

// The shallower A wins.
type deeper struct {
	conflict
	A int
}

type e1 struct{ inner1 }
type e2 struct {
	inner1
	D int
}

// One type embedded twice at one depth: its fields are left out; D stays.
type twice struct {
	e1
	e2
}
