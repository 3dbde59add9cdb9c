#!/usr/bin/env bash
# Instruction counts of the core's column encoders (the `encode_columns`
# example) under callgrind, counting only inside
# EncodeOptions::encode_columns_kept (which encode_columns calls: a pattern
# matching both would toggle collection off again inside; not the JSON
# reading nor the pushing into
# Columns), for builds at several commits, interleaved file by file.
#
#   crates/xbf/examples/encode_columns_callgrind.sh OUT.jsonl ROUNDS LABEL=BINARY [LABEL=BINARY ...]
#
# Build each binary with
#   CARGO_PROFILE_RELEASE_DEBUG=true cargo build --release -p xbf --features json --example encode_columns
# and copy it aside. Each line of OUT is {"label", "file", "rounds", "ir",
# "ir_per_round"}, and the parts: the inclusive counts per round of the
# float, string and integer column encoders.
set -euo pipefail
out=$1 rounds=$2
shift 2
first=${1#*=}
files=${FILES:-$("$first" --list)}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for file in $files; do
    for pair in "$@"; do
        label=${pair%%=*} bin=${pair#*=}
        valgrind --tool=callgrind --callgrind-out-file="$tmp" --toggle-collect='*EncodeOptions*encode_columns_kept' \
            "$bin" --rounds "$rounds" "$file" >/dev/null 2>&1
        ir=$(callgrind_annotate "$tmp" 2>/dev/null | sed -n 's/^\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
        part() {
            callgrind_annotate --inclusive=yes --threshold=100 "$tmp" 2>/dev/null |
                { grep -E "$1" || true; } | head -1 | sed -n 's/^ *\([0-9,]*\) .*/\1/p' | tr -d ,
        }
        floats=$(part 'columnar::floats::(encode|encode_hinted|candidates)[^a-z_]')
        strings=$(part 'columnar::strings::(candidates|encode|encode_with)[^a-z_]')
        ints=$(part 'columnar::ints::encode[^a-z_]')
        printf '{"label": "%s", "file": "%s", "rounds": %s, "ir": %s, "ir_per_round": %s, "floats": %s, "strings": %s, "ints": %s}\n' \
            "$label" "$file" "$rounds" "$ir" "$((ir / rounds))" "$(( ${floats:-0} / rounds ))" \
            "$(( ${strings:-0} / rounds ))" "$(( ${ints:-0} / rounds ))" | tee -a "$out"
    done
done
