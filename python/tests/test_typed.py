"""Typed decoding: xbf.loads(data, type=T) and xbf.Decoder(T)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Literal, NamedTuple, Optional, Set, Tuple, TypedDict

import pytest

import xbf


@dataclasses.dataclass
class Flight:
    origin: str
    delay: int
    distance: float = 0.0
    tags: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    b: Optional[str] = None


@dataclasses.dataclass
class Slotted:
    __slots__ = ("x", "y")
    x: int
    y: int


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Pair(NamedTuple):
    left: int
    right: str = "r"


class Movie(TypedDict, total=False):
    title: str
    year: int


@dataclasses.dataclass
class Nested:
    name: str
    when: datetime.date
    at: datetime.datetime
    flights: List[Flight]
    color: Color
    mode: Literal["a", "b"]
    pair: Pair
    extra: Dict[str, int]
    blob: bytes
    ok: bool
    ids: Set[int]
    frozen: FrozenSet[str]
    coords: Tuple[int, float]


def rows(n: int = 40) -> List[Dict[str, Any]]:
    return [{"origin": f"A{i % 7}", "delay": i * 3 - 20, "distance": i * 1.5, "tags": ["x"] * (i % 3)} for i in range(n)]


@pytest.mark.parametrize("columnar", [False, True, None])
def test_list_of_dataclasses_rows_and_columns(columnar: Optional[bool]) -> None:
    data = xbf.dumps(rows(), columnar=columnar)
    got = xbf.loads(data, type=List[Flight])
    assert got == [Flight(**r) for r in rows()]
    assert all(type(f) is Flight for f in got)
    assert xbf.Decoder(list[Flight]).decode(data) == got


def test_missing_fields_take_defaults_and_extra_fields_are_skipped() -> None:
    data = xbf.dumps([{"origin": "X", "delay": 1, "unused": [1, 2, {"deep": "z"}]}] * 3, columnar=False)
    assert xbf.loads(data, type=List[Flight]) == [Flight("X", 1)] * 3
    # A default factory gives a new object each time.
    a, b, _ = xbf.loads(data, type=List[Flight])
    assert a.tags is not b.tags


def test_missing_required_field_names_it() -> None:
    data = xbf.dumps([{"origin": "X"}], columnar=False)
    with pytest.raises(xbf.ValidationError) as e:
        xbf.loads(data, type=List[Flight])
    assert str(e.value) == "$[0]: missing required field `delay`"
    assert e.value.kind == "type-mismatch"
    assert isinstance(e.value, xbf.DecodeError) and isinstance(e.value, ValueError)


def test_string_where_int_declared_names_the_path() -> None:
    data = xbf.dumps([{"origin": "X", "delay": "late"}] * 2, columnar=False)
    with pytest.raises(xbf.ValidationError) as e:
        xbf.loads(data, type=List[Flight])
    assert str(e.value) == "$[0].delay: expected int, got string"
    assert e.value.path == "[0].delay"
    assert e.value.offset is not None
    # Mixed kinds make `any` in the data: the check is per value, with its index.
    mixed = [{"origin": "X", "delay": 5}] * 3 + [{"origin": "Y", "delay": "late"}]
    with pytest.raises(xbf.ValidationError, match=r"^\$\[3\]\.delay: expected int, got string$"):
        xbf.loads(xbf.dumps(mixed, columnar=False), type=List[Flight])
    with pytest.raises(xbf.ValidationError, match=r"^\$\[3\]\.delay: expected int, got string$"):
        xbf.loads(xbf.dumps(mixed * 8, columnar=True), type=List[Flight])


def test_mismatch_with_no_values_reads() -> None:
    # The writer's element type does not fit, but there is no element.
    data = xbf.dumps([], schema=xbf.Schema({"vec": "string"}))
    assert xbf.loads(data, type=List[int]) == []
    # None in an option where the reader has no Optional fails only when met.
    assert xbf.loads(xbf.dumps([1, None, 3]), type=List[Optional[int]]) == [1, None, 3]
    with pytest.raises(xbf.ValidationError, match=r"^\$\[1\]: expected int, got None$"):
        xbf.loads(xbf.dumps([1, None, 3]), type=List[int])


def test_every_supported_type() -> None:
    when = datetime.date(2024, 5, 6)
    at = datetime.datetime(2024, 5, 6, 7, 8, 9, 10, tzinfo=datetime.timezone.utc)
    value = {
        "name": "n", "when": when, "at": at,
        "flights": [{"origin": "A", "delay": 2, "distance": 3.5, "tags": ["t"]}],
        "color": "green", "mode": "b", "pair": [7, "s"], "extra": {"k": 1, "j": 2}, "blob": b"\x00\x01",
        "ok": True, "ids": [3, 1, 2], "frozen": ["a", "b"], "coords": (1, 2.5),
    }
    got = xbf.loads(xbf.dumps(value), type=Nested)
    assert got == Nested("n", when, at, [Flight("A", 2, 3.5, ["t"])], Color.GREEN, "b", Pair(7, "s"),
                         {"k": 1, "j": 2}, b"\x00\x01", True, {1, 2, 3}, frozenset({"a", "b"}), (1, 2.5))
    assert type(got.pair) is Pair and type(got.ids) is set
    # A tuple in the data reads into a record positionally (SPEC.md 23.2 rule 9).
    assert xbf.loads(xbf.dumps([(1, "a"), (2, "b")]), type=List[Pair]) == [Pair(1, "a"), Pair(2, "b")]
    assert xbf.loads(xbf.dumps((1,)), type=Pair) == Pair(1, "r")


def test_scalars_and_containers() -> None:
    assert xbf.loads(xbf.dumps(5), type=int) == 5
    assert xbf.loads(xbf.dumps(5), type=float) == 5.0 and type(xbf.loads(xbf.dumps(5), type=float)) is float
    assert xbf.loads(xbf.dumps("s"), type=Optional[str]) == "s"
    assert xbf.loads(xbf.dumps(None), type=Optional[str]) is None
    assert xbf.loads(xbf.dumps({1: "a"}), type=Dict[int, str]) == {1: "a"}
    assert xbf.loads(xbf.dumps([1, 2]), type=Tuple[int, ...]) == (1, 2)
    assert xbf.loads(xbf.dumps({"a": 1}), type=Any) == {"a": 1}
    with pytest.raises(xbf.ValidationError, match=r"^\$: expected bool, got u64$"):
        xbf.loads(xbf.dumps(1), type=bool)
    with pytest.raises(xbf.ValidationError, match=r"^\$: expected int, got f64$"):
        xbf.loads(xbf.dumps(1.5), type=int)


def test_literal_and_enum_checked() -> None:
    with pytest.raises(xbf.ValidationError, match=r"^\$\[1\]: expected 'a' \| 'b', got 'c'$"):
        xbf.loads(xbf.dumps(["a", "c"]), type=List[Literal["a", "b"]])
    with pytest.raises(xbf.ValidationError, match=r"'blue' is not a value of Color"):
        xbf.loads(xbf.dumps(["red", "blue"]), type=List[Color])
    assert xbf.loads(xbf.dumps(["red"]), type=List[Color]) == [Color.RED]
    # An XBF enum reads by variant name.
    schema = xbf.Schema({"vec": {"enum": "Color", "variants": [["GREEN", "unit"], ["RED", "unit"]]}})
    data = xbf.dumps([xbf.Variant("RED"), xbf.Variant("GREEN")], schema=schema)
    assert xbf.loads(data, type=List[Color]) == [Color.RED, Color.GREEN]


def test_frozen_slots_namedtuple_typeddict() -> None:
    assert xbf.loads(xbf.dumps({"a": 1}), type=Frozen) == Frozen(1)
    assert xbf.loads(xbf.dumps({"x": 1, "y": 2}), type=Slotted).y == 2
    assert xbf.loads(xbf.dumps({"left": 4}), type=Pair) == Pair(4, "r")
    assert xbf.loads(xbf.dumps([{"title": "t"}]), type=List[Movie]) == [{"title": "t"}]


def test_post_init_runs() -> None:
    seen = []

    @dataclasses.dataclass
    class P:
        x: int

        def __post_init__(self) -> None:
            seen.append(self.x)

    xbf.loads(xbf.dumps([{"x": 1}, {"x": 2}]), type=List[P])
    assert seen == [1, 2]


def test_damage_is_a_decode_error_not_validation() -> None:
    data = xbf.dumps(rows(5), columnar=False)
    for cut in range(len(data)):
        with pytest.raises(xbf.DecodeError) as e:
            xbf.loads(data[:cut], type=List[Flight])
        assert e.value.kind != "internal" and not isinstance(e.value, xbf.ValidationError)


def test_decoder_caches_plans_per_metadata() -> None:
    d = xbf.Decoder(List[Flight])
    a = xbf.dumps(rows(3), columnar=False)
    b = xbf.dumps([{"delay": 1, "origin": "o"}], columnar=False)  # another field order: another plan
    for _ in range(3):
        assert d.decode(a) == [Flight(**r) for r in rows(3)]
        assert d.decode(b) == [Flight("o", 1)]


@dataclasses.dataclass
class Node:
    children: List["Node"]


def test_recursive_and_unsupported_types_are_refused() -> None:
    with pytest.raises(TypeError, match="recursive"):
        xbf.Decoder(Node)
    with pytest.raises(TypeError):
        xbf.Decoder(complex)


def test_stubs_check_with_mypy(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    src = tmp_path / "use.py"
    src.write_text(
        "import dataclasses\n"
        "from typing import List\n"
        "import xbf\n"
        "@dataclasses.dataclass\n"
        "class P:\n"
        "    x: int\n"
        "d: xbf.Decoder[List[P]] = xbf.Decoder(List[P])\n"
        "ps: List[P] = d.decode(b'')\n"
        "one: P = xbf.loads(b'', type=P)\n"
        "n: int = xbf.loads(b'', type=int)\n"
        "bad: str = xbf.loads(b'', type=int)\n"
    )
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(src)],
                         capture_output=True, text=True)
    # The one wrong line, and only it.
    assert "use.py:11: error: Incompatible types in assignment" in out.stdout, out.stdout
    assert out.stdout.count("error:") == 1, out.stdout


@dataclasses.dataclass
class Declared:
    n: int
    maybe: Optional[str]
    items: List[float]
    inner: Optional[Frozen] = None


def test_dumps_of_dataclasses_writes_their_declared_types() -> None:
    one = Declared(1, None, [])
    schema, value = xbf.loads(xbf.dumps(one), with_schema=True)
    assert str(schema) == ("struct Declared { n: i64, maybe: option<string>, items: vec<f64>, "
                           "inner: option<struct Frozen { a: i64, b: option<string> }> }")
    assert value == {"n": 1, "maybe": None, "items": [], "inner": None}
    many = [Declared(i, None if i % 2 else "s", [i / 2], Frozen(i) if i % 3 else None) for i in range(40)]
    for columnar in (False, True, None):
        data = xbf.dumps(many, columnar=columnar)
        assert str(xbf.loads(data, with_schema=True)[0]).startswith("vec<struct Declared { n: i64,")
        assert xbf.loads(data, type=List[Declared]) == many
    # A value that breaks its declared type: typed from the values, as before.
    odd = Declared("x", None, [])  # type: ignore[arg-type]
    assert xbf.loads(xbf.dumps(odd))["n"] == "x"
    # Enums have no declared XBF form here: inferred.
    @dataclasses.dataclass
    class WithEnum:
        c: int
        e: Any = None

    assert xbf.loads(xbf.dumps(WithEnum(1))) == {"c": 1, "e": None}


@pytest.mark.parametrize("columnar", [False, True])
def test_damaged_input_raises_only_decode_errors(columnar: bool) -> None:
    # Every byte of a message changed to a few values: the typed decoder
    # raises DecodeError (ValidationError included) or gives a value, never
    # anything else, as loads does.
    import random

    good = xbf.dumps([{"origin": f"o{i}", "delay": i - 9, "distance": i / 3, "tags": ["a", "b"][: i % 3]}
                      for i in range(20)], columnar=columnar)
    rnd = random.Random(7)
    dec = xbf.Decoder(List[Flight])
    for i in range(len(good)):
        for b in (0x00, 0x01, 0x7f, 0x80, 0xff, rnd.randrange(256)):
            bad = good[:i] + bytes([b]) + good[i + 1:]
            try:
                dec.decode(bad, max_decoded_bytes=1 << 20)
            except xbf.DecodeError as e:
                assert e.kind != "internal", e


def test_unhashable_keys_are_a_validation_error() -> None:
    data = xbf.dumps([[[1], [2]]])
    with pytest.raises(xbf.ValidationError, match="unhashable"):
        xbf.loads(data, type=List[Set[Any]])
    schema = xbf.Schema({"map": [{"vec": "u8"}, "u8"]})
    data = xbf.dumps([([1], 2)], schema=schema)
    assert xbf.loads(data) == [([1], 2)]  # untyped: a list of pairs
    with pytest.raises(xbf.ValidationError, match="unhashable"):
        xbf.loads(data, type=Dict[Any, int])
