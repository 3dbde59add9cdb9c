"""dumps of flat records whose keys hold values of several kinds (`any` columns, python/src/records/fill.rs):
their bools, floats and strings are moved into the core's column nodes and moved back after the columns are
written, for the rows the auto layout then compares (and for a reused Encoder's next call). The bytes must be
the general path's (a schema forces it), auto's choice must be the shorter of the two layouts, and a reused
Encoder must give dumps's bytes every call."""
import random

from hypothesis import given, settings, strategies as st

import xbf

scalar = (st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1)
          | st.floats(allow_nan=False) | st.text(max_size=8))
# Each key's values drawn from two or three kinds, so that most columns are `any`; some records lack keys.
record = st.dictionaries(st.sampled_from(["a", "b", "c"]), scalar, max_size=3)


@settings(max_examples=150, deadline=None)
@given(st.lists(record, min_size=16, max_size=40))
def test_any_columns_moved_and_back(rows):
    cols = xbf.dumps(rows, columnar=True)
    flat = xbf.dumps(rows, columnar=False)
    schema = xbf.Schema.infer(rows)
    assert cols == xbf.dumps(rows, schema=schema, columnar=True)
    assert flat == xbf.dumps(rows, schema=schema, columnar=False)
    # Auto writes the columns, then (unless they are shorter than the least the rows can take) the rows from
    # the buffers moved back: the shorter of the two.
    assert xbf.dumps(rows) == (cols if len(cols) < len(flat) else flat)
    enc = xbf.Encoder()
    for _ in range(3):
        assert enc.encode(rows) == xbf.dumps(rows)


def test_any_columns_where_the_rows_win():
    # Short lists of small mixed values: the rows often come out shorter, so auto writes them from the
    # buffers the core gave back; they must be the bytes of the rows written directly.
    rnd = random.Random(24)
    kinds = [None, True, -3, 2**64 - 1, -0.0, "ab", "", "é東🦀"]
    value = lambda: rnd.choice(kinds + [rnd.random(), rnd.randrange(-5, 5)])  # noqa: E731
    rows_won = 0
    for _ in range(300):
        keys = rnd.sample("abcdef", rnd.randrange(1, 5))
        rows = [{k: value() for k in keys if rnd.random() < 0.9} for _ in range(rnd.randrange(16, 24))]
        cols, flat = xbf.dumps(rows, columnar=True), xbf.dumps(rows, columnar=False)
        auto = xbf.dumps(rows)
        assert auto == (cols if len(cols) < len(flat) else flat)
        rows_won += auto == flat
        enc = xbf.Encoder()
        assert enc.encode(rows) == enc.encode(rows) == auto
    assert rows_won >= 10, rows_won
