"""A reused xbf.Encoder's buffers (python/src/learned.rs, records/fill.rs, records/column.rs): each column gets its
own buffers back on the next call of the same keys, a signed int column's buffer comes back as the core keeps it
(zigzagged, not its values) when the values are not read again, and a string column's text is sized from the
strings read so far. None of it may change a byte: every call gives the bytes of ``xbf.dumps`` and of the general
path (which a schema forces), whatever the calls before left in the buffers.
"""
from hypothesis import given, settings, strategies as st
from test_records_batches import general

import xbf


def check(enc, rows):
    want = xbf.dumps(rows)
    assert enc.encode(rows) == want
    assert want == general(rows)
    assert xbf.loads(want) == rows


def test_columns_of_other_kinds_across_calls():
    # Each call's columns in another order of kinds: strings where ints were, ints where floats were, and back.
    kinds = [lambda i: i - 50, lambda i: f"s{i}" * (i % 5), lambda i: i / 3, lambda i: i % 2 == 0, lambda i: -i]
    enc = xbf.Encoder()
    for shift in range(len(kinds) * 2):
        rows = [{f"k{j}": kinds[(j + shift) % len(kinds)](i) for j in range(len(kinds))} for i in range(200)]
        check(enc, rows)
        check(enc, rows)


def test_signed_ints_after_a_call_that_kept_only_their_room():
    # Signed ints written into the returned bytes (their buffer comes back zigzagged), then other signed ints, and
    # the rows layout (smaller for two records: the values read again) in between.
    enc = xbf.Encoder()
    for k in range(4):
        rows = [{"a": (-1) ** i * (i + k) * 1000, "b": -i} for i in range(300)]
        check(enc, rows)
        few = [{"a": -3 - k, "b": 7}, {"a": 4, "b": -(2**40)}]
        check(enc, few)
        check(enc, rows[:20])


def test_strings_longer_than_the_first_ones_project():
    # The first run of strings short, the rest long (the text's projected room runs out), and the reverse; then
    # lengths past 32 bytes (taken one at a time) and non-ASCII.
    enc = xbf.Encoder()
    for n in (65, 130, 129, 1000):
        short_first = [{"s": "a" if i < 64 else "b" * 30, "i": i} for i in range(n)]
        long_first = [{"s": "b" * 30 if i < 64 else "a", "i": i} for i in range(n)]
        mixed = [{"s": ("c" * (i % 50)) + ("é" if i % 7 == 0 else ""), "i": i} for i in range(n)]
        for rows in (short_first, long_first, mixed, short_first):
            check(enc, rows)
            check(xbf.Encoder(), rows)


def test_nulls_and_strings_across_calls():
    enc = xbf.Encoder()
    for p in (0, 3, 2, 5, 0):
        rows = [{"s": None if p and i % p == 0 else f"v{i}" * (i % 9), "n": None if i % 4 == 0 else -i}
                for i in range(250)]
        check(enc, rows)


class S(str):
    pass


class Int(int):
    pass


class F(float):
    pass


scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40),
    st.sampled_from(["x" * 64, "\U0001f600" * 3, S("sub"), Int(5), F(1.5), float("inf"), float("-inf")]),
)


@st.composite
def lists_of_records(draw):
    n = draw(st.integers(0, 200))
    keys = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "é"]), min_size=1, max_size=4, unique=True))
    # Each key a kind of its own for most records, another value here and there.
    base = {k: draw(scalar) for k in keys}
    rows = []
    for _ in range(n):
        rec = {}
        for k in draw(st.permutations(keys)) if draw(st.integers(0, 9)) == 0 else keys:
            if draw(st.integers(0, 19)) == 0:
                continue
            rec[k] = draw(scalar) if draw(st.integers(0, 4)) == 0 else base[k]
        rows.append(rec)
    return rows


def outcome(f, obj):
    try:
        return f(obj)
    except Exception as e:  # compared, not hidden
        return type(e), str(e)


@settings(max_examples=80, deadline=None)
@given(st.lists(lists_of_records(), min_size=1, max_size=6))
def test_any_sequence_of_calls_gives_the_bytes_of_dumps(seq):
    enc = xbf.Encoder()
    for rows in seq + seq[:1]:
        assert outcome(enc.encode, rows) == outcome(xbf.dumps, rows)
