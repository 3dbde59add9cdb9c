package xbf

import (
	"errors"
	"math/big"
	"strings"
	"testing"
)

// celsius writes itself as an i16 of tenths of a degree.
type celsius float64

func (c celsius) XBFType() *Type { return Prim(I16) }
func (c celsius) MarshalXBF() (Value, error) {
	return IntValue(I16, int64(float64(c)*10)), nil
}
func (c *celsius) UnmarshalXBF(v Value) error {
	if v.Type.Kind != I16 {
		return errors.New("not an i16")
	}
	*c = celsius(float64(v.Int) / 10)
	return nil
}

// ip writes itself through encoding.BinaryMarshaler, as bytes.
type ip [4]byte

func (a ip) MarshalBinary() ([]byte, error) { return a[:], nil }
func (a *ip) UnmarshalBinary(b []byte) error {
	if len(b) != 4 {
		return errors.New("not 4 bytes")
	}
	copy(a[:], b)
	return nil
}

type reading struct {
	Temp celsius
	From ip
	Big  big.Int `xbf:"big,i256"`
}

func TestHooks(t *testing.T) {
	typ, err := TypeOf(reading{})
	if err != nil || typ.String() != "struct reading { Temp: i16, From: bytes, big: i256 }" {
		t.Fatalf("%v %v", typ, err)
	}
	in := reading{Temp: 21.5, From: ip{10, 0, 0, 1}}
	in.Big.SetInt64(-7)
	b, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out reading
	if err := Unmarshal(b, &out); err != nil || out.Temp != 21.5 || out.From != in.From || out.Big.Int64() != -7 {
		t.Fatalf("%+v %v", out, err)
	}
}

type node struct {
	Name string
	Kids []node
}

func TestMarshalRefusals(t *testing.T) {
	if _, err := Marshal(node{}); err == nil || err.(*Error).Kind != KindUnsupported {
		t.Errorf("a recursive type: %v", err)
	}
	if _, err := Marshal(struct{ S string }{"\xff"}); err == nil || err.(*Error).Kind != KindInvalidUTF8 {
		t.Errorf("a string that is not UTF-8: %v", err)
	}
	huge := new(big.Int).Lsh(big.NewInt(1), 200)
	if _, err := Marshal(struct {
		X *big.Int `xbf:"x,u128"`
	}{huge}); err == nil || err.(*Error).Kind != KindTypeMismatch {
		t.Errorf("2^200 as a u128: %v", err)
	}
	if _, err := Marshal(make(chan int)); err == nil {
		t.Error("a channel was written")
	}
	var out struct{ A int }
	if err := Unmarshal([]byte{0xc2, 0x00, 0x10, 0x01, 0x61}, &out); err == nil || !strings.Contains(err.Error(), "type-mismatch") {
		t.Errorf("a string into a struct: %v", err)
	}
	if err := Unmarshal([]byte{0x02, 0x00, 0x04}, out); err == nil {
		t.Error("Unmarshal into a non-pointer")
	}
}

func TestOmitempty(t *testing.T) {
	type opt struct {
		A string `xbf:"a,omitempty"`
		B []int  `xbf:"b,omitempty"`
		C int    `xbf:"c"`
	}
	typ, _ := TypeOf(opt{})
	if typ.String() != "struct opt { a: option<string>, b: option<vec<i64>>, c: i64 }" {
		t.Fatal(typ)
	}
	b, _ := Marshal(opt{C: 3})
	v, _ := Decode(b)
	if len(v.Items[0].Items) != 0 || len(v.Items[1].Items) != 0 {
		t.Fatal("empty fields were written as present")
	}
	var out opt
	if err := Unmarshal(b, &out); err != nil || out.C != 3 || out.A != "" {
		t.Fatalf("%+v %v", out, err)
	}
}

// A vec of 100,000 one-byte elements read into elements of 64 KiB: the
// slice grows as elements decode instead of taking 6.5 GB up front, and
// the first element's type-mismatch ends it.
func TestUnmarshalDoesNotPreallocateOnTheInputsWord(t *testing.T) {
	data := append([]byte{0xc2, 0x00, 0x11, 0x01, 0xa0, 0x8d, 0x06}, make([]byte, 100000)...)
	var out [][65536]byte
	err := Unmarshal(data, &out)
	if err == nil || err.(*Error).Kind != KindTypeMismatch || err.(*Error).Path != "[0]" {
		t.Fatalf("%v", err)
	}
	var ok []uint8
	if err := Unmarshal(data, &ok); err != nil || len(ok) != 100000 {
		t.Fatalf("%d %v", len(ok), err)
	}
}
