"""dumps of lists of records that change between a few orders of keys (python/src/records/, branch pygather4):
a record whose key objects are those of an order met before (`Orders`, compared by identity) changes to it
without the slow way, its columns' records since each last had the key marked as lacking it, then starts a batch
of that order. Every case must give the bytes of the general path, which a schema forces."""
from hypothesis import given, settings, strategies as st
from test_records_batches import KINDS, same_as_general, sparse


def fresh(k):
    """A key equal to `k` but another object (not interned): a record with it is not an order met before."""
    return "".join([k[:1], k[1:]]) if len(k) > 1 else (k + "_")[:1]


NAMES = ["year", "a", "b", "c", "d", "é", "k" * 20, "country"]


@st.composite
def records_in_orders(draw):
    # Orders: subsets of the names in some order, more than `Orders::MAX` (8) at times.
    n_orders = draw(st.integers(1, 11))
    orders = [draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True))
              for _ in range(n_orders)]
    n = draw(st.integers(0, 200))
    kinds = {k: draw(st.sampled_from(KINDS)) for k in NAMES}
    rows = []
    while len(rows) < n:
        order = orders[draw(st.integers(0, n_orders - 1))]
        for _ in range(draw(st.sampled_from([1, 1, 2, 3, 70]))):
            row = {k: draw(kinds[k]) for k in order}
            how = draw(st.integers(0, 20))
            if how == 0:
                row = sparse(row, "zz")
            elif how == 1:
                row = {fresh(k): v for k, v in row.items()}
            elif how == 2:
                # A column changes its kind from here.
                k = order[draw(st.integers(0, len(order) - 1))]
                kinds[k] = draw(st.sampled_from(KINDS))
            rows.append(row)
    return rows[:n]


@settings(max_examples=200, deadline=None)
@given(records_in_orders())
def test_records_that_change_orders_take_the_general_paths_bytes(rows):
    same_as_general(rows)


def test_countries_like_orders():
    """A series per country: its first record lacks the `n_` keys, its last the `p_` keys (countries.json)."""
    rows = []
    for c in range(30):
        years = 3 + c % 5
        for y in range(years):
            row = {"year": 1950 + y, "fertility": 1.5 + y, "life_expect": 60.25}
            if y > 0:
                row["p_fertility"] = None if c % 4 == 0 else 1.5
            if y < years - 1:
                row["n_fertility"] = 2 if c % 3 else "x"
            row["country"] = f"c{c}"
            rows.append(row)
    same_as_general(rows)
    same_as_general([{"_comment": "first"}, *rows])
    same_as_general([sparse(r, "q") if i % 5 == 0 else r for i, r in enumerate(rows)])


def test_an_order_after_records_that_lacked_its_keys():
    """Order A's keys missing for many records (order B), then A again: the records between lack them."""
    a = [{"x": i, "y": "s", "z": 1.5} for i in range(3)]
    b = [{"x": i, "w": None} for i in range(100)]
    for tail in ([{"x": 0, "y": None, "z": 2.5}], [{"x": 0, "y": 7, "z": None}], a):
        same_as_general(a + b + a + b[:1] + tail)
