#!/usr/bin/env python3
"""Differential fuzzer: every decoder of the project on the same bytes.

Cases are the conformance vectors (vectors/*.json), hand-aimed reproducers
(AIMED) and random typed values
(a random type and value, encoded by the Python package as a message, rows
or columns, or as a record stream), most of them mutated: bit flips, byte
changes, insertions, deletions, cuts, splices of two cases, varint edits.
Every case goes to every implementation:

- Rust: the hidden `xbf vectors decode` subcommand (crates/xbf-cli/src/batch.rs),
- Python: the `xbf` package, in this process,
- TypeScript: scripts/difffuzz/ts_decode.mjs (over ts/dist),

each answering with the type and value in the vectors' form (NaNs with
their bits) or the error's kind, offset and path. Any disagreement that
SPEC does not allow (ALLOWED below) is a failure; the disagreements that a
branch not yet merged fixes are listed in KNOWN_UNTIL_MERGED with their
reproducer and counted, never dropped. For each class of disagreement the
script prints its count and a minimal reproducer (hex, shrunk).

Deterministic for a given --seed (printed at the start and the end).

    scripts/difffuzz.py                       # 4,000 cases, a random seed
    scripts/difffuzz.py --cases 60000 --seed 18   # what scripts/test-all.sh runs (about a minute)
    scripts/difffuzz.py --cases 1000000       # a long run (about 20 minutes here)
    scripts/difffuzz.py --seed 7 --cases 500  # replay
    scripts/difffuzz.py --extra go="go/bin/xbfbatch"   # one more implementation (same lines in and out)

Run it with the Python that has the package (target/python-venv/bin/python),
after building the CLI (cargo build -p xbf-cli) and the TypeScript package
(npm run --prefix ts build). Exit code 1 when a disagreement is not allowed.
"""
import argparse
import datetime
import io
import json
import os
import random
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python" / "tests"))

import xbf  # noqa: E402
from vectorform import element, is_optional_key  # noqa: E402  (the vectors' form as Python values)

FLAG_STREAM = 0x04
EPOCH_DAY = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

# ---------------------------------------------------------------- cases


# Hand-aimed inputs (issue 18's reproducers), in the pool beside the vectors: mutations of them reach the
# same code from many sides.
AIMED = [
    "c202110402000210030105ffffffffffffffffff01070209",  # repro 7: run-length runs that add up past 2^64
    "c200170e0101000000000000008005",  # repro 8: a map key of -0.0
    "c2041667c0",  # repro 9: a stream whose count passes the input
    "c2001200020161010131010506",  # repro 10: fields `a` then `1`
    "0d0100807f",  # a signalling f32 NaN
    # Found by this fuzzer:
    "c20014141401010100",  # Python read Some(Some(None)) as Some(None)
    "c20402feffffffffffffffff01feffffffffffffffff0127",  # TypeScript compared a block's count in doubles
    "c2021115ffffffffffffffffff01180553686170650401301301610a01321a095f5f70726f746f5f5f09020002",  # array count order
]


def load_vectors():
    out = [bytes.fromhex(h) for h in AIMED]
    for path in sorted((ROOT / "vectors").glob("*.json")):
        for v in json.loads(path.read_text(encoding="utf-8")):
            out.append(bytes.fromhex(v["hex"]))
    return out


PRIMS = ["bool", "u8", "u16", "u32", "u64", "u128", "u256", "i8", "i16", "i32", "i64", "i128", "i256",
         "f32", "f64", "bytes", "string", "unit", "date", "timestamp", "fixed-u16", "fixed-u32", "fixed-u64",
         "fixed-u128", "fixed-i16", "fixed-i32", "fixed-i64", "fixed-i128"]
KEYS = ["u8", "u32", "i64", "string", "bool", "f64", "bytes", "u128"]
NAMES = ["a", "b", "id", "1", "10", "0", "name", "x y", "é", "__proto__", "constructor", "2", "-1"]
STRINGS = ["", "a", "key", "é", "日本語", "\u0000", "😀", "x" * 40, "1"]


