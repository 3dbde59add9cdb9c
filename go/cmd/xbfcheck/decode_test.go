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
