"""A/B timing of dates through two builds of the extension (e.g. the version-specific build against the
abi3 one, whose dates go through the `datetime` module's classes): dumps and loads (rows) of 10,000
records of a date and a UTC datetime. Variants as in ab.py (`name=DIR`, a directory holding an unpacked
`xbf` package); rounds interleaved, each variant in its own process; medians over the rounds.

    python python/bench/ab_dates.py --rounds 4 --json python/bench/ab_abi3_dates.json new=/tmp/new abi3=/tmp/abi3
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
CHILD = r'''
import sys, json, datetime
sys.path.insert(0, sys.argv[1])
import bench, xbf
UTC = datetime.timezone.utc
rows = [{"d": datetime.date(2000, 1, 1) + datetime.timedelta(days=i),
         "t": datetime.datetime(2020, 1, 1, tzinfo=UTC) + datetime.timedelta(seconds=7 * i)} for i in range(10000)]
enc = xbf.dumps(rows, columnar=False)
assert xbf.loads(enc) == rows
print(json.dumps({"dates dumps": min(bench.timeit(lambda o: xbf.dumps(o, columnar=False), rows, 0.03) for _ in range(3)),
                  "dates loads": min(bench.timeit(xbf.loads, enc, 0.03) for _ in range(3))}))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("variants", nargs="+")
    args = ap.parse_args()
    variants = dict(v.split("=", 1) for v in args.variants)
    res = {v: [] for v in variants}
    for r in range(args.rounds):
        for v in (list(variants) if r % 2 == 0 else list(reversed(variants))):
            o = subprocess.run([sys.executable, "-c", CHILD, str(HERE)], env=dict(os.environ, PYTHONPATH=variants[v]),
                               capture_output=True, text=True, cwd="/", check=True)
            res[v].append(json.loads(o.stdout))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"rounds": args.rounds, "seconds": res}, indent=1) + "\n")
    names = list(variants)
    for k in res[names[0]][0]:
        meds = [statistics.median(x[k] for x in res[v]) for v in names]
        print(f"{k}: " + ", ".join(f"{n} {m * 1e3:.2f} ms" for n, m in zip(names, meds))
              + "".join(f" ({n} {(m / meds[0] - 1) * 100:+.1f}%)" for n, m in zip(names[1:], meds[1:])))


if __name__ == "__main__":
    main()
