"""xbf.Encoder (dumps with options fixed once) and the one-pass columns of records whose keys vary."""
import dataclasses
import json
import pathlib
import subprocess
import sys
from typing import List, Optional

import pytest
from hypothesis import given, settings, strategies as st

import xbf

DATA = pathlib.Path(__file__).resolve().parents[2] / "target/data/vega-datasets"


@dataclasses.dataclass
class Point:
    x: int
    label: Optional[str] = None


def outcome(f, obj):
    """The bytes of f(obj), or the type and message of what it raised."""
    try:
        return f(obj)
    except Exception as e:  # compared, not hidden
        return type(e), str(e)


def test_encoder_gives_the_bytes_of_dumps_with_its_options():
    rows = [{"a": i, "b": f"s{i % 3}", "c": i / 3} for i in range(40)]
    schema = xbf.Schema({"vec": {"struct": "R", "fields": [["a", "i32"], ["b", "string"], ["c", "f64"]]}})
    cases = [{}, {"columnar": True}, {"columnar": False}, {"version": 1}, {"compress": 3}, {"schema": schema},
             {"schema": schema.to_python(), "columnar": True}]
    for opts in cases:
        enc = xbf.Encoder(**opts)
        dumps_opts = dict(opts)
        if "schema" in dumps_opts and not isinstance(dumps_opts["schema"], xbf.Schema):
            dumps_opts["schema"] = xbf.Schema(dumps_opts["schema"])
        for obj in (rows, rows[:3], [Point(1), Point(2, "x")]):
            if "schema" in opts and obj and not isinstance(obj[0], dict):
                continue
            for _ in range(2):  # reused across calls
                assert outcome(enc.encode, obj) == outcome(lambda o, d=dumps_opts: xbf.dumps(o, **d), obj), opts
        assert xbf.loads(enc.encode(rows)) == rows
    # Dataclasses are written with their declared types, as by dumps.
    enc = xbf.Encoder()
    assert xbf.loads(enc.encode([Point(1)]), type=List[Point]) == [Point(1)]
    assert "i64" in str(xbf.loads(enc.encode([Point(1)]), with_schema=True)[0].to_python())


def test_encoder_checks_its_options_once():
    with pytest.raises(ValueError, match="versions 1 and 2"):
        xbf.Encoder(version=3)
    with pytest.raises(ValueError, match="no columnar layout"):
        xbf.Encoder(version=1, columnar=True)
    with pytest.raises(ValueError, match="no columnar layout"):
        xbf.Encoder(version=1, compress=3)
    with pytest.raises(ValueError, match="needs columnar=True or None"):
        xbf.Encoder(columnar=False, compress=3)
    with pytest.raises(TypeError):
        xbf.Encoder(compress="high")
    with pytest.raises(TypeError):
        xbf.Encoder(schema=object())
    enc = xbf.Encoder(columnar=True)
    assert repr(enc) == "xbf.Encoder(columnar=True)"
    # Errors of the values are the same as dumps's.
    with pytest.raises(TypeError):
        enc.encode([{"a": object()}])


def test_encoder_stubs_check_with_mypy(tmp_path):
    pytest.importorskip("mypy")
    src = tmp_path / "use.py"
    src.write_text(
        "import xbf\n"
        "enc = xbf.Encoder(columnar=True, compress=3)\n"
        "b: bytes = enc.encode([{'a': 1}])\n"
        "bad: str = enc.encode(1)\n"
    )
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(src)],
                         capture_output=True, text=True)
    assert "use.py:4: error: Incompatible types in assignment" in out.stdout, out.stdout
    assert out.stdout.count("error:") == 1, out.stdout


def same_bytes_as_the_core_writer(rows):
    for compress in (None, 3):
        direct = xbf.dumps(rows, columnar=True, compress=compress)
        assert direct == xbf._native._columns_via_rows(rows, None, compress)
    assert xbf.loads(xbf.dumps(rows)) == rows
    assert xbf.loads(xbf.dumps(rows, columnar=True)) == rows


def test_records_whose_keys_vary_take_one_pass_to_the_same_bytes():
    fresh = [{"".join(["k", "ey"]): i, "".join(["v", "al"]): str(i)} for i in range(30)]  # new key objects each row
    assert fresh[0].keys().__iter__().__next__() is not fresh[1].keys().__iter__().__next__()
    cases = [
        [{"a": i} if i % 3 else {"a": i, "b": 1.5} for i in range(20)],           # a key some records lack
        [{"b": 1.5, "a": i} if i == 0 else {"a": i} for i in range(20)],           # lacking from all but the first
        [{"a": i} if i < 19 else {"a": i, "z": None} for i in range(20)],          # a key only the last has
        [{"x": 1, "a": i} if i % 2 else {"a": i, "y": "t"} for i in range(20)],   # keys on either side
        [{"a": i, "b": [None, 1, "s", 2.5, True][i % 5]} for i in range(20)] + [{"a": 0}],  # an optional any
        [{"a": None} if i % 2 else {"b": None} for i in range(20)],               # optional unit columns
        [{"a": 1, "b": 2}] * 20 + [{"b": 2, "a": 1}] * 20,                        # conflicting orders: any
        [{"a": 1, "b": 2}] * 20 + [{"a": 1, "c": 3, "b": 2}] * 20,                # a key put between
        [{f"k{j}": j for j in range(i % 70, i % 70 + 3)} for i in range(200)],    # keys that make a map
        [{f"f{j}": j * i for j in range(100)} for i in range(20)],                # wide records
        [{"é": 1, "ключ": "v"}] * 10 + [{"ключ": "w"}] * 10,
        [{"a": 1}, {}, {"a": 2}] * 7,
        fresh + [{"key": 1}],
    ]
    for rows in cases:
        same_bytes_as_the_core_writer(rows)
    # What the one pass does not take gives the general path's error.
    for rows, error in [([{"a": 1}] * 10 + [{"a": 1, "b": object()}], TypeError),
                        ([{"a": 1}] * 10 + [{"a": 1, "\udc80": 1}], UnicodeEncodeError),
                        ([{"a": 1}] * 10 + [{"a": 1, "b": 2**300}], OverflowError)]:
        for columnar in (None, True):
            with pytest.raises(error):
                xbf.dumps(rows, columnar=columnar)


record_of_optional_keys = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]),
                                             st.none() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=False)
                                             | st.text(max_size=4) | st.booleans()),
                                   max_size=4).map(dict)


@settings(max_examples=300, deadline=None)
@given(st.lists(record_of_optional_keys, min_size=16, max_size=60), st.booleans())
def test_records_of_random_key_sets_match_the_core_writer(rows, typed):
    if typed:  # one kind per key, so that columns (not any) carry them
        kinds = {"a": int, "b": float, "c": str, "d": bool}
        rows = [{k: v for k, v in r.items() if v is None or type(v) is kinds[k]} for r in rows]
    direct = xbf.dumps(rows, columnar=True)
    assert direct == xbf._native._columns_via_rows(rows, None, None)
    auto, flat = xbf.dumps(rows), xbf.dumps(rows, columnar=False)
    assert len(auto) == min(len(direct), len(flat))


def test_real_records_with_optional_keys_match_the_core_writer():
    names = ["countries.json", "cars.json", "penguins.json"]
    cases = [json.loads((DATA / n).read_text()) for n in names if (DATA / n).exists()]
    if not cases:
        pytest.skip("vega-datasets not fetched (scripts/fetch-data.sh)")
    for rows in cases:
        same_bytes_as_the_core_writer(rows)
