package xbf

import (
	"bytes"
	"io"
	"math/rand"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

var rustErr = regexp.MustCompile(`at byte (\d+)(?:, in (.*?))?: ([a-z0-9-]+)`)

// Mutated vector inputs give the same outcome in Go as in the Rust CLI:
// both accept, or both fail with the same kind, offset and path (SPEC 8.4).
func TestDifferentialAgainstRust(t *testing.T) {
	cli := rustCLI(t)
	seeds := vectorHexes(t)
	rng := rand.New(rand.NewSource(22))
	checked := 0
	for i := 0; i < 400; i++ {
		in := append([]byte(nil), seeds[rng.Intn(len(seeds))]...)
		switch rng.Intn(4) {
		case 0:
			if len(in) > 0 {
				in = in[:rng.Intn(len(in))]
			}
		case 1:
			if len(in) > 0 {
				in[rng.Intn(len(in))] ^= byte(1 << rng.Intn(8))
			}
		case 2:
			if len(in) > 0 {
				in[rng.Intn(len(in))] = byte(rng.Intn(256))
			}
		case 3:
			in = append(in, byte(rng.Intn(256)))
		}
		cmd := exec.Command(cli, "to-json")
		cmd.Stdin = bytes.NewReader(in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		rerr := cmd.Run()
		var gerr error
		stream := false
		if len(in) > 1 && in[0] == 0xc2 && in[1]&flagStream != 0 && in[1]&0xf2 == 0 {
			// to-json reads streams too: the stream reader's outcome.
			stream = true
			s, err := NewStreamReader(in)
			for err == nil {
				_, err = s.Next()
			}
			if err != io.EOF {
				gerr = err
			}
		} else {
			_, gerr = Decode(in)
		}
		if rerr == nil {
			if gerr != nil {
				t.Errorf("%x: Rust accepts, Go fails with %v", in, gerr)
			}
			checked++
			continue
		}
		m := rustErr.FindStringSubmatch(stderr.String())
		if m == nil {
			continue // a failure of the JSON conversion (NaN), not of decoding
		}
		checked++
		xe, ok := gerr.(*Error)
		if !ok {
			t.Errorf("%x: Rust fails (%s), Go accepts", in, m[0])
			continue
		}
		// Rust reads streams as a source of unknown length, which may report
		// another error on a cut input (SPEC 8.4, 17.2): only both failing counts.
		if stream && (m[3] == KindTruncated || xe.Kind == KindTruncated) {
			continue
		}
		// Compared as kind, offset and path: the Rust CLI displays a root
		// struct's empty name as ", in " where SPEC 8.4 leaves the path out.
		if strconv.FormatInt(xe.Offset, 10) != m[1] || xe.Path != m[2] || xe.Kind != m[3] {
			t.Errorf("%x: Rust %q, Go %q", in, m[0], xe.Error())
		}
	}
	t.Logf("%d inputs compared", checked)
}
