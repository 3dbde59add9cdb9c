#!/usr/bin/env python3
"""Import cycles between the modules of the core crate (crates/xbf/src).

Reads every `use crate::...`, `use super::...` and inline `crate::a::b` path
of the crate's sources (test modules left out), resolves each to the module
file that defines it, collapses modules to their top DEPTH segments
(default 1: `columnar::ints` counts as `columnar`) and prints every strongly
connected component of more than one module, with the edges inside it and
the lines that make them. Exit status 1 when there is a cycle.

    scripts/module-cycles.py [--depth N] [--src crates/xbf/src]
"""

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path


def module_of(src: Path, f: Path) -> tuple:
    rel = f.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


def strip(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    # Leave out the test module (by convention the last item of a file).
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


def expand_use_tree(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix: str, t: str):
        i = t.find("{")
        if i < 0:
            out.append(prefix + t)
            return
        head = t[:i]
        body = t[i + 1 : t.rfind("}")]
        depth, start = 0, 0
        for j, ch in enumerate(body + ","):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                part = body[start:j]
                if part:
                    walk(prefix + head, part)
                start = j + 1

    walk("", tree)
    return [re.sub(r"\bas\w+$", "", p) for p in out]


def resolve(path: list, here: tuple, modules: set, hops: int = 0):
    """Absolute module (a tuple) a path's longest known prefix names."""
    if path[0] == "crate":
        segs = path[1:]
    elif path[0] in ("super", "self"):
        base = list(here)
        while path and path[0] in ("super", "self"):
            if path[0] == "super":
                base.pop()
            path = path[1:]
        segs = base + path
    else:
        return None
    for n in range(len(segs), -1, -1):
        mod = tuple(segs[:n])
        if mod in modules:
            # A name the module re-exports (`crate::DecodeOptions`) is
            # followed to where it is defined.
            if n < len(segs) and hops < 4 and (mod, segs[n]) in REEXPORTS:
                return resolve(REEXPORTS[(mod, segs[n])] + segs[n + 1 :], mod, modules, hops + 1)
            return mod
    return None


# (module, name) -> the path its `pub use` names, for names re-exported.
REEXPORTS = {}


def read_reexports(files: dict) -> None:
    for mod, f in files.items():
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", strip(f.read_text())):
            for p in expand_use_tree(m.group(1)):
                parts = p.split("::")
                if parts[-1] in ("*", "self"):
                    continue
                if parts[0] not in ("crate", "super", "self"):
                    parts = ["self"] + parts
                REEXPORTS[(mod, parts[-1])] = parts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=str(Path(__file__).resolve().parent.parent / "crates/xbf/src"))
    ap.add_argument("--depth", type=int, default=1)
    args = ap.parse_args()
    src = Path(args.src)
    files = {module_of(src, f): f for f in sorted(src.rglob("*.rs")) if f.name != "tests.rs"}
    modules = set(files)
    read_reexports(files)
    edges = defaultdict(list)  # (a, b) -> ["file:line ..."]

    def node(m):
        return "::".join(m[: args.depth]) or "crate"

    for mod, f in files.items():
        text = strip(f.read_text())
        found = []
        for m in re.finditer(r"\buse\s+((?:crate|super|self)::[^;]*);", text):
            for p in expand_use_tree(m.group(1)):
                found.append((m.start(), p))
        masked = re.sub(r"\buse\s+[^;]*;", lambda m: " " * len(m.group(0)), text)
        for m in re.finditer(r"\b(?:crate|super)(?:::\w+)+", masked):
            found.append((m.start(), m.group(0)))
        for pos, p in found:
            target = resolve(p.split("::"), mod, modules)
            if target is None:
                continue
            a, b = node(mod), node(target)
            if a != b and a != "crate" and b != "crate":
                line = text.count("\n", 0, pos) + 1
                edges[(a, b)].append(f"{f.relative_to(src)}:{line} {p}")

    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    # Tarjan's strongly connected components.
    index, low, on, stack, sccs = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(set(graph) | {b for s in graph.values() for b in s}):
        if v not in index:
            visit(v)
    for comp in sccs:
        print("cycle among:", " ".join(comp))
        for (a, b), where in sorted(edges.items()):
            if a in comp and b in comp:
                print(f"  {a} -> {b}")
                for w in where[:4]:
                    print(f"      {w}")
                if len(where) > 4:
                    print(f"      ... {len(where) - 4} more")
    if not sccs:
        print(f"no cycles among {len(set(node(m) for m in modules))} modules (depth {args.depth})")
    return 1 if sccs else 0


if __name__ == "__main__":
    sys.exit(main())
