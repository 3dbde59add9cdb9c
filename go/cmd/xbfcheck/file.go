package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	xbf "github.com/xbf-format/xbf/go"
	"github.com/xbf-format/xbf/go/vectorform"
)

// checkFile runs an XBF file vector (SPEC 24.8): read forward, it yields
// "records" then fails with "error" (or ends cleanly); read from the end,
// every block whole, it yields "records" or fails with "end_error"; with
// "blocks", the records written in blocks of those sizes (finished after
// "append_after" blocks and appended to) give the same bytes.
func checkFile(v map[string]any, data []byte) error {
	t, err := vectorform.ParseType(v["type"])
	if err != nil {
		return fmt.Errorf("bad type: %v", err)
	}
	recs, _ := v["records"].([]any)
	want := make([]xbf.Value, len(recs))
	for i, r := range recs {
		if want[i], err = vectorform.ParseValue(r, t); err != nil {
			return fmt.Errorf("bad record: %v", err)
		}
	}
	same := func(got []xbf.Value) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if !xbf.Same(got[i], want[i]) {
				return false
			}
		}
		return true
	}

	// Forward, with nothing but the blocks.
	var got []xbf.Value
	var failure error
	sr, err := xbf.NewFileStreamReader(bytes.NewReader(data))
	if err != nil {
		failure = err
	} else {
		if !sr.Type().Equal(t) {
			return fmt.Errorf("forward: decoded type %s, expected %s", sr.Type(), t)
		}
		for {
			b, err := sr.NextBlock(xbf.ReadOptions{})
			if err == io.EOF {
				break
			}
			if err != nil {
				failure = err
				break
			}
			got = append(got, b...)
		}
	}
	if !same(got) {
		return fmt.Errorf("forward: yielded %d records %v, expected %d", len(got), showAll(got), len(want))
	}
	if err := outcome("forward", failure, v, "error"); err != nil {
		return err
	}

	// From the end, through the footer, every block whole.
	got, failure = nil, nil
	fr, err := xbf.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		failure = err
	} else {
		if !fr.Type().Equal(t) {
			return fmt.Errorf("from the end: decoded type %s, expected %s", fr.Type(), t)
		}
		for r, err := range fr.Records(xbf.ReadOptions{}) {
			if err != nil {
				failure = err
				break
			}
			got = append(got, r)
		}
	}
	if _, fails := v["end_error"]; !fails && !same(got) {
		return fmt.Errorf("from the end: yielded %d records %v, expected %d", len(got), showAll(got), len(want))
	}
	if err := outcome("from the end", failure, v, "end_error"); err != nil {
		return err
	}
	if blocks, ok := v["blocks"].([]any); ok {
		return rewrite(v, data, t, want, blocks)
	}
	return nil
}

// memFile is a file in memory for the writer: io.ReaderAt and io.WriteSeeker.
type memFile struct {
	b   []byte
	pos int64
}

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memFile) Write(p []byte) (int, error) {
	m.b = append(m.b[:m.pos], p...)
	m.pos = int64(len(m.b))
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		m.pos = off
	case io.SeekEnd:
		m.pos = int64(len(m.b)) + off
	default:
		m.pos += off
	}
	return m.pos, nil
}

func rewrite(v map[string]any, data []byte, t *xbf.Type, want []xbf.Value, blocks []any) error {
	appendAfter := -1
	if n, ok := v["append_after"].(json.Number); ok {
		k, _ := n.Int64()
		appendAfter = int(k)
	}
	opts := xbf.FileOptions{BlockRows: math.MaxInt, BlockBytes: math.MaxInt, SchemaByReference: data[1]&0x01 != 0}
	f := &memFile{}
	w, err := xbf.NewFileWriter(f, t, opts)
	if err != nil {
		return err
	}
	next := 0
	for i, b := range blocks {
		if i == appendAfter {
			if err := w.Close(); err != nil {
				return err
			}
			if w, err = xbf.AppendFile(f, int64(len(f.b)), opts); err != nil {
				return fmt.Errorf("append: %v", err)
			}
		}
		n, _ := b.(json.Number).Int64()
		for range n {
			if next >= len(want) {
				return errors.New(`"blocks" add up to more than the records`)
			}
			if err := w.Write(want[next]); err != nil {
				return err
			}
			next++
		}
		if err := w.FlushBlock(); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	// The Go writer has no FSST (encoding 23, SPEC 22.2.4): its file of these records keeps the
	// strings in 20-22, another valid file, and larger, as TypeScript's writer's is.
	if name, _ := v["name"].(string); strings.Contains(name, "FSST") {
		if len(f.b) <= len(data) {
			return fmt.Errorf("wrote %d bytes without FSST, not more than the %d of the vector", len(f.b), len(data))
		}
		return nil
	}
	if !bytes.Equal(f.b, data) {
		return fmt.Errorf("wrote %x, expected %x", f.b, data)
	}
	return nil
}

func outcome(what string, failure error, v map[string]any, key string) error {
	kind, wantErr := v[key].(string)
	switch {
	case failure == nil && wantErr:
		return fmt.Errorf("%s: ended cleanly, expected %s", what, kind)
	case failure != nil && !wantErr:
		return fmt.Errorf("%s: failed with %v, expected a clean end", what, failure)
	case failure != nil:
		// "error" comes with "offset" and "path", "end_error" with "end_offset" and "end_path".
		prefix := strings.TrimSuffix(key, "error")
		if err := wantKind(failure, kind, map[string]any{"offset": v[prefix+"offset"], "path": v[prefix+"path"]}); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
	}
	return nil
}
