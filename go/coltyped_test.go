package xbf

import (
	"errors"
	"math/rand"
	"reflect"
	"testing"
)

type colRec struct {
	Name  string  `xbf:"name"`
	Small int8    `xbf:"small"`
	Count uint16  `xbf:"count"`
	Delta int     `xbf:"delta"`
	Ratio float64 `xbf:"ratio"`
	Half  float32 `xbf:"half"`
	Ok    bool    `xbf:"ok"`
	Fixed uint32  `xbf:"fixed,default"`
}

// What colRec's readers meet: wider integers than the Go fields (values
// that may not fit), an extra field, and no "fixed" column.
type colWire struct {
	Name  string   `xbf:"name"`
	Small int64    `xbf:"small"`
	Count int32    `xbf:"count"`
	Extra []string `xbf:"extra"`
	Delta int64    `xbf:"delta"`
	Ratio float64  `xbf:"ratio"`
	Half  float64  `xbf:"half"`
	Ok    bool     `xbf:"ok"`
}

// The typed column reader gives what the dynamic path gives: the same
// records, or the same error kind, offset and path, on columns that are
// valid, that overflow the Go fields, and that are mutated at random.
func TestTypedColumnsAgreeWithDynamic(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	enc, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	zenc, _ := EncOptions{Layout: LayoutColumns, ZstdLevel: 3}.EncMode()
	var seeds [][]byte
	for _, n := range []int{0, 1, 5, 200} {
		for _, big := range []bool{false, true} {
			recs := make([]colWire, n)
			for i := range recs {
				recs[i] = colWire{Name: []string{"Paris", "Parisian", "Lyon"}[i%3], Small: int64(i%50 - 25),
					Count: int32(i * 3), Delta: int64(i * 1000), Ratio: float64(i) / 3, Half: float64(i) / 2,
					Ok: i%3 == 0, Extra: []string{"x", "yy"}[:i%2]}
				if big && i == n/2 {
					recs[i].Small = 300
					recs[n-1].Count = -1
				}
			}
			for _, m := range []EncMode{enc, zenc} {
				b, err := m.Marshal(recs)
				if err != nil {
					t.Fatal(err)
				}
				seeds = append(seeds, b)
			}
		}
	}
	if wt, err := TypeOf([]colWire{}); err != nil {
		t.Fatal(err)
	} else if _, ok := colPlanFor(wt, reflect.TypeOf([]colRec{})); !ok {
		t.Fatal("no typed plan for colRec")
	}
	budgets := []uint64{0, 500, 5000, 20000}
	for k := 0; k < 6000; k++ {
		in := append([]byte(nil), seeds[rng.Intn(len(seeds))]...)
		if k >= len(seeds) && len(in) > 0 {
			for j := rng.Intn(3) + 1; j > 0; j-- {
				in[rng.Intn(len(in))] = byte(rng.Intn(256))
			}
		}
		m, _ := DecOptions{MaxDecodedBytes: budgets[rng.Intn(len(budgets))]}.DecMode()
		var typed, dyn []colRec
		terr := m.Unmarshal(in, &typed)
		noTypedColumns = true
		derr := m.Unmarshal(in, &dyn)
		noTypedColumns = false
		var te, de *Error
		switch {
		case terr == nil && derr == nil:
			if !reflect.DeepEqual(typed, dyn) && !(len(typed) == 0 && len(dyn) == 0) {
				t.Fatalf("%x: typed %v, dynamic %v", in, typed, dyn)
			}
		case errors.As(terr, &te) && errors.As(derr, &de):
			if te.Kind != de.Kind || te.Offset != de.Offset || te.Path != de.Path {
				t.Fatalf("%x: typed %v, dynamic %v", in, terr, derr)
			}
		default:
			t.Fatalf("%x: typed %v, dynamic %v", in, terr, derr)
		}
	}
}

