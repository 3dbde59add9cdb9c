#!/usr/bin/env bash
# Go benchmarks (go/bench): flights-20k Marshal/Unmarshal against the other
# Go encoders. Runs the whole set RUNS times (default 7) one after another,
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
    go test -run '^$' -bench Flights20k -benchtime 1s -count 1 . > "results/raw-$i.txt"
done
{
    echo "# Go benchmark: xbf against encoding/json, goccy/go-json, fxamacker/cbor, vmihailenco/msgpack, tinylib/msgp"
    echo
    echo "$(go version | cut -d' ' -f3), ${DATE:-$(date -u '+%Y-%m-%d %H:%M UTC')}, commit ${COMMIT:-$(git rev-parse --short HEAD)}, $(nproc) cores (load average $LOAD at the start);" \
        "\`scripts/go-bench.sh\` (go/bench, \`go test -bench Flights20k\`, $RUNS runs of the whole set one after another)." \
        "Marshal of a \`[]Flight\` (5 fields: date string, delay and distance \`int\`, origin and destination strings) and" \
        "Unmarshal into a fresh one; xbf writes XBF 2 rows (its default); xbf-columns is the columnar layout" \
        "(\`EncOptions{Layout: LayoutColumns}\`), which Marshal writes and Unmarshal reads column by column from and" \
        "into the struct fields (no dynamic Value); msgp uses its generated code" \
        "(\`flights_msgp.go\`), the others reflection. ms and allocations per operation; ÷ msgpack is the time" \
        "relative to vmihailenco/msgpack in the same runs."
    echo
    go run ./cmd/medians results/raw-*.txt
} > RESULTS.md
cat RESULTS.md
