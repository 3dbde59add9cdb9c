#!/usr/bin/env bash
# Instruction counts of the core's string encoder one column at a time
# (coreenc13, issue 24): for each string column of each FILE, the
# `string_columns` example under callgrind, 3 rounds, counting inside
# EncodeOptions::encode_columns_kept only.
#
#   crates/xbf/examples/string_columns_callgrind.sh OUT.jsonl LABEL BINARY [FILE ...]
#
# Build BINARY with
#   CARGO_PROFILE_RELEASE_DEBUG=true cargo build --release -p xbf --features json --example string_columns
# and copy it aside. Each line of OUT is the example's line for the column
# (values, distinct values, runs, mean length, values under 8 bytes, the
# message's size) with "label", "ir_per_round" and "ir_per_value". The files
# default to encode_columns' list.
set -euo pipefail
out=$1 label=$2 bin=$3
shift 3
here=$(dirname "$0")
files=${*:-$(sed -n '/^const FILES/,/^];/s/^ *"\(.*\)",$/\1/p' "$here/encode_columns.rs")}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.out"' EXIT
for f in $files; do
    "$bin" "$f" | python3 -c 'import sys, json; [print(json.loads(l)["column"]) for l in sys.stdin]' |
        while IFS= read -r col; do
            valgrind --tool=callgrind --callgrind-out-file="$tmp" --toggle-collect='*EncodeOptions*encode_columns_kept' \
                "$bin" --rounds 3 "$f" "$col" >"$tmp.out" 2>/dev/null
            ir=$(callgrind_annotate "$tmp" 2>/dev/null | sed -n 's/^\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
            python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read())
d["label"], d["ir_per_round"] = sys.argv[2], int(sys.argv[3]) // 3
d["ir_per_value"] = round(d["ir_per_round"] / max(d["n"], 1), 1)
print(json.dumps(d))' "$tmp.out" "$label" "$ir" | tee -a "$out"
        done
done
