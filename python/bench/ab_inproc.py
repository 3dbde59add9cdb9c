"""In-process A/B of `dumps` between builds of the extension (pyfill7): each build's `_native`
module is loaded into the same interpreter under its own name, and the builds' calls are
interleaved in short blocks (a few milliseconds each, the order alternating), so a loaded
machine slows both alike; the figure is the median of the per-pair ratios B/A. Blocks are timed
by the thread's CPU time (`time.thread_time`) unless `--wall`: time the process waits for a
core, which on the shared machine is most of the noise, is left out.

ab.py runs each build in its own process, seconds apart: on the shared, loaded machine its
medians moved by up to 15% between builds on operations neither build changed. Here `loads` of
the same message by both builds is the control (its code is the same in both).

    python python/bench/ab_inproc.py [--pairs 300] [--json PATH] base=DIR sink=DIR [...]

Each DIR holds an unpacked `xbf` package (as ab.py's); the first is the reference.
"""
import argparse
import gc
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import statistics
import sys
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


def load_builds(variants):
    """Each build's native module by name, for `name=DIR` pairs already split: the package of the first build gives
    the Python classes every build's module is initialised with (its directory goes first on sys.path)."""
    sys.path.insert(0, variants[0][1])
    import xbf  # noqa: E402
    mods = {}
    for name, d in variants:
        mod = load_native(f"xbf_{name}", d)
        mod._init(xbf.Variant, xbf.Typed, xbf.Some, xbf.DecodeError, xbf.EncodeError)
        mods[name] = mod
    return mods


def datasets(vega, only):
    """bench.py's datasets and its held-out ones, those whose names start with one of `only`'s (comma-separated)."""
    import bench  # noqa: E402
    data = {**bench.datasets(vega), **bench.datasets(vega, held_out=True)}
    if only:
        data = {k: v for k, v in data.items() if any(k.startswith(o) for o in only.split(","))}
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--block", type=float, default=0.004, help="seconds of calls in each timed block")
    ap.add_argument("--vega", default=str(HERE.parents[1] / "target/data/vega-datasets"))
    ap.add_argument("--only", help="comma-separated dataset names (bench.py's, held-out included)")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--wall", action="store_true",
                    help="time blocks by the wall clock (default: this thread's CPU time, which leaves out the "
                         "time other processes hold the core)")
    ap.add_argument("variants", nargs="+")
    args = ap.parse_args()
    variants = [v.split("=", 1) for v in args.variants]
    mods = load_builds(variants)
    data = datasets(args.vega, args.only)
    names = [n for n, _ in variants]
    clock = time.perf_counter if args.wall else time.thread_time
    out = {}
    for dname, rows in data.items():
        encs = {n: m.dumps(rows, 2, None, None, None, None) for n, m in mods.items()}
        assert len({bytes(e) for e in encs.values()}) == 1, f"{dname}: the builds' bytes differ"
        enc = encs[names[0]]
        for op in ("dumps", "loads"):
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
                order = names if p % 2 == 0 else names[::-1]
                for n in order:
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
                                                       "variants": dict(variants), "results": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
