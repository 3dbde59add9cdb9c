"""Hostile input and the decoded-memory budget (SPEC.md 16.2, 22.3; issue 18):
only xbf.DecodeError ever comes out of decoding, with the same kind, offset
and path as the Rust core and TypeScript."""

import io

import pytest

import xbf

RUNS_PAST_2_64 = bytes.fromhex("c202110402000210030105ffffffffffffffffff01070209")
STREAM_CUT_IN_METADATA = bytes.fromhex("c2041667c0")
BOMB_2_40_UNITS = bytes.fromhex("c2021113080301808080808020")


def error_of(call):
    with pytest.raises(xbf.DecodeError) as info:
        call()
    return info.value


def test_runs_adding_up_past_2_64_are_a_decode_error_not_a_panic():
    # Issue 18, repro 7: this once raised pyo3_runtime.PanicException.
    e = error_of(lambda: xbf.loads(RUNS_PAST_2_64))
    assert (e.kind, e.offset, e.path) == ("invalid-column", 11, "[]")
    try:
        xbf.loads(RUNS_PAST_2_64)
    except Exception as caught:  # what a user writes; a BaseException would pass through
        assert isinstance(caught, xbf.DecodeError)


# The mapping of a panic itself (DecodeError of kind "internal") is a Rust unit test of the binding
# (python/src/errors.rs, `cargo test --manifest-path python/Cargo.toml`): no input is known to make the
# core panic, and the package ships no hook to raise one.


def test_stream_counts_are_checked_against_a_known_length():
    # Issue 18, repro 9: bytes, BytesIO and files have a known length.
    e = error_of(lambda: list(xbf.iter_stream(STREAM_CUT_IN_METADATA)))
    assert (e.kind, e.offset) == ("truncated", 3)
    e = error_of(lambda: xbf.StreamReader(io.BytesIO(STREAM_CUT_IN_METADATA)))
    assert (e.kind, e.offset) == ("truncated", 3)


def test_stream_of_unknown_length_may_differ_only_on_cut_input():
    class Pipe(io.RawIOBase):
        def __init__(self, data):
            self._b = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, buf):
            chunk = self._b.read(len(buf))
            buf[: len(chunk)] = chunk
            return len(chunk)

    e = error_of(lambda: list(xbf.iter_stream(Pipe(STREAM_CUT_IN_METADATA))))
    assert (e.kind, e.offset) == ("unknown-discriminant", 4)
    out = io.BytesIO()
    with xbf.StreamWriter(out, xbf.Schema({"tuple": ["u8", "string"]})) as w:
        w.write((1, "a"))
        w.write((2, "b"))
    whole = out.getvalue()
    assert list(xbf.iter_stream(Pipe(whole))) == list(xbf.iter_stream(whole))


def test_the_default_budget_reads_what_the_writers_make():
    # Issue 18, repro 2: a 14-byte delta column of a million integers.
    data = xbf.dumps(list(range(1_000_000)))
    assert len(data) < 20
    assert xbf.loads(data) == list(range(1_000_000))
    # 1,000,001 values of 48 bytes.
    e = error_of(lambda: xbf.loads(data, max_decoded_bytes=48_000_047))
    assert e.kind == "too-large"
    assert len(xbf.loads(data, max_decoded_bytes=48_000_048)) == 1_000_000
    records = [{"id": i} for i in range(200_000)]
    assert xbf.loads(xbf.dumps(records)) == records
    keys = [{f"k{i}": i} for i in range(500)]
    assert xbf.loads(xbf.dumps(keys)) == keys


def test_a_tiny_bomb_is_refused_at_once():
    e = error_of(lambda: xbf.loads(BOMB_2_40_UNITS))
    assert (e.kind, e.offset, e.path) == ("too-large", 13, "[]")
    # Rows: 22,369,622 units (one past 2**30 / 48) at the count; 65,537 read.
    e = error_of(lambda: xbf.loads(bytes.fromhex("c2001113d6aad50a")))
    assert (e.kind, e.offset) == ("too-large", 4)
    assert len(xbf.loads(bytes.fromhex("c2001113818004"))) == 65_537


def test_zero_size_values_in_rows_share_the_budget():
    rows = [{"a": i % 100, "b": None} for i in range(70_000)]
    data = xbf.dumps(rows, columnar=False)
    assert xbf.loads(data) == rows
    small = 65_536 * 48
    e = error_of(lambda: xbf.loads(data, max_decoded_bytes=small))
    assert (e.kind, e.path) == ("too-large", "[65536].b")
    stream = bytes.fromhex("c2041303818004")  # a block of 65,537 unit records
    assert len(list(xbf.iter_stream(stream))) == 65_537
    e = error_of(lambda: list(xbf.iter_stream(stream, max_decoded_bytes=small)))
    assert (e.kind, e.offset) == ("too-large", 4)
