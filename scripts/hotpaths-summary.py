#!/usr/bin/env python3
"""Instructions per round of each operation, from scripts/hotpaths-callgrind.sh's
lines, and the ratio of each label to the first: a Markdown table.

    scripts/hotpaths-summary.py OUT.jsonl [LABEL ...]

The labels (all, by default) must each have every operation and `setup`.
"""

import json
import sys


def main() -> None:
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    labels = sys.argv[2:] or list(dict.fromkeys(r["label"] for r in rows))
    ops = list(dict.fromkeys(r["op"] for r in rows if r["op"] != "setup"))
    ir = {(r["label"], r["op"]): r for r in rows}
    head = "| operation | " + " | ".join(f"{x} (Ir/round)" for x in labels)
    head += " | " + " | ".join(f"{x}/{labels[0]}" for x in labels[1:]) + " |"
    print(head)
    print("|" + "---|" * (1 + 2 * len(labels) - 1))
    for op in ops:
        per = []
        for label in labels:
            r, s = ir[(label, op)], ir[(label, "setup")]
            per.append((r["ir"] - s["ir"]) / r["rounds"])
        cells = [f"{p / 1e6:,.2f} M" for p in per] + [f"{p / per[0]:.3f}" for p in per[1:]]
        print(f"| {op} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
