#!/usr/bin/env bash
# Go benchmarks (go/bench): Marshal/Unmarshal of flights-20k, movies,
# earthquakes and sp500-2000 against the other Go encoders. Runs the whole set RUNS times (default 7) one after another,
# so that the libraries interleave, keeps every run's raw output in
# go/bench/results/, and writes the medians to go/bench/RESULTS.md, which
# BENCHMARKS.md includes (bench/src/report.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-7}"
scripts/fetch-data.sh >/dev/null
cd go/bench
rm -f results/raw-*.txt
LOAD="$(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$RUNS"); do
    go test -run '^$' -bench 'Flights20k|Movies|Earthquakes|SP500' -benchtime 1s -count 1 . > "results/raw-$i.txt"
done
{
    echo "# Go benchmark: xbf against encoding/json, goccy/go-json, fxamacker/cbor, vmihailenco/msgpack, tinylib/msgp"
    echo
    echo "$(go version | cut -d' ' -f3), ${DATE:-$(date -u '+%Y-%m-%d %H:%M UTC')}, commit ${COMMIT:-$(git rev-parse --short HEAD)}, $(nproc) cores (load average $LOAD at the start);" \
        "\`scripts/go-bench.sh\` (go/bench, \`go test -bench 'Flights20k|Movies|Earthquakes|SP500'\`, $RUNS runs of the whole set one after another)." \
        "Marshal of the records and Unmarshal into a fresh value, for four datasets of vega-datasets 3.2.1" \
        "(\`scripts/fetch-data.sh\`), typed as the Rust benchmarks type them (bench/src/data.rs):" \
        "**flights-20k**, a \`[]Flight\` (5 fields: date string, delay and distance \`int\`, origin and destination strings);" \
        "**movies**, a \`[]Movie\` of 3,201 records with 16 fields, every one a pointer (an option; nil for the file's" \
        "nulls and missing keys), 8 \`*float64\` and 8 \`*string\`;" \
        "**earthquakes**, one GeoJSON \`FeatureCollection\` (metadata struct, 1,707 nested features of 26 properties," \
        "10 of them optional, and a \`[3]float64\` point);" \
        "**sp500-2000**, a \`[]Quote\` of 5,105 rows (date string, five \`float64\` prices, an \`int64\` volume)." \
        "xbf writes XBF 2 rows (its default); xbf-columns is the columnar layout" \
        "(\`EncOptions{Layout: LayoutColumns}\`), which Marshal writes and Unmarshal reads column by column from and" \
        "into the struct fields (no dynamic Value); msgp uses its generated code" \
        "(\`*_msgp.go\`, tinylib/msgp v1.6.5), the others reflection. ms and allocations per operation; ÷ msgpack is the time" \
        "relative to vmihailenco/msgpack on the same dataset in the same runs." \
        "The machine is shared (other builds and fuzzers run beside the benchmark: see the load average), so" \
        "single figures are noisy; the medians and the ratios within one dataset are the figures to read."
    echo
    go run ./cmd/medians results/raw-*.txt
} > RESULTS.md
cat RESULTS.md
