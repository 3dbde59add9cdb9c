"""Strings decoded from rows and from columns: ASCII text is copied straight into a new str, anything else
decoded from UTF-8. Every length, both kinds, empty strings, and a non-ASCII byte at each position read
back equal, with the kind (ASCII or not) CPython gives the same text."""

from __future__ import annotations

from typing import List

import pytest

import xbf


def texts() -> List[str]:
    out = ["", "\x00", "\x7f", "\x80", "é", "€", "😀", "a\x00b"]
    for n in range(0, 70):
        out.append("".join(chr(33 + (i * 7) % 94) for i in range(n)))
    for n in (1, 7, 8, 9, 15, 16, 17, 31, 32, 33):
        for at in range(n):
            s = ["x"] * n
            s[at] = "ü"
            out.append("".join(s))
    return out


@pytest.mark.parametrize("columnar", [False, True])
def test_strings_in_records_read_back_equal(columnar: bool) -> None:
    ts = texts()
    rows = [{"s": t, "n": i} for i, t in enumerate(ts)]
    got = xbf.loads(xbf.dumps(rows, columnar=columnar))
    assert got == rows
    for g, t in zip(got, ts):
        assert type(g["s"]) is str
        # Same text, same hash, and usable as a key alongside the original.
        assert hash(g["s"]) == hash(t) and {g["s"]: 1}[t] == 1
        assert g["s"].isascii() == t.isascii()


def test_plain_strings_and_lists_of_strings() -> None:
    ts = texts()
    assert xbf.loads(xbf.dumps(ts)) == ts
    for t in ts:
        assert xbf.loads(xbf.dumps(t)) == t
    long = "abc" * 100_000
    assert xbf.loads(xbf.dumps(long)) == long


def test_invalid_utf8_still_raises() -> None:
    data = bytearray(xbf.dumps([{"s": "abcd"}], columnar=False))
    at = data.index(b"abcd")
    data[at + 1] = 0xFF
    with pytest.raises(xbf.DecodeError):
        xbf.loads(bytes(data))
