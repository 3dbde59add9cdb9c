"""Compiles a Python type (``list[Point]``, ``Optional[int]``, a dataclass, ...)
into the nested-tuple form the native typed decoder reads (``_native.TypedDecoder``).

Introspection is done here, once per type, because Python's own ``typing``
helpers resolve what the native side could not (string annotations, generic
aliases, TypedDict totality); the native decoder then checks each message's
metadata against the compiled form once, and builds values from the bytes.

Forms (a tag first):
  ("any",) ("int",) ("float",) ("str",) ("bool",) ("bytes",) ("none",) ("date",) ("datetime",)
  ("seq", elem, ctor)           list / set / frozenset / tuple[X, ...]; ctor None for list
  ("tuple", [elems])            tuple[X, Y]
  ("dict", key, value)
  ("optional", inner)           Optional[X], X | None
  ("literal", [values], text)
  ("enum", cls, by_value, by_name)
  ("record", kind, cls, name, [(field, form, default_kind, default)], post_init)
      kind: "dataclass" | "namedtuple" | "typeddict"
      default_kind: "required" | "value" | "factory" | "omit" (TypedDict keys that need not be there)
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import sys
import typing
from typing import Any, Dict

try:  # Python 3.10+: X | Y
    from types import UnionType as _UnionType  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    _UnionType = None  # type: ignore[assignment,misc]

_NoneType = type(None)

# Depth at which a type is taken to refer to itself (recursive types have no XBF type: SPEC.md 23.1).
_MAX_DEPTH = 64


def _is_typeddict(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, dict) and hasattr(t, "__total__") and hasattr(t, "__annotations__")


def _is_namedtuple(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


def compile_type(t: Any) -> tuple:
    return _compile(t, 0, frozenset())


def _hints(cls: Any) -> Dict[str, Any]:
    module = sys.modules.get(getattr(cls, "__module__", ""), None)
    return typing.get_type_hints(cls, globalns=getattr(module, "__dict__", None))


def _compile(t: Any, depth: int, open_records: frozenset) -> tuple:
    if depth > _MAX_DEPTH:
        raise TypeError(f"xbf: type nested more than {_MAX_DEPTH} levels: {t!r}")
    nxt = depth + 1
    if t is Any or t is object:
        return ("any",)
    if t is None or t is _NoneType:
        return ("none",)
    if t is bool:
        return ("bool",)
    if t is int:
        return ("int",)
    if t is float:
        return ("float",)
    if t is str:
        return ("str",)
    if t is bytes:
        return ("bytes",)
    if t is datetime.datetime:
        return ("datetime",)
    if t is datetime.date:
        return ("date",)
    origin = typing.get_origin(t)
    args = typing.get_args(t)
    if origin is typing.Union or (_UnionType is not None and isinstance(t, _UnionType)):
        rest = [a for a in args if a is not _NoneType]
        if len(rest) == 1 and len(args) == 2:
            return ("optional", _compile(rest[0], nxt, open_records))
        raise TypeError(f"xbf: unions other than Optional[X] / X | None are not supported: {t!r}")
    if origin is typing.Literal:
        return ("literal", list(args), " | ".join(repr(a) for a in args))
    if origin in (list, typing.List) or t in (list, typing.List):
        return ("seq", _compile(args[0] if args else Any, nxt, open_records), None)
    if origin in (set, typing.Set) or t in (set, typing.Set):
        return ("seq", _compile(args[0] if args else Any, nxt, open_records), set)
    if origin in (frozenset, typing.FrozenSet) or t in (frozenset, typing.FrozenSet):
        return ("seq", _compile(args[0] if args else Any, nxt, open_records), frozenset)
    if origin in (tuple, typing.Tuple) or t in (tuple, typing.Tuple):
        if not args:
            return ("seq", ("any",), tuple)
        if len(args) == 2 and args[1] is Ellipsis:
            return ("seq", _compile(args[0], nxt, open_records), tuple)
        if args == ((),):  # Tuple[()]
            return ("tuple", [])
        return ("tuple", [_compile(a, nxt, open_records) for a in args])
    if origin in (dict, typing.Dict) or t in (dict, typing.Dict):
        k, v = args if args else (Any, Any)
        return ("dict", _compile(k, nxt, open_records), _compile(v, nxt, open_records))
    if isinstance(t, type) and issubclass(t, enum.Enum):
        by_value = {m.value: m for m in t}
        by_name = {m.name: m for m in t}
        return ("enum", t, by_value, by_name)
    if isinstance(t, type) and (dataclasses.is_dataclass(t) or _is_namedtuple(t) or _is_typeddict(t)):
        if t in open_records:
            raise TypeError(f"xbf: recursive types have no XBF type (SPEC.md 23.1): {t.__qualname__}")
        inner = open_records | {t}
        hints = _hints(t)
        fields = []
        if dataclasses.is_dataclass(t):
            kind = "dataclass"
            for f in dataclasses.fields(t):
                form = _compile(hints.get(f.name, Any), nxt, inner)
                if f.default is not dataclasses.MISSING:
                    fields.append((f.name, form, "value", f.default))
                elif f.default_factory is not dataclasses.MISSING:
                    fields.append((f.name, form, "factory", f.default_factory))
                else:
                    fields.append((f.name, form, "required", None))
            post_init = hasattr(t, "__post_init__")
        elif _is_namedtuple(t):
            kind = "namedtuple"
            defaults = getattr(t, "_field_defaults", {})
            for name in t._fields:
                form = _compile(hints.get(name, Any), nxt, inner)
                if name in defaults:
                    fields.append((name, form, "value", defaults[name]))
                else:
                    fields.append((name, form, "required", None))
            post_init = False
        else:
            kind = "typeddict"
            required = getattr(t, "__required_keys__", set(hints) if t.__total__ else set())
            for name, h in hints.items():
                form = _compile(h, nxt, inner)
                fields.append((name, form, "required" if name in required else "omit", None))
            post_init = False
        return ("record", kind, t, t.__qualname__, fields, post_init)
    raise TypeError(f"xbf: no typed decoding for {t!r}")


_DECLARED: Dict[Any, Any] = {}


def declared_schema(cls: Any) -> Any:
    """The XBF type (vector form, for ``xbf.Schema``) that a dataclass's
    declared field types give, as SPEC.md 23.1 says for a typed writer: the
    type from the program's types, never from the values (``Optional[int]``
    is ``option<i64>`` even when every value is None, an empty list still
    ``vec<T>``). None when a field's type has no fixed XBF form here (enums,
    unions, TypedDicts, recursive types): ``dumps`` then infers from the values.
    Cached per class."""
    try:
        return _DECLARED[cls]
    except KeyError:
        pass
    try:
        schema = _declared(compile_type(cls))
    except TypeError:
        schema = None
    if len(_DECLARED) >= 256:
        _DECLARED.clear()
    _DECLARED[cls] = schema
    return schema


class _NoForm(Exception):
    pass


_PRIMS = {"int": "i64", "float": "f64", "str": "string", "bool": "bool", "bytes": "bytes", "none": "unit",
          "date": "date", "datetime": "timestamp", "any": "any"}


def _declared(form: tuple) -> Any:
    try:
        return _declared_of(form)
    except _NoForm:
        return None


def _declared_of(form: tuple) -> Any:
    tag = form[0]
    if tag in _PRIMS:
        return _PRIMS[tag]
    if tag == "seq":
        return {"vec": _declared_of(form[1])}
    if tag == "tuple":
        return {"tuple": [_declared_of(f) for f in form[1]]}
    if tag == "dict":
        return {"map": [_declared_of(form[1]), _declared_of(form[2])]}
    if tag == "optional":
        return {"option": _declared_of(form[1])}
    if tag == "literal":
        kinds = {type(v) for v in form[1]}
        if kinds == {str}:
            return "string"
        if kinds == {int}:
            return "i64"
        raise _NoForm
    if tag == "record" and form[1] == "dataclass":
        return {"struct": form[2].__name__, "fields": [[name, _declared_of(f)] for name, f, _, _ in form[4]]}
    if tag == "record" and form[1] == "namedtuple":
        return {"tuple": [_declared_of(f) for _, f, _, _ in form[4]]}
    raise _NoForm


def type_name(t: Any) -> str:
    return getattr(t, "__qualname__", None) or repr(t)


__all__ = ["compile_type", "declared_schema", "type_name"]
