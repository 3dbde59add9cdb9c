"""XBF files (SPEC.md section 24) through the Python package: xbf.open,
xbf.iter_file and xbf.write, checked against every file vector, in round
trips, and against the xbf command line (the Rust reader and writer)."""
import csv
import datetime
import io
import json
import os
import pathlib
import re
import subprocess

import pytest

import xbf
from conftest import VECTORS
from vectorform import element, same

FILE_VECTORS = json.loads((VECTORS / "files" / "files.json").read_text(encoding="utf-8"))
ROOT = pathlib.Path(__file__).resolve().parents[2]
XBF_CLI = pathlib.Path(os.environ.get("XBF_CLI", ROOT / "target" / "debug" / "xbf"))
# `xbf ...: at byte N[, in PATH]: kind: detail`
CLI_ERROR = re.compile(r"at byte (\d+)(?:, in (.+?))?: ([a-z-]+): ")

needs_cli = pytest.mark.skipif(not XBF_CLI.exists(), reason=f"no xbf command at {XBF_CLI} (cargo build -p xbf-cli)")


def cli(*args, stdin=None):
    return subprocess.run([str(XBF_CLI), *map(str, args)], input=stdin, capture_output=True, check=False)


def cli_error(stderr):
    """(kind, offset, path) of the error the command line printed."""
    m = CLI_ERROR.search(stderr.decode())
    assert m, stderr
    return m.group(3), int(m.group(1)), m.group(2)


def py_error(err):
    return err.kind, err.offset, err.path


def records_of(vector):
    return [element(vector["type"], r) for r in vector["records"]]


def read_forward(data):
    got = []
    try:
        for r in xbf.iter_file(data, typed_any=True):
            got.append(r)
    except xbf.DecodeError as e:
        return got, e
    return got, None


def read_from_end(data):
    got = []
    try:
        with xbf.open(data, typed_any=True) as f:
            for r in f:
                got.append(r)
    except xbf.DecodeError as e:
        return got, e
    return got, None


def assert_same(got, want):
    assert len(got) == len(want) and all(same(a, b) for a, b in zip(got, want)), f"{got!r} != {want!r}"


@pytest.mark.parametrize("vector", FILE_VECTORS, ids=[v["name"] for v in FILE_VECTORS])
def test_file_vector(vector, tmp_path):
    data = bytes.fromhex(vector["hex"])
    want = records_of(vector)
    got, err = read_forward(data)
    assert_same(got, want)
    if "error" in vector:
        assert err is not None and err.kind == vector["error"], str(err)
    else:
        assert err is None, str(err)
    got, err = read_from_end(data)
    if "end_error" in vector:
        assert err is not None and err.kind == vector["end_error"], str(err)
    else:
        assert err is None, str(err)
        assert_same(got, want)
    if "blocks" in vector:
        check_write(vector, want, data, tmp_path)


def check_write(vector, want, data, tmp_path):
    """Written in blocks of the vector's sizes, the records give the vector's bytes."""
    blocks = vector["blocks"]
    path = tmp_path / "v.xbf"
    schema = xbf.Schema(vector["type"])
    if "append_after" in vector:
        k = vector["append_after"]
        split = sum(blocks[:k])
        xbf.write(path, want[:split], schema=schema, block_rows=blocks[0])
        xbf.write(path, want[split:], schema=schema, block_rows=blocks[k], append=True)
    else:
        # Blocks of one size but the last: what block_rows writes.
        assert all(b == blocks[0] for b in blocks[:-1]) and (not blocks or blocks[-1] <= blocks[0])
        xbf.write(path, want, schema=schema, block_rows=blocks[0] if blocks else None)
    assert path.read_bytes().hex() == vector["hex"]
    with xbf.open(path) as f:
        assert [b.records for b in f.blocks] == blocks
        assert len(f) == len(want)


DAMAGED = [v for v in FILE_VECTORS if "error" in v]


@needs_cli
@pytest.mark.parametrize("vector", DAMAGED, ids=[v["name"] for v in DAMAGED])
def test_damaged_vector_agrees_with_rust(vector, tmp_path):
    """Kind, offset and path of each damaged file's error, as the Rust reader gives them."""
    data = bytes.fromhex(vector["hex"])
    # Forward: the command line reads standard input forward.
    _, err = read_forward(data)
    run = cli("cat", "-", stdin=data)
    assert run.returncode == 1
    assert py_error(err) == cli_error(run.stderr)
    # From the end: the command line opens a file by its footer (and falls
    # back to reading forward when there is none: then only the kind and the
    # offset, the file's length, are SPEC 24.2's).
    _, err = read_from_end(data)
    if vector["end_error"] == "truncated" and vector["end_offset"] == len(data):
        assert (err.kind, err.offset) == ("truncated", len(data))
        return
    path = tmp_path / "damaged.xbf"
    path.write_bytes(data)
    run = cli("cat", path)
    assert run.returncode == 1
    assert py_error(err) == cli_error(run.stderr)


