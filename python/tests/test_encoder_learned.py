"""xbf.Encoder learning across calls: the type of the last list of records and the columns' buffers.

Whatever it learned, every call gives the bytes of ``xbf.dumps`` of the same value (or its error): checked
on a sequence of calls that keeps or breaks what was learned (wider ints, new nulls, new or missing keys,
other orders, other kinds of values, fresh key objects, other shapes entirely), for every layout.
"""
import json

import pytest
from hypothesis import given, settings, strategies as st

import xbf


def outcome(f, obj):
    """The bytes of f(obj), or the type and message of what it raised."""
    try:
        return f(obj)
    except Exception as e:  # compared, not hidden
        return type(e), str(e)


def rows(n, **over):
    """n flat records of fixed keys; `over` replaces a key's value maker (None: drops the key)."""
    makers = {"id": lambda i: i, "name": lambda i: f"n{i % 7}", "x": lambda i: i / 4, "ok": lambda i: i % 2 == 0}
    makers.update(over)
    return [{k: f(i) for k, f in makers.items() if f is not None} for i in range(n)]


SEQUENCE = [
    rows(40),
    rows(40),                                               # the same: the type learned is reused
    rows(3),                                                # fewer records, same type
    rows(40, id=lambda i: i << 40),                         # wider ints
    rows(40, id=lambda i: (1 << 63) + i),                   # ints past i64 (u64)
    rows(40, id=lambda i: -i),                              # signed
    rows(40, name=lambda i: None if i == 5 else f"n{i}"),   # a new null
    rows(40, name=lambda i: None),                          # only nulls
    rows(40, x=lambda i: i),                                # ints where floats were
    rows(40, x=lambda i: i if i % 2 else i / 2),            # ints and floats: any
    rows(40, ok=lambda i: i),                               # ints where bools were
    rows(40, extra=lambda i: "e"),                          # a new key
    rows(40, name=None),                                    # a key gone
    [{"x": r["x"], "id": r["id"], "name": r["name"], "ok": r["ok"]} for r in rows(40)],  # another order
    rows(40, name=lambda i: "\u00e9\u4e2d" * (i % 4)),      # non-ASCII strings
    [dict(r) for r in rows(40)[:20]] + [{k: r[k] for k in ("id", "x")} for r in rows(20)],  # keys lacking
    json.loads(json.dumps(rows(40))),                       # fresh key objects, same names
    rows(40),
    [{"id": 1}],                                            # one record
    [],                                                     # no records
    [{}, {}],                                               # records of no keys
    [{"id": None}, {"id": None}],                           # zero-size records
    rows(40, id=lambda i: 1 << 70),                         # ints past u64: the general path
    rows(40, id=lambda i: "\ud800"),                        # a lone surrogate: the error of dumps
    [1, 2, 3],                                              # not records
    {"a": rows(3)},
    rows(40),
]


@pytest.mark.parametrize("opts", [{}, {"columnar": True}, {"columnar": False}, {"compress": 3}])
def test_a_reused_encoder_gives_the_bytes_of_dumps(opts):
    enc = xbf.Encoder(**opts)
    for i, obj in enumerate(SEQUENCE):
        for _ in range(2):
            assert outcome(enc.encode, obj) == outcome(lambda o: xbf.dumps(o, **opts), obj), (i, opts)


def test_bools_are_not_ints_after_learning_ints():
    enc = xbf.Encoder()
    ints = [{"a": i} for i in range(30)]
    bools = [{"a": i % 2 == 0} for i in range(30)]
    for obj in (ints, bools, ints, bools):
        assert enc.encode(obj) == xbf.dumps(obj)
    assert xbf.loads(enc.encode(bools)) == bools


def test_subclasses_of_str_int_and_dict_after_learning():
    class S(str):
        pass

    class Int(int):
        pass

    class D(dict):
        pass

    enc = xbf.Encoder()
    base = rows(30)
    assert enc.encode(base) == xbf.dumps(base)
    for obj in (rows(30, name=lambda i: S(f"s{i}")), rows(30, id=lambda i: Int(i)), [D(r) for r in base],
                [{S(k): v for k, v in r.items()} for r in base]):
        assert outcome(enc.encode, obj) == outcome(xbf.dumps, obj)
        assert enc.encode(base) == xbf.dumps(base)


def test_non_str_keys_after_learning():
    enc = xbf.Encoder()
    base = [{"1": i, "b": i} for i in range(30)]
    other = [{1: i, "b": i} for i in range(30)]
    for obj in (base, other, base):
        assert outcome(enc.encode, obj) == outcome(xbf.dumps, obj)


def test_learned_state_is_per_encoder_and_can_be_cleared():
    a, b = xbf.Encoder(), xbf.Encoder()
    x, y = rows(30), rows(30, id=lambda i: i << 50)
    assert a.encode(x) == xbf.dumps(x)
    assert b.encode(y) == xbf.dumps(y)
    assert a.encode(x) == xbf.dumps(x) and b.encode(y) == xbf.dumps(y)
    a._learned.clear()
    assert a.encode(y) == xbf.dumps(y)


scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**65), 2**65), st.floats(allow_nan=False),
                   st.text(max_size=5))
record = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), scalar, max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(record, max_size=12), min_size=1, max_size=5))
def test_any_sequence_of_lists_of_records(seq):
    enc = xbf.Encoder()
    for obj in seq:
        assert outcome(enc.encode, obj) == outcome(xbf.dumps, obj)
