package xbf

import (
	"encoding/hex"
	"errors"
	"io"
	"testing"
)

// Minimal reproducers of the classes scripts/difffuzz.py found between Go
// and the Rust, Python and TypeScript readers (seed 18, 4 MiB budget). The
// expected outcomes are the three others' (`xbf --max-decoded-bytes 4194304
// vectors decode`).
func TestDifffuzzReproducers(t *testing.T) {
	dec, err := DecOptions{MaxDecodedBytes: 1 << 22}.DecMode()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		stream  bool
		hex     string
		records int
		kind    string
		offset  int64
		path    string
	}{
		// A block length and a record count of 2^63 or more: the count is
		// checked against the declared body in u64, so the record before
		// the cut is yielded.
		{true, "c20402fefdffffffffffffff01fefffffffffffffff70127", 1, KindTruncated, 24, "#1"},
		{true, "c20402feffffffffffffffff01feffefffffffffffff01808010", 0, KindInvalidVarint, 23, "#0"},
		// Errors in the metadata of a columnar `any` types column: the
		// node's path, then the segments of nested metadata, without the
		// name of the struct inside the `any` (SPEC 17.3, as in rows).
		{false, "c20219083001120252656300", 0, KindTruncated, 10, ""},
		{false, "c202191e30011205506f696e7402095f5f7072ab2ae26f746f5f5f0b023112020001", 0, KindInvalidUTF8, 14, ""},
		{false, "c2021205506f696e740302c3a9160214070b013019095f5f70726f746f5f5f2102000001000300fb031530011205506f696e740203782079ff7f6e61650a02",
			0, KindUnknownDiscriminant, 56, "Point.0.x y"},
		// map<unit, unit> of 32,683 entries: 3 values an entry (the entry
		// as a tuple) × 48 bytes passes 4 MiB at the count.
		{false, "c200171313abff01", 0, KindTooLarge, 5, ""},
		// 29,127 entries still fit, and the unit keys repeat.
		{false, "c200171313c7e301", 0, KindDuplicateKey, 8, "[1].key"},
	}
	for _, c := range cases {
		in, _ := hex.DecodeString(c.hex)
		var err error
		records := 0
		if c.stream {
			var s *StreamReader
			if s, err = dec.NewStreamReader(in); err == nil {
				for err == nil {
					if _, err = s.Next(); err == nil {
						records++
					}
				}
			}
		} else {
			_, err = dec.Decode(in)
		}
		var xe *Error
		if err == io.EOF || !errors.As(err, &xe) {
			t.Errorf("%s: got %v, want %s", c.hex, err, c.kind)
			continue
		}
		if xe.Kind != c.kind || xe.Offset != c.offset || xe.Path != c.path || records != c.records {
			t.Errorf("%s: got %s at %d path %q after %d records, want %s at %d path %q after %d",
				c.hex, xe.Kind, xe.Offset, xe.Path, records, c.kind, c.offset, c.path, c.records)
		}
	}
}
