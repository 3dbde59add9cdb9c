"""xbf.arrow against pyarrow.parquet (zstd, snappy), pyarrow.feather (zstd) and
fastavro on vega-datasets' flights-3m (issue 21).

    scripts/fetch-data.sh      # target/data/vega-datasets/flights-3m.parquet
    pip install ./python pyarrow duckdb fastavro
    python python/bench/arrow_bench.py [--rounds 5] [--json arrow_results.json]
        [--compare main=/tmp/xbf-main-site]

Every format is written once from the same pyarrow table (the vega Parquet
file's rows); then, round after round, each format's reads run one after the
other (the order turns each round): all columns, one column (delay), a
filtered read (delay > 300) and, where the format has an engine path, DuckDB
`GROUP BY origin` (over XBF through `xa.dataset`, and through an `xa.open`
stream as `duckdb group by, open()`). `--formats` limits the formats timed.
`--compare LABEL=DIR` adds another build of the xbf
package (installed with `pip install --target DIR`), which reads the same XBF
file in a worker process of its own (timed there), as the format
`xbf [LABEL]` of every round: a before/after in one interleaved run.

Each operation's time is the median of the rounds; every
raw time is kept in the JSON. Peak memory of each read is measured in a
child process (its ru_maxrss, less the child's RSS before the read).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow.compute as pc
import pyarrow.feather as feather
import pyarrow.parquet as pq
from child import Worker

import xbf.arrow as xa

SRC = "target/data/vega-datasets/flights-3m.parquet"


def write_all(table, folder, wanted=None):
    """Writes the formats in `wanted` (all if None; xbf always, which the
    checks and `--compare` workers read)."""
    paths = {}
    t0 = {}

    def timed(name, path, fn):
        if wanted is not None and name != "xbf" and name not in wanted:
            return
        s = time.perf_counter()
        fn(path)
        t0[name] = time.perf_counter() - s
        paths[name] = path

    timed("xbf", os.path.join(folder, "f.xbf"), lambda p: xa.write_table(table, p))
    timed("xbf zstd", os.path.join(folder, "fz.xbf"), lambda p: xa.write_table(table, p, zstd=3))
    timed("parquet zstd", os.path.join(folder, "f.zstd.parquet"), lambda p: pq.write_table(table, p, compression="zstd"))
    timed("parquet snappy", os.path.join(folder, "f.snappy.parquet"),
          lambda p: pq.write_table(table, p, compression="snappy"))
    timed("feather zstd", os.path.join(folder, "f.feather"), lambda p: feather.write_feather(table, p, compression="zstd"))
    try:
        if wanted is not None and "fastavro" not in wanted:
            raise ImportError("not asked for")
        import fastavro

        schema = {
            "type": "record", "name": "Flight",
            "fields": [
                {"name": "date", "type": {"type": "long", "logicalType": "timestamp-micros"}},
                {"name": "delay", "type": "long"}, {"name": "distance", "type": "long"},
                {"name": "origin", "type": "string"}, {"name": "destination", "type": "string"},
            ],
        }

        def avro(p):
            with open(p, "wb") as f:
                fastavro.writer(f, fastavro.parse_schema(schema), table.to_pylist(), codec="null")

        timed("fastavro", os.path.join(folder, "f.avro"), avro)
    except ImportError:
        pass
    return paths, t0


def readers(name, path):
    if name.startswith("xbf"):
        return {
            "all": lambda: xa.read_table(path),
            "one column": lambda: xa.read_table(path, columns=["delay"]),
            "filtered": lambda: xa.read_table(path, filters=[("delay", ">", 300)]),
        }
    if name.startswith("parquet"):
        return {
            "all": lambda: pq.read_table(path),
            "one column": lambda: pq.read_table(path, columns=["delay"]),
            "filtered": lambda: pq.read_table(path, filters=[("delay", ">", 300)]),
        }
    if name.startswith("feather"):
        return {
            "all": lambda: feather.read_table(path),
            "one column": lambda: feather.read_table(path, columns=["delay"]),
            "filtered": lambda: feather.read_table(path).filter(pc.field("delay") > 300),
        }
    if name == "fastavro":
        import fastavro

        def rows():
            with open(path, "rb") as f:
                return list(fastavro.reader(f))

        return {
            "all": rows,
            "one column": lambda: [r["delay"] for r in rows()],
            "filtered": lambda: [r for r in rows() if r["delay"] > 300],
        }
    raise KeyError(name)


def duckdb_query(name, path, stream=False):
    """DuckDB's GROUP BY origin: over XBF through xa.dataset (DuckDB pushes
    its projection into it), or with `stream` through an xa.open stream
    (which DuckDB reads whole)."""
    import duckdb

    q = "select origin, count(*) as n from src group by origin order by origin"
    if name.startswith("xbf"):
        def run():
            src = xa.open(path) if stream else xa.dataset(path)  # noqa: F841 (DuckDB finds it by name)
            return duckdb.sql(q).fetchall()
        return run
    if name.startswith("parquet"):
        return lambda: duckdb.sql(q.replace("src", f"read_parquet('{path}')")).fetchall()
    return None


def peak(name, path, op):
    # VmHWM, not ru_maxrss: Linux updates the latter lazily, so a process
    # reading its own sees a stale value.
    code = (
        "import sys; sys.path.insert(0, %r); import arrow_bench as b; "
        "hwm = lambda: int([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]); "
        "base = hwm(); r = b.readers(%r, %r)[%r](); print(hwm() - base)"
    ) % (os.path.dirname(os.path.abspath(__file__)), name, path, op)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) * 1024


def spark_bench(xbf_path, parquet_path, rounds):
    """Spark count() and groupBy("origin").count() over XBF and over Parquet, local[2]."""
    from pyspark.sql import SparkSession

    import xbf.spark

    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.python.filterPushdown.enabled", "true").getOrCreate())
    xbf.spark.register(spark)
    frames = {"xbf": lambda: spark.read.format("xbf").load(xbf_path), "parquet": lambda: spark.read.parquet(parquet_path)}
    raw = {n: {"count": [], "groupBy": []} for n in frames}
    answers = {}
    for r in range(rounds):
        for n in (list(frames) if r % 2 == 0 else list(frames)[::-1]):
            s = time.perf_counter()
            frames[n]().count()
            raw[n]["count"].append(time.perf_counter() - s)
            s = time.perf_counter()
            answers[n] = sorted(tuple(x) for x in frames[n]().groupBy("origin").count().collect())
            raw[n]["groupBy"].append(time.perf_counter() - s)
    assert answers["xbf"] == answers["parquet"]
    parts = frames["xbf"]().rdd.getNumPartitions()
    spark.stop()
    return {"partitions_xbf": parts, "raw_s": raw,
            "median_s": {n: {o: statistics.median(v) for o, v in d.items()} for n, d in raw.items()}}


def worker():
    print(xa.__file__, flush=True)
    for line in sys.stdin:
        path, name = line.rstrip("\n").split("\t")
        if name.startswith("duckdb group by"):
            run = duckdb_query("xbf", path, stream=name.endswith("open()"))
        else:
            run = readers("xbf", path)[name]
        s = time.perf_counter()
        run()
        print(time.perf_counter() - s, flush=True)


def main():
    if "--worker" in sys.argv:
        return worker()
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("--folder")
    ap.add_argument("--spark", action="store_true", help="also Spark count/groupBy in local[2]")
    ap.add_argument("--formats", help="comma-separated formats to time (default: all), e.g. 'xbf,parquet zstd'")
    ap.add_argument("--compare", action="append", default=[], metavar="LABEL=DIR",
                    help="another xbf build (pip install --target DIR) read in a worker, as `xbf [LABEL]`")
    args = ap.parse_args()
    workers = {}
    for c in args.compare:
        label, site = c.split("=", 1)
        workers[f"xbf [{label}]"] = Worker(__file__, site)
        print(f"xbf [{label}] from {workers[f'xbf [{label}]'].version}", file=sys.stderr)
    table = pq.read_table(SRC)
    folder = args.folder or tempfile.mkdtemp(prefix="arrow-bench-")
    paths, write_times = write_all(table, folder, args.formats.split(",") if args.formats else None)
    # The same values come back as in the vega Parquet file (each column cast
    # to the file's type: XBF strings are Arrow's string, its timestamps UTC).
    back = xa.read_table(paths["xbf"])
    for name in table.column_names:
        assert back.column(name).cast(table.schema.field(name).type).equals(table.column(name)), name
    print("xbf.arrow.read_table gives the Parquet file's values", file=sys.stderr)
    assert duckdb_query("xbf", paths["xbf"])() == duckdb_query("parquet zstd", SRC)()
    assert duckdb_query("xbf", paths["xbf"], stream=True)() == duckdb_query("parquet zstd", SRC)()
    print("DuckDB's GROUP BY origin gives the same counts over XBF as over the vega Parquet", file=sys.stderr)
    ops = ["all", "one column", "filtered", "duckdb group by", "duckdb group by, open()"]
    names = list(paths) + list(workers)
    if args.formats:
        names = [n for n in names if n in args.formats.split(",")]
    raw = {n: {o: [] for o in ops} for n in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            if n in workers:
                for o in ops:
                    raw[n][o].append(workers[n].ask(paths["xbf"], o))
                continue
            rd = readers(n, paths[n])
            for o in ops[:3]:
                s = time.perf_counter()
                rd[o]()
                raw[n][o].append(time.perf_counter() - s)
            dq = duckdb_query(n, paths[n])
            if dq:
                s = time.perf_counter()
                dq()
                raw[n]["duckdb group by"].append(time.perf_counter() - s)
            if n.startswith("xbf"):
                s = time.perf_counter()
                duckdb_query(n, paths[n], stream=True)()
                raw[n]["duckdb group by, open()"].append(time.perf_counter() - s)
    for w in workers.values():
        w.close()
    result = {"rows": table.num_rows,
              "compared": {n: w.version for n, w in workers.items()},
              "write_s": write_times, "bytes": {n: os.path.getsize(p) for n, p in paths.items()},
              "raw_s": raw, "median_s": {n: {o: statistics.median(v) for o, v in d.items() if v} for n, d in raw.items()},
              "peak_bytes": {n: {o: peak(n, paths[n], o) for o in ops[:3]} for n in paths if n in names}}
    if args.spark:
        result["spark"] = spark_bench(paths["xbf"], paths["parquet zstd"], args.rounds)
    text = json.dumps(result, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
