"""dumps of large lists of flat records, where the gather asks for the memory of records ahead
(python/src/records/gather.rs, `prefetch_ahead`: more than 8 MiB read, about 64 bytes a record and a value
more; 3 keys from 26,215 records on): the bytes are the general path's, whatever the records ahead are
(other keys, not dicts, dicts of other tables, the list's end)."""
import random

import pytest

import xbf

# Past the threshold for 3 keys (26,214 records).
N = 30_000


def general(rows, **kw):
    """The bytes of the general path: a schema given skips the one-pass gather."""
    return xbf.dumps(rows, schema=xbf.Schema.infer(rows), **kw)


def same_as_general(rows):
    for columnar in (None, True):
        assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar), columnar
    assert xbf.loads(xbf.dumps(rows)) == rows


def test_a_large_list_keeps_its_bytes():
    rows = [{"delay": i % 300 - 20, "distance": 100 + i * 7, "time": i / 8} for i in range(N)]
    same_as_general(rows)
    # A reused Encoder (its buffers and learned type) too.
    enc = xbf.Encoder()
    assert enc.encode(rows) == enc.encode(rows) == xbf.dumps(rows)


def test_records_ahead_of_other_kinds_keep_their_bytes():
    base = [{"a": i, "b": f"s{i % 977}", "c": None if i % 5 == 0 else i * 0.5} for i in range(N)]
    # Another order of keys, other keys, a record with a deleted key (a table with a hole), an
    # instance's __dict__ (a split table), each at a batch's start, inside one, and near the end.
    class Rec:
        def __init__(self, i):
            self.a, self.b, self.c = i, "x", 1.5

    holed = {"a": 1, "z": 0, "b": "h", "c": 2.0}
    del holed["z"]
    for at in (64, 65, 100, N - 9, N - 1):
        for odd in ({"b": "y", "a": 2, "c": 1.0}, {"a": 3, "b": "q"}, {"a": 4, "b": "w", "c": 0.0, "d": 1},
                    holed, vars(Rec(at))):
            rows = list(base)
            rows[at] = odd
            same_as_general(rows)


def test_items_ahead_that_are_not_records_fall_back():
    rows = [{"a": i, "b": i * 0.25} for i in range(N)]
    for at in (70, N - 3):
        for odd in (7, "s", None, [1, 2], {"a": [1]}):
            bad = list(rows)
            bad[at] = odd
            try:
                expected = general(bad)
            except (xbf.EncodeError, TypeError, ValueError) as e:
                with pytest.raises(type(e)):
                    xbf.dumps(bad)
            else:
                assert xbf.dumps(bad) == expected


def test_wide_records_keep_their_bytes():
    # 200 keys: tables of 512 slots (two-byte indices), 8 KiB of entries a record.
    keys = [f"k{j}" for j in range(200)]
    rows = [{k: (i * j if j % 3 else f"v{(i + j) % 50}") for j, k in enumerate(keys)} for i in range(700)]
    same_as_general(rows)


@pytest.mark.parametrize("seed", range(4))
def test_random_large_lists_keep_their_bytes(seed):
    rnd = random.Random(seed)
    nkeys = rnd.randint(1, 6)
    keys = [f"key{j}" for j in range(nkeys)]
    kinds = [rnd.choice(["int", "float", "str", "mixed"]) for _ in keys]

    def value(kind, i):
        if kind == "mixed":
            kind = rnd.choice(["int", "float", "str", "none", "bool"])
        return {"int": lambda: rnd.randint(-2**40, 2**40), "float": lambda: rnd.random() * 1e6,
                "str": lambda: "s" * rnd.randint(0, 40) + str(i % 1000), "none": lambda: None,
                "bool": lambda: rnd.random() < 0.5}[kind]()

    n = 8 * 2**20 // ((nkeys + 2) * 64) + rnd.randint(1, 5000)
    rows = []
    for i in range(n):
        ks = keys if rnd.random() > 0.001 else rnd.sample(keys, rnd.randint(0, nkeys))
        rows.append({k: value(kinds[keys.index(k)], i) for k in ks})
    same_as_general(rows)


def test_a_key_that_differs_at_any_place_keeps_the_bytes():
    # As test_records_batches' test of the same name, with the records ahead asked for (the key compare that also
    # asks for each value): one record whose key at place j is another name, or an equal str that is another object.
    keys = [f"k{j}" for j in range(5)]
    n = 8 * 2**20 // ((len(keys) + 2) * 64) + 100
    for j in range(len(keys)):
        for other in ("zz", "".join(["k", str(j)])):
            ks = list(keys)
            ks[j] = other
            rows = [{k: i + m for m, k in enumerate(keys)} for i in range(n)]
            rows[n // 2] = {k: "s" for k in ks}
            same_as_general(rows)
