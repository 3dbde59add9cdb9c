#!/usr/bin/env bash
# Issue #20's bar on flights-3m: CSV and JSON Lines to XBF files and back,
# each step's peak RSS and wall time by /usr/bin/time -v, and whether the
# rows come back the same (byte-identical CSV and JSON Lines). Needs
# scripts/flights-3m-csv.sh's output and a release build of xbf-cli.
# Prints one line per step; raw lines appended to bench/results/roundtrip-3m.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
XBF=${XBF:-target/release/xbf}
D=target/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
OUT=bench/results/roundtrip-3m.txt
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT"
step() { # name, command...
  local name=$1
  shift
  /usr/bin/time -v "$@" 2>"$T/time" >/dev/null
  local rss wall
  rss=$(awk '/Maximum resident/ {print $6}' "$T/time")
  wall=$(awk '/Elapsed \(wall/ {print $8}' "$T/time")
  printf '%-28s peak %6d KB  wall %s\n' "$name" "$rss" "$wall" | tee -a "$OUT"
}
step from-csv "$XBF" from-csv "$D/flights-3m.csv" -o "$T/csv.xbf"
step from-json--lines "$XBF" from-json --lines "$D/flights-3m.jsonl" -o "$T/jsonl.xbf"
step to-csv "$XBF" to-csv "$T/csv.xbf" -o "$T/back.csv"
step to-json--lines "$XBF" to-json --lines "$T/jsonl.xbf" -o "$T/back.jsonl"
step to-json--lines-of-csv-file "$XBF" to-json --lines "$T/csv.xbf" -o "$T/csv-back.jsonl"
ls -l "$T"/*.xbf | awk '{print $5, $9}' | sed "s#$T/##" | tee -a "$OUT"
cmp "$D/flights-3m.csv" "$T/back.csv" && echo "CSV -> XBF -> CSV: byte-identical" | tee -a "$OUT"
cmp "$D/flights-3m.jsonl" "$T/back.jsonl" && echo "JSON Lines -> XBF -> JSON Lines: byte-identical" | tee -a "$OUT"
cmp "$D/flights-3m.jsonl" "$T/csv-back.jsonl" && echo "CSV -> XBF -> JSON Lines: the same rows as the JSON Lines" | tee -a "$OUT"
