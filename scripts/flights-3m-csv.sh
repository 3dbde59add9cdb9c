#!/usr/bin/env bash
# Converts vega-datasets' flights-3m.parquet (fetched and checksummed by
# fetch-data.sh) to CSV with RFC 3339 timestamps, for the file benchmarks:
# target/data/flights-3m.csv (145 MB) and target/data/flights-3m.jsonl.
# A Parquet reader is needed only here: pyarrow, pinned, in a venv under
# target/ (from PyPI), so that the core crates keep no Parquet dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/fetch-data.sh
VENV=target/pyarrow-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import pyarrow' 2>/dev/null || "$VENV/bin/pip" install --quiet 'pyarrow==26.0.1'
"$VENV/bin/python" - <<'PY'
import json
import pyarrow.parquet as pq

src = pq.ParquetFile("target/data/vega-datasets/flights-3m.parquet")
with open("target/data/flights-3m.csv.tmp", "w", newline="") as csv, \
     open("target/data/flights-3m.jsonl.tmp", "w") as jl:
    csv.write("date,delay,distance,origin,destination\n")
    for i in range(src.metadata.num_row_groups):
        t = src.read_row_group(i).to_pydict()
        for d, de, di, o, ds in zip(t["date"], t["delay"], t["distance"], t["origin"], t["destination"]):
            stamp = d.strftime("%Y-%m-%dT%H:%M:%SZ")  # the file's times are UTC, whole seconds
            csv.write(f"{stamp},{de},{di},{o},{ds}\n")
            jl.write(json.dumps({"date": stamp, "delay": de, "distance": di, "origin": o, "destination": ds},
                                separators=(",", ":")) + "\n")
PY
mv target/data/flights-3m.csv.tmp target/data/flights-3m.csv
mv target/data/flights-3m.jsonl.tmp target/data/flights-3m.jsonl
ls -l target/data/flights-3m.csv target/data/flights-3m.jsonl
