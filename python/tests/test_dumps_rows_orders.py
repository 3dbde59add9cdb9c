"""dumps of records: the rows written from the gathered columns (records_rows.rs: fields of one kind
written from their values alone, tables of fixed-width fields column by column) and records whose keys
cycle through a few orders (python/src/records/keys.rs: matched against recent orders by identity) give the bytes of the
general path, which a schema forces."""
import random

import xbf


def general(rows, **kw):
    return xbf.dumps(rows, schema=xbf.Schema.infer(rows), **kw)


def same_as_general(rows):
    for columnar in (None, False, True):
        assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar), columnar
    assert repr(xbf.loads(xbf.dumps(rows, columnar=False))) == repr(rows)  # (repr: NaN is not NaN)
    enc = xbf.Encoder()
    enc.encode(rows)
    assert enc.encode(rows) == xbf.dumps(rows)


def test_fixed_width_tables_are_written_as_the_rows_encoder_writes_them():
    r = random.Random(7)
    cases = [
        [{"u": r.gauss(0, 1), "v": r.gauss(0, 1)} for _ in range(300)],            # floats only (rows win)
        [{"x": r.random(), "ok": i % 3 == 0, "y": -r.random()} for i in range(200)],  # floats and bools
        [{"x": r.random(), "none": None, "b": True} for _ in range(100)],          # a field of units
        [{"b": i % 2 == 1} for i in range(50)],
        [{"x": float("nan"), "y": float("-inf"), "z": -0.0}] * 30,
        [{"x": 1.5}],
    ]
    for rows in cases:
        same_as_general(rows)


def test_fields_of_one_kind_beside_fields_whose_kinds_vary():
    r = random.Random(8)
    rows = []
    for i in range(400):
        rec = {
            "i": r.randrange(-2**63, 2**63),              # i64, every width of zigzag varint
            "u": r.randrange(0, 2**64),                   # u64 past i64::MAX
            "small": i % 5,                               # u64 of one byte
            "s": "é" * r.randrange(0, 200),               # strings longer than a one-byte length
            "f": r.random(),
            "opt": None if i % 4 == 0 else r.randrange(-9, 9),   # option<i64>
            "any": [None, True, -3, 2**63, 1.5, "x"][i % 6],     # any
        }
        if i % 3:
            rec["maybe"] = "present"                      # a key some records lack
        rows.append(rec)
    same_as_general(rows)
    same_as_general([{"s": "", "n": 0}] * 10)


def orders_cycle(n, orders, fresh=False):
    rows = []
    for i in range(n):
        keys = orders[i % len(orders)]
        if fresh:
            keys = ["".join(list(k)) for k in keys]       # new key objects in each record
        rows.append({k: (i * 7 + j) % 11 * 0.5 for j, k in enumerate(keys)})
    return rows


def test_records_whose_key_orders_cycle_keep_their_bytes():
    # countries.json's pattern: the first year of a country lacks p_*, the last n_*.
    full = ["year", "fertility", "p_fertility", "n_fertility", "country"]
    first = ["year", "fertility", "n_fertility", "country"]
    last = ["year", "fertility", "p_fertility", "country"]
    country = [first] + [full] * 5 + [last]
    many = [[f"k{j}" for j in range(m)] for m in range(1, 13)]   # more orders than are kept as recent
    shared = [["a", "b", "c", "d"], ["a", "b", "d", "c"], ["a", "c", "b", "d"], ["b", "a", "c", "d"]]
    for orders in (country, many, shared, [["a", "b"], []], [[], ["a"]], [["a", "b"], ["a", "c"]]):
        for fresh in (False, True):
            same_as_general(orders_cycle(150, orders, fresh))


def test_a_record_that_matches_a_recent_order_only_in_part():
    orders = [["a", "b", "c"], ["a", "b", "d"], ["a", "x", "c"]]
    rows = orders_cycle(60, orders)
    # Same number of keys and a known prefix, then a key no recent order has next.
    rows.insert(30, {"a": 1.0, "b": 2.0, "e": 3.0})
    rows.insert(40, {"a": 1.0, "x": 2.0, "b": 3.0})
    same_as_general(rows)
    # An order that conflicts with the ones before gives the general path's bytes or error.
    rows.append({"c": 1.0, "a": 2.0, "b": 3.0})
    for columnar in (None, False, True):
        assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar)
