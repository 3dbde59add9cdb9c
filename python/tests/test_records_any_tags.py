"""dumps of flat records whose `any` columns hold ints from 0 to i64::MAX only (pyfill7): the tags of such a
column are looked up by kind (python/src/records/fill.rs, `AnyTags::of`) rather than walked value by value
with the ints; the bytes must be the general path's (a schema forces it), in both layouts."""
from hypothesis import given, settings, strategies as st

import xbf

scalar = (st.none() | st.booleans() | st.integers(0, 2**63 - 1) | st.floats(allow_nan=False)
          | st.text(max_size=6))
record = st.dictionaries(st.sampled_from(["a", "b", "c"]), scalar, max_size=3)


@settings(max_examples=150, deadline=None)
@given(st.lists(record, min_size=16, max_size=40))
def test_any_columns_of_ints_from_zero(rows):
    schema = xbf.Schema.infer(rows)
    for columnar in (True, False):
        assert xbf.dumps(rows, columnar=columnar) == xbf.dumps(rows, schema=schema, columnar=columnar)
    enc = xbf.Encoder()
    assert enc.encode(rows) == enc.encode(rows) == xbf.dumps(rows)


def test_any_column_first_seen_order():
    # Kinds met in an order other than the slots' (a float first, an int last), an int at 0 and at i64::MAX.
    rows = [{"v": v} for v in [1.5, "x", None, 0, True, 2**63 - 1, "y", False, 7] * 3]
    schema = xbf.Schema.infer(rows)
    assert xbf.dumps(rows, columnar=True) == xbf.dumps(rows, schema=schema, columnar=True)
    assert xbf.loads(xbf.dumps(rows, columnar=True)) == rows
