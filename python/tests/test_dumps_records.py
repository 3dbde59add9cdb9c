"""dumps of lists of flat records: the one-pass gather (python/src/records/) and the rows written
from its columns (records_rows.rs) give the bytes of the general path, which a schema forces."""
import json
import pathlib

import pytest
from hypothesis import given, settings, strategies as st

import xbf

DATA = pathlib.Path(__file__).resolve().parents[2] / "target/data/vega-datasets"


def general(rows, **kw):
    """The bytes of the general path (inference, then the rows encoder or core values): a schema
    given skips the one-pass gather."""
    return xbf.dumps(rows, schema=xbf.Schema.infer(rows), **kw)


def same_as_general(rows):
    for columnar in (None, False, True):
        assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar), columnar
    assert xbf.loads(xbf.dumps(rows, columnar=False)) == rows
    assert xbf.loads(xbf.dumps(rows)) == rows


class Int(int):
    pass


class Str(str):
    pass


class Float(float):
    pass


class Dict(dict):
    pass


def test_rows_from_the_gathered_columns_are_the_rows_encoders():
    cases = [
        [{"u": i * 0.37, "v": -i / 7} for i in range(40)],                           # rows win (random floats)
        [{"a": i, "s": "x" * (i % 5), "b": i % 2 == 0} for i in range(30)],
        [{"a": -i, "n": None if i % 3 else 1.5} for i in range(30)],                  # i64, option<f64>
        [{"a": i} if i % 3 else {"a": i, "b": "é"} for i in range(20)],               # an optional key
        [{"a": i, "b": [None, 1, -1, "s", 2.5, True, 2**63][i % 7]} for i in range(21)],  # any
        [{"a": 2**63 + i} for i in range(20)],                                       # u64 above i64
        [{"a": None} if i % 2 else {"b": None} for i in range(20)],                  # optional unit
        [{"a": 1}, {}, {"a": 2}] * 7,
        [{"ключ": "значение", "é": 1.0}] * 20,
    ]
    for rows in cases:
        same_as_general(rows)


def test_records_whose_key_orders_recur_keep_their_bytes():
    orders = [("a", "b", "c"), ("a", "c"), ("b", "c", "d"), ("a", "b", "c", "d"), ("c",)]
    cases = [
        [{k: i for k in orders[i % len(orders)]} for i in range(60)],             # orders that recur, not in a row
        [{k: i for k in orders[(i * 7) % 3]} for i in range(40)] + [{"e": 1, "a": 2}],  # a new key last, first
        [{k: i for k in orders[i % 2]} for i in range(30)] + [{"c": 1, "a": 2}],   # an order that conflicts, late
        [{"".join(["k", str(j)]): j for j in range(i % 4)} for i in range(40)],     # fresh key objects each time
    ]
    for rows in cases:
        for columnar in (None, False, True):
            assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar)


def test_wide_records_of_one_order_keep_their_bytes():
    """Records of one order of keys (whose type the gather makes without inference's objects), up to
    wider than a map's least number of keys, with shared and fresh key objects (found by their hash
    then name), names that are not ASCII, and columns of every kind, some mixed, None or absent."""
    kinds = [lambda i: i, lambda i: -i * 3, lambda i: i * 0.25, lambda i: "v" * (i % 7), lambda i: i % 2 == 0,
             lambda i: None, lambda i: None if i % 3 else "é" * (i % 4), lambda i: [1, "s", 2.5, None][i % 4],
             lambda i: 2**63 + i, lambda i: "x" * (i % 50)]
    for width in (1, 2, 9, 40, 64, 65, 72, 100):
        names = [f"k{j}" if j % 5 else f"ключ{j}" for j in range(width)]
        for n in (1, 2, 70, 237):
            shared = [{name: kinds[j % len(kinds)](i) for j, name in enumerate(names)} for i in range(n)]
            # Fresh key objects in each record: found by content.
            fresh = [{"".join([name[:1], name[1:]]): v for name, v in r.items()} for r in shared]
            # The same records, one lacking the last key (two orders: inference's objects).
            lacking = shared[:-1] + [dict(list(shared[-1].items())[:-1])] if n > 1 and width > 1 else shared
            for rows in (shared, fresh, lacking):
                for columnar in (None, False, True):
                    assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar), (width, n)
            assert xbf.loads(xbf.dumps(shared)) == shared


def test_subclasses_and_kinds_the_fast_path_does_not_take_keep_their_bytes():
    cases = [
        [{"a": i} for i in range(20)] + [{"a": Int(5)}],
        [{"a": "s"} for i in range(20)] + [{"a": Str("t")}],
        [{"a": 1.5} for i in range(20)] + [{"a": Float(2.5)}],
        [{"a": 1} for i in range(20)] + [Dict(a=2)],
        [{"a": True}] * 10 + [{"a": 1}] * 10,                                      # bools are not ints: any
        [{"a": 1}] * 10 + [{"a": True}] * 10,
        [{"a": 1}] * 10 + [{"a": 2**64}] * 10,                                     # beyond u64: u128
        [{"a": 1}] * 10 + [{"a": -2**63 - 1}] * 10,                                # beyond i64: i128
        [{"a": 2**63}] * 10 + [{"a": -1}] * 10,                                    # u64 and negative: i128
        [{"a": 1}] * 10 + [{1: 2}] * 10,                                           # a non-str key
        [{Str("a"): 1}] * 20,
    ]
    for rows in cases:
        for columnar in (None, False, True):
            assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar)
        assert xbf.loads(xbf.dumps(rows)) == [dict(r) for r in rows]


def test_a_key_whose_eq_changes_the_dict_is_safe():
    class Key(str):
        def __hash__(self):
            return str.__hash__(self)

        def __eq__(self, other):
            rows[-1].clear()
            return str.__eq__(self, other)

    rows = [{"a": i, "b": 1} for i in range(20)]
    rows.append({"a": 1, Key("b"): 2})
    try:
        xbf.dumps(rows)
    except (TypeError, ValueError, RuntimeError):
        pass  # either an error or bytes: no crash
    rows = [{"a": i, "b": 1} for i in range(20)]
    rows.append({"a": 1, Key("b"): 2})
    try:
        xbf.dumps(rows, columnar=False)
    except (TypeError, ValueError, RuntimeError):
        pass


def test_lone_surrogates_raise_as_before():
    for rows in ([{"a": "\ud800"}] * 20, [{"a": "x"}] * 20 + [{"a": "\udc80"}]):
        for columnar in (None, False, True):
            with pytest.raises(UnicodeEncodeError):
                xbf.dumps(rows, columnar=columnar)


values = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=5))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "é"]), values), max_size=4).map(dict),
                min_size=0, max_size=40))
def test_random_records_take_the_general_paths_bytes(rows):
    for columnar in (None, False, True):
        try:
            fast = xbf.dumps(rows, columnar=columnar)
        except Exception as e:  # compared, not hidden
            with pytest.raises(type(e)):
                general(rows, columnar=columnar)
            continue
        assert fast == general(rows, columnar=columnar)


def test_real_files_keep_their_bytes():
    names = ["normal-2d.json", "countries.json", "cars.json"]
    cases = [json.loads((DATA / n).read_text()) for n in names if (DATA / n).exists()]
    if not cases:
        pytest.skip("vega-datasets not fetched (scripts/fetch-data.sh)")
    for rows in cases:
        same_as_general(rows)