def int_range(t):
    base = t[len("fixed-"):] if t.startswith("fixed-") else t
    bits = int(base[1:])
    return (0, 2 ** bits - 1) if base[0] == "u" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def rand_type(r, depth=0):
    if depth >= 3 or r.random() < 0.45:
        return r.choice(PRIMS)
    k = r.choice(["vec", "vec", "option", "array", "tuple", "map", "struct", "struct", "enum", "any"])
    if k == "vec":
        return {"vec": rand_type(r, depth + 1)}
    if k == "option":
        return {"option": rand_type(r, depth + 1)}
    if k == "array":
        return {"array": rand_type(r, depth + 1), "len": r.randrange(0, 5)}
    if k == "tuple":
        return {"tuple": [rand_type(r, depth + 1) for _ in range(r.randrange(1, 4))]}
    if k == "map":
        return {"map": [r.choice(KEYS), rand_type(r, depth + 1)]}
    if k == "struct":
        names = r.sample(NAMES, r.randrange(0, 5))
        return {"struct": r.choice(["Rec", "P", "", "Point"]), "fields": [[n, rand_type(r, depth + 1)] for n in names]}
    if k == "enum":
        names = r.sample(NAMES, r.randrange(1, 5))
        return {"enum": r.choice(["E", "Shape"]), "variants": [[n, rand_type(r, depth + 1)] for n in names]}
    return "any"


def rand_float(r, single):
    c = r.random()
    if c < 0.5:
        x = r.choice([0.0, -0.0, 1.5, -2.25, 0.1, 1e300, float("inf"), float("-inf"), 3.0, 100.0])
    elif c < 0.7:
        x = round(r.uniform(-1000, 1000), r.randrange(0, 4))
    elif c < 0.85:  # NaNs with payloads (quiet ones for f32: a Python float cannot carry an f32 signalling NaN)
        if single:
            x = struct.unpack("<f", struct.pack("<I", 0x7FC00000 | r.getrandbits(22) | (r.getrandbits(1) << 31)))[0]
        else:
            x = struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000000 | r.choice([1, 1 << 51, r.getrandbits(52) or 1])
                                                | (r.getrandbits(1) << 63)))[0]
    else:
        x = struct.unpack("<d", struct.pack("<Q", r.getrandbits(64)))[0]
        if x != x:
            x = 0.5
    if single and x == x:
        x = struct.unpack("<f", struct.pack("<f", x))[0] if abs(x) < 3.4e38 or x in (float("inf"), float("-inf")) else 1.0
    return x


def rand_value(r, t, depth=0):
    """A value of type t in the vectors' form (floats as Python floats, which vectorform passes through)."""
    if isinstance(t, str):
        if t == "any":
            inner = rand_type(r, depth + 1)
            return {"type": inner, "value": rand_value(r, inner, depth + 1)}
        if t == "bool":
            return r.random() < 0.5
        if t in ("f32", "f64"):
            return rand_float(r, t == "f32")
        if t == "bytes":
            return bytes(r.getrandbits(8) for _ in range(r.randrange(0, 7))).hex()
        if t == "string":
            return r.choice(STRINGS)
        if t == "unit":
            return None
        if t == "date":
            return r.choice([0, -1, 19000, r.randrange(-2 ** 31, 2 ** 31)])
        if t == "timestamp":
            return str(r.choice([0, -1, 1_700_000_000_000_000, r.randrange(-2 ** 63, 2 ** 63)]))
        lo, hi = int_range(t)
        x = r.choice([0, 1, lo, hi, r.randrange(lo, hi + 1), r.randrange(max(lo, -300), min(hi, 300) + 1)])
        base = t[len("fixed-"):] if t.startswith("fixed-") else t
        return str(x) if int(base[1:]) >= 64 else x
    if "vec" in t:
        n = r.choice([0, 1, 2, 5, r.randrange(0, 40)])
        return [rand_value(r, t["vec"], depth + 1) for _ in range(n)]
    if "option" in t:
        return None if r.random() < 0.3 else {"some": rand_value(r, t["option"], depth + 1)}
    if "array" in t:
        return [rand_value(r, t["array"], depth + 1) for _ in range(t["len"])]
    if "tuple" in t:
        return [rand_value(r, e, depth + 1) for e in t["tuple"]]
    if "map" in t:
        kt, vt = t["map"]
        pairs, seen = [], set()
        for _ in range(r.randrange(0, 6)):
            k = rand_value(r, kt, depth + 1)
            tag = struct.pack("<d", k) if isinstance(k, float) else json.dumps(k)
            if tag not in seen:
                seen.add(tag)
                pairs.append([k, rand_value(r, vt, depth + 1)])
        return pairs
    if "struct" in t:
        return {n: rand_value(r, ft, depth + 1) for n, ft in t["fields"]}
    if "enum" in t:
        n, vt = r.choice(t["variants"])
        return {"variant": n, "value": rand_value(r, vt, depth + 1)}
    raise AssertionError(t)


