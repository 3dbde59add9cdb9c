// Command medians reads `go test -bench` output files (one per interleaved
// run) and prints, for each dataset (BenchmarkFlights20k, BenchmarkMovies,
// ...) in the order they ran, a Markdown table per operation (Marshal,
// Unmarshal) of each codec's median ns/op, allocations and encoded bytes,
// with times relative to vmihailenco/msgpack on the same dataset.
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
	for _, set := range datasets(order) {
		for _, op := range []string{"Marshal", "Unmarshal"} {
			prefix := "Benchmark" + set + "/" + op + "/"
			base := results[prefix+"vmihailenco-msgpack"]
			fmt.Printf("| %s, %s | bytes | ms | ÷ msgpack | allocs | alloc bytes |\n| --- | ---: | ---: | ---: | ---: | ---: |\n", op, label(set))
			for _, name := range order {
				if !strings.HasPrefix(name, prefix) {
					continue
				}
				s := results[name]
				rel := "?"
				if base != nil {
					rel = fmt.Sprintf("%.2f", median(s.ns)/median(base.ns))
				}
				fmt.Printf("| %s | %.0f | %s | %s | %.0f | %.0f |\n", strings.TrimPrefix(name, prefix),
					median(s.bytes), ms(median(s.ns)), rel, median(s.allocs), median(s.allocBytes))
			}
			fmt.Println()
		}
	}
}

// ms writes nanoseconds as milliseconds with three significant digits or
// more, the precision the noise of a shared machine leaves.
func ms(ns float64) string {
	switch m := ns / 1e6; {
	case m >= 10:
		return fmt.Sprintf("%.1f", m)
	case m >= 1:
		return fmt.Sprintf("%.2f", m)
	default:
		return fmt.Sprintf("%.3f", m)
	}
}

// datasets gives the benchmarks' dataset parts ("Flights20k" of
// "BenchmarkFlights20k/Marshal/xbf"), each once, in the order they ran.
func datasets(order []string) []string {
	var sets []string
	seen := map[string]bool{}
	for _, name := range order {
		set, _, _ := strings.Cut(strings.TrimPrefix(name, "Benchmark"), "/")
		if !seen[set] {
			seen[set] = true
			sets = append(sets, set)
		}
	}
	return sets
}

// label names a dataset as the other languages' results do (its file in
// vega-datasets); a benchmark not listed here keeps its Go name.
func label(set string) string {
	switch set {
	case "Flights20k":
		return "flights-20k"
	case "Movies":
		return "movies"
	case "Earthquakes":
		return "earthquakes"
	case "SP500":
		return "sp500-2000"
	}
	return set
}
