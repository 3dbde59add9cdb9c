#!/usr/bin/env bash
# Go benchmarks (go/bench): flights-20k Marshal/Unmarshal against the other
# Go encoders. Runs the whole set RUNS times (default 7) one after another,
# so that the libraries interleave, keeps every run's raw output in
# go/bench/results/, and prints the medians as Markdown (for BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-7}"
scripts/fetch-data.sh >/dev/null
cd go/bench
rm -f results/raw-*.txt
for i in $(seq 1 "$RUNS"); do
    go test -run '^$' -bench Flights20k -benchtime 1s -count 1 . > "results/raw-$i.txt"
done
go run ./cmd/medians results/raw-*.txt | tee results/medians.md
