package xbf

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

type fileVector struct {
	Name     string          `json:"name"`
	Hex      string          `json:"hex"`
	Type     json.RawMessage `json:"type"`
	Error    string          `json:"error"`
	EndError string          `json:"end_error"`
	Blocks   []int           `json:"blocks"`
}

func fileVectors(t *testing.T) []fileVector {
	b, err := os.ReadFile(filepath.Join("..", "vectors", "files", "files.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []fileVector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

func vectorBytes(t *testing.T, name string) []byte {
	for _, v := range fileVectors(t) {
		if strings.HasPrefix(v.Name, name) {
			b, _ := hex.DecodeString(v.Hex)
			return b
		}
	}
	t.Fatalf("no file vector %q", name)
	return nil
}

// readForward reads a whole file forward: its records, then the error
// that ended it (nil at a clean end).
func readForward(m DecMode, data []byte, q ReadOptions) ([]Value, error) {
	s, err := m.NewFileStreamReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []Value
	for r, err := range s.Records(q) {
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// readEnd reads a whole file from the end as `xbf to-json FILE` does:
// through the footer, or forward when it has none.
func readEnd(m DecMode, data []byte, q ReadOptions) ([]Value, error) {
	f, err := m.OpenFile(bytes.NewReader(data), int64(len(data)))
	var xe *Error
	if errors.As(err, &xe) && xe.Kind == KindTruncated && xe.Offset == int64(len(data)) {
		return readForward(m, data, q)
	}
	if err != nil {
		return nil, err
	}
	var out []Value
	for r, err := range f.Records(q) {
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// The example of SPEC 24.7: the footer, statistics, projection, filters
// ruling blocks out, and typed records.
func TestFileExample(t *testing.T) {
	data := vectorBytes(t, "three records of Row")
	f, err := OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRecords() != 3 || len(f.Blocks()) != 1 {
		t.Fatalf("%d records in %d blocks", f.NumRecords(), len(f.Blocks()))
	}
	b := f.Blocks()[0]
	if b.Offset != 14 || b.Size != 20 || len(b.Columns) != 2 || b.Columns[0].Size != 5 || b.Columns[1].Size != 9 {
		t.Fatalf("block %+v", b)
	}
	st := b.Columns[1].Stats
	if !st.HasMinMax || !st.Exact || st.Min.Str != "x" || st.Max.Str != "y" {
		t.Fatalf("stats of b: %+v", st)
	}
	paths, ok := f.ColumnPaths()
	if !ok || strings.Join(paths, ",") != "a,b" {
		t.Fatalf("column paths %v %v", paths, ok)
	}
	for _, c := range []struct {
		where   string
		out     int // blocks ruled out
		records int
	}{
		{"a = 2", 0, 2}, {"a > 2", 1, 0}, {"a >= 2", 0, 2}, {"a < 1", 1, 0}, {"a <= 1", 0, 1},
		{"a != 1", 0, 2}, {"b = x", 0, 2}, {`b = "z"`, 1, 0}, {"b < x", 1, 0}, {"a=7", 1, 0},
	} {
		q := ReadOptions{Where: c.where}
		n, err := f.BlocksRuledOut(q)
		if err != nil || n != c.out {
			t.Errorf("%s: %d blocks ruled out (%v), want %d", c.where, n, err, c.out)
		}
		recs, err := f.ReadBlock(0, q)
		if err != nil || len(recs) != c.records {
			t.Errorf("%s: %d records (%v), want %d", c.where, len(recs), err, c.records)
		}
	}
	// Projection: only b's column is read; a filter on a drops a from the
	// records handed out.
	q := ReadOptions{Fields: []string{"b"}, Where: "a >= 2"}
	pt, err := f.ProjectedType(q)
	if err != nil || pt.String() != "struct Row { b: string }" {
		t.Fatalf("projected type %v %v", pt, err)
	}
	recs, err := f.ReadBlock(0, q)
	if err != nil || len(recs) != 2 || recs[0].Items[0].Str != "y" || recs[1].Items[0].Str != "x" || !recs[0].Type.Equal(pt) {
		t.Fatalf("projected records %v %v", recs, err)
	}
	// Typed records, by field name, one Go field missing from the data.
	type Row struct {
		A     uint8  `xbf:"a"`
		B     string `xbf:"b"`
		Other int    `xbf:",default"` // not in the data: left as it is
	}
	var rows []Row
	if err := f.UnmarshalBlock(0, ReadOptions{}, &rows); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows) != "[{1 x 0} {2 y 0} {2 x 0}]" {
		t.Fatalf("rows %v", rows)
	}
	var bs []struct {
		B string `xbf:"b"`
	}
	if err := f.UnmarshalBlock(0, ReadOptions{Fields: []string{"b"}}, &bs); err != nil || len(bs) != 3 || bs[2].B != "x" {
		t.Fatalf("%v %v", bs, err)
	}
	var all []Row
	if err := f.UnmarshalAll(ReadOptions{Where: "b = x"}, &all); err != nil || fmt.Sprint(all) != "[{1 x 0} {2 x 0}]" {
		t.Fatalf("UnmarshalAll: %v %v", all, err)
	}
	// Forward, typed.
	s, err := NewFileStreamReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rows = nil
	if err := s.UnmarshalNextBlock(ReadOptions{Where: "b = x"}, &rows); err != nil || fmt.Sprint(rows) != "[{1 x 0} {2 x 0}]" {
		t.Fatalf("forward rows %v %v", rows, err)
	}
	if err := s.UnmarshalNextBlock(ReadOptions{}, &rows); err != io.EOF {
		t.Fatalf("after the last block: %v", err)
	}
	// A filter on a field the type lacks, or a literal of the wrong type.
	for _, w := range []string{"c = 1", "a = x", "a > -1", "a"} {
		if _, err := f.ReadBlock(0, ReadOptions{Where: w}); err == nil {
			t.Errorf("filter %q accepted", w)
		}
	}
}

// Damaged blocks are reported with their number and bytes, and skipped on
// request.
func TestFileSkipDamaged(t *testing.T) {
	data := vectorBytes(t, "bad-checksum in block 1")
	f, err := OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for r, err := range f.Records(ReadOptions{SkipDamaged: true}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Uint)
	}
	if fmt.Sprint(got) != "[5 300 1000000]" || len(f.Damaged()) != 1 || f.Damaged()[0].Index != 1 {
		t.Fatalf("records %v, damaged %+v", got, f.Damaged())
	}
	// Forward too: the block is passed, and the footer still checked.
	s, err := NewFileStreamReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for r, err := range s.Records(ReadOptions{SkipDamaged: true}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Uint)
	}
	if fmt.Sprint(got) != "[5 300 1000000]" || len(s.Damaged()) != 1 || s.Damaged()[0].Index != 1 ||
		s.Damaged()[0].Start != 14 || s.Damaged()[0].End != 24 {
		t.Fatalf("forward: records %v, damaged %+v", got, s.Damaged())
	}
	_, err = f.ReadBlock(1, ReadOptions{})
	var xe *Error
	if !errors.As(err, &xe) || xe.Kind != KindBadChecksum || !strings.Contains(xe.Detail, "block 1 (bytes") {
		t.Fatalf("block 1: %v", err)
	}
	if _, err := f.ReadBlock(2, ReadOptions{}); err != nil {
		t.Fatalf("block 2 after a damaged one: %v", err)
	}
}

// Projection reads only the wanted columns: a damaged column that is not
// read does not fail the read.
func TestFileProjectionReadsOnlyWantedColumns(t *testing.T) {
	data := vectorBytes(t, "three records of Row")
	bad := append([]byte(nil), data...)
	bad[17]++ // inside column a (16..20)
	f, err := OpenFile(bytes.NewReader(bad), int64(len(bad)))
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := f.ReadBlock(0, ReadOptions{Fields: []string{"b"}}); err != nil || len(recs) != 3 {
		t.Fatalf("b alone: %v %v", recs, err)
	}
	_, err = f.ReadBlock(0, ReadOptions{Fields: []string{"a"}})
	var xe *Error
	if !errors.As(err, &xe) || xe.Kind != KindBadChecksum || xe.Offset != 16 {
		t.Fatalf("a: %v", err)
	}
	if _, err := f.ReadBlock(0, ReadOptions{}); !errors.As(err, &xe) || xe.Kind != KindBadChecksum || xe.Offset != 30 {
		t.Fatalf("whole block: %v", err)
	}
}

// The entropy-coded and cascaded-runs encodings are file-only: in a
// message they are unknown-discriminant (SPEC 22.2).
func TestFileOnlyEncodingsInMessages(t *testing.T) {
	// vec<u64> of [5, 5, 5, 9, 5, 7] entropy-coded (SPEC 22.2.2's example)
	// and [4, 4, 4, 6, 6, 9] in cascaded runs (22.2.3's).
	for _, col := range []string{"04030400050709040001020258", "05030400030201040004060" + "9"} {
		body, _ := hex.DecodeString(col)
		msg := append([]byte{0xc2, 0x02, 0x11, 0x04, 0x02, 0x00, 0x06, byte(len(body))}, body...)
		_, err := Decode(msg)
		var xe *Error
		if !errors.As(err, &xe) || xe.Kind != KindUnknownDiscriminant || xe.Offset != 8 {
			t.Fatalf("%s in a message: %v", col, err)
		}
		c := &cursor{data: body, file: true}
		vals, err := decodeInts(c, 6, 64)
		if err != nil || !c.atEnd() {
			t.Fatalf("%s in a file: %v", col, err)
		}
		var got []uint64
		for _, v := range vals {
			got = append(got, v.lo)
		}
		want := map[byte]string{4: "[5 5 5 9 5 7]", 5: "[4 4 4 6 6 9]"}[body[0]]
		if fmt.Sprint(got) != want {
			t.Fatalf("%s: %v, want %s", col, got, want)
		}
	}
}

var cliError = regexp.MustCompile(`(?s)at byte (\d+)(?:, in (.*?))?: ([a-z0-9-]+)(?::|\n|$)`)

// cliRead runs `xbf to-json --lines` on data (as a file: from the end, or
// on standard input: forward) and returns the record count or the error
// as "kind offset path".
func cliRead(t *testing.T, cli string, data []byte, forward bool) (int, string) {
	args := []string{"to-json", "--lines"}
	cmd := exec.Command(cli, args...)
	if forward {
		cmd.Stdin = bytes.NewReader(data)
	} else {
		p := filepath.Join(t.TempDir(), "f.xbf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd.Args = append(cmd.Args, p)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		m := cliError.FindStringSubmatch(errb.String())
		if m == nil {
			// Not a decoding error: a NaN, which JSON cannot hold.
			return -2, errb.String()
		}
		return -1, m[3] + " " + m[1] + " " + m[2]
	}
	return bytes.Count(out.Bytes(), []byte("\n")), ""
}

func goOutcome(recs []Value, err error) (int, string) {
	if err == nil {
		return len(recs), ""
	}
	var xe *Error
	if !errors.As(err, &xe) {
		return -1, err.Error()
	}
	return -1, fmt.Sprintf("%s %d %s", xe.Kind, xe.Offset, xe.Path)
}

// Every file vector, and every one-byte change of the small ones, read
// forward and from the end: Go and the Rust CLI agree on the records'
// count, or on the error's kind, offset and path.
func TestFileAgreesWithRust(t *testing.T) {
	cli := rustCLI(t)
	var inputs [][]byte
	for _, v := range fileVectors(t) {
		b, _ := hex.DecodeString(v.Hex)
		inputs = append(inputs, b)
		if v.Error != "" {
			continue
		}
		// Every byte of the small files; every other one, by a low bit, of
		// the larger ones (entropy-coded streams, runs, statistics).
		for i := range b {
			m := append([]byte(nil), b...)
			switch {
			case len(b) <= 160:
				m[i] ^= 0x41
			case i%2 == 0:
				m[i] ^= 0x01
			default:
				continue
			}
			inputs = append(inputs, m)
		}
	}
	if testing.Short() {
		inputs = inputs[:20]
	}
	for _, in := range inputs {
		if !IsFile(in) {
			continue // the CLI reads it as a message or a stream
		}
		for _, forward := range []bool{true, false} {
			n, e := cliRead(t, cli, in, forward)
			if n == -2 {
				continue
			}
			var gn int
			var ge string
			if forward {
				gn, ge = goOutcome(readForward(defaultDec, in, ReadOptions{}))
			} else {
				gn, ge = goOutcome(readEnd(defaultDec, in, ReadOptions{}))
			}
			if n != gn || e != ge && !metadataCount(ge, e, in) {
				t.Errorf("%x forward=%v: Rust %d records %q, Go %d %q", in, forward, n, e, gn, ge)
			}
		}
	}
}

// metadataCount is the difference SPEC 21.4 allows a reader of unknown
// length (the Rust file readers take the header as a stream): Go, which
// holds the file's length, fails at a count in the metadata that the
// input cannot hold with truncated; Rust reads on and fails elsewhere.
func metadataCount(goErr, rustErr string, in []byte) bool {
	var off int
	if _, err := fmt.Sscanf(goErr, "truncated %d", &off); err != nil || rustErr == "" {
		return false
	}
	_, _, err := defaultDec.fileHead(in)
	return err != nil
}

// Go reads the files `xbf from-csv` writes (several blocks, statistics,
// entropy-coded and cascaded-runs columns, with and without zstd): every
// record, typed and dynamic, forward and from the end; filters and
// projections give what `xbf to-json --where --fields` gives.
func TestFileFromRustCSV(t *testing.T) {
	cli := rustCLI(t)
	type row struct {
		ID     int     `xbf:"id"`
		Delay  *int    `xbf:"delay"`
		Origin string  `xbf:"origin"`
		Date   Date    `xbf:"date"`
		Price  float64 `xbf:"price"`
		OK     bool    `xbf:"ok"`
	}
	airports := []string{"SFO", "LAX", "JFK", "ORD", "SEA", "BOS"}
	var want []row
	var csv strings.Builder
	csv.WriteString("id,delay,origin,date,price,ok\n")
	x := uint32(7)
	for i := 0; i < 5000; i++ {
		x = x*1664525 + 1013904223
		r := row{ID: i, Origin: airports[(x>>8)%6], Date: Date(19000 + i/7), Price: float64(x%10000) / 100, OK: x%3 == 0}
		delay := ""
		if x%11 != 0 {
			d := int((x>>12)%4) - 1 // mostly near zero: entropy-coded
			if x%20 == 0 {
				d = int((x>>20)%100) + 5
			}
			r.Delay = &d
			delay = fmt.Sprint(d)
		}
		want = append(want, r)
		fmt.Fprintf(&csv, "%d,%s,%s,%s,%s,%v\n", r.ID, delay, r.Origin, r.Date, fmt.Sprint(r.Price), r.OK)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(in, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Blocks of 2,048 rows: delay (mostly -1 to 2) takes the entropy coder
	// and date (runs of 7 days) cascaded runs, as `xbf stats` shows.
	for _, extra := range [][]string{nil, {"--zstd", "3"}} {
		out := filepath.Join(dir, "rows.xbf")
		run(t, cli, nil, append([]string{"from-csv", in, "-o", out, "--block-rows", "2048"}, extra...)...)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Blocks()) != 3 || f.NumRecords() != 5000 {
			t.Fatalf("%d blocks, %d records", len(f.Blocks()), f.NumRecords())
		}
		var got []row
		for i := range f.Blocks() {
			var part []row
			if err := f.UnmarshalBlock(i, ReadOptions{}, &part); err != nil {
				t.Fatal(err)
			}
			got = append(got, part...)
		}
		if len(got) != len(want) {
			t.Fatalf("%d rows", len(got))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.ID != w.ID || g.Origin != w.Origin || g.Date != w.Date || g.Price != w.Price || g.OK != w.OK ||
				(g.Delay == nil) != (w.Delay == nil) || (g.Delay != nil && *g.Delay != *w.Delay) {
				t.Fatalf("row %d: %+v, want %+v", i, g, w)
			}
		}
		fwd, err := readForward(defaultDec, data, ReadOptions{})
		end, err2 := readEnd(defaultDec, data, ReadOptions{})
		if err != nil || err2 != nil || len(fwd) != 5000 || len(end) != 5000 {
			t.Fatalf("forward %d %v, from the end %d %v", len(fwd), err, len(end), err2)
		}
		for i := range fwd {
			if !Same(fwd[i], end[i]) {
				t.Fatalf("record %d differs forward and from the end", i)
			}
		}
		// Go writes the same records in the same blocks: the same bytes
		// (without zstd, whose frames differ between the two libraries), and
		// the CLI reads what Go writes.
		var buf bytes.Buffer
		w, err := NewFileWriter(&buf, f.Type(), FileOptions{BlockRows: 2048, ZstdLevel: map[int]int{0: 0, 2: 3}[len(extra)]})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range end {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if extra == nil && !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("Go wrote %d bytes, Rust %d, not the same", buf.Len(), len(data))
		}
		if lines := run(t, cli, buf.Bytes(), "to-json", "--lines"); bytes.Count(lines, []byte("\n")) != 5000 {
			t.Fatalf("the CLI read %d records of Go's file", bytes.Count(lines, []byte("\n")))
		}
		// Filters: Go's count is the CLI's; the sorted id rules blocks out.
		for _, w := range []string{"id < 1500", "id >= 4000", "delay > 100", "delay = 7", "origin = SFO",
			"origin != SFO", "date <= 2022-01-01", "price >= 99.5", "ok = true", "id > 9999"} {
			q := ReadOptions{Where: w, Fields: []string{"origin", "date"}}
			var n int
			for r, err := range f.Records(q) {
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Items) != 2 {
					t.Fatalf("%s: a record of %s", w, r.Type)
				}
				n++
			}
			lines := run(t, cli, nil, "to-json", "--lines", "--where", w, "--fields", "origin,date", out)
			if c := bytes.Count(lines, []byte("\n")); c != n {
				t.Errorf("%s: Go %d records, Rust %d", w, n, c)
			}
			if strings.HasPrefix(w, "id") {
				if out, _ := f.BlocksRuledOut(q); out == 0 {
					t.Errorf("%s: no block ruled out", w)
				}
			}
		}
	}
}

// A file written from Go structs, appended to on disk, reads back typed.
func TestFileWriterAppendOnDisk(t *testing.T) {
	type rec struct {
		ID   uint32   `xbf:"id"`
		Tags []string `xbf:"tags"`
		Note *string  `xbf:"note"`
	}
	path := filepath.Join(t.TempDir(), "recs.xbf")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := TypeOf(rec{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewFileWriter(fh, rt, FileOptions{BlockRows: 3})
	if err != nil {
		t.Fatal(err)
	}
	note := "n"
	for i := range 5 {
		if err := w.Marshal(rec{ID: uint32(i), Tags: []string{"a", "b"}[:i%3], Note: map[bool]*string{true: &note}[i%2 == 0]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Marshal(struct{ X int }{1}); err == nil {
		t.Fatal("a record of another type was written")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	fh, err = os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	w, err = AppendFile(fh, st.Size(), FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Marshal(rec{ID: 5}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ = fh.Stat()
	f, err := OpenFile(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Blocks()) != 3 || f.NumRecords() != 6 {
		t.Fatalf("%d blocks, %d records", len(f.Blocks()), f.NumRecords())
	}
	var all []rec
	if err := f.UnmarshalAll(ReadOptions{}, &all); err != nil {
		t.Fatal(err)
	}
	for i, r := range all {
		if r.ID != uint32(i) || (r.Note != nil) != (i%2 == 0 && i < 5) || (i < 5 && len(r.Tags) != i%3) {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
	// Forward, the old footer in the middle is checked and passed.
	data, _ := os.ReadFile(path)
	if recs, err := readForward(defaultDec, data, ReadOptions{}); err != nil || len(recs) != 6 {
		t.Fatalf("forward: %d %v", len(recs), err)
	}
	// A filter on id rules out the blocks before it.
	if n, _ := f.BlocksRuledOut(ReadOptions{Where: "id >= 5"}); n != 2 {
		t.Fatalf("%d blocks ruled out", n)
	}
}

// UnmarshalBlock reads flat structs straight from the columns: the same
// rows, and the same type-mismatch, as the path through Values.
func TestFileUnmarshalTypedColumns(t *testing.T) {
	type flat struct {
		ID     int     `xbf:"id"`
		Origin string  `xbf:"origin"`
		Price  float64 `xbf:"price"`
		OK     bool    `xbf:"ok"`
	}
	type narrow struct {
		ID int8 `xbf:"id"` // too small for ids past 127
	}
	rt, _ := TypeOf(flat{})
	var buf bytes.Buffer
	w, err := NewFileWriter(&buf, rt, FileOptions{BlockRows: 1500})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4000 {
		if err := w.Marshal(flat{ID: i, Origin: []string{"SFO", "LAX"}[i%2], Price: float64(i%100) / 4, OK: i%3 == 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Blocks() {
		var fast, slow []flat
		errFast := f.UnmarshalBlock(i, ReadOptions{}, &fast)
		noTypedColumns = true
		errSlow := f.UnmarshalBlock(i, ReadOptions{}, &slow)
		noTypedColumns = false
		if errFast != nil || errSlow != nil || !reflect.DeepEqual(fast, slow) || len(fast) == 0 || fast[0].ID != 1500*i {
			t.Fatalf("block %d: %v %v", i, errFast, errSlow)
		}
		var a, b []narrow
		errFast = f.UnmarshalBlock(i, ReadOptions{}, &a)
		noTypedColumns = true
		errSlow = f.UnmarshalBlock(i, ReadOptions{}, &b)
		noTypedColumns = false
		var x, y *Error
		if !errors.As(errFast, &x) || !errors.As(errSlow, &y) || x.Kind != KindTypeMismatch || x.Kind != y.Kind ||
			x.Offset != y.Offset || x.Path != y.Path {
			t.Fatalf("block %d: %v / %v", i, errFast, errSlow)
		}
	}
}
