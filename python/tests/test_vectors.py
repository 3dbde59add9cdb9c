"""Every conformance vector in vectors/, checked through the Python package."""
import io
import json

import pytest

import xbf
from conftest import VECTORS
from vectorform import element, same

FILES = sorted(p.name for p in VECTORS.glob("*.json"))


def load(name):
    # The depth vectors nest deeply; Python's json reader copes.
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


CASES = [(f, v) for f in FILES for v in load(f)]


def test_every_file_is_covered():
    assert {"v1.json", "v2.json", "v2-streams.json"} <= set(FILES)
    assert len(CASES) > 500


@pytest.mark.parametrize("vector", [v for _, v in CASES], ids=[f"{f}:{v['name']}" for f, v in CASES])
def test_vector(vector):
    data = bytes.fromhex(vector["hex"])
    version = vector.get("version", 1)
    if vector.get("stream"):
        return check_stream(vector, data)
    if "error" in vector:
        with pytest.raises(xbf.DecodeError) as info:
            xbf.loads(data, typed_any=True)
        check_error(info.value, vector)
        assert info.value.kind in str(info.value)
        return
    schema = xbf.Schema(vector["type"])
    want = element(vector["type"], vector["value"])
    got_schema, got = xbf.loads(data, with_schema=True, typed_any=True)
    assert got_schema == schema, f"{got_schema} != {schema}"
    assert same(got, want), f"{got!r} != {want!r}"
    if version >= 2 and data[1] & 0x02:
        # Columnar: the same columns, each in the same encoding as the Rust writer picks.
        assert xbf.dumps(want, schema=schema, columnar=True).hex() == vector["hex"]
        return
    assert xbf.dumps(want, schema=schema, version=version, columnar=False).hex() == vector["hex"]


def check_error(e, vector):
    """The kind, offset and path every implementation reports (SPEC 17.2); every invalid vector gives them."""
    assert (e.kind, e.offset, e.path or "") == (vector["error"], vector["offset"], vector["path"]), str(e)


def check_stream(vector, data):
    want = [element(vector["type"], r) for r in vector["records"]]
    got = []
    if "error" in vector:
        with pytest.raises(xbf.DecodeError) as info:
            for r in xbf.iter_stream(io.BytesIO(data), typed_any=True):
                got.append(r)
        check_error(info.value, vector)
    else:
        reader = xbf.StreamReader(io.BytesIO(data), True)
        assert reader.schema == xbf.Schema(vector["type"])
        got = list(reader)
        if len(vector["blocks"]) <= 1:
            out = io.BytesIO()
            with xbf.StreamWriter(out, xbf.Schema(vector["type"]), checksums=bool(data[1] & 0x08)) as w:
                for r in want:
                    w.write(r)
            assert out.getvalue().hex() == vector["hex"]
    assert len(got) == len(want) and all(same(a, b) for a, b in zip(got, want)), f"{got!r} != {want!r}"
