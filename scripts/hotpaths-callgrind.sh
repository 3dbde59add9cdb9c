#!/usr/bin/env bash
# Instruction counts of the core's encoders and decoders, under callgrind
# (repeatable on a loaded machine, unlike times), for builds of the
# `hotpaths` example at several commits, interleaved operation by operation.
#
#   scripts/hotpaths-callgrind.sh OUT.jsonl ROUNDS LABEL=BINARY [LABEL=BINARY ...]
#
# Build each binary with
#   cargo build --release -p xbf --features derive --example hotpaths
# in a checkout of the commit (the example uses only API every measured
# commit has; copy crates/xbf/examples/hotpaths.rs into older ones). Each
# line of OUT is {"label", "op", "rounds", "ir"}; the count of an
# operation per round is (ir(op) - ir(setup)) / rounds, which
# scripts/hotpaths-summary.py prints as a table of ratios.
set -euo pipefail
out=$1 rounds=$2
shift 2
first=${1#*=}
ops=$("$first" --list)
for op in $ops; do
    for pair in "$@"; do
        label=${pair%%=*} bin=${pair#*=}
        ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$op" "$rounds" 2>&1 >/dev/null |
            sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        printf '{"label": "%s", "op": "%s", "rounds": %s, "ir": %s}\n' "$label" "$op" "$rounds" "$ir" | tee -a "$out"
    done
done
