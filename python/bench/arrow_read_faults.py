"""Page faults and system time of xbf.arrow.read_table in one process, before
and after other work (BENCHMARKS.md, "The read-all anomaly found"):

    python python/bench/arrow_read_faults.py dir=D,r,src,write,r,r

Steps, comma-separated: `dir=D` reads D's f.xbf, fz.xbf and f.zstd.parquet
(as arrow_bench.py --folder D writes them); `r` reads the XBF file, the zstd
XBF file and the Parquet + zstd file three times each and prints the medians
of wall, user and system seconds, this process's minor faults and the whole
system's transparent-huge-page faults during the read (/proc/vmstat); `src`
reads the vega Parquet file; `write` writes every format as arrow_bench.py
does (fastavro too) into a new folder and reads those files from then on;
`pylist` makes and frees the rows as Python objects. Run it with PYTHONPATH
set to another build's site directory (pip install --target) for a
before/after.
"""

import gc
import resource
import sys
import tempfile
import time

import pyarrow.parquet as pq

import xbf.arrow as xa

SRC = "target/data/vega-datasets/flights-3m.parquet"
FILES = {}


def read(name):
    path = FILES[name]
    return pq.read_table(path) if name == "pq" else xa.read_table(path)


def thp_faults():
    with open("/proc/vmstat") as f:
        return int(dict(line.split() for line in f)["thp_fault_alloc"])


def usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_minflt, thp_faults(), r.ru_utime, r.ru_stime


def rounds(label, k=3):
    res = {n: [] for n in FILES}
    for _ in range(k):
        for n in FILES:
            f0, h0, u0, s0 = usage()
            w = time.perf_counter()
            read(n)
            w = time.perf_counter() - w
            f1, h1, u1, s1 = usage()
            res[n].append((w, u1 - u0, s1 - s0, f1 - f0, h1 - h0))
    for n, v in res.items():
        v.sort()
        w, u, s, f, h = v[len(v) // 2]
        print(f"{label:6} {n:5} wall {w:.3f} user {u:.3f} sys {s:.3f} minflt {f} thp(system-wide) {h}", flush=True)


def main():
    src = None
    for step in sys.argv[1].split(","):
        if step.startswith("dir="):
            d = step[4:]
            FILES.update({"xbf": d + "/f.xbf", "xbfz": d + "/fz.xbf", "pq": d + "/f.zstd.parquet"})
        elif step == "r":
            rounds("read")
        elif step == "src":
            src = pq.read_table(SRC)
        elif step == "write":
            sys.path.insert(0, "python/bench")
            import arrow_bench

            paths, _ = arrow_bench.write_all(src, tempfile.mkdtemp(prefix="arrow-faults-"))
            FILES.update({"xbf": paths["xbf"], "xbfz": paths["xbf zstd"], "pq": paths["parquet zstd"]})
        elif step == "pylist":
            rows = src.to_pylist()
            del rows
            gc.collect()
        print("--", step, flush=True)


if __name__ == "__main__":
    main()
