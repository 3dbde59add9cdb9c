"""In-process A/B of `dumps` between builds of the extension (pyfill7): each build's `_native`
module is loaded into the same interpreter under its own name, and the builds' calls are
interleaved in short blocks (a few milliseconds each, the order rotating), so a loaded
machine slows both alike; the figure is the median of the per-pair ratios B/A. Blocks are timed
by the thread's CPU time (`time.thread_time`) unless `--wall`: time the process waits for a
core, which on the shared machine is most of the noise, is left out.

ab.py runs each build in its own process, seconds apart: on the shared, loaded machine its
medians moved by up to 15% between builds on operations neither build changed. Here `loads` of
the same message by both builds is the control (its code is the same in both).

    python python/bench/ab_inproc.py [--pairs 300] [--ops dumps] [--extra flights-200k.json] [--json PATH] \\
        base=DIR sink=DIR[,VAR=VALUE...] [...]

Each DIR holds an unpacked `xbf` package (as ab.py's); the first is the reference. A variant's `VAR=VALUE`s are
set while its module is loaded and first called (a measurement build reads its settings then), so one build can be
several variants; each variant's `_native*.so` is loaded from a copy of its own (a shared object loaded twice from
one path would share its statics). The order rotates from pair to pair rather than reversing: reversed, the
variants at its two ends would run two blocks in a row, with their own code warm, where the others never do (with
more than two variants, those at the ends measured 5-8 % faster than the same build in the middle: pyprefetch).
`--extra` adds vega-datasets files outside the benchmark (read as bench.py reads its files), e.g. flights-200k.
"""
import argparse
import gc
import importlib.machinery
import importlib.util
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


def load_native(name, pkg_dir):
    so = next((pathlib.Path(pkg_dir) / "xbf").glob("_native*.so"))
    # The package sets this while importing its extension (mimalloc reads it at load).
    os.environ["MIMALLOC_PURGE_DELAY"] = "10000"
    try:
        loader = importlib.machinery.ExtensionFileLoader(f"{name}._native", str(so))
        spec = importlib.util.spec_from_file_location(f"{name}._native", str(so), loader=loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
    finally:
        del os.environ["MIMALLOC_PURGE_DELAY"]
    return mod


def parse_variant(v):
    """`name=DIR[,VAR=VALUE...]` as (name, DIR, {VAR: VALUE})."""
    name, rest = v.split("=", 1)
    d, *envs = rest.split(",")
    return name, d, dict(e.split("=", 1) for e in envs)


def load_builds(variants):
    """Each variant's native module by name, for (name, DIR) or (name, DIR, {VAR: VALUE}) tuples: the package of
    the first gives the Python classes every module is initialised with (its directory goes first on sys.path); each
    module is loaded from a copy of its own, with its variables set while it is loaded and first called."""
    sys.path.insert(0, variants[0][1])
    import xbf  # noqa: E402
    tmp = tempfile.mkdtemp(prefix="ab_inproc.")
    probe = [{"a": i, "b": float(i), "c": str(i)} for i in range(300)]
    mods = {}
    for name, d, *rest in variants:
        envs = rest[0] if rest else {}
        so = next((pathlib.Path(d) / "xbf").glob("_native*.so"))
        pkg = pathlib.Path(tmp) / name / "xbf"
        pkg.mkdir(parents=True)
        shutil.copy(so, pkg / so.name)
        saved = {k: os.environ.get(k) for k in envs}
        os.environ.update(envs)
        try:
            mod = load_native(f"xbf_{name}", pkg.parent)
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


def datasets(vega, only, extra=()):
    """bench.py's datasets and its held-out ones, and the vega-datasets files `extra`, those whose names start with
    one of `only`'s (comma-separated)."""
    import bench  # noqa: E402
    data = {**bench.datasets(vega), **bench.datasets(vega, held_out=True), **bench.files(vega, extra)}
    if only:
        data = {k: v for k, v in data.items() if any(k.startswith(o) for o in only.split(","))}
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--block", type=float, default=0.004, help="seconds of calls in each timed block")
    ap.add_argument("--vega", default=str(HERE.parents[1] / "target/data/vega-datasets"))
    ap.add_argument("--only", help="comma-separated dataset names (bench.py's, held-out included)")
    ap.add_argument("--extra", action="append", default=[], help="a vega-datasets file outside the benchmark")
    ap.add_argument("--ops", default="dumps,loads", help="comma-separated: dumps, loads")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--wall", action="store_true",
                    help="time blocks by the wall clock (default: this thread's CPU time, which leaves out the "
                         "time other processes hold the core)")
    ap.add_argument("variants", nargs="+")
    args = ap.parse_args()
    variants = [parse_variant(v) for v in args.variants]
    mods = load_builds(variants)
    data = datasets(args.vega, args.only, args.extra)
    names = [n for n, _, _ in variants]
    clock = time.perf_counter if args.wall else time.thread_time
    out = {}
    for dname, rows in data.items():
        encs = {n: m.dumps(rows, 2, None, None, None, None) for n, m in mods.items()}
        assert len({bytes(e) for e in encs.values()}) == 1, f"{dname}: the builds' bytes differ"
        enc = encs[names[0]]
        for op in args.ops.split(","):
            fns = {n: ((lambda r, m=m: m.dumps(r, 2, None, None, None, None)) if op == "dumps" else m.loads)
                   for n, m in mods.items()}
            arg = rows if op == "dumps" else enc
            f0 = fns[names[0]]
            start, k = time.perf_counter(), 0
            while time.perf_counter() - start < args.block:
                f0(arg)
                k += 1
            samples = {n: [] for n in names}
            # The cyclic collector would run in whichever block crosses its threshold.
            gc.collect()
            gc.disable()
            for p in range(args.pairs):
                for n in names[p % len(names):] + names[:p % len(names)]:
                    fn = fns[n]
                    t = clock()
                    for _ in range(k):
                        fn(arg)
                    samples[n].append((clock() - t) / k)
            gc.enable()
            ratios = {n: statistics.median(b / a for a, b in zip(samples[names[0]], samples[n])) for n in names[1:]}
            med = {n: statistics.median(s) for n, s in samples.items()}
            out[f"{dname} {op}"] = {"median_s": med, "median_ratio": ratios, "calls_per_block": k}
            print(f"{dname:40s} {op:5s} " + " ".join(f"{n} {med[n] * 1e3:.3f} ms" for n in names) + "  "
                  + " ".join(f"{n}/{names[0]} {r:.4f}" for n, r in ratios.items()), flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"pairs": args.pairs, "block_s": args.block, "clock": clock.__name__,
                                                       "date": time.strftime("%Y-%m-%d %H:%M"),
                                                       "variants": {n: [d, e] for n, d, e in variants},
                                                       "results": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