def encode_random(r):
    """A random typed value, encoded by the Python package: a message (rows, columns or auto, XBF 2 or
    v1) or a record stream. None when the package refuses the value (then another is drawn)."""
    t = rand_type(r)
    try:
        schema = xbf.Schema(t)
        if r.random() < 0.25:
            out = io.BytesIO()
            with xbf.StreamWriter(out, schema, checksums=r.random() < 0.5, block_bytes=r.choice([1, 16, 1 << 16])) as w:
                for _ in range(r.randrange(0, 6)):
                    w.write(element(t, rand_value(r, t)))
            return out.getvalue()
        v = element(t, rand_value(r, t))
        if r.random() < 0.1:
            try:
                return xbf.dumps(v, schema=schema, version=1)
            except Exception:
                pass
        return xbf.dumps(v, schema=schema, columnar=r.choice([True, False, None]))
    except Exception:
        return None


INTERESTING = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x3FFF, 0x4000, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, 2 ** 64 - 1]


def leb128(n, overlong=False):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n or overlong:
            out.append(b | 0x80)
            if not n:
                out.append(0)
                return bytes(out)
        else:
            out.append(b)
            return bytes(out)


def mutate(r, b, pool):
    b = bytearray(b)
    for _ in range(1 + min(int(r.expovariate(1.0)), 4)):
        op = r.randrange(8)
        i = r.randrange(len(b) + 1)
        if op == 0 and b:  # flip a bit
            j = r.randrange(len(b))
            b[j] ^= 1 << r.randrange(8)
        elif op == 1 and b:  # an interesting byte
            b[r.randrange(len(b))] = r.choice([0, 1, 2, 0x7F, 0x80, 0xFF, 0x10, 0x11, 0x12, 0xC2])
        elif op == 2:  # insert bytes
            b[i:i] = bytes(r.getrandbits(8) for _ in range(r.randrange(1, 5)))
        elif op == 3 and b:  # delete bytes
            del b[i:i + r.randrange(1, 9)]
        elif op == 4 and b:  # cut
            del b[r.randrange(len(b)):]
        elif op == 5:  # splice with another case
            other = r.choice(pool)
            b = b[:i] + other[r.randrange(len(other) + 1):]
        elif op == 6:  # replace bytes with a varint of an interesting value
            b[i:i + r.randrange(0, 4)] = leb128(r.choice(INTERESTING), overlong=r.random() < 0.1)
        elif b:  # repeat a chunk
            j = r.randrange(len(b))
            b[j:j] = b[j:j + r.randrange(1, 16)]
    return bytes(b)


def mode_of(b):
    """How every implementation reads the bytes: a record stream when the XBF 2 header's flags say so."""
    return "s" if len(b) >= 2 and b[0] == 0xC2 and b[1] & FLAG_STREAM else "m"


def make_cases(r, n, vectors):
    cases = []
    pool = list(vectors)
    aimed = [bytes.fromhex(h) for h in AIMED]
    while len(cases) < n:
        if r.random() < 0.05:
            base = r.choice(aimed)
        elif r.random() < 0.45:
            base = r.choice(vectors)
        else:
            base = encode_random(r)
            if base is None:
                continue
            pool.append(base)
            if len(pool) > 4000:
                pool.pop(len(vectors))
        cases.append(base if r.random() < 0.1 else mutate(r, base, pool))
    return cases


# ---------------------------------------------------------------- the implementations

NAN_WIDTH = {"f32": ("<f", "<I", 8), "f64": ("<d", "<Q", 16)}


