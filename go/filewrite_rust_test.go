package xbf_test

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	xbf "github.com/xbf-format/xbf/go"
	"github.com/xbf-format/xbf/go/vectorform"
)

// Files Go writes from random types and records (runs and repeats, so
// that long columns take the entropy coder and cascaded runs) are file
// vectors the Rust CLI checks: it reads them forward and from the end,
// and writes the same records in the same blocks to the same bytes.
func TestFileWriterAgreesWithRust(t *testing.T) {
	cli := os.Getenv("XBF_CLI")
	if cli == "" {
		cli = filepath.Join("..", "target", "debug", "xbf")
	}
	if _, err := os.Stat(cli); err != nil {
		t.Skipf("no Rust CLI at %s", cli)
	}
	r := rand.New(rand.NewSource(11))
	out := []byte("[")
	made := 0
	for k := 0; made < 80 && k < 1000; k++ {
		typ := xbf.GenType(r, 3)
		pool := make([]xbf.Value, 1+r.Intn(8))
		for i := range pool {
			pool[i] = xbf.GenValue(r, typ, 0)
		}
		n := r.Intn(6)
		if r.Intn(3) == 0 {
			n = 1024 + r.Intn(1500)
		}
		recs := make([]xbf.Value, n)
		for i := range recs {
			if i == 0 || r.Intn(3) == 0 {
				recs[i] = pool[r.Intn(len(pool))]
			} else {
				recs[i] = recs[i-1]
			}
		}
		var sizes []int
		for left := n; left > 0; {
			s := 1 + r.Intn(left)
			if r.Intn(2) == 0 {
				s = left
			}
			sizes = append(sizes, s)
			left -= s
		}
		var buf bytes.Buffer
		w, err := xbf.NewFileWriter(&buf, typ, xbf.FileOptions{BlockRows: math.MaxInt, BlockBytes: math.MaxInt})
		if err != nil {
			t.Fatal(err)
		}
		next := 0
		for _, s := range sizes {
			for range s {
				if err := w.Write(recs[next]); err != nil {
					t.Fatal(err)
				}
				next++
			}
			if err := w.FlushBlock(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		v := []byte(`{"name":"go random file ` + strconv.Itoa(k) + `","version":2,"file":true,"type":`)
		v = vectorform.AppendType(v, typ)
		v = append(v, `,"records":[`...)
		for i, rec := range recs {
			if i > 0 {
				v = append(v, ',')
			}
			v = vectorform.AppendValue(v, rec)
		}
		v = append(v, `],"blocks":[`...)
		for i, s := range sizes {
			if i > 0 {
				v = append(v, ',')
			}
			v = strconv.AppendInt(v, int64(s), 10)
		}
		v = append(append(append(v, `],"hex":"`...), hex.EncodeToString(buf.Bytes())...), `"}`...)
		if bytes.Contains(v, []byte(`"NaN:`)) {
			continue // the vectors write every NaN alike; NaN payloads are not theirs to check
		}
		if made > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
		made++
	}
	out = append(out, ']')
	t.Logf("%d random files, %d bytes of vectors", made, len(out))
	path := filepath.Join(t.TempDir(), "go-files.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := exec.Command(cli, "vectors", "check", path).CombinedOutput()
	if err != nil || !strings.Contains(string(res), strconv.Itoa(made)+" passed, 0 failed") {
		t.Fatalf("xbf vectors check on %d Go files: %v\n%s", made, err, res)
	}
}