def test_damaged_block_is_skipped_and_listed():
    vector = next(v for v in FILE_VECTORS if v["name"].startswith("bad-checksum in block 1"))
    data = bytes.fromhex(vector["hex"])
    with xbf.open(data) as f:
        with pytest.raises(xbf.DecodeError) as info:
            list(f)
        assert info.value.kind == "bad-checksum" and "block 1" in str(info.value)
        with pytest.raises(xbf.DecodeError):
            f.read_block(1)
    with xbf.open(data, skip_damaged=True) as f:
        b = f.blocks
        assert list(f) == [5, 300, 1000000]
        assert list(f) == [5, 300, 1000000]  # a second pass lists the block once
        [(index, start, end, err)] = f.damaged
        assert (index, start, end) == (1, b[1].offset, b[1].offset + b[1].size)
        assert err.kind == "bad-checksum"


# ------------------------------------------------------------- round trips

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def flights(n):
    origins = ["SFO", "LAX", "JFK", "ORD", "SEA"]
    for i in range(n):
        yield {
            "date": EPOCH + datetime.timedelta(minutes=i),
            "delay": (i * 37) % 400 - 60,
            "distance": 100 + (i * 13) % 2500,
            "origin": origins[i % 5],
            "destination": origins[(i * 3) % 5],
        }


@pytest.mark.parametrize("zstd", [None, 3])
def test_round_trip_generator_in_blocks(tmp_path, zstd):
    path = tmp_path / "flights.xbf"
    assert xbf.write(path, flights(2500), block_rows=1000, zstd=zstd) == 2500
    with xbf.open(path) as f:
        assert len(f) == 2500
        assert [b.records for b in f.blocks] == [1000, 1000, 500]
        assert str(f.schema) == ("struct Object { date: timestamp, delay: i64, distance: u64, origin: string, "
                                 "destination: string }")
        assert list(f) == list(flights(2500))
        assert list(f) == list(flights(2500))  # each iteration is a new pass
        assert f.read_block(2) == list(flights(2500))[2000:]
        assert f.read_block(-1) == f.read_block(2)
        with pytest.raises(IndexError):
            f.read_block(3)
        delay = next(c for c in f.blocks[0].columns if c.path == "delay")
        assert (delay.min, delay.max, delay.exact, delay.nulls) == (-60, 339, True, 0)
    assert list(xbf.iter_file(path)) == list(flights(2500))


def test_fields_and_where(tmp_path):
    path = tmp_path / "f.xbf"
    rows = list(flights(3000))
    xbf.write(path, rows, block_rows=500)
    with xbf.open(path, fields=["origin"], where="distance >= 2500") as f:
        assert str(f.read_schema) == "struct Object { origin: string }"
        assert list(f) == [{"origin": r["origin"]} for r in rows if r["distance"] >= 2500]
    # Dates sort with the rows: a filter on them rules blocks out by their statistics.
    cut = EPOCH + datetime.timedelta(minutes=2600)
    with xbf.open(path, where=f"date >= {cut.isoformat().replace('+00:00', 'Z')}") as f:
        assert f.blocks_ruled_out() == 5
        assert list(f) == rows[2600:]
    with xbf.open(path, where=("origin", "=", "SFO")) as f:
        assert list(f) == [r for r in rows if r["origin"] == "SFO"]
    assert list(xbf.iter_file(path, fields=["delay"], where="delay > 330")) == [
        {"delay": r["delay"]} for r in rows if r["delay"] > 330]
    with pytest.raises(ValueError):
        xbf.open(path, fields=["nope"])
    with pytest.raises(ValueError):
        xbf.open(path, where="delay ~ 3")


MIXED = [
    {"id": 1, "name": "a", "score": 1.5, "tags": ["x", "y"], "at": datetime.date(2024, 1, 2), "blob": b"\x00\xff",
     "big": 2**70, "maybe": None, "nested": {"k": -3}},
    {"id": 2, "name": "é" * 100, "score": float("nan"), "tags": [], "at": datetime.date(1900, 5, 6), "blob": b"",
     "big": 1, "maybe": 7, "nested": {"k": 4}},
    {"id": 3, "name": "", "score": -0.0, "tags": ["z"], "at": datetime.date(2100, 12, 31), "blob": b"ab",
     "big": 0, "maybe": None, "nested": {"k": 0}},
]


def test_round_trip_mixed_types(tmp_path):
    path = tmp_path / "m.xbf"
    xbf.write(path, MIXED * 10, block_rows=7)
    got = list(xbf.open(path))
    assert_same(got, MIXED * 10)
    assert_same(xbf.loads(xbf.dumps(MIXED * 10)), got)  # the type dumps infers, the same values
    assert xbf.open(path).schema == xbf.Schema.infer_records(MIXED)


