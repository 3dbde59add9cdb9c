package bench

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"

	"github.com/fxamacker/cbor/v2"
	gojson "github.com/goccy/go-json"
	"github.com/tinylib/msgp/msgp"
	"github.com/vmihailenco/msgpack/v5"
	xbf "github.com/xbf-format/xbf/go"
)

// The data: target/data/vega-datasets/, fetched by scripts/fetch-data.sh.
// Tests and benchmarks skip, saying so, without it.
func readData(tb testing.TB, name string) []byte {
	tb.Helper()
	path := filepath.Join("..", "..", "target", "data", "vega-datasets", name)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("%s missing: run scripts/fetch-data.sh (%v)", path, err)
	}
	return data
}

func loadFlights(tb testing.TB, name string) Flights {
	tb.Helper()
	var fs Flights
	if err := json.Unmarshal(readData(tb, name), &fs); err != nil {
		tb.Fatal(err)
	}
	return fs
}

// loadMovies reads movies.json, whose keys have spaces and whose titles
// are sometimes numbers (1776, 2012): those become their decimal text, as
// in the Rust benchmarks' reader.
func loadMovies(tb testing.TB) Movies {
	tb.Helper()
	var raw []struct {
		Title                any      `json:"Title"`
		USGross              *float64 `json:"US Gross"`
		WorldwideGross       *float64 `json:"Worldwide Gross"`
		USDVDSales           *float64 `json:"US DVD Sales"`
		ProductionBudget     *float64 `json:"Production Budget"`
		ReleaseDate          *string  `json:"Release Date"`
		MPAARating           *string  `json:"MPAA Rating"`
		RunningTimeMin       *float64 `json:"Running Time min"`
		Distributor          *string  `json:"Distributor"`
		Source               *string  `json:"Source"`
		MajorGenre           *string  `json:"Major Genre"`
		CreativeType         *string  `json:"Creative Type"`
		Director             *string  `json:"Director"`
		RottenTomatoesRating *float64 `json:"Rotten Tomatoes Rating"`
		IMDBRating           *float64 `json:"IMDB Rating"`
		IMDBVotes            *float64 `json:"IMDB Votes"`
	}
	if err := json.Unmarshal(readData(tb, "movies.json"), &raw); err != nil {
		tb.Fatal(err)
	}
	ms := make(Movies, len(raw))
	for i, r := range raw {
		var title *string
		switch t := r.Title.(type) {
		case nil:
		case string:
			title = &t
		case float64:
			s := strconv.FormatFloat(t, 'f', -1, 64)
			title = &s
		default:
			tb.Fatalf("movies.json record %d: title %T", i, t)
		}
		ms[i] = Movie{title, r.USGross, r.WorldwideGross, r.USDVDSales, r.ProductionBudget, r.ReleaseDate,
			r.MPAARating, r.RunningTimeMin, r.Distributor, r.Source, r.MajorGenre, r.CreativeType, r.Director,
			r.RottenTomatoesRating, r.IMDBRating, r.IMDBVotes}
	}
	return ms
}

func loadEarthquakes(tb testing.TB) FeatureCollection {
	tb.Helper()
	var fc FeatureCollection
	if err := json.Unmarshal(readData(tb, "earthquakes.json"), &fc); err != nil {
		tb.Fatal(err)
	}
	return fc
}

