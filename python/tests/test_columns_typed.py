"""Typed decoding of columnar messages from whole columns, for the types the column readers took
last (fields that may be absent, enums by name, maps, bytes, 128-bit ints), and the untyped
``xbf.Decoder()``: the same values, and the same errors (kind, path), as the same data written in rows,
which the row reader and the value plan decode."""

from __future__ import annotations

import abc
import dataclasses
import enum
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import pytest
from hypothesis import given, settings, strategies as st

import xbf
from vectorform import same


def both(v: Any, **kw: Any) -> Tuple[bytes, bytes]:
    data = xbf.dumps(v, columnar=True, **kw)
    assert data[:2] == b"\xc2\x02", "not written in columns"
    return data, xbf.dumps(v, columnar=False, **kw)


def outcome(data: bytes, t: Any) -> Any:
    """The value read, or the error's class, kind, path and message."""
    try:
        return ("ok", xbf.loads(data, type=t))
    except xbf.DecodeError as e:
        return (type(e).__name__, e.kind, e.path, str(e))


# ------------------------------------------------------------------ fields that may be absent


@dataclasses.dataclass
class Sparse:
    id: int
    name: Optional[str] = None
    score: Optional[float] = None
    tags: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class NeedsName:
    id: int
    name: str


sparse_record = st.fixed_dictionaries(
    {"id": st.integers(-2**40, 2**40)},
    optional={"name": st.none() | st.text(max_size=5), "score": st.floats(allow_nan=False) | st.integers(0, 9),
              "tags": st.lists(st.text(max_size=3), max_size=3), "other": st.integers() | st.text(max_size=3)})


@settings(max_examples=150, deadline=None)
@given(st.lists(sparse_record, min_size=16, max_size=40))
def test_absent_keys_read_from_columns_as_from_rows(rows: List[Dict[str, Any]]) -> None:
    data, flat = both(rows)
    for t in (List[Sparse], List[NeedsName]):
        assert outcome(data, t) == outcome(flat, t)
    got = outcome(data, List[Sparse])
    if got[0] == "ok":
        # Missing keys take the defaults (SPEC.md 23.2), a fresh list each.
        assert got[1] == [Sparse(r["id"], r.get("name"), r.get("score"), r.get("tags", [])) for r in rows]


def test_absent_key_of_a_required_field_names_it() -> None:
    rows: List[Dict[str, Any]] = [{"id": i, "name": "n"} for i in range(20)]
    del rows[7]["name"]
    for d in both(rows):
        with pytest.raises(xbf.ValidationError, match=r"^\$\[7\]: missing required field `name`$"):
            xbf.loads(d, type=List[NeedsName])


def test_absent_keys_default_factories_are_fresh() -> None:
    rows: List[Dict[str, Any]] = [{"id": i} if i % 2 else {"id": i, "tags": ["t"]} for i in range(20)]
    got = xbf.loads(both(rows)[0], type=List[Sparse])
    assert got[1].tags == [] and got[1].tags is not got[3].tags
    assert got[0].tags == ["t"]


# ------------------------------------------------------------------ untyped Decoder()


@settings(max_examples=60, deadline=None)
@given(st.lists(sparse_record, min_size=1, max_size=30), st.booleans())
def test_untyped_decoder_reads_as_loads(rows: List[Dict[str, Any]], columnar: bool) -> None:
    data = xbf.dumps(rows, columnar=columnar)
    dec = xbf.Decoder()
    assert same(dec.decode(data), xbf.loads(data))
    assert same(dec.decode(memoryview(data)), rows)
    assert same(xbf.Decoder(Any).decode(data), rows)


def test_untyped_decoder_raises_what_loads_raises() -> None:
    data = xbf.dumps([{"a": i} for i in range(30)], columnar=True)
    with pytest.raises(xbf.DecodeError) as loads_err:
        xbf.loads(data[:-3])
    with pytest.raises(xbf.DecodeError) as dec_err:
        xbf.Decoder().decode(data[:-3])
    assert (dec_err.value.kind, str(dec_err.value)) == (loads_err.value.kind, str(loads_err.value))
    with pytest.raises(xbf.DecodeError) as budget:
        xbf.Decoder().decode(data, max_decoded_bytes=64)
    assert budget.value.kind == "too-large"


def test_untyped_decoder_stub_checks_with_mypy(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    src = tmp_path / "use.py"
    src.write_text(
        "from typing import Any\n"
        "import xbf\n"
        "d: xbf.Decoder[Any] = xbf.Decoder()\n"
        "v: int = d.decode(b'')\n"
        "e: xbf.Decoder[int] = xbf.Decoder(int)\n"
        "bad: str = e.decode(b'')\n"
    )
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(src)],
                         capture_output=True, text=True)
    assert "use.py:6: error: Incompatible types in assignment" in out.stdout, out.stdout
    assert out.stdout.count("error:") == 1, out.stdout


