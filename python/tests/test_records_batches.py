"""dumps of lists of records that repeat the keys of the record before (python/src/records/): their values are
gathered a column at a time over batches of records (`dense_batch`, `RawColumn::push_entries`), a kind's loop
while a column keeps its kind, `push` for the value that changes it (None in a column that writes its kinds
included). Every case must give the bytes of the general path, which a schema forces."""
from hypothesis import given, settings, strategies as st

import xbf


def general(rows, **kw):
    return xbf.dumps(rows, schema=xbf.Schema.infer(rows), **kw)


def same_as_general(rows):
    for columnar in (None, False, True):
        try:
            fast = xbf.dumps(rows, columnar=columnar)
        except Exception as e:  # compared, not hidden
            try:
                general(rows, columnar=columnar)
            except type(e):
                continue
            raise
        assert fast == general(rows, columnar=columnar), columnar
    # A reused Encoder (its second call takes the learned type): dumps's bytes, or dumps's error.
    enc = xbf.Encoder()
    for _ in range(2):
        try:
            expected = xbf.dumps(rows)
        except Exception as e:
            try:
                enc.encode(rows)
            except type(e):
                continue
            raise AssertionError("the Encoder wrote what dumps refused") from e
        assert enc.encode(rows) == expected


def sparse(d, drop):
    """`d` with the same keys in the same order, but a table with deleted entries (not dense)."""
    d = dict(d)
    d[drop] = None
    del d[drop]
    return d


# Values by kind: a column keeps one for a while, then switches (runs cross the batches of 64 records).
KINDS = [
    st.none(),
    st.booleans(),
    st.integers(-2**40, 2**40),
    st.integers(-2**64, 2**64),        # beyond the ints read in place, beyond i64 and u64
    st.floats(allow_nan=True),
    st.text(max_size=40),              # non-ASCII and longer than 32 bytes too
    st.sampled_from(["", "a", "abc", "x" * 31, "y" * 33, "é", "\ud800"]),
]


@st.composite
def runs_of_records(draw):
    keys = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "é", "k" * 20]), min_size=1, max_size=5,
                         unique=True))
    n = draw(st.integers(0, 300))
    # Each column: a list of (kind, length) runs.
    columns = {}
    for k in keys:
        vals = []
        while len(vals) < n:
            kind = draw(st.integers(0, len(KINDS) - 1))
            length = draw(st.sampled_from([1, 2, 5, 63, 64, 65, 130]))
            vals.extend(draw(st.lists(KINDS[kind], min_size=length, max_size=length)))
        columns[k] = vals[:n]
    rows = [{k: columns[k][i] for k in keys} for i in range(n)]
    # Here and there a record that breaks a batch: another order of keys, a key missing, a table that is not
    # dense, a subclass of dict.
    for _ in range(draw(st.integers(0, 4))):
        if not rows:
            break
        i = draw(st.integers(0, len(rows) - 1))
        how = draw(st.integers(0, 3))
        if how == 0:
            rows[i] = dict(reversed(list(rows[i].items())))
        elif how == 1:
            rows[i] = dict(list(rows[i].items())[1:])
        elif how == 2:
            rows[i] = sparse(rows[i], "zz")
        else:
            rows[i] = {**rows[i], "new": 1}
    return rows


@settings(max_examples=150, deadline=None)
@given(runs_of_records())
def test_runs_of_kinds_across_batches_take_the_general_paths_bytes(rows):
    same_as_general(rows)


def test_columns_that_switch_kind_at_batch_edges():
    n = 200
    for edge in (0, 1, 63, 64, 65, 127, 128, 199):
        for before, after in [(1, None), (None, 1), (1.5, 2), (2, 1.5), ("s", None), (None, "s"), (True, None),
                              (1, "s"), ("s", 2**63), (1, 2**70), ("s", "é")]:
            rows = [{"a": i, "v": before if i < edge else after, "w": None if i % 3 else "t"} for i in range(n)]
            same_as_general(rows)
            # The same with every other record's table not dense (each then walked alone).
            same_as_general([sparse(r, "q") if i % 2 else r for i, r in enumerate(rows)])


def test_nulls_in_columns_that_write_their_kinds():
    n = 300
    cases = [
        [{"a": None if i % 4 == 0 else i} for i in range(n)],
        [{"a": [None, 1, 1.5, "s", True][i % 5]} for i in range(n)],
        [{"a": None if i % 7 else i, "b": None} for i in range(n)],
        [{"a": (None if i % 2 else i) if i > 100 else 1.5} for i in range(n)],
    ]
    for rows in cases:
        same_as_general(rows)


def test_a_key_that_differs_at_any_place_ends_the_batch():
    # `dense_batch` takes a record into the batch when each of its key objects is the record before's at the same
    # place (all compared, tested once a record): a key that differs at any place (another name, or an equal str
    # that is another object), in tables of 1 to 9 keys, must end the batch and give the general path's bytes.
    for nkeys in range(1, 10):
        keys = [f"k{j}" for j in range(nkeys)]
        for j in range(nkeys):
            for other in ("zz", "".join(["k", str(j)])):
                ks = list(keys)
                ks[j] = other
                rows = [{k: i * 10 + m for m, k in enumerate(keys)} for i in range(150)]
                rows[70] = {k: "s" for k in ks}
                same_as_general(rows)
