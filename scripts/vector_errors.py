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
and the fields `offset` and `path` follow `error` (in the file vectors of
vectors/files/, also `end_offset` and `end_path` follow `end_error`). A vector whose kind the Rust
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


def rust_answers(lines):
    """The Rust reader's answer for each `m HEX` / `s HEX` / `f HEX` line, with its `error` (and a file's
    `end_error`): None where there is none."""
    out = subprocess.run([str(XBF), "vectors", "decode"], input="".join(line + "\n" for line in lines),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(lines), "one answer a line"
    return [json.loads(a) for a in out]


def with_error(v, errors):
    """`v` with `{prefix}offset` and `{prefix}path` right after each error key (`error`, and `end_error` in
    file vectors), replacing any earlier ones; `errors` maps each key to its error."""
    placed = {"offset", "path", "end_offset", "end_path"}
    out = {}
    for k, x in v.items():
        if k in placed:
            continue
        out[k] = x
        if k in errors:
            prefix = "end_" if k == "end_error" else ""
            out[prefix + "offset"] = errors[k]["offset"]
            out[prefix + "path"] = errors[k]["path"]
    return out


def fill(path, problems):
    text = path.read_text(encoding="utf-8")
    if text.startswith("[\n  {"):
        return fill_indented(path, text, problems)
    lines = text.split("\n")
    todo = []  # (line index, vector, trailing comma)
    for i, line in enumerate(lines):
        body = line.rstrip(",")
        if not body.startswith("{"):
            continue
        v = json.loads(body)
        if "error" in v or "end_error" in v:
            todo.append((i, v, line.endswith(",")))
    mode = lambda v: "f " if v.get("file") else "s " if v.get("stream") else "m "  # noqa: E731
    answers = rust_answers([mode(v) + v["hex"] for _, v, _ in todo])
    for (i, v, comma), answer in zip(todo, answers):
        errors = {k: answer.get(k) for k in ("error", "end_error") if k in v}
        bad = [k for k, e in errors.items() if e is None or e["kind"] != v[k] or e["offset"] is None]
        if bad:
            problems.append(f"{path.name}: {v['name']}: the Rust reader gives {answer}, the vector {v}")
            continue
        lines[i] = json.dumps(with_error(v, errors), ensure_ascii=False) + ("," if comma else "")
    return "\n".join(lines)


def fill_indented(path, text, problems):
    """A file written as one indented JSON document (vectors/files/files.json), rewritten whole."""
    vectors = json.loads(text)
    todo = [(i, v) for i, v in enumerate(vectors) if "error" in v or "end_error" in v]
    mode = lambda v: "f " if v.get("file") else "s " if v.get("stream") else "m "  # noqa: E731
    for (i, v), answer in zip(todo, rust_answers([mode(v) + v["hex"] for _, v in todo])):
        errors = {k: answer.get(k) for k in ("error", "end_error") if k in v}
        if any(e is None or e["kind"] != v[k] or e["offset"] is None for k, e in errors.items()):
            problems.append(f"{path.name}: {v['name']}: the Rust reader gives {answer}")
            continue
        vectors[i] = with_error(v, errors)
    return json.dumps(vectors, indent=2, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    args = ap.parse_args()
    problems, changed = [], []
    for path in sorted((ROOT / "vectors").glob("*.json")) + sorted((ROOT / "vectors" / "files").glob("*.json")):
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