def py_float(t, x):
    if x != x:
        fmt, ifmt, digits = NAN_WIDTH[t]
        return "NaN:" + format(struct.unpack(ifmt, struct.pack(fmt, x))[0], f"0{digits}x")
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def py_value(t, v):
    """A value of the Python package, of type t, in the vectors' form (the inverse of vectorform)."""
    if t == "any":
        own = v.schema.to_python()
        return {"type": own, "value": py_value(own, v.value)}
    if isinstance(t, str):
        base = t[len("fixed-"):] if t.startswith("fixed-") else t
        if base in ("f32", "f64"):
            return py_float(base, v)
        if base == "bytes":
            return v.hex()
        if base == "date":
            return v if isinstance(v, int) else (v - EPOCH_DAY).days
        if base == "timestamp":
            if isinstance(v, int):
                return str(v)
            d = v - EPOCH
            return str((d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds)
        if base[0] in "ui" and base[1:].isdigit():
            return str(v) if int(base[1:]) >= 64 else v
        return v
    if "vec" in t:
        return [py_value(t["vec"], x) for x in v]
    if "array" in t:
        return [py_value(t["array"], x) for x in v]
    if "tuple" in t:
        return [py_value(e, x) for e, x in zip(t["tuple"], v)]
    if "option" in t:
        if v is None:
            return None
        return {"some": py_value(t["option"], v.value if isinstance(v, xbf.Some) else v)}
    if "map" in t:
        kt, vt = t["map"]
        pairs = v.items() if isinstance(v, dict) else v
        return [[py_value(kt, k), py_value(vt, x)] for k, x in pairs]
    if "struct" in t:
        out = {}
        for name, ft in t["fields"]:
            if is_optional_key(ft):
                out[name] = ({"variant": "present", "value": py_value(ft["variants"][1][1], v[name])} if name in v
                             else {"variant": "absent", "value": None})
            else:
                out[name] = py_value(ft, v[name])
        return out
    if "enum" in t:
        variants = dict((n, vt) for n, vt in t["variants"])
        return {"variant": v.name, "value": py_value(variants[v.name], v.value)}
    raise AssertionError(t)


def py_error(e):
    if isinstance(e, xbf.DecodeError):
        return {"kind": e.kind, "offset": e.offset, "path": e.path or ""}
    return None


def python_decode(mode, data):
    try:
        if mode == "m":
            schema, v = xbf.loads(data, with_schema=True, typed_any=True, max_decoded_bytes=BUDGET)
            t = schema.to_python()
            return {"type": t, "value": py_value(t, v)}
        try:
            reader = xbf.StreamReader(io.BytesIO(data), True, max_decoded_bytes=BUDGET)
        except xbf.DecodeError as e:
            return {"type": None, "records": [], "error": py_error(e)}
        t = reader.schema.to_python()
        records = []
        try:
            for rec in reader:
                records.append(py_value(t, rec))
        except xbf.DecodeError as e:
            return {"type": t, "records": records, "error": py_error(e)}
        return {"type": t, "records": records, "error": None}
    except xbf.DecodeError as e:
        return {"error": py_error(e)}
    except (Exception, BaseException) as e:  # pyo3's PanicException is a BaseException
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"panic": f"{type(e).__name__}: {e}"}


def run_batch(argv, cases, timeout):
    """Runs a batch decoder over the cases; a case that kills or hangs it is answered with a panic and
    the batch goes on after it."""
    answers = []
    while len(answers) < len(cases):
        rest = cases[len(answers):]
        text = "".join(f"{mode_of(b)} {b.hex()}\n" for b in rest)
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = p.communicate(text, timeout=timeout)
            why = f"exit {p.returncode}: {err.strip()[-300:]}"
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            why = f"no answer within {timeout} s"
        lines = out.splitlines()
        answers.extend(lines[:len(rest)])
        if len(lines) < len(rest):
            answers.append(json.dumps({"panic": why}))
    return answers


# ---------------------------------------------------------------- comparing


def norm(text_or_obj):
    """One answer as a comparable tree: key order kept, numbers as exact float bits (-0.0 apart)."""
    text = text_or_obj if isinstance(text_or_obj, str) else json.dumps(text_or_obj)
    fnum = lambda s: ("num", float(s).hex())  # noqa: E731
    return json.loads(text, object_pairs_hook=lambda ps: ("obj", tuple(ps)), parse_float=fnum, parse_int=fnum)


