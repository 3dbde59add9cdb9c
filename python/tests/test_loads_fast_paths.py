"""Edge cases of loads' record fast paths: the rows reader's scalar fields
read without the general dispatch and records of up to 5 keys made as new
dicts (decode.rs, `Dec::item`), and the column reader's numbers kept as
the core decoded them until their record is made (column_reader.rs,
`FieldValues`). Each case is checked in both layouts against the values
written, and truncated or damaged messages must still raise the core's
errors."""
import math
import struct

import pytest

import xbf

I64_MIN, I64_MAX, U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def bits(x):
    return struct.pack("<d", x)


def both(rows):
    """`rows` through dumps and loads in rows and in columns."""
    return [xbf.loads(xbf.dumps(rows, columnar=c)) for c in (False, True)]


def test_float_bits_kept():
    # NaNs with payloads and signs, -0.0, infinities, subnormals, extremes.
    specials = [struct.unpack("<d", struct.pack("<Q", q))[0]
                for q in (0x7FF8000000000001, 0xFFF8000000000000, 0x7FF0000000000F00, 0x0000000000000001)]
    values = specials + [-0.0, 0.0, math.inf, -math.inf, 5e-324, 1.7976931348623157e308, -1.5, 0.1]
    rows = [{"u": v, "v": -v} for v in values]
    for back in both(rows):
        assert [(bits(r["u"]), bits(r["v"])) for r in back] == [(bits(r["u"]), bits(r["v"])) for r in rows]
        assert all(type(r["u"]) is float for r in back)


@pytest.mark.parametrize("values", [
    [0, 1, -1, 63, -64, 64, -65, 127, 128, I64_MAX, I64_MIN, I64_MIN + 1, 2**31, -(2**31) - 1],
    [0, 1, 63, 64, 127, 128, 255, 256, 2**32, I64_MAX, I64_MAX + 1, U64_MAX],
])
def test_ints_at_limits(values):
    rows = [{"a": v, "b": v // 2, "c": str(v)} for v in values]
    for back in both(rows):
        assert back == rows and all(type(r["a"]) is int for r in back)


def test_bools_nulls_and_absent_keys():
    rows = [{"a": True, "b": None, "c": 1.5}, {"a": False, "c": -0.0}, {"b": 2.0, "a": True}, {}]
    for back in both(rows):
        assert back == rows and [list(r) for r in back] == [list(r) for r in rows]
        assert bits(back[1]["c"]) == bits(-0.0)


@pytest.mark.parametrize("width", [1, 2, 5, 6, 9])
def test_records_of_any_width_keep_key_order(width):
    keys = [f"k{i}" for i in range(width)]
    rows = [{k: (i * 7 + j) / 3 if j % 2 else i - j for j, k in enumerate(keys)} for i in range(50)]
    rows[3] = dict(reversed(list(rows[3].items())))
    for back in both(rows):
        assert back == rows and [list(r) for r in back] == [list(r) for r in rows]


def test_strings_of_one_byte_lengths_and_longer():
    values = ["", "a", "é", "x" * 127, "y" * 128, "z" * 300, "\U0001F600" * 31, "\U0001F600" * 32]
    rows = [{"s": s, "n": i} for i, s in enumerate(values)]
    for back in both(rows):
        assert back == rows


def test_nested_and_mixed_records():
    rows = [{"p": {"x": 1.0, "y": -2}, "l": [1.5, 2.5], "t": "a"}, {"p": {"x": 0.5, "y": 3}, "l": [], "t": "b"}]
    for back in both(rows):
        assert back == rows


def test_damaged_messages_raise_decode_errors():
    rows = [{"u": i / 7, "v": i, "w": str(i), "b": i % 2 == 0} for i in range(40)]
    for columnar in (False, True):
        data = xbf.dumps(rows, columnar=columnar)
        for cut in range(len(data)):
            with pytest.raises(xbf.DecodeError) as e:
                xbf.loads(data[:cut])
            assert e.value.kind
        with pytest.raises(xbf.DecodeError) as e:
            xbf.loads(data + b"\0")
        assert e.value.kind == "trailing-bytes"


def test_invalid_utf8_in_a_short_string_is_the_cores_error():
    data = bytearray(xbf.dumps([{"s": "abc"}], columnar=False))
    i = data.index(b"abc")
    data[i] = 0xFF
    with pytest.raises(xbf.DecodeError) as e:
        xbf.loads(bytes(data))
    assert e.value.kind == "invalid-utf8" and e.value.offset is not None
