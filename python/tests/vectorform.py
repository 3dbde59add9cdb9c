"""The conformance vectors' value form, turned into the Python form of xbf."""
import datetime
import math

import xbf

INTS = {"u8", "u16", "u32", "u64", "u128", "u256", "i8", "i16", "i32", "i64", "i128", "i256"}
EPOCH = datetime.date(1970, 1, 1)
UTC = datetime.timezone.utc


def is_optional_key(t):
    return (isinstance(t, dict) and t.get("enum") == "json.optional"
            and [v[0] for v in t["variants"]] == ["absent", "present"] and t["variants"][0][1] == "unit")


def to_python(t, v):
    if isinstance(t, str):
        if t == "any":
            raise AssertionError("any is handled by the caller")
        base = t[len("fixed-"):] if t.startswith("fixed-") else t
        if base in INTS:
            return int(v)
        if base in ("f32", "f64"):
            return float(v)
        if base == "bytes":
            return bytes.fromhex(v)
        if base in ("string", "bool"):
            return v
        if base == "unit":
            assert v is None
            return None
        if base == "date":
            days = int(v)
            try:
                return EPOCH + datetime.timedelta(days=days)
            except OverflowError:
                return days
        if base == "timestamp":
            micros = int(v)
            try:
                return datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=micros)
            except OverflowError:
                return micros
        raise AssertionError(f"unknown type {t}")
    if t == "any" or "any" in t and False:
        pass
    if "vec" in t:
        return [element(t["vec"], x) for x in v]
    if "array" in t:
        return [element(t["array"], x) for x in v]
    if "tuple" in t:
        return tuple(element(et, x) for et, x in zip(t["tuple"], v))
    if "option" in t:
        if v is None:
            return None
        inner = element(t["option"], v["some"])
        return xbf.Some(inner) if inner is None or isinstance(inner, xbf.Some) else inner
    if "map" in t:
        kt, vt = t["map"]
        pairs = [(element(kt, k), element(vt, x)) for k, x in v]
        try:
            d = dict(pairs)
            if len(d) == len(pairs):
                return d
        except TypeError:
            pass
        return pairs
    if "struct" in t:
        out = {}
        for name, ft in t["fields"]:
            fv = v[name]
            if is_optional_key(ft):
                if fv["variant"] == "absent":
                    continue
                out[name] = element(ft["variants"][1][1], fv["value"])
            else:
                out[name] = element(ft, fv)
        return out
    if "enum" in t:
        variants = dict((n, vt) for n, vt in t["variants"])
        return xbf.Variant(v["variant"], element(variants[v["variant"]], v["value"]))
    raise AssertionError(f"unknown type {t}")


def element(t, v):
    if t == "any":
        return xbf.Typed(xbf.Schema(v["type"]), element(v["type"], v["value"]))
    return to_python(t, v)


def same(a, b):
    """Equal, with types, key order, -0.0 and NaN told apart as the vectors do."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, xbf.Typed):
        return a.schema == b.schema and same(a.value, b.value)
    return a == b
