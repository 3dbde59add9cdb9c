"""dumps of records through the checks of `dumps`' gather (python/src/records/): the key objects of a batch's
records compared with the record before's two at a time (`entries_with_keys`), the bits of an int column worked
out from the OR of its values when none is negative (`RawColumn::ints_bits`), and a string run's room consumed
string by string (`RawColumn::str_run`). Every case must give the bytes of the general path, which a schema
forces (`same_as_general`: dumps, columnar or not, and a reused Encoder)."""
import math

from hypothesis import given, settings, strategies as st
from test_records_batches import same_as_general, sparse
from test_records_orders import fresh

import xbf


class Int(int):
    """An int subclass: not an exact int."""


class S(str):
    """A str subclass: not an exact str."""


# Names of two characters or more: `fresh` then makes another object (one-character strs are CPython's own).
NAMES = ["aa", "bb", "cc", "dd", "éé", "k" * 20, "gg", "hh", "year"]
assert all(fresh(k) is not k and fresh(k) == k for k in NAMES)


def test_one_key_that_is_another_object_at_every_place():
    # Key counts odd and even (the last key of an odd count is compared alone), the odd key at every place, in
    # records at the edges of batches of 64.
    for nkeys in range(1, len(NAMES) + 1):
        names = NAMES[:nkeys]
        for place in range(nkeys):
            for at in (1, 2, 63, 64, 65, 130):
                rows = [{k: i * (j + 1) for j, k in enumerate(names)} for i in range(150)]
                # The same name, another object: the record is not a repeat of the one before.
                odd = {(fresh(k) if j == place else k): v for j, (k, v) in enumerate(rows[at].items())}
                assert list(odd) == names
                rows[at] = odd
                same_as_general(rows)
                # Another name at that place, and two neighbours swapped.
                rows[at] = {(k + "_" if j == place else k): v for j, (k, v) in enumerate(rows[at - 1].items())}
                same_as_general(rows)
                if place + 1 < nkeys:
                    items = list(rows[at - 1].items())
                    items[place], items[place + 1] = items[place + 1], items[place]
                    rows[at] = dict(items)
                    same_as_general(rows)


@st.composite
def records_with_key_changes(draw):
    nkeys = draw(st.integers(1, len(NAMES)))
    names = NAMES[:nkeys]
    n = draw(st.integers(0, 200))
    rows = []
    for _ in range(n):
        row = {k: draw(st.one_of(st.integers(-5, 5), st.none(), st.text(max_size=3))) for k in names}
        how = draw(st.integers(0, 12))
        if how == 0:
            # One key another object of the same name.
            p = draw(st.integers(0, nkeys - 1))
            row = {(fresh(k) if j == p else k): v for j, (k, v) in enumerate(row.items())}
        elif how == 1 and nkeys > 1:
            # A key missing.
            p = draw(st.integers(0, nkeys - 1))
            row = {k: v for j, (k, v) in enumerate(row.items()) if j != p}
        elif how == 2:
            row = sparse(row, "zz")
        elif how == 3:
            row = dict(reversed(list(row.items())))
        rows.append(row)
    return rows


@settings(max_examples=150, deadline=None)
@given(records_with_key_changes())
def test_key_changes_take_the_general_paths_bytes(rows):
    same_as_general(rows)


# Ints around every width: the OR of non-negative values alone gives their bits; a negative value, or one above
# i64::MAX, takes the pass that tells them apart.
EDGES = [0, 1, 2, 3, 127, 128, 255, 256, 2**30 - 1, 2**30, 2**31, 2**32, 2**53, 2**60 - 1, 2**60, 2**62,
         2**63 - 1]
INTS = st.one_of(st.sampled_from(EDGES), st.integers(0, 2**63 - 1), st.integers(0, 1000))
NEGATIVE = st.one_of(st.sampled_from([-1, -2, -128, -129, -2**31, -2**60, -2**63]), st.integers(-2**63, -1))
OTHER = st.sampled_from([None, 2**63, 2**64 - 1, 2**64, -2**63 - 1, 2**80, True, False, Int(4), 1.5])


@st.composite
def int_columns(draw):
    n = draw(st.integers(1, 200))
    p_neg = draw(st.sampled_from([0, 0, 0.01, 0.5]))
    p_other = draw(st.sampled_from([0, 0, 0.02]))
    vals = []
    for _ in range(n):
        u = draw(st.floats(0, 1))
        vals.append(draw(NEGATIVE) if u < p_neg else draw(OTHER) if u < p_neg + p_other else draw(INTS))
    return [{"v": v, "i": i} for i, v in enumerate(vals)]


