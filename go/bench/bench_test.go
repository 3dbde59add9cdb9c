package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/fxamacker/cbor/v2"
	gojson "github.com/goccy/go-json"
	"github.com/vmihailenco/msgpack/v5"
	xbf "github.com/xbf-format/xbf/go"
)

// The data: target/data/vega-datasets/flights-20k.json, fetched by
// scripts/fetch-data.sh. Benchmarks skip, saying so, without it.
func loadFlights(tb testing.TB, name string) Flights {
	tb.Helper()
	path := filepath.Join("..", "..", "target", "data", "vega-datasets", name)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("%s missing: run scripts/fetch-data.sh (%v)", path, err)
	}
	var fs Flights
	if err := json.Unmarshal(data, &fs); err != nil {
		tb.Fatal(err)
	}
	return fs
}

type codec struct {
	name      string
	marshal   func(Flights) ([]byte, error)
	unmarshal func([]byte, *Flights) error
}

// xbfColumns writes the columnar layout (SPEC 22); Marshal and Unmarshal
// go column by column between it and the struct fields.
var xbfColumns, _ = xbf.EncOptions{Layout: xbf.LayoutColumns}.EncMode()

var codecs = []codec{
	{"xbf", func(f Flights) ([]byte, error) { return xbf.Marshal(f) }, func(b []byte, f *Flights) error { return xbf.Unmarshal(b, f) }},
	{"xbf-columns", func(f Flights) ([]byte, error) { return xbfColumns.Marshal(f) }, func(b []byte, f *Flights) error { return xbf.Unmarshal(b, f) }},
	{"encoding-json", func(f Flights) ([]byte, error) { return json.Marshal(f) }, func(b []byte, f *Flights) error { return json.Unmarshal(b, f) }},
	{"goccy-go-json", func(f Flights) ([]byte, error) { return gojson.Marshal(f) }, func(b []byte, f *Flights) error { return gojson.Unmarshal(b, f) }},
	{"fxamacker-cbor", func(f Flights) ([]byte, error) { return cbor.Marshal(f) }, func(b []byte, f *Flights) error { return cbor.Unmarshal(b, f) }},
	{"vmihailenco-msgpack", func(f Flights) ([]byte, error) { return msgpack.Marshal(f) }, func(b []byte, f *Flights) error { return msgpack.Unmarshal(b, f) }},
	{"tinylib-msgp", func(f Flights) ([]byte, error) { return f.MarshalMsg(nil) }, func(b []byte, f *Flights) error { _, err := f.UnmarshalMsg(b); return err }},
}

// TestRoundTrips checks that every codec gives the records back, so that
// the benchmarks compare encoders that work.
func TestRoundTrips(t *testing.T) {
	fs := loadFlights(t, "flights-2k.json")
	for _, c := range codecs {
		b, err := c.marshal(fs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var back Flights
		if err := c.unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(back, fs) {
			t.Fatalf("%s: the records differ after a round trip", c.name)
		}
	}
}

func BenchmarkFlights20k(b *testing.B) {
	fs := loadFlights(b, "flights-20k.json")
	for _, c := range codecs {
		enc, err := c.marshal(fs)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("Marshal/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.marshal(fs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(enc)), "bytes")
		})
		b.Run("Unmarshal/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var out Flights
				if err := c.unmarshal(enc, &out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(enc)), "bytes")
		})
		runtime.GC()
	}
}
