"""dumps of records whose int, float and str columns hold None here and there (python/src/records/column.rs,
`run_into` and `str_run::<true>`): once a column writes its kinds (a None, a missing key, another kind), a batch's
run of its kind takes None too, each value's kind written into room asked once; any other value (another kind, a
bool, a subclass, an int past 60 bits, a str that is not compact ASCII or longer than 32 bytes) ends the run and is
taken one at a time, after which the run goes on. Every case must give the bytes of the general path, which a
schema forces (`same_as_general`: dumps, columnar or not, and a reused Encoder)."""
import math
import sys

from hypothesis import given, settings, strategies as st
from test_records_batches import same_as_general, sparse

import xbf


class Int(int):
    """An int subclass: not an exact int."""


class F(float):
    """A float subclass: not an exact float."""


class S(str):
    """A str subclass: not an exact str (nor compact)."""


# The values a column's run meets: its kind's (ints of every width the in-place read takes or not, floats with
# NaN and infinities, strs of every kind), None, and what ends a run.
INTS = st.one_of(st.integers(-2**30, 2**30), st.integers(-2**61, 2**61),
                 st.sampled_from([0, 1, -1, 2**30 - 1, 2**30, 2**60 - 1, 2**60, -2**60, 2**63 - 1, 2**63, 2**64,
                                  -2**63, 2**70, -2**70]))
FLOATS = st.one_of(st.floats(), st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, 5e-324]))
STRS = st.one_of(st.text(alphabet=st.characters(max_codepoint=127), max_size=40), st.text(max_size=40),
                 st.sampled_from(["", "a", "x" * 32, "y" * 33, "é", "€", "\U0001f600"]))
ODD = st.sampled_from([True, False, Int(3), F(2.5), S("s"), 2**80, "\ud800", b"b"])
KINDS = {"int": INTS, "float": FLOATS, "str": STRS}


@st.composite
def columns_with_nulls(draw):
    n = draw(st.integers(0, 260))
    names = draw(st.lists(st.sampled_from(["a", "b", "c", "é", "k" * 20]), min_size=1, max_size=4, unique=True))
    columns = {}
    for name in names:
        kind = draw(st.sampled_from(sorted(KINDS)))
        other = draw(st.sampled_from(sorted(KINDS)))
        # How often None, another kind and an odd value come (0 to most of the values).
        p_null = draw(st.sampled_from([0, 0.02, 0.3, 0.5, 0.9]))
        p_other = draw(st.sampled_from([0, 0, 0.02, 0.2]))
        p_odd = draw(st.sampled_from([0, 0, 0, 0.01]))
        vals = []
        for _ in range(n):
            u = draw(st.floats(0, 1))
            if u < p_odd:
                vals.append(draw(ODD))
            elif u < p_odd + p_null:
                vals.append(None)
            elif u < p_odd + p_null + p_other:
                vals.append(draw(KINDS[other]))
            else:
                vals.append(draw(KINDS[kind]))
        columns[name] = vals
    rows = [{k: columns[k][i] for k in names} for i in range(n)]
    # Here and there a record that breaks a batch or makes a column write its kinds: a key missing, another
    # order, a table that is not dense.
    for _ in range(draw(st.integers(0, 3))):
        if not rows:
            break
        i = draw(st.integers(0, len(rows) - 1))
        how = draw(st.integers(0, 2))
        if how == 0:
            rows[i] = dict(list(rows[i].items())[1:])
        elif how == 1:
            rows[i] = dict(reversed(list(rows[i].items())))
        else:
            rows[i] = sparse(rows[i], "zz")
    return rows


@settings(max_examples=200, deadline=None)
@given(columns_with_nulls())
def test_runs_with_nulls_take_the_general_paths_bytes(rows):
    same_as_general(rows)


def test_nulls_and_values_at_every_place_of_a_batch():
    n = 200
    for value in (7, -2**59, 1.5, math.nan, -math.inf, "s", "x" * 32, "é"):
        for period in (1, 2, 3, 63, 64, 65):
            # A None every `period` records (the column writes its kinds from the first), the kind's values between.
            rows = [{"v": None if i % period == 0 else value, "i": i} for i in range(n)]
            same_as_general(rows)
            # The same with the kinds written from a missing key, and Nones only after the first batch.
            rows = [{"i": i} if i == 3 else {"v": None if i > 64 and i % period == 0 else value, "i": i}
                    for i in range(n)]
            same_as_general(rows)


