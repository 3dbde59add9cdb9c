"""xbf.spark: the `xbf` data source of PySpark 4 in local[2] mode, one
SparkSession for every test of this file."""

import datetime as dt
import os
import shutil
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("PySpark needs a Java runtime (scripts/test-all.sh installs one)", allow_module_level=True)

SparkSession = pytest.importorskip("pyspark.sql").SparkSession
F = pytest.importorskip("pyspark.sql.functions")

import xbf.arrow as xa  # noqa: E402
import xbf.spark  # noqa: E402

UTC = dt.timezone.utc
N = 20_000
ORIGINS = ["SFO", "LAX", "JFK", "ORD", "SEA"]


@pytest.fixture(scope="session")
def spark():
    # Spark's Python workers run this interpreter (with pyarrow and xbf), not python3 off the PATH.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("xbf-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.python.filterPushdown.enabled", "true")
        .getOrCreate()
    )
    xbf.spark.register(s)
    yield s
    s.stop()


def table():
    return pa.table(
        {
            "date": pa.array([dt.datetime(2001, 1, 1, tzinfo=UTC) + dt.timedelta(minutes=i) for i in range(N)],
                             type=pa.timestamp("us", tz="UTC")),
            "delay": pa.array([None if i % 101 == 0 else (i * 31) % 500 - 20 for i in range(N)], type=pa.int64()),
            "origin": pa.array([ORIGINS[(i * 7) % 5] for i in range(N)]),
            "distance": pa.array([(i * 13) % 3000 for i in range(N)], type=pa.int32()),
        }
    )


@pytest.fixture(scope="session")
def flights(tmp_path_factory):
    p = tmp_path_factory.mktemp("spark") / "flights.xbf"
    xa.write_table(table(), p, block_rows=2_000)
    return str(p)


def test_reads_one_file_in_several_partitions(spark, flights):
    df = spark.read.format("xbf").load(flights)
    assert df.rdd.getNumPartitions() == 10
    assert df.count() == N
    assert df.schema.fieldNames() == ["date", "delay", "origin", "distance"]
    want = {}
    for o in table().column("origin").to_pylist():
        want[o] = want.get(o, 0) + 1
    got = {r["origin"]: r["count"] for r in df.groupBy("origin").count().collect()}
    assert got == want


def test_groups_of_blocks_and_filters(spark, flights):
    df = spark.read.format("xbf").option("blocksPerPartition", 4).load(flights)
    assert df.rdd.getNumPartitions() == 3
    t = table()
    want = sum(1 for d in t.column("delay").to_pylist() if d is not None and d > 400)
    assert df.filter(F.col("delay") > 400).count() == want
    assert df.filter(F.col("origin") == "SEA").count() == N // 5
    first = df.filter(F.col("date") < dt.datetime(2001, 1, 1, 0, 10, tzinfo=UTC)).count()
    assert first == 10


def test_writes_and_reads_back_overwrite_and_append(spark, flights, tmp_path):
    out = str(tmp_path / "out")
    df = spark.read.format("xbf").load(flights)
    df.write.format("xbf").mode("overwrite").save(out)
    files = sorted(p.name for p in (tmp_path / "out").iterdir() if p.name.endswith(".xbf"))
    assert 1 <= len(files) <= 10
    assert not any(p.name.startswith("_") for p in (tmp_path / "out").iterdir())
    back = spark.read.format("xbf").load(out)
    delays = [d for d in table().column("delay").to_pylist() if d is not None]
    row = back.agg(F.count("*").alias("n"), F.sum("delay").alias("s"), F.count("delay").alias("k")).collect()[0]
    assert (row["n"], row["s"], row["k"]) == (N, sum(delays), len(delays))
    df.limit(100).write.format("xbf").mode("append").save(out)
    assert spark.read.format("xbf").load(out).count() == N + 100
    df.limit(7).write.format("xbf").mode("overwrite").save(out)
    assert spark.read.format("xbf").load(out).count() == 7
    # What Spark wrote, xbf.arrow reads.
    one = next(p for p in (tmp_path / "out").iterdir() if p.name.endswith(".xbf"))
    assert xa.read_table(one).num_rows == 7
