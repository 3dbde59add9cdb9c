package xbf

import (
	"errors"
	"math/big"
	"reflect"
	"testing"
	"time"
)

type record struct {
	ID      uint64
	Name    string `xbf:"name"`
	Tags    []string
	Score   *float64
	Skip    int    `xbf:"-"`
	Note    string `xbf:"note,omitempty"`
	Counts  map[string]int32
	When    time.Time
	Day     Date
	Big     *big.Int `xbf:"big,u256"`
	Bytes   []byte
	Pair    [2]uint16
	Any     any
	private int
}

func TestMarshalPaperPoint(t *testing.T) {
	// SPEC 18.1: the paper's Point, byte for byte.
	got, err := Marshal(pointNamed{First: 42, Last: -5})
	if err != nil {
		t.Fatal(err)
	}
	want := "c2001205506f696e740205666972737407046c617374072afb"
	if hexs(got) != want {
		t.Fatalf("got %s, want %s", hexs(got), want)
	}
	var back pointNamed
	if err := Unmarshal(got, &back); err != nil || back != (pointNamed{42, -5}) {
		t.Fatalf("back %v %v", back, err)
	}
}

type Point struct {
	First int8 `xbf:"first"`
	Last  int8 `xbf:"last"`
}

type pointNamed = Point

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestMarshalRoundTrip(t *testing.T) {
	s := 2.5
	in := record{ID: 7, Name: "x", Tags: []string{"a", "b"}, Score: &s, Skip: 9, Counts: map[string]int32{"z": -1, "a": 3},
		When: time.UnixMicro(1546387200000000).UTC(), Day: 17898, Big: big.NewInt(12345), Bytes: []byte{1, 2},
		Pair: [2]uint16{1, 65535}, Any: uint8(3)}
	b, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out record
	if err := Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	in.Skip = 0
	if out.Any.(Value).Uint != 3 {
		t.Fatalf("any: %#v", out.Any)
	}
	out.Any, in.Any = nil, nil
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("\n in %#v\nout %#v", in, out)
	}
	// The dynamic decoder reads it too.
	if _, err := Decode(b); err != nil {
		t.Fatal(err)
	}
}

type wide struct {
	A uint32 `xbf:"a"`
	B string `xbf:"b"`
	C []int  `xbf:"c"`
}

type narrow struct {
	C []int8 `xbf:"c"`
	A uint16 `xbf:"a"`
	D string `xbf:"d,default"` // the data lacks it: left as it is
}

func TestReadByName(t *testing.T) {
	b, _ := Marshal([]wide{{A: 1, B: "x", C: []int{1, -2}}, {A: 70000, B: "y"}})
	var out []narrow
	err := Unmarshal(b, &out)
	var xe *Error
	if !errors.As(err, &xe) || xe.Kind != KindTypeMismatch || xe.Path != "[1].a" {
		t.Fatalf("want a type-mismatch at [1].a, got %v", err)
	}
	b, _ = Marshal([]wide{{A: 1, B: "x", C: []int{1, -2}}, {A: 7, B: "y"}})
	if err := Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	want := []narrow{{C: []int8{1, -2}, A: 1}, {C: []int8{}, A: 7}}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("%#v", out)
	}
}

func TestUnmarshalV1AndJSONOptional(t *testing.T) {
	v1, _ := EncOptions{Version: 1}.EncMode()
	b, err := v1.Marshal([]wide{{A: 1, B: "x", C: []int{5}}})
	if err != nil || b[0] != byte(Vec) {
		t.Fatalf("%x %v", b, err)
	}
	var out []wide
	if err := Unmarshal(b, &out); err != nil || !reflect.DeepEqual(out, []wide{{A: 1, B: "x", C: []int{5}}}) {
		t.Fatalf("%v %v", out, err)
	}
	// [{"id":1,"tag":"a"},{"id":2,"tag":null,"x":1.5}] as `xbf from-json` writes it (SPEC 19.1).
	doc := mustHex(t, "c2001112064f626a65637403026964040374616714100178180d6a736f6e2e6f7074696f6e616c0206616273656e741307707265"+
		"73656e740e020101016100020001000000000000f83f")
	type obj struct {
		ID  uint8    `xbf:"id"`
		Tag *string  `xbf:"tag"`
		X   *float64 `xbf:"x"`
	}
	var objs []obj
	if err := Unmarshal(doc, &objs); err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || *objs[0].Tag != "a" || objs[0].X != nil || objs[1].Tag != nil || *objs[1].X != 1.5 {
		t.Fatalf("%+v", objs)
	}
}

func TestUnmarshalTuplesAndDates(t *testing.T) {
	tup := TupleOf(Prim(U8), Prim(String), Prim(Bool))
	v := Value{Type: tup, Items: []Value{UintValue(U8, 7), StringValue("hi"), BoolValue(true)}}
	b, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		N uint8
		S string
		B bool
	}
	if err := Unmarshal(b, &s); err != nil || s.N != 7 || s.S != "hi" || !s.B {
		t.Fatalf("%+v %v", s, err)
	}
	var arr [2]any
	if err := Unmarshal(b, &arr); err != nil || arr[1].(Value).Str != "hi" {
		t.Fatalf("%v %v", arr, err)
	}
	var day time.Time
	if err := Unmarshal(mustHex(t, "c2001ad49702"), &day); err != nil || day.Format("2006-01-02") != "2019-01-02" {
		t.Fatalf("%v %v", day, err)
	}
}
