"""A reused xbf.Encoder against dumps, between builds, in one process (ab_inproc.py's loading).

Each build's dumps and a reused Encoder's call (its native dumps with a Learned of its own, as
Encoder.encode) are interleaved in blocks, the order rotating; orjson's dumps and a loads run before each
block (other memory touched, as between bench.py's samples); blocks timed by thread CPU time.

    python python/bench/ab_encoder.py [--pairs 40] [--only a,b] [--json PATH] main=DIR branch=DIR
"""
import argparse
import gc
import json
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main():
    import ab_inproc
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--block", type=float, default=0.02)
    ap.add_argument("--only")
    ap.add_argument("--json")
    ap.add_argument("variants", nargs="+")
    a = ap.parse_args()
    variants = [v.split("=", 1) for v in a.variants]
    mods = ab_inproc.load_builds(variants)
    import orjson

    data = ab_inproc.datasets(str(HERE.parents[1] / "target/data/vega-datasets"), a.only)
    out = {}
    for dname, rows in data.items():
        fns = {}
        for n, m in mods.items():
            fns[f"{n}:dumps"] = lambda r, m=m: m.dumps(r, 2, None, None, None, None)
            kept = m.Learned()
            fns[f"{n}:encoder"] = lambda r, m=m, kept=kept: m.dumps(r, 2, None, None, None, kept)
        outs = {bytes(f(rows)) for f in fns.values()}
        assert len(outs) == 1, dname
        enc = outs.pop()
        k, start = 0, time.perf_counter()
        while time.perf_counter() - start < a.block:
            fns[next(iter(fns))](rows)
            k += 1
        names = list(fns)
        s = {n: [] for n in names}
        for p in range(a.pairs):
            for n in names[p % len(names):] + names[:p % len(names)]:
                orjson.dumps(rows)
                mods[variants[0][0]].loads(enc)
                gc.collect()
                gc.disable()
                t = time.thread_time()
                for _ in range(k):
                    fns[n](rows)
                s[n].append((time.thread_time() - t) / k)
                gc.enable()
        r = {f"{n} encoder/dumps": statistics.median(e / d for d, e in zip(s[f"{n}:dumps"], s[f"{n}:encoder"]))
             for n in mods}
        base = variants[0][0]
        for n in list(mods)[1:]:
            for op in ("dumps", "encoder"):
                r[f"{op} {n}/{base}"] = statistics.median(b / x for x, b in zip(s[f"{base}:{op}"], s[f"{n}:{op}"]))
        out[dname] = {"median_ms": {n: statistics.median(v) * 1e3 for n, v in s.items()}, "median_ratios": r,
                      "calls_per_block": k}
        print(f"{dname:30s} " + " ".join(f"{n} {v:.3f}" for n, v in r.items()), flush=True)
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps({"how": __doc__, "pairs": a.pairs, "block_s": a.block,
                                                    "date": time.strftime("%Y-%m-%d %H:%M"),
                                                    "variants": dict(variants), "results": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
