package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"

	xbf "github.com/xbf-format/xbf/go"
	"github.com/xbf-format/xbf/go/vectorform"
)

// decodeLines reads one lowercase hex input per line and prints one JSON
// line per input:
//
//	{"ok":true,"type":T,"value":V}            T and V in the vectors' form
//	{"ok":false,"kind":K,"offset":N,"path":P} the decoder's error
//
// A line that is not hex gives {"ok":false,"kind":"bad-input"}. Inputs are
// decoded as whole messages with the default options (or -max-decoded-bytes) and an empty registry.
func decodeLines(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	w := bufio.NewWriter(out)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		data, err := hex.DecodeString(line)
		if err != nil {
			enc.Encode(map[string]any{"ok": false, "kind": "bad-input"})
			continue
		}
		v, err := dec.Decode(data)
		if err == nil {
			enc.Encode(map[string]any{"ok": true, "type": vectorform.TypeJSON(v.Type), "value": vectorform.ValueJSON(v)})
			continue
		}
		var xe *xbf.Error
		if !errors.As(err, &xe) {
			enc.Encode(map[string]any{"ok": false, "kind": "internal", "offset": -1, "path": err.Error()})
			continue
		}
		enc.Encode(map[string]any{"ok": false, "kind": xe.Kind, "offset": xe.Offset, "path": xe.Path})
	}
	if sc.Err() != nil {
		return 1
	}
	return 0
}
