package xbf

import (
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The error examples of SPEC 8.5 and 17.4: kind, offset and path.
func TestSpecErrorExamples(t *testing.T) {
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	cases := []struct {
		hex, want string
	}{
		{"", "at byte 0: truncated"},
		{"13", "at byte 0: unknown-discriminant"},
		{"02 00", "at byte 1: truncated"},
		{"02 00 04 00", "at byte 3: trailing-bytes"},
		{"00 02", "at byte 1: invalid-bool"},
		{"10 05 00 00 00 00 00 00 00 68 65", "at byte 1: truncated"},
		{"10 02 00 00 00 00 00 00 00 c3 28", "at byte 1: invalid-utf8"},
		{"120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072a", "at byte 44, in Point.last: truncated"},
		{"11 10 01 00 00 00 00 00 00 00 05 00 00 00 00 00 00 00 68 69", "at byte 10, in [0]: truncated"},
		{"11 02 01 00 00 00 00 00 00 00 2a", "at byte 2: truncated"},
		{"11 03 03 00 00 00 00 00 00 00" + rep("00", 8), "at byte 2: truncated"},
		{"11 11 13", "at byte 2, in [][]: unknown-discriminant"},
		{"12 01 00 00 00 00 00 00 00 53 02 00 01 00 00 00 00 00 00 00 61 01 01 00 00 00 00 00 00 00 61 01", "at byte 22, in S: duplicate-field"},
		{"11 120100000000000000450000 56 55 55 01 00 00 00 00", "at byte 13: too-large"},
		{rep("11", 129) + "00", "at byte 128, in " + rep("[]", 128) + ": too-deep"},
		{"c2", "at byte 1: truncated"},
		{"c3 00 13", "at byte 0: unsupported"},
		{"c2 10 13", "at byte 1: unsupported"},
		{"c2 08 13", "at byte 1: unsupported"},
		{"c2 04 13", "at byte 1: unsupported"},
		{"c2 00 24", "at byte 2: unknown-discriminant"},
		{"c2 00 02 80", "at byte 3: truncated"},
		{"c2 00 02 80 00", "at byte 3: invalid-varint"},
		{"c2 00 02 80 80 04", "at byte 3: invalid-varint"},
		{"c2 00 14 01 02", "at byte 4: invalid-bool"},
		{"c2 00 18 01 45 02 01 61 13 01 62 13 02", "at byte 12, in E: unknown-variant"},
		{"c2 00 12 01 53 02 01 61 01 01 61 24", "at byte 9, in S: duplicate-field"},
		{"c2 00 12 01 43 01 03 65 6e 76 17 10 10 02 01 61 01 78 01 61 01 79", "at byte 18, in C.env[1].key: duplicate-key"},
		{"c2 00 15 03 0d 00 00 80 3f 00 00 00 40", "at byte 5: truncated"},
		{"c2 00 11 13 d6 aa d5 0a", "at byte 4: too-large"},
		{"c2 00 19 24", "at byte 3: unknown-discriminant"},
		{"c2 01 39 55 9c 68 c0 fb a9 ac 2a fb", "at byte 2: unknown-schema"},
		{"c2 00" + rep("14", 129) + "00 00", "at byte 130: too-deep"},
		{"c2 00" + rep("14", 127) + "19" + rep("01", 127) + "11 01 00", "at byte 257: too-deep"},
	}
	for _, c := range cases {
		_, err := Decode(mustHex(t, c.hex))
		var xe *Error
		if !errors.As(err, &xe) {
			t.Errorf("%s: got %v, want %s", c.hex, err, c.want)
			continue
		}
		got := xe.Error()
		if i := strings.Index(got, xe.Kind); i >= 0 {
			got = got[:i+len(xe.Kind)]
		}
		if got != c.want {
			t.Errorf("%.40s: got %q, want %q", c.hex, got, c.want)
		}
	}
}

// SPEC 18.10's cut and damaged streams: records yielded, then the error.
func TestSpecStreamExamples(t *testing.T) {
	plain := mustHex(t, "c2041205506f696e740205666972737407046c617374070502010203ff0301807f")
	sums := mustHex(t, "c20c1205506f696e740205666972737407046c617374070502010203ff10aae03e0301807fd4a36d11")
	damage := func(b []byte, at int, to byte) []byte {
		c := append([]byte(nil), b...)
		c[at] = to
		return c
	}
	cases := []struct {
		in      []byte
		records int
		want    string
	}{
		{plain[:23], 0, ""},
		{sums[:23], 0, ""},
		{plain[:29], 2, ""},
		{sums[:33], 2, ""},
		{plain[:32], 2, "at byte 32, in #2.last: truncated"},
		{plain[:27], 1, "at byte 27, in #1.first: truncated"},
		{sums[:40], 2, "at byte 33: truncated"},
		{sums[:27], 0, "at byte 23: truncated"},
		{damage(sums, 35, 0x81), 2, "at byte 37: bad-checksum"},
		{damage(sums, 29, 0x11), 0, "at byte 29: bad-checksum"},
		{plain, 3, ""},
	}
	for i, c := range cases {
		s, err := NewStreamReader(c.in)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		n := 0
		var last error
		for {
			_, err := s.Next()
			if err != nil {
				last = err
				break
			}
			n++
		}
		got := ""
		if xe, ok := last.(*Error); ok {
			got = xe.Error()
		}
		if n != c.records || got != c.want {
			t.Errorf("case %d: %d records, %q; want %d, %q", i, n, got, c.records, c.want)
		}
	}
}

func TestFingerprintAndRegistry(t *testing.T) {
	pt, _ := StructOf("Point", []Field{{"first", Prim(I8)}, {"last", Prim(I8)}})
	if fp := pt.Fingerprint(); hex.EncodeToString(fp[:]) != "39559c68c0fba9ac" {
		t.Fatalf("fingerprint %x", fp)
	}
	reg, err := NewRegistry(pt)
	if err != nil {
		t.Fatal(err)
	}
	m, err := DecOptions{Registry: reg}.DecMode()
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.Decode(mustHex(t, "c201 39559c68c0fba9ac 2afb"))
	if err != nil || v.Items[0].Int != 42 || v.Items[1].Int != -5 {
		t.Fatalf("%v %v", v, err)
	}
	_, err = m.Decode(mustHex(t, "c201 39559c68c0fba9ac 2a"))
	if xe, ok := err.(*Error); !ok || xe.Error() != "at byte 11, in Point.last: truncated" {
		t.Fatalf("%v", err)
	}
	enc, _ := EncOptions{SchemaByReference: true}.EncMode()
	b, err := enc.Encode(v)
	if err != nil || hex.EncodeToString(b) != "c20139559c68c0fba9ac2afb" {
		t.Fatalf("%x %v", b, err)
	}
}

func TestOptionsAreValidated(t *testing.T) {
	invalid := func(what string, err error) {
		t.Helper()
		if e, ok := err.(*Error); !ok || e.Kind != KindInvalidOptions || e.Offset != -1 {
			t.Errorf("%s: %v, want invalid-options", what, err)
		}
	}
	_, err := (DecOptions{MaxDepth: -1}).DecMode()
	invalid("a negative depth", err)
	_, err = (DecOptions{MaxDepth: 1<<16 + 1}).DecMode()
	invalid("a depth past 65536", err)
	_, err = (EncOptions{Version: 3}).EncMode()
	invalid("version 3", err)
	_, err = (EncOptions{Version: 1, Layout: LayoutColumns}).EncMode()
	invalid("v1 columns", err)
	_, err = (EncOptions{Layout: LayoutAuto + 1}).EncMode()
	invalid("an unknown layout", err)
	_, err = (EncOptions{ZstdLevel: 23}).EncMode()
	invalid("zstd level 23", err)
	_, err = NewFileWriter(io.Discard, &Type{Kind: U8}, FileOptions{ZstdLevel: -1})
	invalid("a file's zstd level -1", err)
	m, _ := DecOptions{MaxDepth: 2}.DecMode()
	if _, err := m.Decode(mustHex(t, "c200 11 11 11 00")); err == nil || err.(*Error).Kind != KindTooDeep {
		t.Errorf("depth 3 under a limit of 2: %v", err)
	}
}

func TestLimitOptions(t *testing.T) {
	// Columns of eight u64 5s: 1 + 8 values, 48 bytes each, pass a budget of 432.
	cols := mustHex(t, "c202110402000803010500")
	if _, err := Decode(cols); err != nil {
		t.Fatal(err)
	}
	exact, _ := DecOptions{MaxDecodedBytes: 9 * 48}.DecMode()
	if _, err := exact.Decode(cols); err != nil {
		t.Fatalf("a budget of 432 bytes: %v", err)
	}
	small, _ := DecOptions{MaxDecodedBytes: 9*48 - 1}.DecMode()
	wantErr(t, "a budget of 431 bytes", func() error { _, err := small.Decode(cols); return err }, KindTooLarge, 7, "[]")
	// 70,000 units in a vec: within the default budget (2^30 / 48 values),
	// past one of 65,536 values, refused at the count.
	units := mustHex(t, "c2001113f0a204")
	if v, err := Decode(units); err != nil || len(v.Items) != 70000 {
		t.Fatalf("70,000 units: %v", err)
	}
	low, _ := DecOptions{MaxDecodedBytes: 65536 * DecodedValueBytes}.DecMode()
	wantErr(t, "70,000 units, 65,536 allowed", func() error { _, err := low.Decode(units); return err }, KindTooLarge, 4, "")
	var out []struct{}
	wantErr(t, "70,000 units into []struct{}", func() error { return low.Unmarshal(units, &out) }, KindTooLarge, 4, "")
	// 22,369,622 units: one more than the default budget allows.
	wantErr(t, "22,369,622 units", func() error { _, err := Decode(mustHex(t, "c2001113d6aad50a")); return err }, KindTooLarge, 4, "")
	// A 13-byte run of 2^40 units, refused at the element node before anything is made.
	wantErr(t, "2^40 units in columns", func() error { _, err := Decode(mustHex(t, "c20211130803018080808080 20")); return err }, KindTooLarge, 13, "[]")
	// [0, 1, ..., 999999] as one delta column: 1,000,001 values in a few
	// bytes, within the default budget.
	seq := make([]uint64, 1000000)
	for i := range seq {
		seq[i] = uint64(i)
	}
	enc, _ := EncOptions{Layout: LayoutColumns}.EncMode()
	b, err := enc.Marshal(seq)
	if err != nil || len(b) > 20 {
		t.Fatalf("a million delta integers took %d bytes: %v", len(b), err)
	}
	if v, err := Decode(b); err != nil || len(v.Items) != 1000000 {
		t.Fatalf("a million delta integers: %v", err)
	}
	// A budget below one value refuses a zero-size root, as a budget of 0 would.
	tiny, _ := DecOptions{MaxDecodedBytes: 47}.DecMode()
	wantErr(t, "a unit root with 47 bytes", func() error { _, err := tiny.Decode(mustHex(t, "c20013")); return err }, KindTooLarge, 3, "")
}

func wantErr(t *testing.T, what string, f func() error, kind string, off int64, path string) {
	t.Helper()
	var e *Error
	if err := f(); !errors.As(err, &e) || e.Kind != kind || e.Offset != off || e.Path != path {
		t.Errorf("%s: %v, want %s at %d in %q", what, err, kind, off, path)
	}
}

// Zero-size fields are charged where they stand, by the typed reader as by
// the dynamic one: 1,000 records with a unit field pass a budget of 1,000
// values and fail on the last record's field under 999.
func TestZeroSizeFieldsTypedAndDynamic(t *testing.T) {
	type rec struct {
		A struct{} `xbf:"a"`
		B uint8    `xbf:"b"`
	}
	b, err := Marshal(make([]rec, 1000))
	if err != nil {
		t.Fatal(err)
	}
	fits, _ := DecOptions{MaxDecodedBytes: 1000 * DecodedValueBytes}.DecMode()
	var out []rec
	if err := fits.Unmarshal(b, &out); err != nil || len(out) != 1000 {
		t.Fatalf("1,000 unit fields in a budget of 1,000 values: %v", err)
	}
	if _, err := fits.Decode(b); err != nil {
		t.Fatal(err)
	}
	short, _ := DecOptions{MaxDecodedBytes: 1000*DecodedValueBytes - 1}.DecMode()
	_, derr := short.Decode(b)
	terr := short.Unmarshal(b, &out)
	want := len(b) - 1 // the last record's unit field stands before its u8
	for _, err := range []error{derr, terr} {
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTooLarge || e.Offset != int64(want) || e.Path != "[999].a" {
			t.Errorf("1,000 unit fields, 999 allowed: %v, want too-large at %d in [999].a", err, want)
		}
	}
}
