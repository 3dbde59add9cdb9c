"""XBF files as Apache Arrow tables, mirroring ``pyarrow.parquet``.

- ``write_table(table, path, *, block_rows=None, zstd=None, threads=None)``
  writes a ``pyarrow.Table`` (or anything with ``__arrow_c_stream__``: a
  Polars DataFrame, a DuckDB relation's ``.arrow()``, a ``RecordBatchReader``)
  as an XBF file, one block every ``block_rows`` rows (default 131,072), with
  the zstd stage at level ``zstd`` if given, ``threads`` blocks encoded at
  once. The arrays go into the blocks' columns whole (no Python or XBF value
  a row).
- ``read_table(path, columns=None, filters=None) -> pyarrow.Table``.
  ``filters`` is pyarrow's list of ``(column, op, value)`` tuples, all of which
  a row matches (op one of ``= == != < <= > >= in not in``), or a list of such
  lists, any of which it matches. Blocks whose statistics rule a filter out
  are not read; rows are then tested.
  ``read_table(...).to_pandas()`` gives a pandas DataFrame.
- ``open(path, columns=None, filters=None, batch_size=None)`` returns a
  reader implementing the Arrow PyCapsule interface (``__arrow_c_stream__``,
  ``__arrow_c_schema__``) that reads one block at a time:
  ``pa.RecordBatchReader.from_stream(r)``, ``pl.DataFrame(r)`` (``pl.from_arrow(r)`` gives
  one struct Series, as for any Arrow stream) and DuckDB
  (``duckdb.sql("select ... from r")``) take it as it is. Iterating it gives
  ``pyarrow.RecordBatch``es. The stream can be taken once.
- ``dataset(path)`` returns the file as a ``pyarrow.dataset.Dataset`` that
  DuckDB pushes its projection into (``duckdb.sql("select origin, count(*)
  from d group by 1")`` reads only ``origin``; over an ``open()`` stream it
  reads every column).

Only the functions that return pyarrow objects import pyarrow. The type
mapping is crates/xbf-arrow's (its crate documentation and the README have
the table): options are nullable columns, vec is ``list``, struct is
``struct``, map is ``map``, enums of unit variants are dictionary-encoded
strings, date is ``date32``, timestamp is ``timestamp[us, tz=UTC]``.
"""

from __future__ import annotations

import datetime as _dt
import os
import re as _re
import tempfile
from typing import Any, Iterator, List, Optional, Sequence, Tuple

from . import _native

__all__ = ["write_table", "read_table", "open", "dataset", "XbfArrowReader"]

_PUSHED = {"=", "==", "!=", "<", "<=", ">", ">="}


