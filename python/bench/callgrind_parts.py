"""Where one ``xbf.dumps`` call's instructions go, from a callgrind profile (issue 24).

Only the instructions inside ``dumps`` are collected (the extension's pyo3
trampoline for it toggles collection), so the set-up (imports, reading the
dataset) is left out and no 0-call run is needed; the N counted calls and
callgrind_dumps.py's one warm-up call are all collected, so divide by N + 1:

    export PYTHONHASHSEED=0
    valgrind --tool=callgrind --callgrind-out-file=cg.flights --toggle-collect='*dumps::MakeDef*' \\
        python python/bench/callgrind_dumps.py flights 2 dumps
    python python/bench/callgrind_parts.py cg.flights 3

It prints the instructions per call of each part (the Python-objects walk
``records::gather::gather``, ``records::fill`` into the core's ``ColumnNode``s, the
core's ``encode_columns`` and its encoders, the allocator, memcpy) and the
callers of the allocator, and writes them to ``<profile>.json``. Function
names are symbol names, so a release build without debug info will do (with
debug info, callgrind_annotate puts the source file before each name: it is
dropped); what is inlined is counted in its caller.
"""
import json
import re
import subprocess
import sys

LINE = re.compile(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+([<*])\s+(?:\?\?\?:|\S+\.(?:[ch]|rs):)?(.*?)(?: \(([\d,]+)x\))? \[")
SLICES = "<alloc::vec::Vec<T> as alloc::vec::spec_from_iter_nested::SpecFromIterNested<T,I>>::from_iter"
# The core's whole encode of the columns: `encode_columns`, or (from pyhand's owned hand-off, whose
# `encode_columns_kept` is inlined into its caller) `Columns::write_kept`, or (from pyfill7's sink, which writes
# the message into the `bytes` object) `encode_columns_with`; the largest that is there.
ENCODE_COLUMNS = (r"^xbf::message::<impl xbf::options::EncodeOptions>::encode_columns(_kept|_with)?$"
                  r"|^xbf::columnar::builder::Columns::write_kept$")
CALLERS_OF = [
    "mi_realloc_aligned",
    "mi_malloc_aligned",
    "mi_free",
    "__memcpy_avx_unaligned_erms",
    "alloc::raw_vec::RawVecInner<A>::reserve::do_reserve_and_handle",
    "alloc::raw_vec::RawVec<T,A>::grow_one",
]


def load(profile, inclusive):
    """Each function's cost (the largest of its per-file entries when inclusive, else their sum),
    its callers as (name, cost, calls), and the total."""
    text = subprocess.run(
        ["callgrind_annotate", f"--inclusive={inclusive}", "--tree=caller", "--threshold=100", profile],
        capture_output=True, text=True, check=True,
    ).stdout
    fns, callers, pending = {}, {}, []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            if not line.strip():
                pending = []
            continue
        n, kind, name = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
        if kind == "<":
            pending.append((name, n, int((m.group(4) or "0").replace(",", ""))))
            continue
        fns[name] = max(fns.get(name, 0), n) if inclusive == "yes" else fns.get(name, 0) + n
        callers.setdefault(name, []).extend(pending)
        pending = []
    total = int(re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    return total, fns, callers


def main():
    profile, calls = sys.argv[1], int(sys.argv[2])
    total, inc, callers = load(profile, "yes")
    _, exc, _ = load(profile, "no")

    def get(d, pat):
        return sum(n for f, n in d.items() if re.search(pat, f))

    def largest(d, pat):
        return max([n for f, n in d.items() if re.search(pat, f)], default=0)

    def calls_of(fn):
        return sum(k for _, _, k in callers.get(fn, [])) / calls

    slices = sum(c for n, c, _ in callers.get(SLICES, []) if n.startswith("xbf::columnar::shred::Shred::write"))
    parts = {
        "total": total,
        "gather (Python objects -> raw columns, type inference)": get(inc, r"^_native::records::gather::gather$"),
        "  of which PyDict_Next": get(inc, r"^PyDict_Next$"),
        "  of which Shape::metadata, encode_metadata": get(inc, r"^xbf::infer::Shape<K>::metadata$")
        + get(inc, r"^xbf::.*encode_metadata$"),
        "  of which Objects::resolve": get(inc, r"^xbf::infer::Objects<S>::resolve$"),
        "  of which PyLong_AsLongLongAndOverflow": get(inc, r"^PyLong_AsLongLongAndOverflow$"),
        "fill (raw columns -> ColumnNode)": largest(inc, r"^_native::records::fill::fill(_key)?$"),
        "  of which ColumnNode::extend_*": get(inc, r"^xbf::columnar::builder::ColumnNode::extend_"),
        "  of which ColumnNode::take_* (owned hand-off)": get(inc, r"ColumnNode>::take_"),
        "  of which ColumnNode::drain_* (owned hand-off back)": get(inc, r"ColumnNode>::drain_"),
        "encode_columns (core)": largest(inc, ENCODE_COLUMNS),
        "  of which ColumnNode::check": get(inc, r"^xbf::columnar::builder::ColumnNode::check$"),
        "  of which the per-value slice list in Shred::write": slices,
        "  of which strings::encode_with": get(inc, r"^xbf::columnar::strings::encode_with$"),
        "  of which floats::encode_hinted": get(inc, r"^xbf::columnar::floats::encode_hinted$"),
        "  of which ints::encode": get(inc, r"^xbf::columnar::ints::encode$"),
        "  of which put_column": get(inc, r"^xbf::columnar::shred::put_column$"),
        # (Inclusive counts: `Gathered::rows` holds `rows_of`'s, so the larger of the two, not their sum.)
        "rows message (Gathered::rows)": largest(
            inc, r"Gathered>?::rows$|^_native::records_rows::rows_of$"
        ),
        "auto's choice (worth_columns)": get(inc, r"worth_columns"),
        "output copy (PyBytes_FromStringAndSize)": get(inc, r"^PyBytes_FromStringAndSize$"),
        "malloc (mi_malloc_aligned, inclusive)": get(inc, r"^mi_malloc_aligned$"),
        "realloc (mi_realloc_aligned, inclusive)": get(inc, r"^mi_realloc_aligned$"),
        "free (mi_free, inclusive)": get(inc, r"^mi_free$"),
        "memcpy/memmove (exclusive)": get(exc, r"memcpy|memmove"),
    }
    for k, v in parts.items():
        print(f"{k:60s} {v / calls:12,.0f}")
    mallocs, reallocs = calls_of("mi_malloc_aligned"), calls_of("mi_realloc_aligned")
    print(f"calls per dumps call: malloc {mallocs:.1f}, realloc {reallocs:.1f}")
    top = {fn: sorted(callers.get(fn, []), key=lambda c: -c[1])[:8] for fn in CALLERS_OF}
    for fn, cs in top.items():
        print(f"callers of {fn}:")
        for name, n, k in cs:
            print(f"   {n / calls:10,.0f} Ir  {k / calls:8,.1f} calls  {name[:120]}")
    result = {
        "calls": calls,
        "per_call": {k: v / calls for k, v in parts.items()},
        "malloc_calls_per_call": mallocs,
        "realloc_calls_per_call": reallocs,
        "callers_per_call": {fn: [[name, n / calls, k / calls] for name, n, k in cs] for fn, cs in top.items()},
    }
    with open(profile + ".json", "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
