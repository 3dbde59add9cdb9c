"""A smoke run of the Python benchmark (python/bench/bench.py) on a few stock rows.

The benchmark's figures are published in BENCHMARKS.md; this runs the same code paths (every library's round
trip, the typed decoders, the ratios and the Markdown report) on tiny inputs, so a change that breaks the script
fails here rather than in the next benchmark run. Times are not looked at: performance is measured in the
benchmark, never asserted in tests. Peers that the test environment lacks (orjson, msgspec...) are skipped by the
script itself, as in a benchmark run without them.
"""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
bench = pytest.importorskip("bench")


def test_bench_round_trips_and_reports_on_stock_rows():
    rows = bench.sp500_rows()[:20]
    libs = bench.libraries()
    res = bench.run(rows, libs, rounds=2, min_time=0.0)
    assert set(res) == set(libs)
    # Every library encoded the same records: xbf's own variants round-tripped (run() asserts it) and agree on size.
    assert res["xbf auto"]["bytes"] == res["xbf columnar"]["bytes"] <= res["xbf rows"]["bytes"]
    assert res["xbf Encoder (reused)"]["bytes"] == res["xbf auto"]["bytes"]
    assert all(len(r["dumps_s"]) == 2 and len(r["loads_s"]) == 2 for r in res.values())
    cls = bench.record_class(rows)
    assert [f.name for f in bench.dataclasses.fields(cls)] == list(rows[0])
    typed = bench.run_typed(rows, cls, rounds=1, min_time=0.0)
    assert typed["xbf typed (auto)"]["bytes"] == res["xbf auto"]["bytes"]
    d = {"records": len(rows), "results": res, "verdict": bench.verdict(res["xbf auto"]) if "msgpack" in res else None,
         "typed_class": cls.__name__, "typed": typed}
    report = {"date": "today", "commit": "HEAD", "versions": bench.versions(), "platform": "test", "rounds": 2,
              "min_time_s": 0.0, "held_out": False, "datasets": {"sp500 (first 20)": d}}
    md = bench.markdown(report)
    assert "## sp500 (first 20): 20 records" in md
    assert "| xbf auto |" in md
