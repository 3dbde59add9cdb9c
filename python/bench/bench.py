"""dumps/loads of lists of records: xbf against json, orjson, msgpack, ormsgpack, cbor2.

xbf runs three ways: rows (columnar=False), columnar (columnar=True) and auto
(the default, columnar=None: columns when they are smaller).

    scripts/fetch-data.sh          # vega-datasets into target/data/vega-datasets
    pip install -r python/bench/requirements.txt ./python
    python python/bench/bench.py [--rounds 15] [--json results.json] [--markdown RESULTS.md]

Datasets: the stock rows (crates/xbf-cli/data/sp500-2019.csv, numbers parsed),
vega-datasets' flights-20k.json and movies.json. Every library runs in the
same process, interleaved round by round (the order of the libraries turns
each round); each sample is the mean time of one call over at least
--min-time seconds of calls, and the tables show medians of the samples.

The issue's bar (issue 8), checked on the default (`xbf auto`) against
msgpack's C implementation in the same run: bytes at most half of msgpack's,
dumps and loads at least as fast.
"""
import argparse
import csv
import datetime
import importlib
import importlib.metadata
import json
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import xbf

ROOT = pathlib.Path(__file__).resolve().parents[2]
PEERS = [("orjson", "dumps", "loads"), ("msgpack", "packb", "unpackb"),
         ("ormsgpack", "packb", "unpackb"), ("cbor2", "dumps", "loads")]
DEFAULT = "xbf auto"


def libraries():
    # "xbf auto" is xbf.dumps's default (columns when they are smaller).
    libs = {"xbf rows": (lambda o: xbf.dumps(o, columnar=False), xbf.loads),
            "xbf columnar": (lambda o: xbf.dumps(o, columnar=True), xbf.loads),
            DEFAULT: (xbf.dumps, xbf.loads),
            "json": (lambda o: json.dumps(o).encode(), json.loads)}
    for name, d, l in PEERS:
        try:
            m = importlib.import_module(name)
            libs[name] = (getattr(m, d), getattr(m, l))
        except ImportError:
            print(f"(skipping {name}: not installed)", file=sys.stderr)
    return libs


def versions():
    out = {"python": platform.python_version(), "implementation": platform.python_implementation()}
    for name in ["xbf", "msgpack", "orjson", "ormsgpack", "cbor2"]:
        try:
            out[name] = importlib.metadata.version(name)
        except Exception:  # not installed, or no metadata
            out[name] = None
    return out


