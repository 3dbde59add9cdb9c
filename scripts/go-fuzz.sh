#!/usr/bin/env bash
# Runs the Go fuzz targets (go/fuzz_test.go), each for a bounded time, seeded
# with every vector file. Usage: scripts/go-fuzz.sh [SECONDS per target, default 30]
set -euo pipefail
cd "$(dirname "$0")/../go"
SECONDS_EACH="${1:-30}"
for target in FuzzDecode FuzzUnmarshal FuzzTypedColumns FuzzFile; do
    echo "== $target for ${SECONDS_EACH}s"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "${SECONDS_EACH}s" .
done
