"""Spark over one XBF file of flights-3m (issue #21), in local[2] mode.

    python python/bench/spark_3m.py [--rounds 3] [--json python/bench/spark_3m_results.json]

Writes the 3,000,000 rows of vega-datasets' flights-3m.parquet as one XBF file
(``xbf.arrow.write_table``), then, in one Spark session: reads it with the
``xbf`` data source (the partitions, one per block, are counted), times
``count()`` and ``groupBy("origin").count()`` over it and over the Parquet file in
interleaved rounds (medians kept with the raw times), checks the groupBy
counts are the Parquet file's, then has Spark write the Parquet rows as XBF
(``df.write.format("xbf").mode("overwrite")``, one file per task), reads that
back and checks it holds exactly the Parquet file's rows (``exceptAll`` both
ways). Needs pyspark and a Java runtime; run ``scripts/fetch-data.sh`` first.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import pyarrow.parquet as pq
from pyspark.sql import SparkSession

import xbf.arrow as xa
import xbf.spark

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "target", "data", "vega-datasets", "flights-3m.parquet")


def timed(f):
    s = time.perf_counter()
    out = f()
    return time.perf_counter() - s, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="spark-3m-")
    path = os.path.join(folder, "flights-3m.xbf")
    write_s, _ = timed(lambda: xa.write_table(pq.read_table(SRC), path))
    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.python.filterPushdown.enabled", "true").getOrCreate())
    xbf.spark.register(spark)
    frames = {"xbf": lambda: spark.read.format("xbf").load(path), "parquet": lambda: spark.read.parquet(SRC)}
    partitions = {n: f().rdd.getNumPartitions() for n, f in frames.items()}
    assert partitions["xbf"] > 1, partitions
    raw = {n: {"count": [], "groupBy": []} for n in frames}
    answers = {}
    for r in range(args.rounds):
        for n in (list(frames) if r % 2 == 0 else list(frames)[::-1]):
            df = frames[n]
            t, count = timed(lambda: df().count())  # noqa: B023 (called at once)
            raw[n]["count"].append(t)
            assert count == 3_000_000, (n, count)
            t, rows = timed(lambda: df().groupBy("origin").count().collect())  # noqa: B023
            raw[n]["groupBy"].append(t)
            answers[n] = sorted(tuple(x) for x in rows)
    assert answers["xbf"] == answers["parquet"], "groupBy counts differ"
    print(f"groupBy(origin).count(): the same {len(answers['xbf'])} counts over XBF and Parquet", file=sys.stderr)

    # Spark writes XBF (one file per task) and reads back what it wrote.
    out_dir = os.path.join(folder, "written")
    src = frames["parquet"]()
    spark_write_s, _ = timed(lambda: src.write.format("xbf").mode("overwrite").save(out_dir))
    files = sorted(f for f in os.listdir(out_dir) if f.endswith(".xbf"))
    back = spark.read.format("xbf").load(out_dir)
    # Spark's Parquet dates are timestamps as XBF's: compare on the same columns.
    cols = src.columns
    missing = back.select(cols).exceptAll(src.select(cols)).count()
    extra = src.select(cols).exceptAll(back.select(cols)).count()
    assert (back.count(), missing, extra) == (3_000_000, 0, 0), (back.count(), missing, extra)
    print(f"Spark wrote {len(files)} XBF files and read back exactly the Parquet file's rows", file=sys.stderr)
    spark.stop()
    result = {
        "rows": 3_000_000, "xbf_bytes": os.path.getsize(path), "xbf_write_table_s": write_s,
        "partitions": partitions, "raw_s": raw,
        "median_s": {n: {o: statistics.median(v) for o, v in d.items()} for n, d in raw.items()},
        "groupBy_same": True, "spark_write": {"s": spark_write_s, "files": len(files),
                                              "bytes": sum(os.path.getsize(os.path.join(out_dir, f)) for f in files),
                                              "read_back_same_rows": True},
        "load_average": os.getloadavg(),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