// The typed column writer writes the bytes the dynamic path writes, with
// and without zstd and schemas by reference, and leaves what it cannot
// write (a string that is not UTF-8) to the dynamic path's error.
func TestTypedColumnsWriteTheSameBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	type named string
	if _, ok := colEncPlanFor(mustType(t, []colWire{}), reflect.TypeOf([]colWire{})); ok {
		t.Fatal("a struct with a []string field took the typed writer")
	}
	type flat struct {
		Name  string  `xbf:"name"`
		Small int8    `xbf:"small"`
		Count uint16  `xbf:"count"`
		Delta int     `xbf:"delta"`
		Ratio float64 `xbf:"ratio"`
		Half  float32 `xbf:"half"`
		Ok    bool    `xbf:"ok"`
		Label named   `xbf:"label"`
		Skip  int     `xbf:"-"`
		Big   uint64  `xbf:"big"`
		Neg   int32   `xbf:"neg"`
	}
	if _, ok := colEncPlanFor(mustType(t, []flat{}), reflect.TypeOf([]flat{})); !ok {
		t.Fatal("no typed writer for a flat struct")
	}
	words := []string{"Paris", "Parisian", "Lyon", "", "Ünïcödé"}
	for _, n := range []int{0, 1, 2, 17, 300, 5000} {
		recs := make([]flat, n)
		for i := range recs {
			recs[i] = flat{Name: words[rng.Intn(len(words))], Small: int8(rng.Intn(256) - 128), Count: uint16(rng.Intn(1 << 16)),
				Delta: i * 1000, Ratio: float64(rng.Intn(1000)) / 100, Half: rng.Float32(), Ok: rng.Intn(2) == 0,
				Label: named(words[i%2]), Big: rng.Uint64(), Neg: -int32(i)}
		}
		for _, o := range []EncOptions{{Layout: LayoutColumns}, {Layout: LayoutColumns, ZstdLevel: 3},
			{Layout: LayoutColumns, SchemaByReference: true}} {
			m, _ := o.EncMode()
			typed, err := m.Marshal(recs)
			if err != nil {
				t.Fatal(err)
			}
			noTypedColumns = true
			dyn, err := m.Marshal(recs)
			noTypedColumns = false
			if err != nil {
				t.Fatal(err)
			}
			if string(typed) != string(dyn) {
				t.Fatalf("%d records, %+v: the typed writer's bytes differ", n, o)
			}
		}
	}
	bad := []flat{{Name: "ok"}, {Name: "\xff"}}
	m, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	_, terr := m.Marshal(bad)
	noTypedColumns = true
	_, derr := m.Marshal(bad)
	noTypedColumns = false
	if terr == nil || terr.Error() != derr.Error() {
		t.Fatalf("invalid UTF-8: typed %v, dynamic %v", terr, derr)
	}
}

func mustType(t *testing.T, v any) *Type {
	t.Helper()
	xt, err := TypeOf(v)
	if err != nil {
		t.Fatal(err)
	}
	return xt
}

// FuzzTypedColumns: on any input, the typed column reader and the dynamic
// path give the same records or the same error kind, offset and path.
func FuzzTypedColumns(f *testing.F) {
	enc, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	zenc, _ := EncOptions{Layout: LayoutColumns, ZstdLevel: 3}.EncMode()
	recs := []colWire{{Name: "a", Small: 3, Count: 7, Extra: []string{"x"}, Delta: -5, Ratio: 0.5, Half: 2, Ok: true},
		{Name: "bb", Small: 300, Count: -1, Delta: 1 << 40, Ratio: 1e300, Half: 1e-3}}
	for _, m := range []EncMode{enc, zenc} {
		for n := 0; n <= len(recs); n++ {
			b, _ := m.Marshal(recs[:n])
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var typed, dyn []colRec
		terr := Unmarshal(data, &typed)
		noTypedColumns = true
		derr := Unmarshal(data, &dyn)
		noTypedColumns = false
		checkErr(t, terr)
		var te, de *Error
		switch {
		case terr == nil && derr == nil:
			if len(typed) != len(dyn) {
				t.Fatalf("typed %d records, dynamic %d", len(typed), len(dyn))
			}
			for i := range typed {
				a, b := typed[i], dyn[i]
				if a.Ratio != a.Ratio && b.Ratio != b.Ratio {
					a.Ratio, b.Ratio = 0, 0 // NaN
				}
				if a.Half != a.Half && b.Half != b.Half {
					a.Half, b.Half = 0, 0
				}
				if a != b {
					t.Fatalf("record %d: typed %+v, dynamic %+v", i, a, b)
				}
			}
		case errors.As(terr, &te) && errors.As(derr, &de):
			if te.Kind != de.Kind || te.Offset != de.Offset || te.Path != de.Path {
				t.Fatalf("typed %v, dynamic %v", terr, derr)
			}
		default:
			t.Fatalf("typed %v, dynamic %v", terr, derr)
		}
	})
}
