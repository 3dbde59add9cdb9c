"""Typed decoding of columnar messages from whole columns, for the types the column readers took
last (fields that may be absent, enums by name, maps, bytes, 128-bit ints), and the untyped
``xbf.Decoder()``: the same values, and the same errors (kind, path), as the same data written in rows,
which the row reader and the value plan decode."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

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
