package main

import (
	"bytes"
	"fmt"
	"io"

	xbf "github.com/xbf-format/xbf/go"
	"github.com/xbf-format/xbf/go/vectorform"
)

// checkFile runs an XBF file vector (SPEC 24.8): read forward, it yields
// "records" then fails with "error" (or ends cleanly); read from the end,
// every block whole, it yields "records" or fails with "end_error". The Go
// package has no file writer yet, so "blocks" (the bytes written again) is
// not checked.
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
	return outcome("from the end", failure, v, "end_error")
}

func outcome(what string, failure error, v map[string]any, key string) error {
	kind, wantErr := v[key].(string)
	switch {
	case failure == nil && wantErr:
		return fmt.Errorf("%s: ended cleanly, expected %s", what, kind)
	case failure != nil && !wantErr:
		return fmt.Errorf("%s: failed with %v, expected a clean end", what, failure)
	case failure != nil:
		if err := wantKind(failure, kind, map[string]any{}); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
	}
	return nil
}
