"""dumps of records whose dicts were built in every way a dict's table can end up: `records::gather` reads a
combined table's entries in place (raw::DictEntries, CPython 3.11-3.13) and `PyDict_Next` elsewhere; either way
the bytes are the general path's (a schema given skips the gather), in the dicts' own key order."""
import gc

import pytest

import xbf


def general(rows, **kw):
    return xbf.dumps(rows, schema=xbf.Schema.infer(rows), **kw)


def same_as_general(rows):
    for columnar in (None, False, True):
        assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar), columnar
    assert xbf.loads(xbf.dumps(rows)) == [dict(r) for r in rows]
    assert list(xbf.loads(xbf.dumps(rows))[-1]) == list(rows[-1])


class Str(str):
    pass


class Obj:
    def __init__(self, i):
        self.a = i
        self.b = f"s{i}"
        self.c = i * 0.5


def with_deletions(i, n=6):
    d = {f"k{j}": j + i for j in range(n)}
    del d["k1"]
    del d["k4"]
    return d


def test_deleted_entries():
    same_as_general([with_deletions(i) for i in range(30)])
    # Deleted entries in some records only: the same keys at other entry indices.
    same_as_general([with_deletions(i) if i % 3 else {k: i for k in ("k0", "k2", "k3", "k5")} for i in range(30)])
    # All deleted but one; all deleted.
    rows = []
    for i in range(20):
        d = {"a": i, "b": i, "c": i}
        del d["a"], d["b"]
        rows.append(d)
    same_as_general(rows)
    rows = [{"a": i} for i in range(20)]
    for r in rows[5:]:
        del r["a"]
    same_as_general(rows)


def test_reinserted_keys_move_to_the_end():
    rows = []
    for i in range(30):
        d = {"a": i, "b": str(i), "c": i * 1.5}
        if i % 2:
            del d["a"]
            d["a"] = -i  # now last: another key order
        rows.append(d)
    same_as_general(rows)
    rows = []
    for i in range(30):
        d = {"a": i, "b": str(i)}
        for _ in range(i % 5):
            d["b"] = d.pop("b")  # deleted and re-inserted in place of order, several times
            d["a"] = d.pop("a")
        rows.append(d)
    same_as_general(rows)


def test_keys_that_are_not_exact_str():
    # Non-str keys make general entries (hash, key, value): the general path; str subclasses too.
    cases = [
        [{"a": i, 1: i} for i in range(20)],
        [{"a": i} for i in range(20)] + [{"a": 1, 2: 3}],
        [{Str("a"): i, "b": i} for i in range(20)],
        [{"a": i, "b": i} for i in range(20)] + [{Str("a"): 1, "b": 2}],
    ]
    for rows in cases:
        for columnar in (None, False, True):
            assert xbf.dumps(rows, columnar=columnar) == general(rows, columnar=columnar)
    # A dict whose table holds general entries (it once had a non-str key) but only str keys now.
    rows = []
    for i in range(20):
        d = {"a": i, 0: None, "b": f"x{i}"}
        del d[0]
        rows.append(d)
    same_as_general(rows)


def test_split_table_instance_dicts():
    same_as_general([Obj(i).__dict__ for i in range(30)])
    # Split and combined tables in one list (the same keys).
    same_as_general([Obj(i).__dict__ if i % 2 else dict(Obj(i).__dict__) for i in range(30)])
    # An instance dict made combined by a non-str key, then that key deleted.
    rows = []
    for i in range(20):
        d = Obj(i).__dict__
        d[1] = 1
        del d[1]
        rows.append(d)
    same_as_general(rows)


def test_dicts_resized_while_built():
    # Past each table size (8, 16, ... entries): entries moved to a new keys object, index widths 1, 2, 4 bytes.
    for n in (5, 6, 11, 21, 43, 86, 171, 342, 700):
        rows = []
        for i in range(3):
            d = {}
            for j in range(n):
                d[f"k{j}"] = j * i
                if j % 7 == 3:
                    del d[f"k{j - 1}"]
            rows.append(d)
        same_as_general(rows)
    rows = [{f"k{j}": j for j in range(50_000)} for _ in range(2)]  # four-byte indices
    assert xbf.loads(xbf.dumps(rows)) == rows


def test_dict_subclass_and_copies():
    class D(dict):
        pass

    rows = [{"a": i, "b": "s"} for i in range(20)]
    for columnar in (None, False, True):
        assert xbf.dumps(rows + [D(a=1, b="t")], columnar=columnar) == general(rows + [D(a=1, b="t")], columnar=columnar)
    same_as_general([dict(r) for r in rows] + [r.copy() for r in rows] + [{**r} for r in rows])


def test_a_value_whose_float_changes_the_records_is_safe():
    # The gather takes exact types only (runs no Python code between entries); a float subclass sends the list
    # to the general path, whose `__float__` may change the records as they are read.
    class Evil(float):
        def __float__(self):
            for r in rows:
                r.clear()
            rows.append({"z": 1})
            return 1.0

    rows = [{"a": 1.5, "b": "s"} for _ in range(20)]
    rows.insert(10, {"a": Evil(2.5), "b": "t"})
    try:
        out = xbf.dumps(rows)
    except (TypeError, ValueError, RuntimeError):
        return
    xbf.loads(out)


def test_a_finalizer_that_changes_the_records_while_gathered_is_safe():
    # Ints past 64 bits make the gather raise (and drop) an OverflowError: an allocation, so possibly a garbage
    # collection, so finalizers, which here empty the records and the list. The gather then stops; what the
    # general path makes of the changed list is an error or bytes, never a crash (PYTHONMALLOC=debug -X dev).
    class Cycle:
        def __init__(self):
            self.me = self

        def __del__(self):
            for r in rows:
                r.clear()
            del rows[5:]

    thresholds = gc.get_threshold()
    try:
        for big in (2**70, -2**70, 2**64):
            rows = [{"a": i, "b": str(i)} for i in range(50)]
            rows[20] = {"a": big, "b": "x"}
            gc.set_threshold(1)
            for _ in range(20):
                Cycle()
            try:
                out = xbf.dumps(rows)
            except (TypeError, ValueError, RuntimeError, OverflowError):
                continue
            finally:
                gc.set_threshold(*thresholds)
            xbf.loads(out)
    finally:
        gc.set_threshold(*thresholds)


@pytest.mark.parametrize("columnar", [None, False, True])
def test_an_encoder_reused_on_dicts_of_each_kind(columnar):
    enc = xbf.Encoder(columnar=columnar)
    kinds = [
        [{"a": i, "b": str(i)} for i in range(20)],
        [Obj(i).__dict__ for i in range(20)],
        [with_deletions(i) for i in range(20)],
        [{"a": i, "b": str(i)} for i in range(20)],
    ]
    for rows in kinds * 2:
        assert enc.encode(rows) == general(rows, columnar=columnar)
