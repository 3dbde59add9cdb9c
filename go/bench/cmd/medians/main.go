// Command medians reads `go test -bench` output files (one per interleaved
// run) and prints a Markdown table of each benchmark's median ns/op,
// allocations and bytes, with times relative to vmihailenco/msgpack.
//
//	go run ./cmd/medians results/raw-*.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

type sample struct{ ns, allocs, allocBytes, bytes []float64 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func main() {
	results := map[string]*sample{}
	var order []string
	runs := 0
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		runs++
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
				continue
			}
			name := fields[0]
			if i := strings.LastIndex(name, "-"); i > 0 {
				name = name[:i] // the GOMAXPROCS suffix
			}
			s := results[name]
			if s == nil {
				s = &sample{}
				results[name] = s
				order = append(order, name)
			}
			for i := 2; i+1 < len(fields); i += 2 {
				x, err := strconv.ParseFloat(fields[i], 64)
				if err != nil {
					continue
				}
				switch fields[i+1] {
				case "ns/op":
					s.ns = append(s.ns, x)
				case "allocs/op":
					s.allocs = append(s.allocs, x)
				case "B/op":
					s.allocBytes = append(s.allocBytes, x)
				case "bytes":
					s.bytes = append(s.bytes, x)
				}
			}
		}
		f.Close()
	}
	fmt.Printf("Medians of %d interleaved runs.\n\n", runs)
	for _, op := range []string{"Marshal", "Unmarshal"} {
		base := results["BenchmarkFlights20k/"+op+"/vmihailenco-msgpack"]
		fmt.Printf("| %s, flights-20k | bytes | ms | ÷ msgpack | allocs | alloc bytes |\n| --- | ---: | ---: | ---: | ---: | ---: |\n", op)
		for _, name := range order {
			if !strings.HasPrefix(name, "BenchmarkFlights20k/"+op+"/") {
				continue
			}
			s := results[name]
			rel := "?"
			if base != nil {
				rel = fmt.Sprintf("%.2f", median(s.ns)/median(base.ns))
			}
			fmt.Printf("| %s | %.0f | %.2f | %s | %.0f | %.0f |\n", strings.TrimPrefix(name, "BenchmarkFlights20k/"+op+"/"),
				median(s.bytes), median(s.ns)/1e6, rel, median(s.allocs), median(s.allocBytes))
		}
		fmt.Println()
	}
}
