"""dumps of lists of flat records through the one-pass gather (python/src/records/): a column
keeps no kind per value while all its values have one kind, reads ints in place and works out their
bits at the end. Each case is compared with the general path's bytes (a schema given skips the
gather), whose ints and kinds are read one value at a time through the C API."""
import pytest

import xbf


def general(rows, **kw):
    return xbf.dumps(rows, schema=xbf.Schema.infer(rows), **kw)


def same_as_general(rows):
    for columnar in (None, False, True):
        assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar), columnar
    assert xbf.loads(xbf.dumps(rows)) == rows


# Ints around the edges of CPython's 30-bit digits (in place: at most two digits), of i64 and u64.
EDGES = [0, 1, -1, 2**30 - 1, 2**30, -(2**30 - 1), -(2**30), 2**60 - 1, 2**60, -(2**60 - 1), -(2**60),
         2**62, -(2**62), 2**63 - 1, -(2**63), 2**63, 2**64 - 1]


@pytest.mark.parametrize("x", EDGES)
def test_ints_at_digit_and_width_edges(x):
    same_as_general([{"a": i % 7, "b": x} for i in range(20)])
    same_as_general([{"b": x if i == 10 else i} for i in range(20)])
    same_as_general([{"b": -x if i % 2 else x} for i in range(20)])


def test_int_bits_of_every_width_and_sign():
    for bits in range(0, 65):
        for sign in (1, -1):
            x = sign * (2**bits - 1)
            if -(2**63) <= x < 2**64:
                same_as_general([{"a": 1}, {"a": x}, {"a": 3}] * 5)


@pytest.mark.parametrize("at", [0, 1, 10, 19])
@pytest.mark.parametrize("other", [None, True, 1, -5, 2**63, 1.5, "s", "é", "absent"])
@pytest.mark.parametrize("first", [7, 2.5, "text", False, None])
def test_a_column_of_one_kind_then_another_at_any_place(first, other, at):
    rows = [{"a": first, "k": i} for i in range(20)]
    if other == "absent":
        del rows[at]["a"]
    else:
        rows[at]["a"] = other
    same_as_general(rows)


def test_kinds_that_alternate_and_come_back():
    cases = [
        [{"a": [1, None, "s"][i % 3]} for i in range(30)],
        [{"a": None if i < 10 else 2.5} for i in range(20)],                       # None first, then floats
        [{"a": i} if i % 4 else {"b": i} for i in range(24)],                      # absent here and there
        [{"b": 1}] * 5 + [{"a": 1, "b": 2}] * 5,                                   # a key first met late
        [{"a": 2**63 + i} if i % 2 else {"a": i} for i in range(20)],              # u64 among i64s
        [{"a": 2**70}] + [{"a": i} for i in range(20)],                            # beyond u64 first
        [{"a": True if i % 2 else None} for i in range(20)],
        [{"a": None}] * 20,
    ]
    for rows in cases:
        same_as_general(rows)


def test_strings_of_every_length():
    text = "".join(chr(33 + i % 90) for i in range(80))
    for n in range(0, 70):
        same_as_general([{"s": text[i % 7:i % 7 + n], "t": text[-n:] if n else ""} for i in range(12)])
    same_as_general([{"s": "ascii" if i % 2 else "ünïcode" * (i % 5)} for i in range(30)])


def test_an_encoder_after_kinds_change_keeps_the_bytes():
    enc = xbf.Encoder()
    calls = [
        [{"a": i, "s": "x" * (i % 3)} for i in range(20)],
        [{"a": i, "s": "x" * (i % 3)} for i in range(20)],
        [{"a": None if i == 5 else i, "s": "y"} for i in range(20)],
        [{"a": 2**62 + i, "s": "z"} for i in range(20)],
        [{"a": i, "s": "x"} for i in range(20)],
    ]
    for rows in calls:
        assert enc.encode(rows) == xbf.dumps(rows) == general(rows)
