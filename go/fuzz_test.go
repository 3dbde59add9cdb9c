package xbf

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// vectorHexes are the hex inputs of every vector file, the fuzzers' seeds.
func vectorHexes(tb testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join("..", "vectors", "*.json"))
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var vs []struct {
			Hex string `json:"hex"`
		}
		if err := json.Unmarshal(data, &vs); err != nil {
			tb.Fatal(err)
		}
		for _, v := range vs {
			if b, err := hex.DecodeString(v.Hex); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

// checkErr fails on anything but an *Error of a decoding kind (an
// `internal` error means the last-resort recover caught a bug).
func checkErr(t *testing.T, err error) {
	if err == nil {
		return
	}
	var xe *Error
	if !errors.As(err, &xe) || xe.Kind == KindInternal {
		t.Fatalf("not a decoding error: %v", err)
	}
}

// FuzzDecode: hostile bytes never panic; what decodes re-encodes (in the
// layout it came in) and decodes to the same value.
func FuzzDecode(f *testing.F) {
	for _, b := range vectorHexes(f) {
		f.Add(b)
	}
	cols, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		checkErr(t, err)
		if err != nil {
			return
		}
		m := defaultEnc
		if len(data) > 1 && data[0] == 0xc2 && data[1]&flagColumnar != 0 {
			m = cols
		} else if data[0] <= byte(Struct) {
			m, _ = EncOptions{Version: 1}.EncMode()
		}
		b, err := m.Encode(v)
		if err != nil {
			t.Fatalf("decoded %s but cannot encode it: %v", v.Type, err)
		}
		back, err := Decode(b)
		if err != nil || !Same(back, v) {
			t.Fatalf("re-encoded value does not come back: %v", err)
		}
		if s, err := NewStreamReader(data); err == nil {
			for {
				if _, err := s.Next(); err != nil {
					break
				}
			}
		}
	})
}

type fuzzTarget struct {
	First  int8              `xbf:"first"`
	Last   int64             `xbf:"last"`
	Name   string            `xbf:"name"`
	List   []uint16          `xbf:"list"`
	Opt    *float64          `xbf:"opt"`
	Map    map[string]string `xbf:"env"`
	Nested *fuzzTarget       `xbf:"-"`
	Any    any               `xbf:"any"`
}

// An enum (SPEC 18.7's Shape, by name) and embedded structs as targets.
type fuzzShape struct {
	OneOf
	Empty  *struct{}
	Circle *float64
	Rect   *struct {
		W uint16 `xbf:"w"`
		H uint16 `xbf:"h"`
	}
	Point *fuzzTarget `xbf:"Point"`
}

type fuzzEmbedding struct {
	*fuzzTarget
	Shape fuzzShape `xbf:"shape,default"`
}

// FuzzUnmarshal: hostile bytes never panic, into typed targets.
func FuzzUnmarshal(f *testing.F) {
	for _, b := range vectorHexes(f) {
		f.Add(b)
	}
	good, _ := Marshal([]fuzzTarget{{First: 1, Name: "x", List: []uint16{1, 2}, Map: map[string]string{"a": "b"}}})
	f.Add(good)
	r := 2.5
	shapes, _ := Marshal([]fuzzShape{{Circle: &r}, {Empty: &struct{}{}}, {Point: &fuzzTarget{Name: "p"}}})
	f.Add(shapes)
	emb, _ := Marshal(fuzzEmbedding{fuzzTarget: &fuzzTarget{Name: "e"}, Shape: fuzzShape{Circle: &r}})
	f.Add(emb)
	f.Fuzz(func(t *testing.T, data []byte) {
		var a []fuzzTarget
		checkErr(t, Unmarshal(data, &a))
		var b fuzzTarget
		checkErr(t, Unmarshal(data, &b))
		var c any
		checkErr(t, Unmarshal(data, &c))
		var d map[string]any
		checkErr(t, Unmarshal(data, &d))
		var e [2]int
		checkErr(t, Unmarshal(data, &e))
		var g []fuzzShape
		checkErr(t, Unmarshal(data, &g))
		var h fuzzEmbedding
		checkErr(t, Unmarshal(data, &h))
	})
}

// FuzzFile: hostile XBF files never panic, read forward or from the end
// (every block, then with a projection and a filter); both readers yield
// the same records where both read the whole file.
func FuzzFile(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "vectors", "files", "files.json"))
	if err != nil {
		f.Fatal(err)
	}
	var vs []struct {
		Hex string `json:"hex"`
	}
	if err := json.Unmarshal(data, &vs); err != nil {
		f.Fatal(err)
	}
	for _, v := range vs {
		if b, err := hex.DecodeString(v.Hex); err == nil {
			f.Add(b)
		}
	}
	// A budget of 2^20 bytes (about 21,000 values a block) keeps each run
	// short; the default budget allows blocks of 22 million values.
	m, _ := DecOptions{MaxDecodedBytes: 1 << 20}.DecMode()
	f.Fuzz(func(t *testing.T, data []byte) {
		fwd, ferr := readForward(m, data, ReadOptions{})
		checkErr(t, ferr)
		r, err := m.OpenFile(bytes.NewReader(data), int64(len(data)))
		checkErr(t, err)
		if err != nil {
			return
		}
		var end []Value
		var eerr error
		for v, err := range r.Records(ReadOptions{}) {
			if err != nil {
				eerr = err
				break
			}
			end = append(end, v)
		}
		checkErr(t, eerr)
		if ferr == nil && eerr == nil {
			if len(fwd) != len(end) {
				t.Fatalf("forward %d records, from the end %d", len(fwd), len(end))
			}
			for i := range fwd {
				if !Same(fwd[i], end[i]) {
					t.Fatalf("record %d differs", i)
				}
			}
		}
		if r.Type().Kind == Struct && len(r.Type().Fields) > 0 {
			name := r.Type().Fields[0].Name
			for range r.Records(ReadOptions{Fields: []string{name}, Where: name + " != 0", SkipDamaged: true}) {
			}
		}
	})
}
