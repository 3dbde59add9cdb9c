package main

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	xbf "github.com/xbf-format/xbf/go"
	"github.com/xbf-format/xbf/go/vectorform"
)

// batch speaks the differential fuzzer's protocol (scripts/difffuzz.py,
// as the Rust CLI's hidden `xbf vectors decode`): lines `m HEX` (one
// message) or `s HEX` (a record stream) in, one JSON line each out:
//
//	{"type":T,"value":V}  or  {"error":E}                       a message
//	{"type":T|null,"records":[V...],"error":E|null}             a stream
//	E = {"kind":K,"offset":N|null,"path":P}; a bug: {"panic":why}
//
// T and V in the vectors' form, keys in Rust's order, NaNs as "NaN:bits".
func batch(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	w := bufio.NewWriter(out)
	defer w.Flush()
	for sc.Scan() {
		line := sc.Text()
		mode, hx, _ := strings.Cut(line, " ")
		data, err := hex.DecodeString(strings.TrimSpace(hx))
		if err != nil {
			fmt.Fprintf(os.Stderr, "xbfcheck batch: not lowercase hex: %s\n", line)
			return 2
		}
		var b []byte
		switch mode {
		case "m":
			b = message(data)
		case "s":
			b = stream(data)
		default:
			fmt.Fprintf(os.Stderr, "xbfcheck batch: a line is `m HEX` or `s HEX`, not %q\n", line)
			return 2
		}
		w.Write(append(b, '\n'))
	}
	if sc.Err() != nil {
		return 1
	}
	return 0
}

func errorJSON(b []byte, err error) []byte {
	var xe *xbf.Error
	if !errors.As(err, &xe) || xe.Kind == xbf.KindInternal {
		return append(vectorform.AppendString(append(b, `{"panic":`...), err.Error()), '}')
	}
	b = append(vectorform.AppendString(append(b, `{"kind":`...), xe.Kind), `,"offset":`...)
	if xe.Offset < 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, xe.Offset, 10)
	}
	return append(vectorform.AppendString(append(b, `,"path":`...), xe.Path), '}')
}

func isPanic(err error) bool {
	var xe *xbf.Error
	return !errors.As(err, &xe) || xe.Kind == xbf.KindInternal
}

func message(data []byte) []byte {
	v, err := dec.Decode(data)
	if err != nil {
		if isPanic(err) {
			return errorJSON(nil, err)
		}
		return append(errorJSON([]byte(`{"error":`), err), '}')
	}
	b := vectorform.AppendType([]byte(`{"type":`), v.Type)
	return append(vectorform.AppendValue(append(b, `,"value":`...), v), '}')
}

func stream(data []byte) []byte {
	s, err := dec.NewStreamReader(data)
	if err != nil {
		if isPanic(err) {
			return errorJSON(nil, err)
		}
		return append(errorJSON([]byte(`{"type":null,"records":[],"error":`), err), '}')
	}
	b := vectorform.AppendType([]byte(`{"type":`), s.Type())
	b = append(b, `,"records":[`...)
	for n := 0; ; n++ {
		v, err := s.Next()
		if err == io.EOF {
			return append(b, `],"error":null}`...)
		}
		if err != nil {
			if isPanic(err) {
				return errorJSON(nil, err)
			}
			return append(errorJSON(append(b, `],"error":`...), err), '}')
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = vectorform.AppendValue(b, v)
	}
}
