"""xbf.arrow: XBF files as Arrow tables and streams, read by pyarrow, Polars,
DuckDB and pandas with no conversion code of ours."""

import datetime as dt

import pytest

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")

import xbf  # noqa: E402
import xbf.arrow as xa  # noqa: E402

UTC = dt.timezone.utc


def flights(n=1000):
    origins = ["SFO", "LAX", "JFK", "ORD"]
    return pa.table(
        {
            "date": pa.array([dt.datetime(2001, 1, 1, tzinfo=UTC) + dt.timedelta(minutes=7 * i) for i in range(n)],
                             type=pa.timestamp("us", tz="UTC")),
            "delay": pa.array([None if i % 97 == 0 else (i * 37) % 700 - 50 for i in range(n)], type=pa.int64()),
            "distance": pa.array([(i * 13) % 2000 for i in range(n)], type=pa.int32()),
            "origin": pa.array([origins[i % 4] for i in range(n)]),
            "ratio": pa.array([i / 7 for i in range(n)], type=pa.float64()),
        }
    )


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "flights.xbf"
    xa.write_table(flights(), p, block_rows=100)
    return p


def test_round_trip_of_every_mapped_type(tmp_path):
    t = pa.table(
        {
            "b": pa.array([True, None, False]),
            "i8": pa.array([1, -2, None], type=pa.int8()),
            "u16": pa.array([1, 2, 65535], type=pa.uint16()),
            "u64": pa.array([0, 2**64 - 1, 5], type=pa.uint64()),
            "f32": pa.array([1.5, float("nan"), None], type=pa.float32()),
            "s": pa.array(["a", "", None]),
            "bin": pa.array([b"\x00\xff", b"", None]),
            "d": pa.array([dt.date(1970, 1, 1), dt.date(2038, 1, 19), None]),
            "ts": pa.array([dt.datetime(2020, 1, 1, 12, 0, 1, 5, tzinfo=UTC), None, None],
                           type=pa.timestamp("us", tz="UTC")),
            "list": pa.array([[1, 2], [], None], type=pa.list_(pa.int64())),
            "fixed": pa.array([[1, 2], [3, 4], None], type=pa.list_(pa.int16(), 2)),
            "st": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": "c"}],
                           type=pa.struct([("x", pa.int32()), ("y", pa.string())])),
            "m": pa.array([[("k", 1)], [], None], type=pa.map_(pa.string(), pa.int64())),
            "u128": pa.array([b"\x01" * 16, b"\x00" * 16, None], type=pa.binary(16)),
            "nul": pa.array([None, None, None], type=pa.null()),
        }
    )
    p = tmp_path / "t.xbf"
    assert xa.write_table(t, p) == 3
    back = xa.read_table(p)
    assert back.schema.remove_metadata() == t.schema
    for name in t.column_names:
        if name == "f32":  # NaN is not equal to itself: compared as text
            assert str(back.column(name).to_pylist()) == str(t.column(name).to_pylist())
        else:
            assert back.column(name).equals(t.column(name)), name


def test_read_table_matches_the_table_written(path):
    t = xa.read_table(path)
    assert t.num_rows == 1000
    assert t.schema.remove_metadata() == flights().schema
    assert t.to_pylist() == flights().to_pylist()


def test_columns(path):
    t = xa.read_table(path, columns=["origin", "delay"])
    # In the file's order, as the projection of the record type gives them.
    assert t.column_names == ["delay", "origin"]
    assert t.num_rows == 1000


def test_filters_match_pyarrow(path):
    src = flights()
    for filters in (
        [("delay", ">", 600)],
        [("delay", ">", 300), ("origin", "=", "SFO")],
        [("origin", "in", ["JFK", "ORD"]), ("distance", "<", 100)],
        [("origin", "not in", ["JFK"]), ("delay", "<=", 0)],
        [[("delay", ">", 640)], [("distance", "==", 7)]],
        [("date", ">=", dt.datetime(2001, 1, 5, tzinfo=UTC))],
    ):
        got = xa.read_table(path, filters=filters)
        want = src.filter(_expr(filters))
        assert got.to_pylist() == want.to_pylist(), filters


def _expr(filters):
    import pyarrow.compute as pc

    def one(c, op, v):
        f = pc.field(c)
        return {
            "=": lambda: f == v, "==": lambda: f == v, "!=": lambda: f != v, "<": lambda: f < v,
            "<=": lambda: f <= v, ">": lambda: f > v, ">=": lambda: f >= v,
            "in": lambda: f.isin(v), "not in": lambda: ~f.isin(v),
        }[op]()

    def conj(fs):
        e = None
        for c, op, v in fs:
            e = one(c, op, v) if e is None else e & one(c, op, v)
        return e

    if isinstance(filters[0], list):
        e = None
        for c in filters:
            e = conj(c) if e is None else e | conj(c)
        return e
    return conj(filters)