@settings(max_examples=200, deadline=None)
@given(int_columns())
def test_int_columns_bits_as_the_general_path(rows):
    same_as_general(rows)


def test_int_columns_at_each_width():
    for top in EDGES:
        for neg in (None, -1, -top - 1, -2**63):
            for at in (0, 5, 99):
                vals = [i % 7 for i in range(100)]
                vals[50] = top
                if neg is not None:
                    vals[at] = neg
                rows = [{"v": v} for v in vals]
                same_as_general(rows)
                assert xbf.loads(xbf.dumps(rows)) == rows
        # Above i64::MAX with the rest non-negative.
        rows = [{"v": v} for v in [top, 2**63, 3]]
        same_as_general(rows)
        assert xbf.loads(xbf.dumps(rows)) == rows


# Strings of every length class up to 32 bytes and past it (the run's room is 32 bytes a string, consumed by
# each string's length), runs of 64 strings of 32 bytes (the room filled to its end), None among them, and
# strings a run does not take (non-ASCII, not compact, subclasses, lone surrogates).
LENGTHS = [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33]
ASCII = st.builds(lambda n, c: (c * n)[:n], st.sampled_from(LENGTHS), st.sampled_from(["x", "ab", "0123456789"]))
ODD_STR = st.sampled_from(["é" * 3, "€", "\U0001f600", S("s"), "\ud800", "z" * 40, math.nan])


@st.composite
def string_columns(draw):
    n = draw(st.integers(1, 300))
    p_null = draw(st.sampled_from([0, 0, 0.1, 0.5]))
    p_odd = draw(st.sampled_from([0, 0, 0.01]))
    full = draw(st.booleans())
    vals = []
    for _ in range(n):
        u = draw(st.floats(0, 1))
        if u < p_null:
            vals.append(None)
        elif u < p_null + p_odd:
            vals.append(draw(ODD_STR))
        else:
            vals.append("w" * 32 if full else draw(ASCII))
    if p_null == 0 and draw(st.booleans()):
        # The column writes its kinds (a record lacks the key) with no None.
        return [{"v": v, "i": i} if i != 2 else {"i": i} for i, v in enumerate(vals)]
    return [{"v": v, "i": i} for i, v in enumerate(vals)]


@settings(max_examples=200, deadline=None)
@given(string_columns())
def test_string_runs_as_the_general_path(rows):
    same_as_general(rows)


def test_string_runs_that_fill_their_room():
    for n in (63, 64, 65, 128, 129, 200):
        for s in ("w" * 32, "w" * 31, "w" * 33):
            for null in (None, 0, 1, 64):
                rows = [{"v": None if null is not None and i % 64 == null else s} for i in range(n)]
                same_as_general(rows)
                assert xbf.loads(xbf.dumps(rows)) == rows


def test_batch_edges_of_128_records():
    # A record that is not a repeat of the one before at the edges of batches of 128 (`gather::BATCH`), in lists
    # of two batches and more.
    for nkeys in (1, 2, 9):
        names = NAMES[:nkeys]
        for at in (127, 128, 129, 255, 256, 257):
            rows = [{k: f"{k}{i}" if j % 2 else i for j, k in enumerate(names)} for i in range(300)]
            rows[at] = {(fresh(k) if j == nkeys - 1 else k): v for j, (k, v) in enumerate(rows[at].items())}
            same_as_general(rows)
            rows[at] = {k: None for k in names}
            same_as_general(rows)


def test_ints_at_the_digit_edges():
    # EDGES with both signs: CPython's 30-bit digits, none (0) or one (read as the digit times the sign), two, and
    # three (not read in place), in runs of one kind and among None.
    vals = [s * v for v in EDGES for s in (1, -1)] + [-2**63]
    for n in (len(vals), 200):
        run = [vals[i % len(vals)] for i in range(n)]
        for rows in ([{"v": v} for v in run], [{"v": None if i % 3 == 1 else v} for i, v in enumerate(run)],
                     [{"v": v, "w": -v} for v in run]):
            same_as_general(rows)
            assert xbf.loads(xbf.dumps(rows)) == rows
    # Ints made by arithmetic (not CPython's cached small ints): zero and one digit of both signs.
    made = [int(str(v)) - 0 for v in (0, 7, -7, 2**30 - 1, -(2**30 - 1))] + [(2**70 - 2**70), (3 * 2**40) // 2**40]
    rows = [{"v": v} for v in made * 30]
    same_as_general(rows)
    assert xbf.loads(xbf.dumps(rows)) == rows
