"""bench.py's dumps loop for a few of its libraries, timed by the wall clock and by the thread's CPU time.

bench.py showed a reused ``xbf.Encoder`` slower than ``xbf.dumps`` (birdstrikes 1.33x in results-heldout.json)
where ab_encoder.py, which times the same calls differently, found it faster. This runs bench.py's own
``run`` sequence (its ``libraries()``, its datasets, rounds rotating the order, a ``gc.collect()`` before each
sample, the collector on during it, a loads sample after each dumps one) on a subset of the libraries, and
records each sample on both clocks, so that one setting at a time can be changed:

    python python/bench/encoder_in_bench.py [--held-out] [--libs "xbf auto,xbf Encoder (reused),orjson"]
        [--rounds 11] [--min-time 0.05] [--fresh-encoder] [--no-gc] [--only birdstrikes,airports] [--json PATH]

``--fresh-encoder``: a new Encoder for each dataset (bench.py makes one for the whole run). ``--no-gc``: the
collector off during each sample. ``--only``: the datasets timed (all of the set are loaded, as in bench.py,
and the others are still encoded once each by the Encoder, in bench.py's order, so it meets what it met).
"""
import argparse
import gc
import json
import pathlib
import resource
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402
import xbf  # noqa: E402


def timeit(fn, arg, min_time, no_gc):
    """bench.timeit, on both clocks: (wall, thread CPU) seconds of one call, and its minor page faults."""
    gc.collect()
    if no_gc:
        gc.disable()
    n = 0
    flt = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    start, cpu = time.perf_counter(), time.thread_time()
    while True:
        fn(arg)
        n += 1
        t = time.perf_counter() - start
        if t >= min_time:
            c = time.thread_time() - cpu
            f = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - flt
            if no_gc:
                gc.enable()
            return t / n, c / n, f / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--libs", default="xbf auto,xbf Encoder (reused),orjson")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--fresh-encoder", action="store_true")
    ap.add_argument("--no-gc", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--no-loads", action="store_true", help="no loads sample after each dumps sample")
    ap.add_argument("--json")
    a = ap.parse_args()
    everything = bench.libraries()
    wanted = a.libs.split(",")
    data = bench.datasets(str(bench.ROOT / "target/data/vega-datasets"), a.held_out)
    out = {}
    for dname, rows in data.items():
        libs = {k: everything[k] for k in wanted}
        if a.fresh_encoder:
            libs["xbf Encoder (reused)"] = (xbf.Encoder().encode, xbf.loads)
        if a.only and not any(dname.startswith(o) for o in a.only.split(",")):
            libs["xbf Encoder (reused)"][0](rows)
            continue
        encoded = {n: dump(rows) for n, (dump, _) in libs.items()}
        names = list(libs)
        s = {n: [] for n in names}
        ls = {n: [] for n in names}
        for r in range(a.rounds):
            for n in names[r % len(names):] + names[:r % len(names)]:
                s[n].append(timeit(libs[n][0], rows, a.min_time, a.no_gc))
                if not a.no_loads:
                    ls[n].append(timeit(libs[n][1], encoded[n], a.min_time, a.no_gc))
        med = {n: {"wall_ms": statistics.median(w for w, _, _ in v) * 1e3,
                   "cpu_ms": statistics.median(c for _, c, _ in v) * 1e3,
                   "faults": statistics.median(f for _, _, f in v)} for n, v in s.items()}
        lmed = {n: {"wall_ms": statistics.median(w for w, _, _ in v) * 1e3,
                    "cpu_ms": statistics.median(c for _, c, _ in v) * 1e3,
                    "faults": statistics.median(f for _, _, f in v)} for n, v in ls.items() if v}
        out[dname] = {"median": med, "loads_median": lmed,
                      "samples_ms_ms_faults": {n: [[w * 1e3, c * 1e3, f] for w, c, f in v] for n, v in s.items()}}
        base = med["xbf auto"]
        if "xbf Encoder (reused)" in s:
            pairs = list(zip(s["xbf auto"], s["xbf Encoder (reused)"]))
            out[dname]["encoder_over_auto_paired"] = {
                "wall": statistics.median(e[0] / d[0] for d, e in pairs),
                "cpu": statistics.median(e[1] / d[1] for d, e in pairs)}
            print(f"{dname:32s} Encoder / auto, median of the rounds' ratios: wall "
                  f"{out[dname]['encoder_over_auto_paired']['wall']:.3f}, cpu "
                  f"{out[dname]['encoder_over_auto_paired']['cpu']:.3f}")
        print(f"{dname:32s} " + "  ".join(
            f"{n}: {m['wall_ms']:.3f}/{m['cpu_ms']:.3f} ms ({m['wall_ms'] / base['wall_ms']:.2f}/"
            f"{m['cpu_ms'] / base['cpu_ms']:.2f}) {m['faults']:.0f} flt" for n, m in med.items()), flush=True)
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps({"how": __doc__, "args": vars(a), "date": time.strftime(
            "%Y-%m-%d %H:%M"), "results": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
