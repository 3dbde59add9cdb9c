#!/usr/bin/env bash
# The file benchmarks of issue 20 (deliverable 6): XBF files against Parquet
# (arrow-rs `parquet`: zstd, snappy, none), Arrow IPC (zstd), Avro object
# container files (`apache-avro`), CSV + gzip and JSON Lines + zstd, on
# flights-3m (scripts/flights-3m-csv.sh) and on a file ten times larger made
# here (not committed): the 3,000,000 rows ten times, copy k with its dates
# k years later. Each operation (write; read all; read the column `delay`;
# read `delay > 300`) runs in its own process (bench/files/src/main.rs), so
# its peak RSS is its own; rounds are interleaved (every format once a
# round), raw lines go to bench/results/files-raw-SIZE.jsonl and
# scripts/file-bench-summary.py prints the medians.
#   ROUNDS=3 SIZES="3m 30m" FORMATS="xbf ..." OPS="all delay filter" scripts/file-bench.sh
#   SIZES=smoke: 20,000 rows, one round (a check that every format writes and reads back the same rows).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-"3m 30m"}
FORMATS=${FORMATS:-"xbf xbf-zstd parquet-zstd parquet-snappy parquet-none arrow-ipc-zstd avro csv-gzip jsonl-zstd"}
OPS=${OPS:-"all delay filter"}
# Built in bench/'s target directory, reusing what the suite's build compiled.
CARGO_TARGET_DIR=bench/target cargo build --quiet --release --locked --manifest-path bench/files/Cargo.toml
BIN=bench/target/release/files
DATA=target/data
OUT=$DATA/file-bench
mkdir -p "$OUT"

input_of() {
    case "$1" in
        smoke) [ -s $DATA/flights-smoke.csv ] || { [ -s $DATA/flights-3m.csv ] || scripts/flights-3m-csv.sh
                   head -n 20001 $DATA/flights-3m.csv > $DATA/flights-smoke.csv; }
               echo $DATA/flights-smoke.csv ;;
        3m) [ -s $DATA/flights-3m.csv ] || scripts/flights-3m-csv.sh; echo $DATA/flights-3m.csv ;;
        30m) if [ ! -s $DATA/flights-30m.csv ]; then
                 [ -s $DATA/flights-3m.csv ] || scripts/flights-3m-csv.sh
                 { head -n 1 $DATA/flights-3m.csv
                   for k in 0 1 2 3 4 5 6 7 8 9; do
                       tail -n +2 $DATA/flights-3m.csv | awk -F, -v OFS=, -v k=$k '{ $1 = (substr($1, 1, 4) + k) substr($1, 5); print }'
                   done; } > $DATA/flights-30m.csv.tmp
                 mv $DATA/flights-30m.csv.tmp $DATA/flights-30m.csv
             fi
             echo $DATA/flights-30m.csv ;;
        *) echo "unknown size $1" >&2; exit 2 ;;
    esac
}

for size in $SIZES; do
    in=$(input_of "$size")
    rounds=$ROUNDS; [ "$size" = smoke ] && rounds=1
    raw=bench/results/files-raw-$size.jsonl
    [ "$size" = smoke ] && raw=$OUT/files-raw-smoke.jsonl
    commit=$(git rev-parse --short HEAD)
    for round in $(seq 1 "$rounds"); do
        for f in $FORMATS; do
            file=$OUT/$size.$f
            line=$("$BIN" write "$f" "$in" "$file")
            echo "{\"size\":\"$size\",\"round\":$round,\"commit\":\"$commit\",${line#\{}" | tee -a "$raw"
            for op in $OPS; do
                line=$("$BIN" read "$f" "$file" "$op")
                echo "{\"size\":\"$size\",\"round\":$round,\"commit\":\"$commit\",${line#\{}" | tee -a "$raw"
            done
        done
    done
    python3 scripts/file-bench-summary.py "$raw"
done
