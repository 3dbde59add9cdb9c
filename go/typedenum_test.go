package xbf

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

type Size struct {
	W uint16 `xbf:"w"`
	H uint16 `xbf:"h"`
}

// SPEC 18.7's enum, as a Go enum struct.
type Shape struct {
	OneOf
	Empty  *struct{}
	Circle *float64
	Rect   *Size
}

// The same enum as another program declares it: variants in another
// order, one more, one fewer, Circle without data.
type shapeReader struct {
	OneOf
	Rect   *Size     `xbf:"Rect"`
	Circle *struct{} `xbf:"Circle"`
	Empty  *struct{} `xbf:"Empty"`
	Tri    *[3]int   `xbf:"Tri"`
}

type shapeNoRect struct {
	OneOf
	Empty  *struct{}
	Circle *float64
}

func TestEnumStructs(t *testing.T) {
	f := 1.5
	b, err := Marshal(Shape{Circle: &f})
	if err != nil {
		t.Fatal(err)
	}
	const spec = "c200180553686170650305456d7074791306436972636c650e0452656374120453697a650201770201680201000000000000f83f"
	if hex.EncodeToString(b) != spec {
		t.Fatalf("wrote %x, SPEC 18.7 has %s", b, spec)
	}
	for _, in := range []Shape{{Circle: &f}, {Empty: &struct{}{}}, {Rect: &Size{3, 200}}} {
		b, err := Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Decode(b)
		if err != nil || v.Type.Kind != Enum {
			t.Fatalf("%v %v", v, err)
		}
		out := Shape{Circle: new(float64)} // set variants are cleared
		if err := Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if (out.Empty != nil) != (in.Empty != nil) || (out.Circle != nil) != (in.Circle != nil) || (out.Rect != nil) != (in.Rect != nil) ||
			(in.Circle != nil && *out.Circle != *in.Circle) || (in.Rect != nil && *out.Rect != *in.Rect) {
			t.Fatalf("%+v, want %+v", out, in)
		}
		// By name: another order, and Circle's f64 skipped by a unit variant.
		var r shapeReader
		if err := Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if (r.Empty != nil) != (in.Empty != nil) || (r.Circle != nil) != (in.Circle != nil) || (r.Rect != nil) != (in.Rect != nil) || r.Tri != nil {
			t.Fatalf("%+v from %+v", r, in)
		}
	}
	// A variant the reader lacks: type-mismatch at the enum's offset.
	b, _ = Marshal([]Shape{{Empty: &struct{}{}}, {Rect: &Size{1, 2}}})
	var few []shapeNoRect
	err = Unmarshal(b, &few)
	var xe *Error
	if !errors.As(err, &xe) || xe.Kind != KindTypeMismatch || xe.Path != "[1]" || xe.Offset != int64(len(b)-3) ||
		!strings.Contains(xe.Detail, "unknown variant `Rect`") {
		t.Fatalf("%v", err)
	}
	// A string names a variant without data.
	b, _ = Marshal("Empty")
	var s Shape
	if err := Unmarshal(b, &s); err != nil || s.Empty == nil {
		t.Fatalf("%+v %v", s, err)
	}
	for _, name := range []string{"Circle", "Nope"} {
		b, _ = Marshal(name)
		if err := Unmarshal(b, &s); !errors.As(err, &xe) || xe.Kind != KindTypeMismatch {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A value sets exactly one variant.
	for _, bad := range []Shape{{}, {Empty: &struct{}{}, Circle: &f}} {
		if _, err := Marshal(bad); !errors.As(err, &xe) || xe.Kind != KindTypeMismatch {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
	// In columns too (read dynamically, then by name).
	cols, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	in := []Shape{{Circle: &f}, {Rect: &Size{3, 4}}, {Empty: &struct{}{}}}
	b, err = cols.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []Shape
	if err := Unmarshal(b, &out); err != nil || len(out) != 3 || *out[0].Circle != f || *out[1].Rect != (Size{3, 4}) || out[2].Empty == nil {
		t.Fatalf("%+v %v", out, err)
	}
}