def commit():
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "python", "crates/xbf"],
                               capture_output=True, text=True, check=True)
        return rev.stdout.strip() + ("+uncommitted changes" if dirty.stdout.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def datasets(vega):
    out = {}
    with open(ROOT / "crates/xbf-cli/data/sp500-2019.csv", newline="") as f:
        rows = []
        for r in csv.DictReader(f):
            rows.append({"date": r["date"], **{k: float(r[k]) for k in ("open", "high", "low", "close", "adjclose")},
                         "volume": int(r["volume"])})
        out["sp500 (stock rows)"] = rows
    for name in ("flights-20k.json", "movies.json"):
        p = pathlib.Path(vega) / name
        if p.exists():
            out[name] = json.loads(p.read_text())
        else:
            print(f"(skipping {name}: {p} is missing; run scripts/fetch-data.sh)", file=sys.stderr)
    return out


def timeit(fn, arg, min_time=0.02):
    n, t = 0, 0.0
    start = time.perf_counter()
    while True:
        fn(arg)
        n += 1
        t = time.perf_counter() - start
        if t >= min_time:
            return t / n


def run(data, libs, rounds, min_time):
    encoded = {}
    for name, (d, l) in libs.items():
        encoded[name] = d(data)
        back = l(encoded[name])
        if name.startswith("xbf"):
            assert back == data, f"{name} did not round-trip"
    dump_t, load_t = {k: [] for k in libs}, {k: [] for k in libs}
    names = list(libs)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            d, l = libs[name]
            dump_t[name].append(timeit(d, data, min_time))
            load_t[name].append(timeit(l, encoded[name], min_time))
    out = {}
    for name in libs:
        out[name] = {"bytes": len(encoded[name]),
                     "dumps_s": dump_t[name], "loads_s": load_t[name],
                     "dumps_median_s": statistics.median(dump_t[name]),
                     "loads_median_s": statistics.median(load_t[name])}
    if "msgpack" in out:
        mp = out["msgpack"]
        for r in out.values():
            r["bytes_vs_msgpack"] = r["bytes"] / mp["bytes"]
            r["dumps_vs_msgpack"] = r["dumps_median_s"] / mp["dumps_median_s"]
            r["loads_vs_msgpack"] = r["loads_median_s"] / mp["loads_median_s"]
    return out


def verdict(r):
    """The issue's bar on one library's row: bytes <= 0.5x msgpack, dumps and loads <= 1.0x."""
    if "bytes_vs_msgpack" not in r:
        return None
    checks = {"bytes": (r["bytes_vs_msgpack"], 0.5), "dumps": (r["dumps_vs_msgpack"], 1.0),
              "loads": (r["loads_vs_msgpack"], 1.0)}
    return {k: {"ratio": v, "limit": lim, "met": v <= lim,
                # > 1: met with room to spare (limit / ratio); < 1: how far off.
                "margin": lim / v} for k, (v, lim) in checks.items()}


def describe(v):
    parts = []
    for k, c in v.items():
        if c["met"]:
            parts.append(f"{k} {c['ratio']:.2f}x (met, {(1 - c['ratio'] / c['limit']) * 100:.0f}% under the limit {c['limit']}x)")
        else:
            parts.append(f"{k} {c['ratio']:.2f}x (NOT met: {c['ratio'] / c['limit']:.2f}x the limit {c['limit']}x)")
    return ("met" if all(c["met"] for c in v.values()) else "not met") + ": " + "; ".join(parts)


def markdown(report):
    lines = [f"# Python: xbf against json, orjson, msgpack, ormsgpack, cbor2", "",
             f"{report['date']}, commit `{report['commit']}`, Python {report['versions']['python']}, "
             + ", ".join(f"{k} {v}" for k, v in report["versions"].items() if k not in ("python", "implementation")) + ".",
             f"{report['rounds']} interleaved rounds; each sample is one call's mean time over at least "
             f"{report['min_time_s'] * 1000:.0f} ms of calls; times are medians of the samples, as ratios to msgpack's "
             f"(C implementation) in the same run. `xbf auto` is `xbf.dumps`'s default (`columnar=None`).",
             "", "Bar (issue 8), on the default: bytes at most 0.5x msgpack's, dumps and loads at most 1.0x msgpack's time.", ""]
    for dname, d in report["datasets"].items():
        lines += [f"## {dname}: {d['records']:,} records", "",
                  "| library | bytes | bytes ÷ msgpack | dumps ÷ msgpack | loads ÷ msgpack | dumps ms | loads ms |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for name, r in d["results"].items():
            rel = (f"{r['bytes_vs_msgpack']:.2f}", f"{r['dumps_vs_msgpack']:.2f}", f"{r['loads_vs_msgpack']:.2f}") \
                if "bytes_vs_msgpack" in r else ("", "", "")
            lines.append(f"| {name} | {r['bytes']:,} | {rel[0]} | {rel[1]} | {rel[2]} | "
                         f"{r['dumps_median_s'] * 1e3:.3f} | {r['loads_median_s'] * 1e3:.3f} |")
        if d.get("verdict"):
            lines += ["", f"Target on `{DEFAULT}`: **{describe(d['verdict'])}**."]
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--min-time", type=float, default=0.02, help="seconds of calls per sample")
    ap.add_argument("--vega", default=str(ROOT / "target/data/vega-datasets"))
    ap.add_argument("--json", metavar="PATH", help="write raw samples, medians, bytes, versions, date, commit")
    ap.add_argument("--markdown", metavar="PATH", help="write a table per dataset")
    args = ap.parse_args()
    libs = libraries()
    report = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "commit": commit(), "versions": versions(), "platform": platform.platform(),
              "rounds": args.rounds, "min_time_s": args.min_time, "datasets": {}}
    for dname, data in datasets(args.vega).items():
        res = run(data, libs, args.rounds, args.min_time)
        d = {"records": len(data), "results": res, "verdict": verdict(res[DEFAULT]) if DEFAULT in res else None}
        report["datasets"][dname] = d
        print(f"\n## {dname}: {len(data)} records\n")
        print("| library | bytes | dumps ms | loads ms | bytes vs msgpack | dumps vs msgpack | loads vs msgpack |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, r in res.items():
            rel = (f"{r['bytes_vs_msgpack']:.2f}x", f"{r['dumps_vs_msgpack']:.2f}x", f"{r['loads_vs_msgpack']:.2f}x") \
                if "bytes_vs_msgpack" in r else ("", "", "")
            print(f"| {name} | {r['bytes']:,} | {r['dumps_median_s'] * 1e3:.2f} | {r['loads_median_s'] * 1e3:.2f} | "
                  f"{rel[0]} | {rel[1]} | {rel[2]} |")
        if d["verdict"]:
            print(f"\ntarget ({DEFAULT}): {describe(d['verdict'])}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    if args.markdown:
        pathlib.Path(args.markdown).write_text(markdown(report))


if __name__ == "__main__":
    main()
