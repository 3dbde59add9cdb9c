"""An invented wide table for instruction counts of `xbf.dumps` under callgrind: ROWS records (240 unless given) of
70 keys: 6 text columns of 8 words, 4 int columns and 60 columns of numbers held as short strings, mostly "0" (the
shape of a held-out file, budget.json, that no one is to profile: it is kept as a check). One call, then CALLS more
with the collector off; count as callgrind_dumps.py says, (Ir(CALLS) - Ir(0)) / CALLS:

    valgrind --tool=callgrind --toggle-collect='*dumps::MakeDef*' python python/bench/wide_table.py 5 [ROWS]
"""
import gc
import random
import sys

import xbf


def rows(n):
    rnd = random.Random(7)
    # One key object per column, as a JSON parser or csv.DictReader gives.
    names, codes, years = ([f"name {k}" for k in range(6)], [f"code {k}" for k in range(4)],
                           [str(1962 + y) for y in range(60)])
    words = ["alpha", "beta", "gamma", "delta", "Department of Things", "Office of Stuff", "On-budget", "Off-budget"]
    out = []
    for _ in range(n):
        r = {k: rnd.choice(words) for k in names}
        r.update({k: rnd.randint(0, 999) for k in codes})
        r.update({k: ("0" if rnd.random() < 0.7 else str(rnd.randint(-90000, 900000))) for k in years})
        out.append(r)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = rows(int(sys.argv[2]) if len(sys.argv) > 2 else 240)
    xbf.dumps(data)
    gc.disable()
    for _ in range(int(sys.argv[1])):
        xbf.dumps(data)


if __name__ == "__main__":
    main()
