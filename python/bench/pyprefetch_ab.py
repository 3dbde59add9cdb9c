"""A/B timing of builds of the xbf extension on `xbf.dumps` (the default layout) of large and small lists of
records: bench.py's datasets, its first held-out set, and flights-200k.json (an extra large list, read as
bench.py reads flights-20k; not a benchmark file). As python/bench/ab.py (read its header): each variant is
`name=DIR[,VAR=VALUE...]`, a directory holding an `xbf` package, and environment variables for its
processes; every round runs each variant once, each in its own process (the order reversed every other
round), and each process times every file (the best of `--reps` timings of at least 30 ms); the table
shows per-variant medians over the rounds and the change against the first variant. orjson.dumps is timed
in every process too (the same code in every variant): `xbf ÷ orjson` within one process cancels some of
the machine's load swings.

    python python/bench/pyprefetch_ab.py --rounds 15 --json python/bench/pyprefetch-ab.json \\
        main=/tmp/xbfab/mcf4 branch=/tmp/xbfab/pyprefetch
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
EXTRA = ("flights-200k.json",)


def child(vega, reps, only):
    sys.path.insert(0, str(HERE))
    import orjson

    import bench  # noqa: E402
    import xbf

    data = {**bench.datasets(vega), **bench.datasets(vega, held_out=True), **bench.files(vega, EXTRA)}
    out = {}
    for name, rows in data.items():
        if only and not any(o in name for o in only):
            continue
        enc = xbf.dumps(rows)
        assert xbf.loads(enc) == rows
        for op, fn in (("dumps", xbf.dumps), ("(peer) orjson", orjson.dumps)):
            fn(rows)
            out[f"{name} {op}"] = min(bench.timeit(fn, rows, 0.03) for _ in range(reps))
    print(json.dumps({"xbf": xbf.__file__, "seconds": out}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--vega", default=str(HERE.parents[1] / "target/data/vega-datasets"))
    ap.add_argument("--only", action="append", help="only the files whose name holds this (repeatable)")
    ap.add_argument("--json", metavar="PATH", help="write the raw timings (seconds) per variant")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("variants", nargs="*")
    args = ap.parse_args()
    if args.child:
        return child(args.vega, args.reps, args.only)
    variants = dict(v.split("=", 1) for v in args.variants)
    results = {v: {} for v in variants}
    for r in range(args.rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for v in order:
            path, *envs = variants[v].split(",")
            env = dict(os.environ, PYTHONPATH=path, **dict(e.split("=", 1) for e in envs))
            cmd = [sys.executable, __file__, "--child", "--vega", args.vega, "--reps", str(args.reps)]
            for o in args.only or ():
                cmd += ["--only", o]
            res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, cwd="/")
            got = json.loads(res.stdout.strip().splitlines()[-1])
            assert got["xbf"].startswith(path), (got["xbf"], path)
            for k, t in got["seconds"].items():
                results[v].setdefault(k, []).append(t)
    names = list(variants)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"variants": variants, "rounds": args.rounds, "reps": args.reps,
                                                       "date": time.strftime("%Y-%m-%d %H:%M"),
                                                       "seconds": results}, indent=1) + "\n")
    print("| file | " + " | ".join(f"{n} ms" for n in names) + " | "
          + " | ".join(f"{n} vs {names[0]}" for n in names[1:]) + " | "
          + " | ".join(f"{n} ÷ orjson" for n in names) + " |")
    print("|---" * (1 + 3 * len(names) - 1) + "|")
    for k in results[names[0]]:
        if not k.endswith(" dumps"):
            continue
        peer = k[:-len(" dumps")] + " (peer) orjson"
        meds = [statistics.median(results[n][k]) for n in names]
        rel = [statistics.median(a / b for a, b in zip(results[n][k], results[n][peer])) for n in names]
        print(f"| {k[:-len(' dumps')]} | " + " | ".join(f"{m * 1e3:.3f}" for m in meds) + " | "
              + " | ".join(f"{(m / meds[0] - 1) * 100:+.1f}%" for m in meds[1:]) + " | "
              + " | ".join(f"{x:.3f}" for x in rel) + " |")
    print(f"\n({args.rounds} interleaved rounds, each the best of {args.reps} timings; medians; "
          f"{time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
