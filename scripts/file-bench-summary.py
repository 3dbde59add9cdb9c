#!/usr/bin/env python3
"""Medians of scripts/file-bench.sh's raw lines, as the tables of BENCHMARKS.md.
Fails if two formats disagree on the rows or the sum of delays a read saw.
  file-bench-summary.py [--commits C1,C2,...] RAW.jsonl...
--commits keeps only the lines of those runs (e.g. the rounds of one session, to
compare 3M with 30M at the same load)."""
import json
import statistics
import sys
from collections import defaultdict


def main(path, commits=None):
    runs = defaultdict(list)
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            if commits and r["commit"] not in commits:
                continue
            runs[(r["format"], r["op"])].append(r)
    formats = list(dict.fromkeys(f for f, _ in runs))
    ops = ["write", "read-all", "read-delay", "read-filter"]
    # Every format reads the same rows and the same delays.
    for op in ops[1:]:
        seen = {(runs[(f, op)][0]["rows"], runs[(f, op)][0]["delay_sum"]) for f in formats if (f, op) in runs}
        if len(seen) > 1:
            sys.exit(f"{path}: the formats disagree on {op}: {seen}")
    rows = runs[(formats[0], "write")][0]["rows"]
    n = max(len(v) for v in runs.values())
    print(f"{path}: {rows:,} rows, median of {n} interleaved rounds; seconds, peak RSS in MB")
    print()
    print("| format | bytes | write s | MB | read all s | MB | one column s | MB | delay > 300 s | MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for f in formats:
        cells = [f, f"{runs[(f, 'write')][-1]['bytes']:,}"]
        for op in ops:
            rs = runs.get((f, op), [])
            if not rs:
                cells += ["", ""]
                continue
            s = statistics.median(r["seconds"] for r in rs)
            mb = statistics.median(r["peak_rss_kb"] for r in rs) / 1024
            cells += [f"{s:.2f}", f"{mb:.0f}"]
        print("| " + " | ".join(cells) + " |")
    print()


if __name__ == "__main__":
    args = sys.argv[1:]
    commits = None
    if args[:1] == ["--commits"]:
        commits = set(args[1].split(","))
        args = args[2:]
    for p in args:
        main(p, commits)