def test_round_trip_keys_some_records_lack_and_non_records(tmp_path):
    rows = [{"a": 1}, {"a": 2, "b": "x"}, {"b": "y"}]
    xbf.write(tmp_path / "k.xbf", rows, block_rows=2)
    assert list(xbf.open(tmp_path / "k.xbf")) == rows  # keys come back as they were
    xbf.write(tmp_path / "ints.xbf", iter(range(-5, 5)))
    assert list(xbf.open(tmp_path / "ints.xbf")) == list(range(-5, 5))
    xbf.write(tmp_path / "any.xbf", [1, "a", None, 2.5])
    assert list(xbf.open(tmp_path / "any.xbf")) == [1, "a", None, 2.5]


def test_file_objects_and_bytes(tmp_path):
    path = tmp_path / "b.xbf"
    xbf.write(str(path), flights(10))
    data = path.read_bytes()
    want = list(flights(10))
    assert list(xbf.open(data)) == want
    assert list(xbf.open(bytearray(data))) == want
    assert list(xbf.open(io.BytesIO(data))) == want
    with path.open("rb") as fh:
        assert list(xbf.open(fh)) == want
    assert list(xbf.iter_file(io.BytesIO(data))) == want


def test_write_failure_leaves_nothing_and_keeps_the_target(tmp_path):
    path = tmp_path / "t.xbf"
    xbf.write(path, [{"a": 1}])
    before = path.read_bytes()
    # A later record that does not fit the type of the first block.
    bad = ({"a": i} if i < 5 else {"a": "five"} for i in range(10))
    with pytest.raises((TypeError, ValueError)):
        xbf.write(path, bad, block_rows=2)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.xbf"]
    # An iterable that raises: the error is the iterable's, nothing is left.

    def boom():
        yield {"a": 1}
        raise RuntimeError("stop")
    with pytest.raises(RuntimeError):
        xbf.write(path, boom())
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.xbf"]
    with pytest.raises(ValueError):
        xbf.write(tmp_path / "e.xbf", [])  # nothing to infer a type from
    xbf.write(tmp_path / "e.xbf", [], schema="u32")
    with xbf.open(tmp_path / "e.xbf") as f:
        assert (len(f), f.blocks, list(f)) == (0, [], [])


def test_append(tmp_path):
    path = tmp_path / "a.xbf"
    rows = list(flights(30))
    xbf.write(path, rows[:20], block_rows=10)
    xbf.write(path, rows[20:], block_rows=10, append=True)
    with xbf.open(path) as f:
        assert [b.records for b in f.blocks] == [10, 10, 10]
        assert list(f) == rows
    size = path.stat().st_size
    with pytest.raises((TypeError, ValueError)):
        xbf.write(path, [rows[0], {"other": 1}], append=True)
    assert path.stat().st_size == size  # a failed append leaves the file as it was
    assert list(xbf.open(path)) == rows


def test_unfinished_file_reads_forward(tmp_path):
    path = tmp_path / "u.xbf"
    xbf.write(path, range(100), block_rows=40)
    data = path.read_bytes()
    with xbf.open(data) as f:
        cut = data[:f.blocks[1].offset + f.blocks[1].size]
    with pytest.raises(xbf.DecodeError) as info:
        xbf.open(cut)
    assert info.value.kind == "truncated" and info.value.offset == len(cut)
    got, err = read_forward(cut)
    assert got == list(range(80)) and err.kind == "truncated"


# ------------------------------------------------ the command line agrees

@needs_cli
def test_cli_reads_what_python_writes(tmp_path):
    path = tmp_path / "p.xbf"
    rows = [{"id": i, "name": f"n{i}", "score": i / 4, "ok": i % 2 == 0, "note": None if i % 3 else "x"}
            for i in range(1000)]
    xbf.write(path, rows, block_rows=300, zstd=3)
    run = cli("to-json", "--lines", path)
    assert run.returncode == 0, run.stderr
    assert [json.loads(line) for line in run.stdout.decode().splitlines()] == rows
    run = cli("cat", path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.decode().splitlines()[0].startswith("# XBF file of struct Object")


@needs_cli
def test_python_reads_what_cli_writes(tmp_path):
    src = tmp_path / "in.csv"
    lines = ["date,delay,distance,origin,note"]
    for i in range(5000):
        note = "" if i % 7 else f"n,{i}"
        lines.append(f"2001-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z,{i % 300 - 20},"
                     f"{i * 11 % 3000},{'SFO' if i % 2 else 'LAX'},\"{note}\"")
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.xbf"
    run = cli("from-csv", src, "-o", out, "--block-rows", "1000")
    assert run.returncode == 0, run.stderr
    with src.open(newline="") as fh:
        want = list(csv.DictReader(fh))
    with xbf.open(out) as f:
        assert len(f) == 5000 and len(f.blocks) == 5
        got = list(f)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g["date"] == datetime.datetime.fromisoformat(w["date"].replace("Z", "+00:00"))
        assert (g["delay"], g["distance"], g["origin"]) == (int(w["delay"]), int(w["distance"]), w["origin"])
        assert g["note"] == (w["note"] or None)
    late = list(xbf.open(out, fields=["delay"], where="delay > 270"))
    assert late == [{"delay": int(w["delay"])} for w in want if int(w["delay"]) > 270]
