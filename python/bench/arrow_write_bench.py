"""Write time of xbf.arrow.write_table against pyarrow.parquet.write_table
(zstd) on vega-datasets' flights-3m, in one interleaved run (issue 21).

    python python/bench/arrow_write_bench.py [--rounds 3] [--json out.json]
        [--compare before=/tmp/xbf-before-site]

Round after round, each writer writes the same pyarrow table (the vega
Parquet file's rows) to a file of its own; the order turns each round.
`--compare LABEL=DIR` adds another build of the xbf package (installed with
`pip install --target DIR`), which writes in a worker process of its own
(timed there) as `xbf [LABEL]` and `xbf zstd=3 [LABEL]`: a before/after in
one run. The files each build writes are compared byte for byte (the column
writer must give the record writer's file). Each time is the median of the
rounds; every raw time is kept in the JSON.
"""

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time

import pyarrow.parquet as pq
from child import Worker

import xbf.arrow as xa

SRC = "target/data/vega-datasets/flights-3m.parquet"

WRITERS = {
    "xbf": lambda t, p: xa.write_table(t, p),
    "xbf threads=2": lambda t, p: xa.write_table(t, p, threads=2),
    "xbf zstd=3": lambda t, p: xa.write_table(t, p, zstd=3),
    "parquet zstd": lambda t, p: pq.write_table(t, p, compression="zstd"),
}


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def worker():
    table = pq.read_table(SRC)
    print(xa.__file__, flush=True)
    for line in sys.stdin:
        name, path = line.rstrip("\n").split("\t")
        s = time.perf_counter()
        WRITERS[name](table, path)
        print(time.perf_counter() - s, flush=True)


def main():
    if "--worker" in sys.argv:
        return worker()
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--compare", action="append", default=[], metavar="LABEL=DIR",
                    help="another xbf build (pip install --target DIR) writing in a worker, as `xbf [LABEL]`")
    args = ap.parse_args()
    table = pq.read_table(SRC)
    folder = tempfile.mkdtemp(prefix="arrow-write-bench-")
    workers = {}
    for c in args.compare:
        label, site = c.split("=", 1)
        workers[label] = Worker(__file__, site)
        print(f"[{label}] is {workers[label].version}", file=sys.stderr)
    # (display name, writer, worker label or None)
    runs = [(n, n, None) for n in WRITERS]
    # Older builds have no `threads` (they encode on one thread).
    runs += [(f"{n} [{label}]", n, label) for label in workers for n in ("xbf", "xbf zstd=3")]
    raw = {name: [] for name, _, _ in runs}
    paths = {}
    for r in range(args.rounds):
        order = runs[r % len(runs):] + runs[:r % len(runs)]
        for name, writer, label in order:
            path = os.path.join(folder, name.replace(" ", "_").replace("=", "").replace("[", "").replace("]", ""))
            paths[name] = path
            if label is None:
                s = time.perf_counter()
                WRITERS[writer](table, path)
                raw[name].append(time.perf_counter() - s)
            else:
                raw[name].append(workers[label].ask(writer, path))
        print(f"round {r + 1}: " + ", ".join(f"{n} {raw[n][-1]:.2f}s" for n, _, _ in runs), file=sys.stderr)
    for w in workers.values():
        w.close()
    same = {f"{name} = {writer}": digest(paths[name]) == digest(paths[writer])
            for name, writer, label in runs if label is not None}
    result = {"rows": table.num_rows,
              "compared": {label: w.version for label, w in workers.items()},
              "same_file_bytes": same,
              "bytes": {n: os.path.getsize(p) for n, p in paths.items()},
              "raw_s": raw,
              "median_s": {n: statistics.median(v) for n, v in raw.items()}}
    text = json.dumps(result, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