// loadQuotes reads sp500-2000.csv (header date,open,high,low,close,adjclose,volume).
func loadQuotes(tb testing.TB) Quotes {
	tb.Helper()
	path := filepath.Join("..", "..", "target", "data", "vega-datasets", "sp500-2000.csv")
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("%s missing: run scripts/fetch-data.sh (%v)", path, err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	qs := make(Quotes, 0, len(rows))
	for i, r := range rows[1:] {
		var x [5]float64
		for j := range x {
			if x[j], err = strconv.ParseFloat(r[j+1], 64); err != nil {
				tb.Fatalf("row %d: %v", i+1, err)
			}
		}
		vol, err := strconv.ParseInt(r[6], 10, 64)
		if err != nil {
			tb.Fatalf("row %d: %v", i+1, err)
		}
		qs = append(qs, Quote{r[0], x[0], x[1], x[2], x[3], x[4], vol})
	}
	return qs
}

type codec[T any] struct {
	name      string
	marshal   func(T) ([]byte, error)
	unmarshal func([]byte, *T) error
}

// xbfColumns writes the columnar layout (SPEC 22); Marshal and Unmarshal
// go column by column between it and the struct fields.
var xbfColumns, _ = xbf.EncOptions{Layout: xbf.LayoutColumns}.EncMode()

// codecsFor lists the encoders compared on records of type T; PT is *T,
// which has the code tinylib/msgp generated (go generate) for T.
func codecsFor[T any, PT interface {
	*T
	msgp.Marshaler
	msgp.Unmarshaler
}]() []codec[T] {
	return []codec[T]{
		{"xbf", func(v T) ([]byte, error) { return xbf.Marshal(v) }, func(b []byte, v *T) error { return xbf.Unmarshal(b, v) }},
		{"xbf-columns", func(v T) ([]byte, error) { return xbfColumns.Marshal(v) }, func(b []byte, v *T) error { return xbf.Unmarshal(b, v) }},
		{"encoding-json", func(v T) ([]byte, error) { return json.Marshal(v) }, func(b []byte, v *T) error { return json.Unmarshal(b, v) }},
		{"goccy-go-json", func(v T) ([]byte, error) { return gojson.Marshal(v) }, func(b []byte, v *T) error { return gojson.Unmarshal(b, v) }},
		{"fxamacker-cbor", func(v T) ([]byte, error) { return cbor.Marshal(v) }, func(b []byte, v *T) error { return cbor.Unmarshal(b, v) }},
		{"vmihailenco-msgpack", func(v T) ([]byte, error) { return msgpack.Marshal(v) }, func(b []byte, v *T) error { return msgpack.Unmarshal(b, v) }},
		{"tinylib-msgp", func(v T) ([]byte, error) { return PT(&v).MarshalMsg(nil) }, func(b []byte, v *T) error { _, err := PT(v).UnmarshalMsg(b); return err }},
	}
}

// roundTrips checks that every codec gives the records back, so that the
// benchmarks compare encoders that work.
func roundTrips[T any](t *testing.T, records T, codecs []codec[T]) {
	t.Helper()
	for _, c := range codecs {
		b, err := c.marshal(records)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var back T
		if err := c.unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(back, records) {
			t.Fatalf("%s: the records differ after a round trip", c.name)
		}
	}
}

func TestRoundTrips(t *testing.T) {
	t.Run("flights-2k", func(t *testing.T) { roundTrips(t, loadFlights(t, "flights-2k.json"), codecsFor[Flights]()) })
	t.Run("movies", func(t *testing.T) { roundTrips(t, loadMovies(t), codecsFor[Movies]()) })
	t.Run("earthquakes", func(t *testing.T) { roundTrips(t, loadEarthquakes(t), codecsFor[FeatureCollection]()) })
	t.Run("sp500-2000", func(t *testing.T) { roundTrips(t, loadQuotes(t), codecsFor[Quotes]()) })
}

// TestDatasetsHaveNulls keeps the optional-field datasets what they are
// meant to measure: records with some fields absent (nil) and some set.
func TestDatasetsHaveNulls(t *testing.T) {
	ms := loadMovies(t)
	nilDirectors, numericTitles := 0, 0
	for _, m := range ms {
		if m.Director == nil {
			nilDirectors++
		}
		if m.Title != nil && *m.Title == "1776" {
			numericTitles++
		}
	}
	if len(ms) != 3201 || nilDirectors == 0 || nilDirectors == len(ms) || numericTitles != 1 {
		t.Fatalf("movies: %d records, %d without director, %d titled 1776", len(ms), nilDirectors, numericTitles)
	}
	fc := loadEarthquakes(t)
	nilFelt := 0
	for _, f := range fc.Features {
		if f.Properties.Felt == nil {
			nilFelt++
		}
	}
	if len(fc.Features) != 1707 || nilFelt == 0 || nilFelt == len(fc.Features) {
		t.Fatalf("earthquakes: %d features, %d without felt", len(fc.Features), nilFelt)
	}
}

// benchCodecs runs Marshal and Unmarshal of records for every codec,
// reporting the encoded size as the "bytes" metric.
func benchCodecs[T any](b *testing.B, records T, codecs []codec[T]) {
	for _, c := range codecs {
		enc, err := c.marshal(records)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("Marshal/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.marshal(records); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(enc)), "bytes")
		})
		b.Run("Unmarshal/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var out T
				if err := c.unmarshal(enc, &out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(enc)), "bytes")
		})
		runtime.GC()
	}
}

func BenchmarkFlights20k(b *testing.B) {
	benchCodecs(b, loadFlights(b, "flights-20k.json"), codecsFor[Flights]())
}

func BenchmarkMovies(b *testing.B) { benchCodecs(b, loadMovies(b), codecsFor[Movies]()) }

func BenchmarkEarthquakes(b *testing.B) {
	benchCodecs(b, loadEarthquakes(b), codecsFor[FeatureCollection]())
}

func BenchmarkSP500(b *testing.B) { benchCodecs(b, loadQuotes(b), codecsFor[Quotes]()) }
