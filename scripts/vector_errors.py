#!/usr/bin/env python3
"""Fills the `offset` and `path` of every invalid vector from the Rust reader.

SPEC 17.2 and 21.4: every implementation reports the same kind, offset and path
for the same bytes. The vector files carry them (vectors/README.md), written by
this script from the answers of the Rust reader (the hidden `xbf vectors
decode`, the same one scripts/difffuzz.py asks), and then checked by every
implementation's vector checker, Rust's included.

    scripts/vector_errors.py            # rewrites vectors/*.json in place
    scripts/vector_errors.py --check    # exit 1 if a file would change

Only the lines of invalid vectors change: each file keeps one vector per line,
and the fields `offset` and `path` follow `error`. A vector whose kind the Rust
reader does not give is an error of the vector, reported and left alone.
Build the CLI first (cargo build -p xbf-cli).
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
XBF = ROOT / "target" / "debug" / "xbf"


def rust_errors(lines):
    """The Rust reader's error for each `m HEX` / `s HEX` line (None: no error)."""
    out = subprocess.run([str(XBF), "vectors", "decode"], input="".join(line + "\n" for line in lines),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(lines), "one answer a line"
    return [json.loads(a).get("error") for a in out]


def with_error(v, err):
    """`v` with `offset` and `path` right after `error` (replacing any earlier ones)."""
    out = {}
    for k, x in v.items():
        if k in ("offset", "path"):
            continue
        out[k] = x
        if k == "error":
            out["offset"] = err["offset"]
            out["path"] = err["path"]
    return out


def fill(path, problems):
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    todo = []  # (line index, vector, trailing comma)
    for i, line in enumerate(lines):
        body = line.rstrip(",")
        if not body.startswith("{"):
            continue
        v = json.loads(body)
        if "error" in v:
            todo.append((i, v, line.endswith(",")))
    errors = rust_errors([("s " if v.get("stream") else "m ") + v["hex"] for _, v, _ in todo])
    for (i, v, comma), err in zip(todo, errors):
        if err is None or err["kind"] != v["error"] or err["offset"] is None:
            problems.append(f"{path.name}: {v['name']}: the Rust reader gives {err}, the vector {v['error']}")
            continue
        lines[i] = json.dumps(with_error(v, err), ensure_ascii=False) + ("," if comma else "")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    args = ap.parse_args()
    problems, changed = [], []
    for path in sorted((ROOT / "vectors").glob("*.json")):
        new = fill(path, problems)
        if new != path.read_text(encoding="utf-8"):
            changed.append(path.name)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for p in problems:
        print(p, file=sys.stderr)
    print(("would change: " if args.check else "changed: ") + (", ".join(changed) or "nothing"))
    sys.exit(1 if problems or (args.check and changed) else 0)


if __name__ == "__main__":
    main()
