"""One bench dataset through xbf.dumps N times, for instruction counts under callgrind.

Wall-clock times on the shared machine are noisy; instruction counts are not.
The set-up (imports, reading the datasets) is counted too, so run the script
twice, with N and with 0 calls, and take (Ir(N) - Ir(0)) / N:

    CARGO_PROFILE_RELEASE_DEBUG=true pip install ./python    # symbols for callgrind_annotate
    export PYTHONHASHSEED=0    # else str hashes, so set-up and per-call counts, change from run to run
    valgrind --tool=callgrind --callgrind-out-file=cg.N python python/bench/callgrind_dumps.py sp500 20 dumps
    valgrind --tool=callgrind --callgrind-out-file=cg.0 python python/bench/callgrind_dumps.py sp500 0 dumps
    callgrind_annotate --inclusive=yes --threshold=100 cg.N | grep -E "records_direct|encode_columns|floats::"

A third argument ``dumps`` or ``encoder`` makes one call before the counted
ones (so first-call costs are left out); ``encoder`` encodes with one
``xbf.Encoder()`` made before the calls, which that first call teaches,
instead of ``xbf.dumps``: the reused Encoder's cost per call.

Datasets are bench.py's, held-out files included (``sp500``, ``flights`` and
``countries`` are short for three of their names); ``sizes`` prints the bytes
of ``xbf.dumps`` of every dataset instead, to check that an encoder change
keeps them, and ``hashes`` the SHA-256 of its bytes (and of ``columnar=False``,
``columnar=True`` and a second call of one ``xbf.Encoder``) for the same check
byte for byte.
"""
import gc
import hashlib
import sys

import bench
import xbf

SHORT = {"sp500": "sp500 (stock rows)", "flights": "flights-20k.json", "countries": "countries.json",
         "cars": "cars.json", "normal-2d": "normal-2d.json", "budgets": "budgets.json"}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    vega = str(bench.ROOT / "target/data/vega-datasets")
    if sys.argv[1] in ("sizes", "hashes"):
        data = {**bench.datasets(vega), **bench.datasets(vega, held_out=True)}
        for name, rows in data.items():
            if sys.argv[1] == "sizes":
                print(f"{name}\t{len(xbf.dumps(rows))}")
                continue
            enc = xbf.Encoder()
            enc.encode(rows)
            outs = [xbf.dumps(rows), xbf.dumps(rows, columnar=False), xbf.dumps(rows, columnar=True), enc.encode(rows)]
            print(name, *(hashlib.sha256(b).hexdigest()[:16] for b in outs), sep="\t")
        return
    name = SHORT.get(sys.argv[1], sys.argv[1])
    # Only the file asked for is read (the set-up is then a small part of the count).
    rows = bench.sp500_rows() if name == SHORT["sp500"] else bench.files(vega, (name,))[name]
    encode = xbf.dumps
    if len(sys.argv) > 3:
        # One call before the counted ones (in the N and the 0 runs both): first-call costs (lazy
        # set-up, the allocator's first pages) are then out of the per-call figure, as for a reused encoder.
        # No garbage collection in the counted calls: when the collector's passes over the dataset's
        # objects fall depends on every allocation before, and one of them is worth many calls.
        gc.disable()
        if sys.argv[3] == "encoder":
            encode = xbf.Encoder().encode
        encode(rows)
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
        encode(rows)


if __name__ == "__main__":
    main()
