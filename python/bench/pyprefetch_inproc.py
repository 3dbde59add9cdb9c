"""In-process A/B of `xbf.dumps` between builds of the extension, and between settings of one build read from
its environment once a process (pyprefetch's measurement build: XBF_PF, XBF_PFD, XBF_BATCH), on bench.py's
datasets, its first held-out set and flights-200k.json (read as bench.py reads flights-20k).

As python/bench/ab_inproc.py (read its header), whose loader it uses: each variant's `_native` module is loaded
into this interpreter under its own name, and the variants' calls are interleaved in short blocks, timed by the
thread's CPU time; the figure is the median of the per-pair ratios to the first variant. The order rotates from
pair to pair (ab_inproc.py's reversal gave the two variants at its ends blocks in a row, with their own code
warm: with more than two variants, those at the ends measured 5-8 % faster than the same build in the middle).
A variant is `name=DIR[,VAR=VALUE...]`: its `_native*.so` is copied to a file of its own (a shared object loaded
twice from one path would share its statics), loaded with the variables set, and called once with them set (the
measurement build read them at its first call), so one build can be several variants.

    python python/bench/pyprefetch_inproc.py [--pairs 60] [--only birdstrikes,flights] [--json PATH] \\
        main=/tmp/xbfab/mcf4 pf=/tmp/xbfab/ppf1,XBF_PF=3
"""
import argparse
import gc
import json
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ab_inproc  # noqa: E402


def load_variants(variants, tmp):
    """Each variant's native module by name (`variants`: (name, DIR, {VAR: VALUE})), each from its own copy."""
    sys.path.insert(0, variants[0][1])
    import xbf  # noqa: E402
    mods = {}
    probe = [{"a": i, "b": float(i), "c": str(i)} for i in range(300)]
    for name, d, envs in variants:
        so = next((pathlib.Path(d) / "xbf").glob("_native*.so"))
        pkg = pathlib.Path(tmp) / name / "xbf"
        pkg.mkdir(parents=True)
        shutil.copy(so, pkg / so.name)
        saved = {k: os.environ.get(k) for k in envs}
        os.environ.update(envs)
        try:
            mod = ab_inproc.load_native(f"xbf_{name}", pkg.parent)
            mod._init(xbf.Variant, xbf.Typed, xbf.Some, xbf.DecodeError, xbf.EncodeError)
            mod.dumps(probe, 2, None, None, None, None)
        finally:
            for k, v in saved.items():
                if v is None:
                    del os.environ[k]
                else:
                    os.environ[k] = v
        mods[name] = mod
    return mods


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--block", type=float, default=0.02, help="seconds of calls in each timed block")
    ap.add_argument("--vega", default=str(HERE.parents[1] / "target/data/vega-datasets"))
    ap.add_argument("--only", help="comma-separated file names (their starts)")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("variants", nargs="+")
    args = ap.parse_args()
    variants = []
    for v in args.variants:
        name, rest = v.split("=", 1)
        d, *envs = rest.split(",")
        variants.append((name, d, dict(e.split("=", 1) for e in envs)))
    import bench  # noqa: E402
    with tempfile.TemporaryDirectory() as tmp:
        mods = load_variants(variants, tmp)
        data = {**bench.datasets(args.vega), **bench.datasets(args.vega, held_out=True),
                **bench.files(args.vega, ("flights-200k.json",))}
        if args.only:
            data = {k: v for k, v in data.items() if any(k.startswith(o) for o in args.only.split(","))}
        names = [n for n, _, _ in variants]
        clock = time.thread_time
        out = {}
        for dname, rows in data.items():
            fns = {n: (lambda r, m=m: m.dumps(r, 2, None, None, None, None)) for n, m in mods.items()}
            assert len({bytes(f(rows)) for f in fns.values()}) == 1, f"{dname}: the variants' bytes differ"
            f0 = fns[names[0]]
            start, k = time.perf_counter(), 0
            while time.perf_counter() - start < args.block:
                f0(rows)
                k += 1
            samples = {n: [] for n in names}
            gc.collect()
            gc.disable()
            for p in range(args.pairs):
                # Rotated, not reversed: a variant at both ends of a reversed order would run two blocks in a row
                # (warm caches and branch predictors for its own copy of the code) where the others never do.
                for n in names[p % len(names):] + names[:p % len(names)]:
                    fn = fns[n]
                    t = clock()
                    for _ in range(k):
                        fn(rows)
                    samples[n].append((clock() - t) / k)
            gc.enable()
            ratios = {n: statistics.median(b / a for a, b in zip(samples[names[0]], samples[n])) for n in names[1:]}
            med = {n: statistics.median(s) for n, s in samples.items()}
            out[dname] = {"median_s": med, "median_ratio": ratios, "calls_per_block": k}
            print(f"{dname[:28]:28s} {med[names[0]] * 1e3:8.3f} ms  "
                  + " ".join(f"{n} {r:.3f}" for n, r in ratios.items()), flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"pairs": args.pairs, "block_s": args.block,
                                                       "clock": clock.__name__,
                                                       "date": time.strftime("%Y-%m-%d %H:%M"),
                                                       "variants": {n: [d, e] for n, d, e in variants},
                                                       "results": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
