"""Peak RSS of xbf.write from a generator and of iterating xbf.open, for one
number of records (run it for several: it should stay flat).

    python python/bench/file_memory.py 300000 write   # then: ... 300000 read
"""
import os
import resource
import sys
import tempfile
import time

import xbf

PATH = os.path.join(tempfile.gettempdir(), f"xbf-file-memory-{os.getuid()}.xbf")


def rows(n):
    o = ["SFO", "LAX", "JFK", "ORD", "SEA"]
    for i in range(n):
        yield {"t": i * 60, "delay": (i * 37) % 400 - 60, "distance": 100 + (i * 13) % 2500,
               "origin": o[i % 5], "dest": o[(i * 3) % 5]}


def main():
    n, op = int(sys.argv[1]), sys.argv[2]
    t = time.time()
    if op == "write":
        xbf.write(PATH, rows(n))
    else:
        count = sum(1 for _ in xbf.open(PATH))
        assert count == n, (count, n)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"{op} {n} records: {time.time() - t:.1f} s, peak RSS {peak_mb} MB")


if __name__ == "__main__":
    main()
