// Command xbfcheck runs conformance vector files through the Go
// implementation, as `xbf vectors check` does for Rust:
//
//	go run ./cmd/xbfcheck [-v] FILE...
//
// and decodes hex inputs for the differential fuzzer:
//
//	go run ./cmd/xbfcheck decode < hex-lines
//
// which prints one JSON line per input line (see decode.go), and speaks the
// differential fuzzer's protocol (see batch.go):
//
//	go run ./cmd/xbfcheck batch < "m HEX" / "s HEX" lines
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	xbf "github.com/xbf-format/xbf/go"
	"github.com/xbf-format/xbf/go/vectorform"
)

// dec decodes the inputs of `decode` and `batch`: default options, unless
// -max-decoded-bytes N follows the subcommand (for checks at small budgets).
var dec, _ = xbf.DecOptions{}.DecMode()

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "decode" || os.Args[1] == "batch") {
		fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
		budget := fs.Uint64("max-decoded-bytes", 0, "decoded-memory budget (SPEC 16.2); 0: the default, 2^30")
		fs.Parse(os.Args[2:])
		var err error
		if dec, err = (xbf.DecOptions{MaxDecodedBytes: *budget}).DecMode(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if os.Args[1] == "decode" {
			os.Exit(decodeLines(os.Stdin, os.Stdout))
		}
		os.Exit(batch(os.Stdin, os.Stdout))
	}
	verbose := flag.Bool("v", false, "print a line for every vector that passes")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: xbfcheck [-v] FILE...   |   xbfcheck decode < hex-lines")
		os.Exit(2)
	}
	passed, failed, skipped := 0, 0, 0
	for _, path := range flag.Args() {
		vectors, err := load(path)
		if err != nil {
			fmt.Printf("FAIL %s: %v\n", path, err)
			failed++
			continue
		}
		for i, v := range vectors {
			name, _ := v["name"].(string)
			if name == "" {
				name = fmt.Sprintf("#%d", i)
			}
			skip, err := run(v)
			switch {
			case skip:
				skipped++
			case err != nil:
				failed++
				fmt.Printf("FAIL %s: %s: %v\n", path, name, err)
			default:
				passed++
				if *verbose {
					fmt.Printf("ok   %s: %s\n", path, name)
				}
			}
		}
	}
	line := fmt.Sprintf("%d passed, %d failed", passed, failed)
	if skipped > 0 {
		line += fmt.Sprintf(", %d skipped (versions other than [1, 2])", skipped)
	}
	fmt.Println(line)
	if failed > 0 {
		os.Exit(1)
	}
}

func load(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %v", err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var vs []map[string]any
	if err := d.Decode(&vs); err != nil {
		return nil, fmt.Errorf("not a JSON array of vectors: %v", err)
	}
	return vs, nil
}

// run checks one vector; skip reports a version this checker does not know.
func run(v map[string]any) (skip bool, err error) {
	version := "1"
	if n, ok := v["version"].(json.Number); ok {
		version = n.String()
	}
	if version != "1" && version != "2" {
		return true, nil
	}
	hexText, _ := v["hex"].(string)
	data, err := hex.DecodeString(hexText)
	if err != nil || hex.EncodeToString(data) != hexText {
		return false, errors.New(`"hex" is not lowercase hex`)
	}
	if _, ok := v["stream"]; ok {
		return false, checkStream(v, data)
	}
	if _, ok := v["file"]; ok {
		return false, checkFile(v, data)
	}
	if kind, ok := v["error"].(string); ok {
		got, err := xbf.Decode(data)
		if err == nil {
			return false, fmt.Errorf("decoded as %s, expected error %s", got.Type, kind)
		}
		return false, wantKind(err, kind, v)
	}
	t, err := vectorform.ParseType(v["type"])
	if err != nil {
		return false, fmt.Errorf("bad type: %v", err)
	}
	want, err := vectorform.ParseValue(v["value"], t)
	if err != nil {
		return false, fmt.Errorf("bad value: %v", err)
	}
	got, err := xbf.Decode(data)
	if err != nil {
		return false, fmt.Errorf("decode failed: %v", err)
	}
	if !got.Type.Equal(t) {
		return false, fmt.Errorf("decoded type %s, expected %s", got.Type, t)
	}
	if !xbf.Same(got, want) {
		return false, fmt.Errorf("decoded %s, expected %s", show(got), show(want))
	}
	// Write the layout the bytes use.
	opts := xbf.EncOptions{Version: 1}
	if version == "2" {
		opts = xbf.EncOptions{Version: 2, Layout: xbf.LayoutRows}
		if len(data) > 1 && data[1]&0x02 != 0 {
			opts.Layout = xbf.LayoutColumns
		}
	}
	mode, err := opts.EncMode()
	if err != nil {
		return false, err
	}
	enc, err := mode.Encode(want)
	if err != nil {
		return false, fmt.Errorf("encode failed: %v", err)
	}
	if !bytes.Equal(enc, data) {
		return false, fmt.Errorf("encoded %x, expected %s", enc, hexText)
	}
	return false, nil
}