# ------------------------------------------------------------------ maps, bytes, 128-bit ints, enums


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


@dataclasses.dataclass
class Wide:
    b: bytes
    n: int
    d: Dict[int, str]


class Point(NamedTuple):
    x: int
    y: float = 0.0


@dataclasses.dataclass
class Painted:
    shade: Shade
    at: Point
    by_key: Dict[str, Point]


wide_record = st.fixed_dictionaries({
    "b": st.binary(max_size=6),
    "n": st.integers(-2**127, 2**127 - 1) | st.integers(0, 2**128 - 1),
    "d": st.dictionaries(st.integers(-5, 5), st.text(max_size=3), max_size=3)})


@settings(max_examples=120, deadline=None)
@given(st.lists(wide_record, min_size=16, max_size=30))
def test_bytes_wide_ints_and_maps_read_from_columns_as_from_rows(rows: List[Dict[str, Any]]) -> None:
    data, flat = both(rows)
    assert same(xbf.loads(data), xbf.loads(flat))
    assert same(xbf.loads(data), rows)
    for t in (List[Wide], List[Dict[str, Any]], List[Point]):
        assert outcome(data, t) == outcome(flat, t)


def test_maps_of_keys_python_cannot_hash_read_as_pairs() -> None:
    schema = xbf.Schema({"vec": {"struct": "R", "fields": [["m", {"map": [{"vec": "u8"}, "u8"]}]]}})
    rows = [{"m": [([i % 3], i % 256)]} for i in range(20)]
    data, flat = both(rows, schema=schema)
    assert same(xbf.loads(data), xbf.loads(flat))
    assert outcome(data, List[Dict[str, Dict[Any, int]]]) == outcome(flat, List[Dict[str, Dict[Any, int]]])


SHADES = {"enum": "Shade", "variants": [["LIGHT", "unit"], ["DARK", "unit"], ["OTHER", "unit"]]}
POINT = {"struct": "Point", "fields": [["x", "i64"], ["y", "f64"]]}
PAINTED = xbf.Schema({"vec": {"struct": "Painted", "fields": [
    ["shade", SHADES], ["at", POINT], ["by_key", {"map": ["string", POINT]}]]}})


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["LIGHT", "DARK", "OTHER"]), st.integers(-9, 9),
                          st.dictionaries(st.text(max_size=2), st.integers(0, 9), max_size=2)),
                min_size=16, max_size=30))
def test_enums_by_name_namedtuples_and_maps_of_structs_from_columns_as_from_rows(
        values: List[Tuple[str, int, Dict[str, int]]]) -> None:
    rows = [{"shade": xbf.Variant(s), "at": {"x": x, "y": x / 2},
             "by_key": {k: {"x": v, "y": 0.5} for k, v in m.items()}} for s, x, m in values]
    data, flat = both(rows, schema=PAINTED)
    assert same(xbf.loads(data), xbf.loads(flat))
    got = outcome(data, List[Painted])
    assert got == outcome(flat, List[Painted])
    if all(s != "OTHER" for s, _, _ in values):
        assert got == ("ok", [Painted(Shade[s], Point(x, x / 2), {k: Point(v, 0.5) for k, v in m.items()})
                              for s, x, m in values])
    else:
        # The variant the reader's enum lacks, named at its place.
        i = [s for s, _, _ in values].index("OTHER")
        assert got[:3] == ("ValidationError", "type-mismatch", f"[{i}].shade")


# ------------------------------------------------------------------ how dataclass records are made


@dataclasses.dataclass
class OwnNew:
    id: int

    def __new__(cls, *args: Any, **kwargs: Any) -> "OwnNew":
        return super().__new__(cls)


@dataclasses.dataclass
class Abstract(abc.ABC):
    id: int

    @abc.abstractmethod
    def f(self) -> None: ...


@dataclasses.dataclass
class Child(Sparse):
    extra: int = 0


@pytest.mark.parametrize("columnar", [True, False])
def test_records_of_classes_with_their_own_new_abstract_or_derived(columnar: bool) -> None:
    data = xbf.dumps([{"id": i} for i in range(20)], columnar=columnar)
    got = xbf.loads(data, type=List[OwnNew])
    assert [type(x) for x in got] == [OwnNew] * 20 and [x.id for x in got] == list(range(20))
    assert xbf.loads(data, type=List[Child]) == [Child(i) for i in range(20)]
    with pytest.raises(TypeError, match="abstract"):
        xbf.loads(data, type=List[Abstract])
