"""A/B timing of two (or more) builds of the xbf extension: dumps/loads of the bench datasets, in the rows
layout (`--layout rows`, the default) or `dumps`'s default choice (`--layout auto`).

Used to decide which raw `pyo3::ffi` calls in python/src pay for their `unsafe` (see python/UNSAFE.md).
Each variant is `name=DIR[,VAR=VALUE...]`: a directory holding an unpacked `xbf` package (e.g. an
unzipped wheel from `maturin build --release`), and environment variables for its processes. Rounds are
interleaved: every round runs each variant once, in its own
process, and each process times every (dataset, operation) pair; the table shows per-variant medians
over the rounds and the change against the first variant.

    python python/bench/ab.py --rounds 12 unsafe=/tmp/xbfab/base safe=/tmp/xbfab/safe

`--only NAME` (repeatable) keeps the files whose names hold NAME; `--extra FILE` (repeatable) adds a vega-datasets
file outside the benchmark, read as bench.py reads its files (e.g. flights-200k.json); `--ops dumps` times only
`dumps`; `--orjson` also times `orjson.dumps` in every process (the same code in every variant: each variant's
`dumps ÷ orjson` within its own processes cancels some of the machine's load swings) and adds those columns.
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


def child(vega, reps, layout, typed, held_out=False, only=(), extra=(), ops_wanted=("dumps", "loads"), peer=False):
    sys.path.insert(0, str(HERE))
    import typing

    import bench  # noqa: E402  (datasets())
    import xbf

    # The variant's package, not another on the path.
    assert xbf.__file__.startswith(os.environ["PYTHONPATH"]), (xbf.__file__, os.environ["PYTHONPATH"])
    out = {}
    files = {**bench.datasets(vega, held_out=held_out), **bench.files(vega, extra)}
    for dname, data in files.items():
        if only and not any(o in dname for o in only):
            continue
        columnar = False if layout == "rows" else None
        enc = xbf.dumps(data, columnar=columnar)
        assert xbf.loads(enc) == data
        ops = {"dumps": (lambda o, c=columnar: xbf.dumps(o, columnar=c), data), "loads": (xbf.loads, enc)}
        ops = {op: v for op, v in ops.items() if op in ops_wanted}
        if peer:
            import orjson
            ops["(peer) orjson dumps"] = (orjson.dumps, data)
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
    ap.add_argument("--only", action="append", default=[], help="only the files whose name holds this")
    ap.add_argument("--extra", action="append", default=[], help="a vega-datasets file outside the benchmark")
    ap.add_argument("--ops", default="dumps,loads", help="comma-separated: dumps, loads")
    ap.add_argument("--orjson", action="store_true", help="also orjson.dumps in every process, and ÷ orjson columns")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("variants", nargs="*")
    args = ap.parse_args()
    if args.child:
        return child(args.vega, args.reps, args.layout, args.typed, args.held_out, args.only, args.extra,
                     args.ops.split(","), args.orjson)
    variants = dict(v.split("=", 1) for v in args.variants)
    results = {v: {} for v in variants}
    for r in range(args.rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for v in order:
            path, *envs = variants[v].split(",")
            env = dict(os.environ, PYTHONPATH=path, **dict(e.split("=", 1) for e in envs))
            cmd = [sys.executable, __file__, "--child", "--vega", args.vega, "--reps", str(args.reps),
                   "--layout", args.layout, "--ops", args.ops] + (["--typed"] if args.typed else [])
            cmd += (["--held-out"] if args.held_out else []) + (["--orjson"] if args.orjson else [])
            for o in args.only:
                cmd += ["--only", o]
            for f in args.extra:
                cmd += ["--extra", f]
            res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, cwd="/")
            for k, t in json.loads(res.stdout.strip().splitlines()[-1]).items():
                results[v].setdefault(k, []).append(t)
    names = list(variants)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"layout": args.layout, "held_out": args.held_out,
                                                       "variants": variants,
                                                       "rounds": args.rounds, "reps": args.reps,
                                                       "date": time.strftime("%Y-%m-%d %H:%M"),
                                                       "seconds": results}, indent=1) + "\n")
    def peer_of(k):
        """The process's own orjson.dumps timing for a dumps row (`--orjson`)."""
        mine = args.orjson and k.endswith(" dumps") and "(peer)" not in k
        return k[:-len(" dumps")] + " (peer) orjson dumps" if mine else None

    peer_cols = " | " + " | ".join(f"{n} ÷ orjson" for n in names) if args.orjson else ""
    print("| benchmark | " + " | ".join(f"{n} ms" for n in names) + " | " +
          " | ".join(f"{n} vs {names[0]}" for n in names[1:]) + peer_cols + " |")
    print("|---" * (1 + 2 * len(names) - 1 + (len(names) if args.orjson else 0)) + "|")
    for k in results[names[0]]:
        meds = [statistics.median(results[n][k]) for n in names]
        p = peer_of(k)
        rel = (" | " + " | ".join(f"{statistics.median(a / b for a, b in zip(results[n][k], results[n][p])):.3f}"
                                  for n in names)) if p else (" |" * len(names) if args.orjson else "")
        print(f"| {k} | " + " | ".join(f"{m * 1e3:.3f}" for m in meds) + " | " +
              " | ".join(f"{(m / meds[0] - 1) * 100:+.1f}%" for m in meds[1:]) + rel + " |")
    print(f"\n({args.rounds} interleaved rounds, each the best of {args.reps} timings; {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