// wantKind checks an error's kind, offset and path against the vector's
// "error", "offset" and "path", which every invalid vector gives (SPEC 17.2).
func wantKind(err error, kind string, v map[string]any) error {
	off, ok := v["offset"].(json.Number)
	if !ok {
		return errors.New(`an invalid vector needs a numeric "offset"`)
	}
	p, ok := v["path"].(string)
	if !ok {
		return errors.New(`an invalid vector needs a "path" string`)
	}
	var xe *xbf.Error
	if !errors.As(err, &xe) {
		return fmt.Errorf("failed with a foreign error %v, expected %s", err, kind)
	}
	if xe.Kind != kind {
		return fmt.Errorf("failed with %v, expected %s", err, kind)
	}
	if off.String() != fmt.Sprint(xe.Offset) {
		return fmt.Errorf("failed with %v, expected offset %s", err, off)
	}
	if p != xe.Path {
		return fmt.Errorf("failed with %v, expected path %q", err, p)
	}
	return nil
}

func checkStream(v map[string]any, data []byte) error {
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
	var got []xbf.Value
	var failure error
	sr, err := xbf.NewStreamReader(data)
	if err != nil {
		failure = err
	} else {
		if !sr.Type().Equal(t) {
			return fmt.Errorf("decoded type %s, expected %s", sr.Type(), t)
		}
		for {
			r, err := sr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				failure = err
				break
			}
			got = append(got, r)
		}
	}
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = xbf.Same(got[i], want[i])
	}
	if !same {
		return fmt.Errorf("yielded %d records %v, expected %d", len(got), showAll(got), len(want))
	}
	kind, wantErr := v["error"].(string)
	switch {
	case failure == nil && wantErr:
		return fmt.Errorf("ended cleanly, expected %s", kind)
	case failure != nil && !wantErr:
		return fmt.Errorf("failed with %v, expected a clean end", failure)
	case failure != nil:
		if err := wantKind(failure, kind, v); err != nil {
			return err
		}
	}
	blocks, ok := v["blocks"].([]any)
	if !ok {
		return nil
	}
	flags := data[1]
	var buf bytes.Buffer
	w, err := xbf.NewStreamWriter(&buf, t, xbf.StreamOptions{Checksums: flags&0x08 != 0,
		SchemaByReference: flags&0x01 != 0, BlockBytes: 1 << 62})
	if err != nil {
		return err
	}
	next := 0
	for _, b := range blocks {
		n, _ := b.(json.Number).Int64()
		for i := int64(0); i < n; i++ {
			if next >= len(want) {
				return errors.New(`"blocks" add up to more than the records`)
			}
			if err := w.Write(want[next]); err != nil {
				return err
			}
			next++
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if !bytes.Equal(buf.Bytes(), data) {
		return fmt.Errorf("wrote %x, expected %x", buf.Bytes(), data)
	}
	return nil
}

func show(v xbf.Value) string {
	b, _ := json.Marshal(vectorform.ValueJSON(v))
	if len(b) > 300 {
		b = append(b[:300], "..."...)
	}
	return string(b)
}

func showAll(vs []xbf.Value) string {
	s := "["
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += show(v)
	}
	return s + "]"
}
