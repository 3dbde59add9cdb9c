"""SPEC 19.1's inference, shared with the Rust core: sparse records, keys that are data, deep data.

Python's ``xbf.dumps`` calls the core's object merge and map rule (``xbf::infer``), so that a list of dicts
gets the type ``xbf from-json`` gives the same JSON: checked byte for byte against the CLI when it is built.
"""
import json
import pathlib
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

import xbf

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = next((p for p in (ROOT / "target/debug/xbf", ROOT / "target/release/xbf") if p.exists()), None)


def schema_of(v):
    return str(xbf.Schema.infer(v))


def test_sparse_records_share_one_struct():
    opt = 'enum "json.optional" { absent, present: u64 }'
    assert schema_of([{"a": 1}, {"b": 1}, {"a": 1, "b": 1}]) == f"vec<struct Object {{ a: {opt}, b: {opt} }}>"
    rows = [{"x": 1, "z": 1}, {"w": 1}, {"x": 1, "y": 1, "z": 1}]
    assert schema_of(rows).startswith("vec<struct Object { x: ")
    assert [f for f in schema_of(rows).split() if f.endswith(":") and len(f) == 2] == ["x:", "w:", "y:", "z:"]
    assert xbf.loads(xbf.dumps(rows)) == rows
    assert schema_of([{"a": 1, "b": 2}, {"b": 3, "a": 4}, None]) == "vec<any>"


def test_keys_that_are_data_become_a_map():
    rows = [{f"id{i}": i} for i in range(4000)]
    assert schema_of(rows) == "vec<map<string, u64>>"
    data = xbf.dumps(rows)
    assert len(data) < 10_000
    back = xbf.loads(data)
    assert back == rows and [list(r) for r in back] == [list(r) for r in rows]
    # 64 distinct keys are still fields; one dict is never a map.
    assert schema_of([{f"k{i}": i} for i in range(64)]).startswith("vec<struct Object")
    assert schema_of({f"k{i}": i for i in range(1000)}).startswith("struct Object")


@pytest.mark.parametrize("make", [lambda x: [x], lambda x: {"a": x}, lambda x: [{"a": x}]])
def test_deep_data_is_a_clean_too_deep_error(make):
    v = None
    for _ in range(100_000):
        v = make(v)
    for f in (xbf.dumps, xbf.Schema.infer, lambda v: xbf.dumps(v, columnar=True)):
        with pytest.raises(xbf.EncodeError) as e:
            f(v)
        assert e.value.kind == "too-deep" and isinstance(e.value, ValueError)
    shallow = None
    for _ in range(60):
        shallow = make(shallow)
    assert xbf.loads(xbf.dumps(shallow)) == shallow


def test_what_dumps_writes_loads_reads_at_the_depth_limit():
    # 128 levels are read back; 129, or optional keys that make the type deeper than 128, are refused when
    # encoding (as xbf from-json refuses them), never written for loads to refuse.
    for n, ok in [(128, True), (129, False)]:
        v = []
        for _ in range(n - 1):
            v = [v]
        if ok:
            assert xbf.loads(xbf.dumps(v)) == v
        else:
            with pytest.raises(xbf.EncodeError) as e:
                xbf.dumps(v)
            assert e.value.kind == "too-deep"
    v = 1
    for _ in range(50):
        v = [{"a": v}, {}]
    with pytest.raises(xbf.EncodeError, match="inferred type"):
        xbf.dumps(v)
    # A value of type any opens a level, and its own type more (SPEC 16.1).
    for n, ok in [(126, True), (127, False)]:
        v = []
        for _ in range(n - 1):
            v = [v]
        for columnar in (False, None):
            if ok:
                assert xbf.loads(xbf.dumps([1, v], columnar=columnar)) == [1, v]
            else:
                with pytest.raises(xbf.EncodeError, match="levels"):
                    xbf.dumps([1, v], columnar=columnar)
    deep_any = "x"
    for _ in range(127):
        deep_any = [deep_any]
    with pytest.raises(xbf.EncodeError):
        xbf.dumps([1, deep_any])


def test_a_reference_cycle_is_too_deep():
    a = []
    a.append(a)
    with pytest.raises(xbf.EncodeError, match="levels"):
        xbf.dumps(a)


letter = st.sampled_from("abcde")
scalar = st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.text(max_size=3) \
    | st.floats(allow_nan=False, allow_infinity=False)
nested = st.recursive(scalar, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(letter, inner, max_size=4),
                      max_leaves=12)
sparse = st.lists(st.dictionaries(letter, nested, max_size=5), max_size=30)
data_keys = st.lists(st.dictionaries(st.text(min_size=1, max_size=6).map(lambda s: "k" + s), scalar,
                                     min_size=1, max_size=3), min_size=40, max_size=120)


@pytest.mark.skipif(CLI is None, reason="the xbf CLI is not built (cargo build -p xbf-cli)")
@settings(max_examples=150, deadline=None)
@given(sparse | data_keys)
def test_python_infers_what_the_cli_infers(v):
    cli = subprocess.run([str(CLI), "from-json", "--layout", "rows"], input=json.dumps(v).encode(),
                         capture_output=True, check=True)
    assert xbf.dumps(v, columnar=False) == cli.stdout, json.dumps(v)