def test_filters_skip_blocks_by_statistics(path):
    # date increases: a filter past the last block's range reads no rows and
    # yields no batches at all (every block ruled out by its statistics).
    r = xa.open(path, filters=[("date", ">", dt.datetime(2030, 1, 1, tzinfo=UTC))])
    assert list(r) == []


def test_open_is_an_arrow_stream_for_pyarrow_polars_duckdb(path):
    r = xa.open(path, batch_size=64)
    reader = pa.RecordBatchReader.from_stream(r)
    batches = list(reader)
    assert max(b.num_rows for b in batches) == 64
    assert sum(b.num_rows for b in batches) == 1000

    df = pl.DataFrame(xa.open(path))
    assert df.height == 1000 and df["origin"].n_unique() == 4
    # pl.from_arrow takes any Arrow stream as one struct Series (Polars' rule).
    s = pl.from_arrow(xa.open(path))
    assert s.len() == 1000 and s.struct.unnest().equals(df)

    r = xa.open(path)
    got = duckdb.sql("select origin, count(*) as n from r group by origin order by origin").fetchall()
    assert got == [("JFK", 250), ("LAX", 250), ("ORD", 250), ("SFO", 250)]


def test_dataset_takes_duckdbs_projection_and_filter(path, monkeypatch):
    # DuckDB reads an open() stream whole; through xa.dataset it asks for the
    # columns the query uses (and the filter's), which are all that is read.
    asked = []
    real_open = xa.open

    def recording_open(p, columns=None, **kw):
        asked.append(columns)
        return real_open(p, columns=columns, **kw)

    monkeypatch.setattr(xa, "open", recording_open)
    d = xa.dataset(path)
    assert isinstance(d, pa.dataset.Dataset) and d.schema.names == flights().schema.names
    got = duckdb.sql("select origin, count(*) as n from d group by origin order by origin").fetchall()
    assert got == [("JFK", 250), ("LAX", 250), ("ORD", 250), ("SFO", 250)]
    assert asked[-1] == ["origin"]
    # A filter on another column: that column is read too, the rows filtered.
    t = flights()
    want = duckdb.sql("select origin, count(*) from t where delay > 300 group by 1 order by 1").fetchall()
    got = duckdb.sql("select origin, count(*) from d where delay > 300 group by 1 order by 1").fetchall()
    assert got == want and set(asked[-1]) == {"origin", "delay"}
    # Scanned again (each scan opens the file again), and by pyarrow itself.
    assert duckdb.sql("select count(*) from d").fetchall() == [(1000,)]
    assert d.count_rows() == 1000
    assert d.to_table(columns=["distance"], filter=pa.dataset.field("delay") > 600).num_rows == t.filter(
        pa.compute.greater(t.column("delay"), 600)).num_rows
    assert d.head(3, columns=["origin"]).column("origin").to_pylist() == ["SFO", "LAX", "JFK"]
    with pytest.raises(NotImplementedError):
        d.get_fragments()


def test_iterating_gives_record_batches_one_block_at_a_time(path):
    batches = list(xa.open(path, columns=["delay"]))
    assert all(isinstance(b, pa.RecordBatch) for b in batches)
    assert [b.num_rows for b in batches] == [100] * 10
    assert xa.open(path).schema.names == flights().schema.names


def test_stream_taken_once(path):
    r = xa.open(path)
    r.__arrow_c_stream__()
    with pytest.raises(RuntimeError):
        r.__arrow_c_stream__()


def test_pandas(path):
    df = xa.read_table(path).to_pandas()
    assert len(df) == 1000
    assert df["delay"].isna().sum() == 11


def test_write_from_polars_and_duckdb(tmp_path):
    df = pl.DataFrame({"a": [1, 2, 3], "s": ["x", "y", None], "l": [[1], [], [2, 3]]})
    p = tmp_path / "pl.xbf"
    xa.write_table(df, p, zstd=3)
    back = pl.from_arrow(xa.read_table(p))
    assert back.to_dicts() == df.to_dicts()

    rel = duckdb.sql("select range as i, range::varchar as s from range(5000)")
    p2 = tmp_path / "duck.xbf"
    assert xa.write_table(rel.arrow(), p2, block_rows=1000) == 5000
    assert xa.read_table(p2, filters=[("i", ">=", 4990)]).column("s").to_pylist() == [str(i) for i in range(4990, 5000)]


