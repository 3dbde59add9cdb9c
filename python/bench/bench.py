"""dumps/loads of lists of records: xbf against json, orjson, msgpack, ormsgpack, cbor2.

xbf runs three ways: rows (columnar=False), columnar (columnar=True) and auto
(the default, columnar=None: columns when they are smaller).

    pip install -r python/bench/requirements.txt ./python
    python python/bench/bench.py [--rounds 15] [--vega /tmp/vega/package/data]

Datasets: the stock rows (crates/xbf-cli/data/sp500-2019.csv, numbers parsed),
vega-datasets' flights-20k.json and movies.json (fetch with
`cd /tmp/vega && npm pack vega-datasets@3.2.1 && tar xzf vega-datasets-3.2.1.tgz`).
Every library runs in the same process, interleaved round by round; the
table shows medians.
"""
import argparse
import csv
import importlib
import json
import pathlib
import statistics
import time

import xbf

ROOT = pathlib.Path(__file__).resolve().parents[2]


def libraries():
    # "xbf auto" is xbf.dumps's default (columns when they are smaller).
    libs = {"xbf rows": (lambda o: xbf.dumps(o, columnar=False), xbf.loads),
            "xbf columnar": (lambda o: xbf.dumps(o, columnar=True), xbf.loads),
            "xbf auto": (xbf.dumps, xbf.loads),
            "json": (lambda o: json.dumps(o).encode(), json.loads)}
    for name, d, l in [("orjson", "dumps", "loads"), ("msgpack", "packb", "unpackb"),
                       ("ormsgpack", "packb", "unpackb"), ("cbor2", "dumps", "loads")]:
        try:
            m = importlib.import_module(name)
            libs[name] = (getattr(m, d), getattr(m, l))
        except ImportError:
            print(f"(skipping {name}: not installed)")
    return libs


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
            print(f"(skipping {name}: {p} is missing)")
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--vega", default="/tmp/vega/package/data")
    args = ap.parse_args()
    libs = libraries()
    for dname, data in datasets(args.vega).items():
        encoded, dump_t, load_t = {}, {k: [] for k in libs}, {k: [] for k in libs}
        for name, (d, l) in libs.items():
            encoded[name] = d(data)
            back = l(encoded[name])
            if name.startswith("xbf"):
                assert back == data, "xbf did not round-trip"
        for _ in range(args.rounds):
            for name, (d, l) in libs.items():
                dump_t[name].append(timeit(d, data))
                load_t[name].append(timeit(l, encoded[name]))
        mp = libs.get("msgpack") and (statistics.median(dump_t["msgpack"]), statistics.median(load_t["msgpack"]),
                                      len(encoded["msgpack"]))
        print(f"\n## {dname}: {len(data)} records\n")
        print("| library | bytes | dumps ms | loads ms | bytes vs msgpack | dumps vs msgpack | loads vs msgpack |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name in libs:
            dm, lm, size = statistics.median(dump_t[name]) * 1e3, statistics.median(load_t[name]) * 1e3, len(encoded[name])
            rel = ("", "", "")
            if mp:
                rel = (f"{size / mp[2]:.2f}x", f"{dm / (mp[0] * 1e3):.2f}x", f"{lm / (mp[1] * 1e3):.2f}x")
            print(f"| {name} | {size:,} | {dm:.2f} | {lm:.2f} | {rel[0]} | {rel[1]} | {rel[2]} |")


if __name__ == "__main__":
    main()
