"""Columnar messages read whole columns at a time (untyped and typed): the same values, and the same
errors, as the same data written in rows."""

from __future__ import annotations

import dataclasses
import datetime
import enum
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, TypedDict

import pytest
from hypothesis import given, settings, strategies as st

import xbf
from vectorform import same

UTC = datetime.timezone.utc


def columnar(v: Any, **kw: Any) -> bytes:
    data = xbf.dumps(v, columnar=True, **kw)
    assert data[:2] == b"\xc2\x02", "not written in columns"
    return data


def both(v: Any, **kw: Any) -> Tuple[bytes, bytes]:
    return columnar(v, **kw), xbf.dumps(v, columnar=False, **kw)


def test_any_enum_nested_structs_options_and_optional_keys_read_as_rows_do() -> None:
    rows = []
    for i in range(40):
        r: Dict[str, Any] = {
            "title": ["x", 3, 2.5, None, True, [1, "a"], {"k": i}][i % 7],   # any
            "rating": None if i % 5 == 0 else (i if i % 2 else i / 4),        # option<any>
            "when": datetime.date(2020, 1, 1 + i % 28),
            "at": datetime.datetime(2020, 1, 1, 0, 0, i % 60, tzinfo=UTC),
            "inner": {"a": i, "b": [float(i)] * (i % 3), "c": (i, str(i))},  # nested struct, vec, tuple
        }
        if i % 3:
            r["sometimes"] = i                                               # json.optional
        rows.append(r)
    for data, flat in (both(rows), both(rows * 3)):
        assert same(xbf.loads(data), xbf.loads(flat))
        assert xbf.loads(data, with_schema=True)[0] == xbf.loads(flat, with_schema=True)[0]
        assert same(xbf.loads(data, typed_any=True), xbf.loads(flat, typed_any=True))


def test_enums_options_of_options_and_arrays() -> None:
    schema = xbf.Schema({"vec": {"struct": "R", "fields": [
        ["e", {"enum": "E", "variants": [["A", "unit"], ["B", "i64"], ["C", {"vec": "string"}]]}],
        ["oo", {"option": {"option": "i64"}}],
        ["ou", {"option": "unit"}],
        ["arr", {"array": "u8", "len": 3}],
    ]}})
    rows = [{"e": [xbf.Variant("A"), xbf.Variant("B", -i), xbf.Variant("C", ["s"] * (i % 2))][i % 3],
             "oo": [None, xbf.Some(None), i][i % 3], "ou": [None, xbf.Some(None)][i % 2], "arr": [i % 256, 1, 2]}
            for i in range(30)]
    data, flat = both(rows, schema=schema)
    assert same(xbf.loads(data), xbf.loads(flat))
    assert same(xbf.loads(data), rows)


json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["p", "q"]), inner, max_size=2),
    max_leaves=6)
json_record = st.dictionaries(st.sampled_from(["id", "name", "v", "w"]), json_value, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(json_record, min_size=16, max_size=40))
def test_generated_records_read_the_same_from_columns(rows: List[Dict[str, Any]]) -> None:
    data = xbf.dumps(rows, columnar=True)
    assert same(xbf.loads(data), rows)
    assert same(xbf.loads(data), xbf.loads(xbf.dumps(rows, columnar=False)))


@settings(max_examples=100, deadline=None)
@given(st.lists(json_record, min_size=16, max_size=24), st.data())
def test_damaged_columns_raise_decode_errors_only(rows: List[Dict[str, Any]], d: st.DataObject) -> None:
    b = bytearray(xbf.dumps(rows, columnar=True))
    i = d.draw(st.integers(2, len(b) - 1))
    b[i] ^= d.draw(st.integers(1, 255))
    try:
        xbf.loads(bytes(b))
    except xbf.DecodeError as e:
        assert e.kind != "internal"


# ------------------------------------------------------------------ typed


@dataclasses.dataclass
class Leg:
    to: str
    km: float


@dataclasses.dataclass
class Trip:
    id: int
    name: str
    score: float
    ok: bool
    when: datetime.date
    at: datetime.datetime
    legs: List[Leg]
    note: Optional[str] = None
    tags: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class FrozenTrip:
    id: int
    name: str


@dataclasses.dataclass
class SlottedTrip:
    __slots__ = ("id", "name")
    id: int
    name: str


class TripTuple(NamedTuple):
    id: int
    name: str
    score: float = 0.0


class TripDict(TypedDict, total=False):
    id: int
    name: str


class Kind(enum.Enum):
    A = "a"
    B = "b"


def trips(n: int = 30) -> List[Dict[str, Any]]:
    return [{"id": i - 10, "name": f"n{i % 4}", "score": i / 3 if i % 2 else i, "ok": i % 2 == 0,
             "when": datetime.date(2024, 1, 1 + i % 28), "at": datetime.datetime(2024, 1, 1, i % 24, tzinfo=UTC),
             "legs": [{"to": "x", "km": float(j)} for j in range(i % 3)],
             "note": None if i % 4 else "note", "extra": [i, {"deep": i}]} for i in range(n)]


@pytest.mark.parametrize("t", [List[Trip], List[FrozenTrip], List[SlottedTrip], List[TripTuple], List[TripDict],
                               List[Dict[str, Any]], Any])
def test_typed_columns_give_what_rows_give(t: Any) -> None:
    data, flat = both(trips())
    got = xbf.loads(data, type=t)
    assert got == xbf.loads(flat, type=t)
    assert [type(x) for x in got] == [type(x) for x in xbf.loads(flat, type=t)]


def test_typed_columns_fill_defaults_and_run_post_init() -> None:
    seen = []

    @dataclasses.dataclass
    class P:
        id: int
        missing: str = "d"
        made: List[int] = dataclasses.field(default_factory=list)

        def __post_init__(self) -> None:
            seen.append(self.id)

    got = xbf.loads(columnar(trips()), type=List[P])
    assert seen == [r["id"] for r in trips()]
    assert got == [P(r["id"]) for r in trips()]
    assert got[0].made is not got[1].made


@pytest.mark.parametrize("rows, t, message", [
    ([{"id": 1, "name": None if i == 5 else "n"} for i in range(20)], List[FrozenTrip],
     r"^\$\[5\]\.name: expected str, got None$"),
    ([{"id": "x", "name": "n"}] * 20, List[FrozenTrip], r"^\$\[0\]\.id: expected int, got string$"),
    ([{"name": "n"}] * 20, List[FrozenTrip], r"^\$\[0\]: missing required field `id`$"),
    ([{"k": "a"}] * 19 + [{"k": "c"}], List[Dict[str, Kind]], r"^\$\[19\]\.k: 'c' is not a value of Kind$"),
])
def test_typed_columns_raise_what_rows_raise(rows: List[Dict[str, Any]], t: Any, message: str) -> None:
    data, flat = both(rows)
    for d in (data, flat):
        with pytest.raises(xbf.ValidationError, match=message):
            xbf.loads(d, type=t)


def test_typed_columns_out_of_range_dates_are_validation_errors() -> None:
    schema = xbf.Schema({"vec": {"struct": "R", "fields": [["when", "date"]]}})
    days = [0] * 19 + [-800_000]  # the last before Python's year 1
    data = xbf.dumps([{"when": datetime.date(1970, 1, 1)}] * 19 + [{"when": days[-1]}], schema=schema, columnar=True)

    @dataclasses.dataclass
    class R:
        when: datetime.date

    with pytest.raises(xbf.ValidationError, match=r"^\$\[19\]\.when: expected date"):
        xbf.loads(data, type=List[R])