def as_dict(n):
    return dict(n[1]) if isinstance(n, tuple) and n and n[0] == "obj" else {}


def status(d):
    if "panic" in d:
        return "panic"
    err = d.get("error")
    if err not in (None, ("obj", ())) and err is not None:
        return "error:" + as_dict(err)["kind"]
    return "ok"


def groups(sig):
    """`rust=python≠ts`: which implementations agree."""
    seen = []
    for name, s in sig.items():
        for g in seen:
            if g[1] == s:
                g[0].append(name)
                break
        else:
            seen.append(([name], s))
    return "≠".join("=".join(g[0]) for g in seen)


def first_difference(a, b, where=""):
    if a == b:
        return None
    if isinstance(a, tuple) and isinstance(b, tuple) and a and b and a[0] == b[0] == "obj":
        ka, kb = [k for k, _ in a[1]], [k for k, _ in b[1]]
        if ka != kb:
            return f"{where or 'root'}: keys {ka} vs {kb}"
        for (k, x), (_, y) in zip(a[1], b[1]):
            d = first_difference(x, y, f"{where}.{k}")
            if d:
                return d
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
    show = lambda x: x[1] if isinstance(x, tuple) and x and x[0] == "num" else x  # noqa: E731
    if isinstance(a, str) and isinstance(b, str) and a.startswith("NaN:") and b.startswith("NaN:"):
        return f"{where or 'root'}: NaN bits {a[4:]} vs {b[4:]}"
    return f"{where or 'root'}: {str(show(a))[:60]} vs {str(show(b))[:60]}"


def classify(mode, answers):
    """The class of a disagreement, a detail line, and the rule that allows or excuses it (or None)."""
    d = {name: as_dict(a) for name, a in answers.items()}
    st = {name: status(x) for name, x in d.items()}
    # A batch decoder may also report its default decoding path's outcome ("default": "ok" or the
    # error): it must be the reference decoder's (TypeScript's `decode` against `decodeInternal`).
    for name, x in d.items():
        if "default" in x and mode == "m":
            want = "ok" if st[name] == "ok" else x.get("error")
            if x["default"] != want:
                return f"{name}: the default decoder vs the reference decoder", first_difference(x["default"], want), None
    if len(set(st.values())) > 1:
        key = "outcome: " + ", ".join(f"{n}={s}" for n, s in st.items())
    elif st[next(iter(st))] == "panic":
        key = "panic in every implementation"
    else:
        fields = ["type", "value"] if mode == "m" else ["type", "records", "error"]
        key = None
        for f in fields:
            vals = {n: x.get(f) for n, x in d.items()}
            if len({json.dumps(v) for v in vals.values()}) > 1:
                names = list(vals)
                diff = next(first_difference(vals[a], vals[b]) for a in names for b in names if vals[a] != vals[b])
                if f == "error":
                    kinds = {n: as_dict(v).get("kind") if v else None for n, v in vals.items()}
                    what = "kind" if len(set(kinds.values())) > 1 else "offset/path"
                    key = f"stream error {what} ({groups(vals)}): " + ", ".join(f"{n}={k}" for n, k in kinds.items())
                elif mode == "m" and st[next(iter(st))] != "ok":
                    pass
                else:
                    what = "NaN bits" if "NaN bits" in diff else "keys" if ": keys" in diff else "values"
                    key = f"{f} ({groups(vals)}): {what}"
                detail = diff
                break
        if mode == "m" and key is None and st[next(iter(st))] != "ok":
            errs = {n: x["error"] for n, x in d.items()}
            if len({json.dumps(e) for e in errs.values()}) == 1:
                return None
            kinds = {n: as_dict(e)["kind"] for n, e in errs.items()}
            if len(set(kinds.values())) > 1:
                key = "error kind: " + ", ".join(f"{n}={k}" for n, k in kinds.items())
            else:
                k = next(iter(kinds.values()))
                offs = {n: json.dumps(as_dict(e).get("offset")) for n, e in errs.items()}
                what = "offset" if len(set(offs.values())) > 1 else "path"
                key = f"error {what} ({groups(errs)}), kind {k}"
            detail = first_difference(*list(errs.values())[:2]) or first_difference(*list(errs.values())[1:])
        if key is None:
            return None
        return key, detail, allowed(mode, d, st)
    return key, "", allowed(mode, d, st)