def test_written_file_has_the_usual_mode(path):
    import os

    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_xbf_file_written_by_xbf_reads_back_with_the_core(path):
    # The file is an ordinary XBF file: the core reads it with default options.
    raw = path.read_bytes()
    assert raw[:2] == b"\xc2\x0e" and raw[-4:] == b"XBFF"


def test_errors_are_xbf_errors(tmp_path, path):
    bad = tmp_path / "bad.xbf"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 1
    bad.write_bytes(bytes(raw))
    with pytest.raises(xbf.DecodeError) as e:
        xa.read_table(bad)
    assert e.value.kind == "truncated"
    raw = bytearray(path.read_bytes())
    raw[60] ^= 0xFF
    bad.write_bytes(bytes(raw))
    with pytest.raises(Exception) as e:
        xa.read_table(bad)
    assert "checksum" in str(e.value).lower() or "bad-checksum" in str(e.value)
    with pytest.raises(TypeError):
        xa.write_table(pa.table({"d": pa.array([1], type=pa.decimal128(5, 2))}), tmp_path / "d.xbf")
    assert not (tmp_path / "d.xbf").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".xbf-")] == []


def test_polars_scan_with_pushdown(path):
    import xbf.polars as xp

    lf = xp.scan_xbf(path)
    assert lf.collect_schema().names() == flights().schema.names
    src = pl.DataFrame(flights())
    q = lf.filter((pl.col("delay") > 300) & (pl.col("origin") == "SFO")).select(["distance", "delay"])
    want = src.filter((pl.col("delay") > 300) & (pl.col("origin") == "SFO")).select(["distance", "delay"])
    assert q.collect().equals(want)
    assert lf.head(5).collect().equals(src.head(5))
    g = lf.group_by("origin").agg(pl.len()).sort("origin").collect()
    assert g["len"].to_list() == [250, 250, 250, 250]
    # Blocks past every date's range: nothing read, nothing returned.
    assert lf.filter(pl.col("distance") > 5000).collect().height == 0


def test_polars_pushable_terms():
    import xbf.polars as xp

    schema = pl.Schema({"delay": pl.Int64, "origin": pl.String, "x": pl.Float64})
    e = (pl.col("delay") > 300) & (pl.col("origin") == "SFO") & (2.5 >= pl.col("x")) & (pl.col("delay") % 2 == 0)
    assert xp._pushable(e, schema) == [("delay", ">", 300), ("origin", "=", "SFO"), ("x", "<=", 2.5)]


def test_blocks_encoded_on_several_threads_give_the_same_file(tmp_path):
    table = flights(5000)
    files = []
    for threads in (1, 3):
        p = tmp_path / f"t{threads}.xbf"
        xa.write_table(table, p, block_rows=700, threads=threads)
        files.append(p.read_bytes())
    assert files[0] == files[1]
    assert xa.read_table(tmp_path / "t3.xbf").equals(xa.read_table(tmp_path / "t1.xbf"))
    assert xa.read_table(tmp_path / "t3.xbf").num_rows == 5000


def test_dataset_pushes_duckdbs_comparisons_into_the_reader(path, monkeypatch):
    # DuckDB's WHERE reaches the Dataset as a pyarrow Expression; its integer
    # and string comparisons ANDed together go to the reader (blocks skipped
    # by their statistics, rows dropped), the rest only to pyarrow's scanner.
    asked = []
    real_open = xa.open

    def recording_open(p, columns=None, filters=None, **kw):
        asked.append(filters)
        return real_open(p, columns=columns, filters=filters, **kw)

    monkeypatch.setattr(xa, "open", recording_open)
    d = xa.dataset(path)
    t = flights()  # noqa: F841 (DuckDB finds it by name)
    for where, pushed in [
        ("delay > 300", [("delay", ">", "300")]),
        ("delay > 300 and origin = 'SFO'", [("delay", ">", "300"), ("origin", "==", "SFO")]),
        ("delay >= -50 and ratio < 20.5", [("delay", ">=", "-50")]),
        ("delay < 10 or origin = 'LAX'", None),
        ("origin in ('LAX', 'JFK') and distance != 26", [("distance", "!=", "26")]),
        ("origin = 'it''s'", [("origin", "==", "it's")]),
    ]:
        q = f"select origin, delay, distance from {{}} where {where} order by all"
        assert duckdb.sql(q.format("d")).fetchall() == duckdb.sql(q.format("t")).fetchall(), where
        assert asked[-1] == pushed, where
    # Literals the reader would read otherwise than pyarrow: not pushed.
    assert xa._pushable(pa.dataset.field("distance") > 3_000_000_000, d.schema) == []  # past int32
    assert xa._pushable(pa.dataset.field("origin") == 'a"b', d.schema) == []
    assert xa._pushable(pa.dataset.field("nope") == 1, d.schema) == []
