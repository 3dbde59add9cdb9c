"""XBF files as Polars LazyFrames: ``xbf.polars.scan_xbf(path)``.

Built on Polars' IO plugin interface (``polars.io.plugins.register_io_source``):
only the columns a query uses are read (projection pushdown), the query's
filter is applied block by block as the file is read (predicate pushdown),
and its comparisons of a column with a literal, joined by ``&``, are given to
the file reader as well, which then skips the blocks whose statistics rule
them out. ``n_rows`` (``.head(n)``) stops the read once enough rows came.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator, List, Optional, Tuple

import polars as pl
from polars.io.plugins import register_io_source

from . import arrow as _xa

__all__ = ["scan_xbf"]

_OPS = {"Eq": "=", "NotEq": "!=", "Lt": "<", "LtEq": "<=", "Gt": ">", "GtEq": ">="}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _literal(node: Any) -> Optional[Any]:
    lit = node.get("Literal") if isinstance(node, dict) else None
    if not isinstance(lit, dict):
        return None
    for outer in ("Dyn", "Scalar"):
        inner = lit.get(outer)
        if isinstance(inner, dict) and len(inner) == 1:
            kind, value = next(iter(inner.items()))
            if kind in ("Int", "Float", "String") and isinstance(value, (int, float, str)):
                return value
            if isinstance(value, dict) and len(value) == 1:  # {"Int64": 3} and the like
                v = next(iter(value.values()))
                if isinstance(v, (int, float, str)) and not isinstance(v, bool):
                    return v
    return None


def _comparisons(node: Any, out: List[Tuple[str, str, Any]]) -> None:
    """The `column OP literal` terms of an AND chain (others are left to Polars)."""
    b = node.get("BinaryExpr") if isinstance(node, dict) else None
    if not isinstance(b, dict):
        return
    op = b.get("op")
    if op in ("And", "LogicalAnd"):
        _comparisons(b.get("left"), out)
        _comparisons(b.get("right"), out)
        return
    if op not in _OPS:
        return
    left, right = b.get("left"), b.get("right")
    if isinstance(left, dict) and isinstance(left.get("Column"), str):
        v = _literal(right)
        if v is not None:
            out.append((left["Column"], _OPS[op], v))
    elif isinstance(right, dict) and isinstance(right.get("Column"), str):
        v = _literal(left)
        if v is not None:
            out.append((right["Column"], _FLIP[_OPS[op]], v))


def _pushable(predicate: Any, schema: "pl.Schema") -> List[Tuple[str, str, Any]]:
    try:
        tree = json.loads(predicate.meta.serialize(format="json"))
    except Exception:  # a Polars without JSON serialization: filter rows only
        return []
    terms: List[Tuple[str, str, Any]] = []
    _comparisons(tree, terms)
    kept = []
    for col, op, v in terms:
        dtype = schema.get(col)
        if dtype is None:
            continue
        # Only literals of the column's own kind: the reader parses them as its type.
        if dtype.is_integer() and isinstance(v, int) and not isinstance(v, bool):
            kept.append((col, op, v))
        elif dtype.is_float() and isinstance(v, (int, float)) and not isinstance(v, bool):
            kept.append((col, op, v))
        elif dtype == pl.String and isinstance(v, str):
            kept.append((col, op, v))
    return kept


def scan_xbf(path: "os.PathLike[str] | str") -> "pl.LazyFrame":
    """A LazyFrame over the XBF file at ``path`` (see the module doc)."""
    path = os.fspath(path)
    # The schema from an empty read (no block): nothing of the data is read.
    schema = pl.DataFrame(_xa.open(path, threads=1, _blocks=(0, 0))).schema

    def source(
        with_columns: Optional[List[str]], predicate: Optional[Any], n_rows: Optional[int], batch_size: Optional[int]
    ) -> Iterator[pl.DataFrame]:
        filters = _pushable(predicate, schema) if predicate is not None else []
        columns = None
        if with_columns is not None:
            columns = list(with_columns)
            # The filter's columns are read too, then dropped.
            for c in predicate.meta.root_names() if predicate is not None else []:
                if c not in columns:
                    columns.append(c)
        reader = _xa.open(path, columns=columns, filters=filters or None, batch_size=batch_size)
        left = n_rows
        for batch in reader:
            df = pl.from_arrow(batch)
            assert isinstance(df, pl.DataFrame)
            if predicate is not None:
                df = df.filter(predicate)
            if with_columns is not None:
                df = df.select(with_columns)
            if left is not None:
                if left <= 0:
                    return
                df = df.head(left)
                left -= df.height
            yield df

    return register_io_source(source, schema=schema)
