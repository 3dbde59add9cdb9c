package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeLines(t *testing.T) {
	in := "c200028008\n020004\nc20014\nzz\n120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072a\n"
	var out bytes.Buffer
	if rc := decodeLines(strings.NewReader(in), &out); rc != 0 {
		t.Fatalf("exit %d", rc)
	}
	want := []string{
		`{"ok":true,"type":"u16","value":1024}`,
		`{"ok":true,"type":"u16","value":1024}`,
		`{"kind":"truncated","offset":3,"ok":false,"path":""}`,
		`{"kind":"bad-input","ok":false}`,
		`{"kind":"truncated","offset":44,"ok":false,"path":"Point.last"}`,
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines: %q", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// Every vector file passes, as `go run ./cmd/xbfcheck ../vectors/*.json` checks.
func TestVectorFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "vectors", "*.json"))
	if len(files) == 0 {
		t.Fatal("no vector files found")
	}
	n := 0
	for _, f := range files {
		vs, err := load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if _, err := run(v); err != nil {
				t.Errorf("%s: %v: %v", f, v["name"], err)
			}
			n++
		}
	}
	t.Logf("%d vectors", n)
}

func TestBatchProtocol(t *testing.T) {
	in := "m c200180553686170650305456d7074791306436972636c650e0452656374120453697a650201770201680201000000000000f83f\n" +
		"m c2000e010000000000f87f\n" +
		"m c200120143020162010161010201\n" +
		"s c2041205506f696e740205666972737407046c617374070502010203ff0301807f\n" +
		"s c2041205506f696e740205666972737407046c6173740705020102\n" +
		"s c3\n"
	var out bytes.Buffer
	if rc := batch(strings.NewReader(in), &out); rc != 0 {
		t.Fatalf("exit %d", rc)
	}
	want := []string{
		`{"type":{"enum":"Shape","variants":[["Empty","unit"],["Circle","f64"],["Rect",{"struct":"Size","fields":[["w","u16"],["h","u16"]]}]]},"value":{"variant":"Circle","value":1.5}}`,
		`{"type":"f64","value":"NaN:7ff8000000000001"}`,
		`{"type":{"struct":"C","fields":[["b","u8"],["a","u8"]]},"value":{"b":2,"a":1}}`,
		`{"type":{"struct":"Point","fields":[["first","i8"],["last","i8"]]},"records":[{"first":1,"last":2},{"first":3,"last":-1},{"first":-128,"last":127}],"error":null}`,
		`{"type":{"struct":"Point","fields":[["first","i8"],["last","i8"]]},"records":[{"first":1,"last":2}],"error":{"kind":"truncated","offset":27,"path":"#1.first"}}`,
		`{"type":null,"records":[],"error":{"kind":"unsupported","offset":0,"path":""}}`,
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[min(i, len(got)-1)], want[i])
		}
	}
}
