package xbf

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// The Rust CLI (cargo build -p xbf-cli): XBF_CLI, or target/debug/xbf.
func rustCLI(t *testing.T) string {
	path := os.Getenv("XBF_CLI")
	if path == "" {
		path = filepath.Join("..", "target", "debug", "xbf")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("cross-language checks skipped: no Rust CLI at %s (run `cargo build -p xbf-cli`, or set XBF_CLI)", path)
	}
	abs, _ := filepath.Abs(path)
	return abs
}

func run(t *testing.T, cli string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("xbf %v: %v: %s", args, err, errb.String())
	}
	return out.Bytes()
}

var crossDocs = []string{
	`[{"id":1,"tag":"a"},{"id":2,"tag":null,"x":1.5}]`,
	`{"name":"x","list":[1,-2,3],"big":340282366920938463463374607431768211457,"f":[0.1,2.5,1e300],"nested":{"a":[[]],"b":true}}`,
	`[1,"a",null,2.5,[1],{"k":"v"}]`,
	`[{"a":1,"b":2},{"b":3,"a":4}]`,
}

// Go reads what `xbf from-json` writes, in rows and columns, writes the
// same bytes back, and the Rust CLI reads what Go writes.
func TestCrossLanguage(t *testing.T) {
	cli := rustCLI(t)
	docs := [][]byte{}
	for _, d := range crossDocs {
		docs = append(docs, []byte(d))
	}
	for _, name := range []string{"flights-2k.json", "movies.json", "earthquakes.json"} {
		if b, err := os.ReadFile(filepath.Join("..", "target", "data", "vega-datasets", name)); err == nil {
			docs = append(docs, b)
		}
	}
	cols, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	zst, _ := EncOptions{Layout: LayoutColumns, ZstdLevel: 19}.EncMode()
	auto, _ := EncOptions{Layout: LayoutAuto}.EncMode()
	for i, doc := range docs {
		rows := run(t, cli, doc, "from-json", "--layout", "rows")
		want := run(t, cli, rows, "to-json")
		v, err := Decode(rows)
		if err != nil {
			t.Fatalf("doc %d: Go cannot read Rust's rows: %v", i, err)
		}
		if b, _ := Encode(v); !bytes.Equal(b, rows) {
			t.Errorf("doc %d: Go writes other rows than Rust", i)
		}
		colBytes := run(t, cli, doc, "from-json", "--layout", "columns")
		cv, err := Decode(colBytes)
		if err != nil || !Same(cv, v) {
			t.Fatalf("doc %d: Go reads Rust's columns as another value: %v", i, err)
		}
		if b, _ := cols.Encode(v); !bytes.Equal(b, colBytes) {
			t.Errorf("doc %d: Go writes other columns than Rust (%d bytes against %d)", i, len(b), len(colBytes))
		}
		if b, _ := auto.Encode(v); !bytes.Equal(b, run(t, cli, doc, "from-json")) {
			t.Errorf("doc %d: Go's LayoutAuto picks or writes otherwise than Rust's default", i)
		}
		zv, err := Decode(run(t, cli, doc, "from-json", "--layout", "columns", "--zstd", "19"))
		if err != nil || !Same(zv, v) {
			t.Fatalf("doc %d: Go reads Rust's zstd columns as another value: %v", i, err)
		}
		for _, m := range []EncMode{cols, zst, auto} {
			b, err := m.Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := run(t, cli, b, "to-json"); !bytes.Equal(got, want) {
				t.Errorf("doc %d: Rust reads Go's %v message as other JSON", i, m.o)
			}
		}
	}
}

type crossFlight struct {
	Date        string `json:"date" xbf:"date"`
	Delay       int    `json:"delay" xbf:"delay"`
	Distance    int    `json:"distance" xbf:"distance"`
	Origin      string `json:"origin" xbf:"origin"`
	Destination string `json:"destination" xbf:"destination"`
}

// What Marshal writes, the Rust CLI reads back as the same records; what
// Rust writes from JSON, Unmarshal reads into the structs.
func TestCrossLanguageMarshal(t *testing.T) {
	cli := rustCLI(t)
	data, err := os.ReadFile(filepath.Join("..", "target", "data", "vega-datasets", "flights-2k.json"))
	if err != nil {
		data = []byte(`[{"date":"2001/01/14 21:55","delay":0,"distance":480,"origin":"SAN","destination":"SMF"},
			{"date":"2001/03/26 20:15","delay":-11,"distance":507,"origin":"PHX","destination":"SLC"}]`)
	}
	var want []crossFlight
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got []crossFlight
	if err := json.Unmarshal(run(t, cli, b, "to-json"), &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Rust reads Marshal's bytes as other records: %v", err)
	}
	for _, layout := range []string{"rows", "columns"} {
		var back []crossFlight
		if err := Unmarshal(run(t, cli, data, "from-json", "--layout", layout), &back); err != nil || !reflect.DeepEqual(back, want) {
			t.Fatalf("%s: Unmarshal of Rust's bytes: %v", layout, err)
		}
	}
}
