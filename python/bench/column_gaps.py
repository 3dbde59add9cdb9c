"""Best of 15 calls, in one process, of reading 5,000 columnar records of the types the column readers
took last (typed: enums by name, NamedTuples, dicts of structs; untyped: enums, maps, bytes, 128-bit ints).
Run it against two builds (PYTHONPATH=DIR of an unpacked wheel) to see whether they read from columns:
the value path takes several times as long.

    python python/bench/column_gaps.py
"""
import pathlib
import sys
import time
import typing

import xbf

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
import test_columns_typed as t  # noqa: E402  (the tests' schema and classes)


def best(fn, arg, n=15):
    fn(arg)
    out = []
    for _ in range(n):
        s = time.perf_counter()
        fn(arg)
        out.append(time.perf_counter() - s)
    return min(out)


def main():
    rows = [{"shade": xbf.Variant(["LIGHT", "DARK"][i % 2]), "at": {"x": i, "y": i / 2},
             "by_key": {str(i % 7): {"x": i, "y": 0.5}}} for i in range(5000)]
    data = xbf.dumps(rows, schema=t.PAINTED, columnar=True)
    wide = xbf.dumps([{"b": b"ab%d" % i, "n": 2**100 + i, "d": {i % 5: "x"}} for i in range(5000)], columnar=True)
    for name, fn, arg in (("typed list[Painted]", xbf.Decoder(typing.List[t.Painted]).decode, data),
                          ("loads enums, structs, maps", xbf.loads, data), ("loads bytes, u128, maps", xbf.loads, wide)):
        print(f"{name}: {best(fn, arg) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
