"""A/B timing of two (or more) builds of the xbf extension: dumps/loads of the bench datasets, in the rows
layout (`--layout rows`, the default) or `dumps`'s default choice (`--layout auto`).

Used to decide which raw `pyo3::ffi` calls in python/src pay for their `unsafe` (see python/UNSAFE.md).
Each variant is `name=DIR[,VAR=VALUE...]`: a directory holding an unpacked `xbf` package (e.g. an
unzipped wheel from `maturin build --release`), and environment variables for its processes. Rounds are
interleaved: every round runs each variant once, in its own
process, and each process times every (dataset, operation) pair; the table shows per-variant medians
over the rounds and the change against the first variant.

    python python/bench/ab.py --rounds 12 unsafe=/tmp/xbfab/base safe=/tmp/xbfab/safe
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


def child(vega, reps, layout, typed, held_out=False):
    sys.path.insert(0, str(HERE))
    import typing

    import bench  # noqa: E402  (datasets())
    import xbf

    out = {}
    for dname, data in bench.datasets(vega, held_out=held_out).items():
        columnar = False if layout == "rows" else None
        enc = xbf.dumps(data, columnar=columnar)
        assert xbf.loads(enc) == data
        ops = {"dumps": (lambda o, c=columnar: xbf.dumps(o, columnar=c), data), "loads": (xbf.loads, enc)}
        if typed:
            # Typed loads into the bench's dataclass, and the fastest peers of each kind in the same
            # process (the same code in every variant: ratios to them are within one process).
            import msgspec
            import orjson
            import ormsgpack
            ops["(peer) msgspec.msgpack loads"] = (msgspec.msgpack.decode, msgspec.msgpack.encode(data))
            ops["(peer) orjson loads"] = (orjson.loads, orjson.dumps(data))
            ops["(peer) ormsgpack loads"] = (ormsgpack.unpackb, ormsgpack.packb(data))
            cls = bench.record_class(data)
            if cls is not None:
                t = typing.List[cls]
                ops["typed loads"] = (xbf.Decoder(t).decode, enc)
                ops["(peer) msgspec.msgpack typed"] = (msgspec.msgpack.Decoder(t).decode, msgspec.msgpack.encode(data))
                ops["(peer) msgspec.json typed"] = (msgspec.json.Decoder(t).decode, msgspec.json.encode(data))
        for op, (fn, arg) in ops.items():
            fn(arg)
            ts = [bench.timeit(fn, arg, 0.03) for _ in range(reps)]
            out[f"{dname} {op}"] = min(ts)
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--vega", default=str(HERE.parents[1] / "target/data/vega-datasets"))
    ap.add_argument("--layout", choices=["rows", "auto"], default="rows")
    ap.add_argument("--json", metavar="PATH", help="write the raw timings (seconds) per variant")
    ap.add_argument("--typed", action="store_true",
                    help="also typed loads (xbf.Decoder(list[DC]) of bench.py's dataclass) and peers' loads")
    ap.add_argument("--held-out", action="store_true", help="bench.py's held-out files instead of its datasets")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("variants", nargs="*")
    args = ap.parse_args()
    if args.child:
        return child(args.vega, args.reps, args.layout, args.typed, args.held_out)
    variants = dict(v.split("=", 1) for v in args.variants)
    results = {v: {} for v in variants}
    for r in range(args.rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for v in order:
            path, *envs = variants[v].split(",")
            env = dict(os.environ, PYTHONPATH=path, **dict(e.split("=", 1) for e in envs))
            res = subprocess.run([sys.executable, __file__, "--child", "--vega", args.vega, "--reps", str(args.reps),
                                  "--layout", args.layout] + (["--typed"] if args.typed else [])
                                 + (["--held-out"] if args.held_out else []),
                                 env=env, check=True, capture_output=True, text=True, cwd="/")
            for k, t in json.loads(res.stdout.strip().splitlines()[-1]).items():
                results[v].setdefault(k, []).append(t)
    names = list(variants)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"layout": args.layout, "held_out": args.held_out,
                                                       "rounds": args.rounds, "reps": args.reps,
                                                       "date": time.strftime("%Y-%m-%d %H:%M"),
                                                       "seconds": results}, indent=1) + "\n")
    print("| benchmark | " + " | ".join(f"{n} ms" for n in names) + " | " +
          " | ".join(f"{n} vs {names[0]}" for n in names[1:]) + " |")
    print("|---" * (1 + 2 * len(names) - 1) + "|")
    for k in results[names[0]]:
        meds = [statistics.median(results[n][k]) for n in names]
        print(f"| {k} | " + " | ".join(f"{m * 1e3:.2f}" for m in meds) + " | " +
              " | ".join(f"{(m / meds[0] - 1) * 100:+.1f}%" for m in meds[1:]) + " |")
    print(f"\n({args.rounds} interleaved rounds, each the best of {args.reps} timings; {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