def panic_text(x):
    return str(x.get("panic", ""))


def allowed(mode, d, st):
    """The SPEC rule or known-until-merged entry that covers a disagreement, or None."""
    for name, rule in ALLOWED + KNOWN_UNTIL_MERGED:
        if rule(mode, d, st):
            return name
    return None


# Every batch decoder reads streams with their length known (Rust's from the bytes, Python's from the
# seekable BytesIO: SPEC 15.3); an implementation added with --extra whose reader cannot know it is named
# here, and then the cut-stream rule below applies to it.
# The decoded-memory budget every implementation is given (SPEC 16.2, the same rule at a smaller
# limit): mutated counts then pass it at a few MiB, not at the default GiB, so that a case stays
# cheap and the budget's boundary is crossed often. --max-decoded-bytes sets it.
BUDGET = 1 << 22

UNKNOWN_LENGTH = set()


def _stream_sides(mode, d, st):
    """The stream readers of known and unknown length, when every reader of known length says truncated
    and they agree among themselves; else None."""
    if mode != "s":
        return None
    known = [n for n in d if n not in UNKNOWN_LENGTH]
    unknown = [n for n in d if n in UNKNOWN_LENGTH]
    if not known or not unknown or any(st[n] != "error:truncated" for n in known):
        return None
    if any(d[n] != d[known[0]] for n in known):
        return None
    return known, unknown


def _cut_stream(mode, d, st):
    # SPEC 21.4 (1), 8.4 and 17.2: a reader of unknown length must agree on whether the input is valid,
    # but on a cut input may report a different error. The readers of known length say the input is cut
    # (truncated); the others fail too, yield the same records, and say truncated at another offset.
    sides = _stream_sides(mode, d, st)
    if not sides:
        return False
    known, unknown = sides
    return all(st[n] == "error:truncated" and d[n].get("records") == d[known[0]].get("records") for n in unknown)


def _no_zstd(mode, d, st):
    # SPEC 21.4 (2) and 22: "a reader built without zstd fails on it with unsupported" (the TypeScript
    # package has no zstd). The batch decoder marks such an error "zstd": true.
    excused = [n for n in d if st[n] == "error:unsupported" and as_dict(d[n].get("error")).get("zstd")]
    rest = [d[n] for n in d if n not in excused]
    return bool(excused) and all(x == rest[0] for x in rest)


def _quiet32(n):
    if isinstance(n, str) and n.startswith("NaN:") and len(n) == 12:
        return "NaN:" + format(int(n[4:], 16) | 0x00400000, "08x")
    if isinstance(n, dict):
        return {k: _quiet32(v) for k, v in n.items()}
    if isinstance(n, tuple):
        return tuple(_quiet32(x) for x in n)
    if isinstance(n, list):
        return [_quiet32(x) for x in n]
    return n


def _python_f32(mode, d, st):
    # SPEC 21.4 (4): a Python float is a double; widening a signalling f32 NaN to it sets the quiet bit.
    # Python must agree with Rust once every f32 NaN (8 hex digits) is made quiet, and TypeScript exactly.
    if "python" not in d or "rust" not in d:
        return False
    same_ts = "ts" not in d or {k: v for k, v in d["ts"].items() if k != "default"} == d["rust"]
    return same_ts and d["python"] != d["rust"] and _quiet32(d["python"]) == _quiet32(d["rust"])


ALLOWED = [
    ("SPEC 21.4 (1): cut input to a stream reader of unknown length", _cut_stream),
    ("SPEC 21.4 (2): TypeScript has no zstd (unsupported)", _no_zstd),
    ("SPEC 21.4 (4): Python's float widens a signalling f32 NaN to a quiet one", _python_f32),
]


KNOWN_UNTIL_MERGED = []


