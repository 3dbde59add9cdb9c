package xbf

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

func TestEncoderDecoderOverIO(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	cols, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	for i := 0; i < 50; i++ {
		if err := enc.Encode(Point{First: int8(i), Last: -1}); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := Decode(mustHex(t, "c2001205506f696e740205666972737407046c617374072afb"))
	if err := cols.NewEncoder(&buf).Encode(v); err != nil {
		t.Fatal(err)
	}
	// One byte at a time: every message is cut many times before it is whole.
	dec := NewDecoder(iotest.OneByteReader(bytes.NewReader(buf.Bytes())))
	for i := 0; i < 50; i++ {
		var p Point
		if err := dec.Decode(&p); err != nil || p != (Point{int8(i), -1}) {
			t.Fatalf("message %d: %v %v", i, p, err)
		}
	}
	var last Value
	if err := dec.Decode(&last); err != nil || !Same(last, v) {
		t.Fatalf("columnar message: %v", err)
	}
	if err := dec.Decode(&last); err != io.EOF {
		t.Fatalf("want io.EOF, got %v", err)
	}
	// A cut message is an error, not EOF.
	dec = NewDecoder(bytes.NewReader(buf.Bytes()[:10]))
	var p Point
	if err := dec.Decode(&p); err == nil || err == io.EOF {
		t.Fatalf("a cut message: %v", err)
	}
}
