"""One bench (or held-out) dataset through xbf.loads, or typed loads into
bench.py's dataclass, N times, for instruction counts under callgrind.

As with callgrind_dumps.py, run it twice, with N and with 0 calls, and take
(Ir(N) - Ir(0)) / N (the set-up is counted in both):

    valgrind --tool=callgrind --callgrind-out-file=cg.N python python/bench/callgrind_loads.py typed countries.json 20
    valgrind --tool=callgrind --callgrind-out-file=cg.0 python python/bench/callgrind_loads.py typed countries.json 0

Or count only the calls into loads (no set-up, so one run; python/bench/callgrind_loads.json),
with per call = Ir / (N + 1):

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*decode::loads::MakeDef*' \
        python python/bench/callgrind_loads.py loads windvectors.csv 10

The first argument is ``loads`` (untyped), ``decoder`` (``xbf.Decoder()``'s
``decode``) or ``typed`` (``xbf.Decoder(list[DC]).decode``); ``rows-`` before
it (``rows-typed``) writes the message in rows instead of ``dumps``'s choice.
"""
import sys
import typing

import bench
import xbf


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, name = sys.argv[1], sys.argv[2]
    vega = str(bench.ROOT / "target/data/vega-datasets")
    data = bench.datasets(vega) if name in bench.datasets.__code__.co_consts or not name.endswith((".json", ".csv")) \
        else None
    if data is None or name not in data:
        data = bench.files(vega, (name,))
    rows = data[name]
    if mode.startswith("rows-"):
        mode = mode[len("rows-"):]
        enc = xbf.dumps(rows, columnar=False)
    else:
        enc = xbf.dumps(rows)
    if mode == "typed":
        fn = xbf.Decoder(typing.List[bench.record_class(rows)]).decode
    elif mode == "decoder":
        fn = xbf.Decoder().decode
    else:
        fn = xbf.loads
    fn(enc)
    for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1):
        fn(enc)


if __name__ == "__main__":
    main()