# ---------------------------------------------------------------- driver


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.impls = args.impls.split(",")
        self.batch = {
            "rust": [str(Path(args.xbf).resolve()), "--max-decoded-bytes", str(BUDGET), "vectors", "decode"],
            "ts": ["node", str(ROOT / "scripts" / "difffuzz" / "ts_decode.mjs"), str(BUDGET)],
        }
        # Another implementation (Go, when it exists) joins with a batch decoder of the same lines:
        # --extra go="go run ./go/cmd/xbfbatch".
        for spec in args.extra:
            name, _, command = spec.partition("=")
            self.batch[name] = command.split()
            self.impls.append(name)

    def decode_all(self, cases):
        answers = {}
        for name in self.impls:
            if name in self.batch:
                answers[name] = run_batch(self.batch[name], cases, self.args.timeout)
        if "python" in self.impls:
            # A Rust panic inside the package prints its message on file descriptor 2 before Python sees
            # a PanicException: the panic is reported as a class below, so the print is dropped.
            saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            try:
                answers["python"] = [json.dumps(python_decode(mode_of(b), b)) for b in cases]
            finally:
                os.dup2(saved, 2)
                os.close(saved)
                os.close(devnull)
        return [{n: norm(answers[n][i]) for n in self.impls} for i in range(len(cases))]

    def judge(self, cases):
        out = []
        for b, ans in zip(cases, self.decode_all(cases)):
            c = classify(mode_of(b), ans)
            out.append(c)
        return out

    def shrink(self, data, key):
        """Greedy: drop byte runs while the disagreement keeps its class."""
        best = data
        for _ in range(12):
            cands = set()
            for size in (8, 4, 2, 1):
                for i in range(0, len(best), max(1, size)):
                    cands.add(best[:i] + best[i + size:])
            cands.discard(best)
            cands = sorted(cands, key=len)[:600]
            if not cands:
                break
            results = self.judge(cands)
            hits = [c for c, r in zip(cands, results) if r and r[0] == key]
            if not hits or len(hits[0]) >= len(best):
                break
            best = hits[0]
        return best


def main():
    global BUDGET
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--impls", default="rust,python,ts")
    ap.add_argument("--xbf", default=str(ROOT / "target" / "debug" / "xbf"))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=COMMAND",
                    help="another implementation's batch decoder (the lines of `xbf vectors decode`)")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--max-decoded-bytes", type=int, default=BUDGET,
                    help="the decoded-memory budget given to every implementation (default 4 MiB)")
    args = ap.parse_args()
    BUDGET = args.max_decoded_bytes
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 32)
    print(f"difffuzz: seed {seed}, {args.cases} cases, implementations {args.impls}", flush=True)
    r = random.Random(seed)
    vectors = load_vectors()
    fz = Fuzzer(args)
    classes = {}
    agreed = 0
    start = time.time()
    done = 0
    while done < args.cases:
        cases = make_cases(r, min(args.batch, args.cases - done), vectors)
        for b, c in zip(cases, fz.judge(cases)):
            if c is None:
                agreed += 1
                continue
            key, detail, rule = c
            e = classes.setdefault(key, {"count": 0, "hex": b, "detail": detail, "rule": rule})
            e["count"] += 1
            if len(b) < len(e["hex"]):
                e["hex"], e["detail"] = b, detail
        done += len(cases)
        print(f"  {done} cases, {agreed} agree, {len(classes)} classes of disagreement, {time.time() - start:.0f} s",
              flush=True)
    failing = 0
    for key, e in sorted(classes.items(), key=lambda kv: (kv[1]["rule"] is not None, -kv[1]["count"])):
        if not args.no_shrink:
            e["hex"] = fz.shrink(e["hex"], key)
        verdict = e["rule"] or "NOT ALLOWED"
        failing += e["rule"] is None
        print(f"\n[{verdict}] {key}\n  {e['count']} cases; minimal reproducer ({mode_of(e['hex'])}): {e['hex'].hex()}")
        if e["detail"]:
            print(f"  first difference: {e['detail']}")
    print(f"\ndifffuzz: seed {seed}: {args.cases} cases, {agreed} agree in every implementation; "
          f"{len(classes)} classes of disagreement, {failing} not allowed by SPEC "
          f"({time.time() - start:.0f} s)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