def _literal(value: Any) -> str:
    """A filter value as the text the reader parses as the column's type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat(timespec="microseconds") + "Z"
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        raise TypeError("filters on bytes columns are not supported")
    return str(value)


def _is_dnf(filters: Sequence) -> bool:
    return bool(filters) and isinstance(filters[0], (list, tuple)) and len(filters[0]) > 0 and isinstance(
        filters[0][0], (list, tuple)
    )


def _split(conj: Sequence) -> Tuple[List[Tuple[str, str, str]], list]:
    """Splits one conjunction into what the reader tests and the rest."""
    pushed, rest = [], []
    for f in conj:
        if len(f) != 3:
            raise ValueError(f"a filter is (column, op, value), not {f!r}")
        col, op, val = f
        op = op.strip().lower()
        if op in _PUSHED:
            pushed.append((col, op, _literal(val)))
        elif op in ("in", "not in"):
            rest.append((col, op, val))
        else:
            raise ValueError(f"filter operator {op!r} is not one of = == != < <= > >= in, not in")
    return pushed, rest


class XbfArrowReader:
    """An open XBF file read as Arrow record batches, one block at a time."""

    def __init__(self, native: Any):
        self._native = native

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._native.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self) -> Any:
        return self._native.__arrow_c_schema__()

    @property
    def column_names(self) -> List[str]:
        return list(self._native.column_names)

    @property
    def schema(self) -> Any:
        import pyarrow as pa

        return pa.schema(self)

    def __iter__(self) -> Iterator[Any]:
        import pyarrow as pa

        return iter(pa.RecordBatchReader.from_stream(self))

    def read_all(self) -> Any:
        import pyarrow as pa

        return pa.RecordBatchReader.from_stream(self).read_all()


def open(  # noqa: A001 (mirrors pyarrow.parquet.ParquetFile / io.open)
    path: "os.PathLike[str] | str",
    columns: Optional[Sequence[str]] = None,
    filters: Optional[Sequence] = None,
    batch_size: Optional[int] = None,
    *,
    threads: Optional[int] = None,
    _blocks: Optional[Tuple[int, int]] = None,
) -> XbfArrowReader:
    """Opens an XBF file as a stream of Arrow record batches (see the module doc).

    ``filters`` here takes the operators the reader tests itself
    (``= == != < <= > >=``), all of which a row matches. ``threads``
    threads decode blocks (the calling one included; default the cores, at
    most 4, as pyarrow's readers use its thread pool; ``threads=1`` decodes
    on the calling thread only); memory holds at most ``threads + 1`` blocks
    decoded ahead of the one being read.
    """
    pushed: List[Tuple[str, str, str]] = []
    if filters:
        if _is_dnf(filters):
            raise ValueError("open() takes one list of filters (AND); read_table() also takes lists of lists (OR)")
        pushed, rest = _split(filters)
        if rest:
            raise ValueError("open() filters take = == != < <= > >=; use read_table() for 'in' and 'not in'")
    native = _native.arrow_open(
        os.fspath(path),
        list(columns) if columns is not None else None,
        pushed or None,
        batch_size,
        _blocks,
        threads,
    )
    return XbfArrowReader(native)


_DATASET_CLASS: Any = None


def _dataset_class() -> Any:
    """``XbfDataset``, made on first use so that importing xbf.arrow does not import pyarrow."""
    global _DATASET_CLASS
    if _DATASET_CLASS is not None:
        return _DATASET_CLASS
    import pyarrow as pa
    import pyarrow.dataset as ds

    class XbfDataset(ds.Dataset):
        """One XBF file as a ``pyarrow.dataset.Dataset`` (see :func:`dataset`).

        Its scans open the file again each time (so it can be scanned any
        number of times) and read only the columns asked for and those the
        filter names; pyarrow's scanner then applies the filter to the rows.
        Methods of ``Dataset`` that need a dataset of pyarrow's own (fragments,
        joins, ``replace_schema``, ...) raise ``NotImplementedError``.
        """

        def __init__(self, path: str, schema: Any):
            # Dataset.__init__ forbids direct construction; this object has
            # no C++ dataset behind it, so every method that would use one is
            # overridden here or below.
            self._path = path
            self._schema = schema

        @property
        def schema(self) -> Any:
            return self._schema

        def __repr__(self) -> str:
            return f"XbfDataset({self._path!r})"

        def __reduce__(self) -> Any:
            return (dataset, (self._path,))

        def _columns(self, columns: Any, filter: Any) -> Optional[List[str]]:  # noqa: A002
            """The columns to read: those asked for and any the filter names."""
            if columns is None or isinstance(columns, dict):
                return None
            need = [str(c) for c in columns]
            if filter is not None:
                # pyarrow has no public list of an expression's fields; a
                # column whose name is in its text is read (at worst one
                # column too many, never one too few).
                text = str(filter)
                need += [n for n in self._schema.names if n not in need and n in text]
            return need

        def scanner(self, columns: Any = None, filter: Any = None, batch_size: Optional[int] = None,  # noqa: A002
                    **kwargs: Any) -> Any:
            """A ``pyarrow.dataset.Scanner`` reading ``columns`` of the rows that match ``filter``.

            The comparisons of integer and string columns with a literal that
            ``filter`` ANDs together (DuckDB's ``WHERE delay > 300 AND origin
            = 'SFO'``) go to the reader, which skips the blocks their
            statistics rule out and drops the rows they reject; the scanner
            then applies the whole filter (the same rows, or fewer, to test).
            """
            pushed = _pushable(filter, self._schema) if filter is not None else []
            stream = open(self._path, columns=self._columns(columns, filter), filters=pushed or None,
                          batch_size=batch_size)
            reader = pa.RecordBatchReader.from_stream(stream)
            return ds.Scanner.from_batches(reader, columns=columns, filter=filter)

        def to_table(self, columns: Any = None, filter: Any = None, **kwargs: Any) -> Any:  # noqa: A002
            return self.scanner(columns=columns, filter=filter, **kwargs).to_table()

        def to_batches(self, columns: Any = None, filter: Any = None, **kwargs: Any) -> Any:  # noqa: A002
            return self.scanner(columns=columns, filter=filter, **kwargs).to_batches()

        def head(self, num_rows: int, columns: Any = None, filter: Any = None, **kwargs: Any) -> Any:  # noqa: A002
            return self.scanner(columns=columns, filter=filter, **kwargs).head(num_rows)

        def count_rows(self, filter: Any = None, **kwargs: Any) -> int:  # noqa: A002
            if filter is None:
                return sum(_native.arrow_blocks(self._path))
            return self.scanner(columns=[], filter=filter).count_rows()

    def unsupported(name: str) -> Any:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError(f"XbfDataset.{name}: read the file with to_table() first")

        return method

    for name in ("filter", "get_fragments", "join", "join_asof", "replace_schema", "sort_by", "take",
                 "_get_fragments", "_scanner_options"):
        setattr(XbfDataset, name, unsupported(name))
    for name in ("partition_expression", "_scan_options"):
        setattr(XbfDataset, name, property(unsupported(name)))
    _DATASET_CLASS = XbfDataset
    return XbfDataset


_LEAF = _re.compile(r'\(([A-Za-z_][A-Za-z0-9_]*) (==|!=|<=|>=|<|>) (-?[0-9]+|"[^"\\]*")\)')


def _pushable(filter: Any, schema: Any) -> List[Tuple[str, str, str]]:  # noqa: A002
    """The ``(column, op, value)`` comparisons that a pyarrow ``Expression``
    ANDs together and that the reader tests as pyarrow does: an integer or
    string column against a literal of its kind (a null matches neither).

    pyarrow has no public way to take an expression apart, so this reads its
    text, ``((delay > 300) and (origin == "SFO"))``, by a strict grammar;
    any other part (``or``, ``is_in``, casts, floats, whose NaN the reader
    orders differently, names or strings needing quotes) is left out, which
    at worst leaves more rows for the scanner to test.
    """
    import pyarrow as pa

    text = str(filter)
    out: List[Tuple[str, str, str]] = []
    if "\\" in text:
        return out  # an escaped character: a string the grammar does not read

    def conj(s: str) -> None:
        m = _LEAF.fullmatch(s)
        if m:
            name, op, lit = m.groups()
            if name not in schema.names:
                return
            ty = schema.field(name).type
            if lit.startswith('"'):
                if pa.types.is_string(ty) or pa.types.is_large_string(ty):
                    out.append((name, op, lit[1:-1]))
            elif pa.types.is_integer(ty):
                try:
                    pa.scalar(int(lit), type=ty)  # in the column's range, as the reader reads it
                except (OverflowError, pa.ArrowInvalid):
                    return
                out.append((name, op, lit))
            return
        # (A and B), A and B each a balanced parenthesised expression.
        if not (s.startswith("(") and s.endswith(")")):
            return
        inner, depth, quoted = s[1:-1], 0, False
        for i, ch in enumerate(inner):
            if ch == '"':
                quoted = not quoted
            elif quoted:
                continue
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif depth == 0 and inner.startswith(" and ", i):
                conj(inner[:i])
                conj(inner[i + 5:])
                return

    conj(text)
    return out


def dataset(path: "os.PathLike[str] | str") -> Any:
    """One XBF file as a ``pyarrow.dataset.Dataset`` that engines push projection into.

    DuckDB scans a Python variable holding it (``duckdb.sql("select origin,
    count(*) from d group by origin")``) by asking it for a scanner of the
    columns the query uses and its filter, so only those columns are read;
    an :func:`open` stream, by contrast, is read whole (DuckDB asks a
    ``__arrow_c_stream__`` object for all its columns). pyarrow's
    ``to_table(columns=..., filter=...)`` works the same way.
    """
    import pyarrow as pa

    path = os.fspath(path)
    schema = pa.schema(open(path))
    return _dataset_class()(path, schema)


def _mask(table: Any, conj: Sequence) -> Any:
    import pyarrow.compute as pc

    mask = None
    for col, op, val in conj:
        c = table.column(col)
        op = op.strip().lower()
        if op in ("=", "=="):
            m = pc.equal(c, val)
        elif op == "!=":
            m = pc.not_equal(c, val)
        elif op == "<":
            m = pc.less(c, val)
        elif op == "<=":
            m = pc.less_equal(c, val)
        elif op == ">":
            m = pc.greater(c, val)
        elif op == ">=":
            m = pc.greater_equal(c, val)
        elif op == "in":
            m = pc.is_in(c, value_set=_value_set(c, val))
        else:
            m = pc.invert(pc.is_in(c, value_set=_value_set(c, val)))
        m = pc.fill_null(m, False)
        mask = m if mask is None else pc.and_(mask, m)
    return mask


def _value_set(column: Any, values: Any) -> Any:
    import pyarrow as pa

    ty = column.type
    if pa.types.is_dictionary(ty):
        ty = ty.value_type
    return pa.array(list(values), type=ty)


def read_table(
    path: "os.PathLike[str] | str",
    columns: Optional[Sequence[str]] = None,
    filters: Optional[Sequence] = None,
) -> Any:
    """Reads an XBF file as a ``pyarrow.Table`` (see the module doc)."""
    import pyarrow.compute as pc

    if not filters:
        return open(path, columns=columns).read_all()
    if not _is_dnf(filters):
        pushed, rest = _split(filters)
        if not rest:
            return open(path, columns=columns, filters=[(c, o, v) for c, o, v in filters]).read_all()
        # Comparisons go to the reader (blocks skipped), 'in' is tested here.
        need = None
        if columns is not None:
            need = list(columns) + [c for c, _, _ in rest if c not in columns]
        native = _native.arrow_open(os.fspath(path), need, pushed or None, None, None)
        table = XbfArrowReader(native).read_all()
        table = table.filter(_mask(table, rest))
        return table.select(list(columns)) if columns is not None else table
    # A disjunction: every block is read, each row tested against each list.
    conjs = [list(c) for c in filters]
    need = None
    if columns is not None:
        extra = [f[0] for c in conjs for f in c if f[0] not in columns]
        need = list(columns) + list(dict.fromkeys(extra))
    table = open(path, columns=need).read_all()
    mask = None
    for conj in conjs:
        m = _mask(table, conj)
        mask = m if mask is None else pc.or_(mask, m)
    table = table.filter(mask)
    return table.select(list(columns)) if columns is not None else table


def write_table(
    table: Any,
    path: "os.PathLike[str] | str",
    *,
    block_rows: Optional[int] = None,
    zstd: Optional[int] = None,
    threads: Optional[int] = None,
) -> int:
    """Writes ``table`` (anything with ``__arrow_c_stream__``) as an XBF file.

    Blocks close every ``block_rows`` rows (131,072 by default); ``zstd``
    compresses columns at that level where it pays. ``threads`` blocks are
    encoded at once, each on a thread of its own, with memory for as many
    blocks (default 1: each block encoded as it fills); the file is the same
    whatever the number. The file is written under a temporary name next to ``path`` and renamed
    into place when whole, so a reader never sees half a file. Returns the
    number of rows written.
    """
    if not hasattr(table, "__arrow_c_stream__"):
        raise TypeError(f"write_table needs an object with __arrow_c_stream__, not {type(table).__name__}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".xbf-", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        rows = _native.arrow_write(table, tmp, block_rows, zstd, 1 if threads is None else threads)
        # mkstemp makes the file private (0600); give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return rows