def test_values_that_end_a_run_with_nulls():
    n = 200
    for first in (5, 2.5, "s"):
        for odd in (True, False, Int(5), F(1.5), S("t"), 2**60, 2**63, 2**64, -2**70, "y" * 33, "é", 1, 1.0, "q"):
            for edge in (1, 63, 64, 65, 150):
                rows = [{"v": odd if i == edge else (None if i % 3 == 0 else first)} for i in range(n)]
                same_as_general(rows)
                # Alternating kinds: every value ends the run of the one before.
                rows = [{"v": [first, None, odd][i % 3]} for i in range(n)]
                same_as_general(rows)


def test_a_column_of_nulls_then_values():
    n = 300
    for value in (1, 1.5, "s"):
        for start in (0, 1, 64, 100):
            same_as_general([{"v": None if i < start or i % 5 == 0 else value} for i in range(n)])
    # Round trip of the values (the bytes are the general path's; the values too).
    rows = [{"a": None if i % 2 else i, "b": None if i % 3 else i / 2, "c": None if i % 4 else f"s{i}"}
            for i in range(300)]
    assert xbf.loads(xbf.dumps(rows)) == rows


def test_runs_of_ints_and_floats_together():
    """A column that writes its kinds and has met ints and floats takes both in one run (`two_kinds_run`), floats
    first or ints first, None among them; anything else (an int past 60 bits, a bool, a subclass, a str) ends the
    run. Blocks of each kind of every length, across the batches' edges."""
    n = 300
    for first, second in ((7, 6.5), (6.5, 7), (-2**59, math.nan), (0.0, 0)):
        for block in (1, 2, 3, 5, 64, 127, 129):
            rows = [{"v": [first, second][(i // block) % 2] if i % 11 else None, "i": i} for i in range(n)]
            same_as_general(rows)
            if first == first and second == second:
                assert xbf.loads(xbf.dumps(rows)) == rows
            # No None: the column writes its kinds from the second kind's first value.
            same_as_general([{"v": [first, second][(i // block) % 2]} for i in range(n)])
            for odd in (True, Int(5), F(1.5), 2**60, 2**63, 2**64, -2**70, "s", None):
                for edge in (0, 1, 63, 64, 65, 128, 200):
                    rows = [{"v": odd if i == edge else [first, second][(i // block) % 2]} for i in range(n)]
                    same_as_general(rows)


def zero_with_digit(d):
    """An exact int of value 0 (no digit counted) whose first digit's bytes hold `d`, as CPython may leave the
    digit of a zero it made with `_PyLong_New(0)`, never written (3.11). Made from a new int of one digit, its
    size (3.11) or tag (3.12 on) set to zero's."""
    import ctypes

    x = int(str(d))
    at = ctypes.c_ssize_t.from_address(id(x) + 16)
    before = at.value
    at.value = 1 if sys.version_info >= (3, 12) else 0
    return x, lambda: setattr(at, "value", before)


def test_a_zero_whose_digit_is_not_written():
    """A zero's digit is read (`raw::first_digit`) and multiplied by its sign, 0: whatever the digit holds, the
    value written is 0, in a run, among None, and one at a time."""
    if sys.implementation.name != "cpython":
        return
    z, restore = zero_with_digit(123456789)
    try:
        assert z == 0
        for rows, want in (
            ([{"v": z if i % 7 == 0 else i} for i in range(300)], [{"v": 0 if i % 7 == 0 else i} for i in range(300)]),
            ([{"v": [z, None, 5][i % 3]} for i in range(300)], [{"v": [0, None, 5][i % 3]} for i in range(300)]),
            ([{"v": [z, 1.5][i % 2]} for i in range(300)], [{"v": [0, 1.5][i % 2]} for i in range(300)]),
            ([{"v": z}], [{"v": 0}]),
        ):
            for columnar in (None, False, True):
                assert xbf.dumps(rows, columnar=columnar) == xbf.dumps(want, columnar=columnar)
            assert xbf.loads(xbf.dumps(rows)) == want
    finally:
        restore()
