"""XBF, the Xtensible Binary Format, for Python: type metadata once, values bare.

``dumps`` infers one XBF type for the whole object (as the Rust core's JSON
mapping does) and writes a self-describing message; ``loads`` reads any XBF
message, v1 or XBF 2. Both run in native code over the Rust core.

Type mapping (Python -> XBF, and what ``loads`` gives back):

=============================  =====================================  ==========================
Python                         XBF                                    loads gives
=============================  =====================================  ==========================
None                           unit, or the absent value of option    None
bool                           bool                                   bool
int                            u64/u128/u256 if none is negative,     int (every integer type,
                               else i64/i128/i256 (narrowest that     fixed or varint, any width)
                               holds every value at that place);
                               wider than 256 bits: OverflowError
float                          f64                                    float (f32 too)
str                            string                                 str
bytes, bytearray, memoryview   bytes                                  bytes
list                           vec (mixed element kinds: vec<any>)    list (arrays too)
tuple                          tuple (positions typed one by one)     tuple
dict with str keys             struct "Object" (fields in key order)  dict
dict with other keys           map<K, V>                              dict (or a list of
                                                                      (key, value) pairs when
                                                                      Python cannot tell the
                                                                      keys apart or hash them)
dataclass instance             struct named after the class           dict
datetime.date                  date                                   datetime.date (int days
                                                                      when out of Python's range)
datetime.datetime              timestamp (naive = UTC; aware is       datetime in UTC, aware
                               converted to UTC); microseconds        (int micros when out of
                                                                      Python's range)
xbf.Variant(name, value)       enum variant (needs an xbf.Schema)     xbf.Variant
xbf.Typed(schema, value)       a value of an explicit type (in any)   with typed_any=True
xbf.Some(value)                present option holding None/unit       xbf.Some(None) only then
=============================  =====================================  ==========================

In a list of dicts with str keys, the rows become one ``vec<struct Object>``:
a key some rows lack becomes ``enum "json.optional" { absent, present: T }``
(the row comes back without the key), None next to values becomes
``option<T>``, keys in opposite orders in two dicts or values of different kinds
become ``any``. Dicts whose keys are data (more than 64 distinct keys at one
place, and more than 8 times as many as a dict there has on average: ids,
dates) become ``map<string, T>``. The rules are the Rust core's, shared with
``xbf from-json`` (SPEC.md section 19.1). A list of dicts round-trips
exactly, key order included.
"""

from __future__ import annotations

import io
import os
from typing import Any, BinaryIO, Iterator, NamedTuple, Optional

__all__ = [
    "dumps", "loads", "dump", "load", "Schema", "DecodeError", "EncodeError", "Variant", "Typed", "Some",
    "StreamWriter", "StreamReader", "iter_stream", "Decoder", "Encoder", "ValidationError", "File", "BlockInfo",
    "ColumnInfo", "iter_file",
]
# xbf.open and xbf.write are left out of __all__: `from xbf import *` would hide the builtin open.


class DecodeError(ValueError):
    """A message that cannot be decoded.

    ``str(err)`` is the Rust core's message (``at byte 44, in Point.last:
    truncated: ...``); ``kind`` the stable kind name (``"truncated"``,
    ``"invalid-utf8"``, ...), ``offset`` the byte offset (or None) and
    ``path`` the fields and elements where it happened (or None).
    """

    def __init__(self, message: str, kind: str, offset: Optional[int] = None, path: Optional[str] = None):
        super().__init__(message)
        self.kind = kind
        self.offset = offset
        self.path = path


class ValidationError(DecodeError):
    """A message whose values do not fit the type asked for (``loads(data, type=T)``,
    ``Decoder(T)``): kind ``"type-mismatch"`` (SPEC.md 23.2), a ``DecodeError``
    and so a ``ValueError``. The message starts with the path
    (``$[3].delay: expected int, got string``); ``path`` holds it without the
    ``$`` (``[3].delay``), ``offset`` the byte of the value where the decoder
    read it (None when it was read through ``any`` or from columns).
    """


class EncodeError(ValueError):
    """An object that has no XBF form within the format's limits.

    ``kind`` is the stable kind name, as for DecodeError: ``"too-deep"`` for
    data nested more than 128 levels (or a reference cycle), raised before
    Python's own recursion limit is near.
    """

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


class Variant(NamedTuple):
    """A value of an XBF enum: the variant's name and its payload (None for unit)."""
    name: str
    value: Any = None


class Some(NamedTuple):
    """A present option whose value is None (``option<unit>``, ``option<option<T>>``)."""
    value: Any


class Typed:
    """A value with its own explicit XBF type: what an ``any`` holds."""

    __slots__ = ("schema", "value")

    def __init__(self, schema: "Schema", value: Any):
        if not isinstance(schema, Schema):
            schema = Schema(schema)
        self.schema = schema
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Typed) and self.schema == other.schema and self.value == other.value

    def __hash__(self) -> int:
        try:
            return hash((self.schema, self.value))
        except TypeError:
            return hash(self.schema)

    def __repr__(self) -> str:
        return f"xbf.Typed({str(self.schema)!r}, {self.value!r})"


# The extension's allocator (mimalloc) reads its options once, when the
# extension loads. It gives freed pages back to the OS 1 s after they are
# freed by default, so a large read (xbf.arrow.read_table of 3M rows) that
# follows another by more than a second page-faulted every page of its
# output again (about 33,000 faults, a third of its CPU time, in
# BENCHMARKS.md's "xbf.arrow on flights-3m"); after 10 s the pages are reused.
# Set here, unless the user set it, only for the extension's load.
_PURGE = "MIMALLOC_PURGE_DELAY"
_purge_set = _PURGE not in os.environ
if _purge_set:
    os.environ[_PURGE] = "10000"
try:
    from . import _native, _typed  # noqa: E402
finally:
    if _purge_set:
        del os.environ[_PURGE]

Schema = _native.Schema
_native._init(Variant, Typed, Some, DecodeError, EncodeError)


def dumps(obj: Any, *, version: int = 2, schema: Optional[Schema] = None, columnar: Optional[bool] = None,
          compress: Optional[int] = None) -> bytes:
    """Encodes ``obj`` as one XBF message (XBF 2 unless ``version=1``).

    The type is inferred from the whole object (see the module docs) unless
    ``schema`` gives it. ``columnar`` picks the layout of an XBF 2 message
    (SPEC.md section 22): ``None`` (the default) writes columns when the value
    holds at least 16 repeated items (list elements near the root) and the
    columns come out smaller than the rows, ``True`` always writes columns,
    ``False`` always rows. ``compress=level`` also compresses each column
    with zstd where that makes it smaller. ``loads`` reads either layout.

    Raises TypeError naming an object that has no XBF form, OverflowError
    for an int that does not fit, xbf.EncodeError (a ValueError) of kind
    ``"too-deep"`` for data nested more than 128 levels, ValueError for a type that ``version``
    lacks (v1 has no option, enum, any, columns, ...).

    A dataclass instance, or a list of instances of one dataclass, is written
    with the type its fields declare (``int`` as i64, ``Optional[X]`` as
    option, ``list[X]`` as vec, nested dataclasses as structs), so that an
    empty list or a None still carries its type; where a declared type has
    no XBF form here (enums, unions) or a value does not fit it, the type is
    inferred from the values instead.
    """
    if schema is not None and not isinstance(schema, Schema):
        schema = Schema(schema)
    if columnar is not None:
        columnar = bool(columnar)
    return _encode(obj, version, schema, columnar, compress)


def _encode(obj: Any, version: int, schema: Optional[Schema], columnar: Optional[bool],
            compress: Optional[int], learned: Any = None) -> bytes:
    """``dumps`` once its options are checked (``Encoder.encode`` calls this too, with
    what it learned)."""
    # Dataclasses (or lists of them) only: checked inline, as this runs on every call.
    cls = obj[0].__class__ if obj.__class__ is list and obj else obj.__class__
    if schema is None and version == 2 and cls not in _BUILTINS and hasattr(cls, "__dataclass_fields__"):
        declared = _declared_type(obj)
        if declared is not None:
            try:
                return _native.dumps(obj, version, declared, columnar, compress)
            except (TypeError, OverflowError):
                pass  # values that break their declared types: typed from the values, as before
    return _native.dumps(obj, version, schema, columnar, compress, learned)


class Encoder:
    """Encodes objects with one set of ``dumps`` options, as msgspec's ``Encoder``:
    ``enc = xbf.Encoder(columnar=True); enc.encode(obj)`` gives the bytes of
    ``xbf.dumps(obj, columnar=True)``.

    The options are checked once, here (a ValueError for a combination
    ``dumps`` refuses), and a ``schema`` given as a type form is made a
    ``Schema`` once; each ``encode`` then goes straight to the native encoder.
    The declared types of dataclasses are learned once per class (shared with
    ``dumps``).

    It also learns from what it encodes: for a list of flat records (dicts of
    str keys and scalar values), the type inferred for them and the buffers
    of their columns are kept, and the next call reuses the type when its
    records have the same keys, in one order, with the same kinds of values
    (all of them still read and checked: a wider int, a new null, another key
    make it infer and learn again). The bytes are always those of ``dumps``.
    An encoder is meant for one thread at a time; shared, it stays correct
    but may learn less.
    """

    __slots__ = ("version", "schema", "columnar", "compress", "_learned")
    _OPTIONS = ("version", "schema", "columnar", "compress")

    def __init__(self, *, version: int = 2, schema: Any = None, columnar: Optional[bool] = None,
                 compress: Optional[int] = None):
        if version not in (1, 2):
            raise ValueError(f"XBF has versions 1 and 2, not {version}")
        if schema is not None and not isinstance(schema, Schema):
            schema = Schema(schema)
        if columnar is not None:
            columnar = bool(columnar)
        if compress is not None:
            if isinstance(compress, bool) or not isinstance(compress, int):
                raise TypeError(f"compress is a zstd level (an int), not {compress!r}")
            if version == 1:
                raise ValueError("XBF v1 has no columnar layout (use version=2)")
            if columnar is False:
                raise ValueError("compress applies to columns: it needs columnar=True or None")
        if version == 1 and columnar:
            raise ValueError("XBF v1 has no columnar layout (use version=2)")
        self.version, self.schema, self.columnar, self.compress = version, schema, columnar, compress
        self._learned = _native.Learned()
        if compress is not None:
            # A build without zstd refuses any level: said now, not at the first encode.
            _native.dumps([0], version, None, columnar, compress)

    def encode(self, obj: Any) -> bytes:
        """The XBF message of ``obj`` (see ``dumps``)."""
        return _encode(obj, self.version, self.schema, self.columnar, self.compress, self._learned)

    def __repr__(self) -> str:
        opts = [f"{k}={getattr(self, k)!r}" for k in self._OPTIONS
                if getattr(self, k) != {"version": 2}.get(k)]
        return f"xbf.Encoder({', '.join(opts)})"


# Types that are never dataclasses, skipped before the (slower, failing) attribute lookup.
_BUILTINS = frozenset({dict, list, tuple, str, int, float, bool, bytes, bytearray, type(None)})


def _declared_type(obj: Any) -> Optional[Schema]:
    """The declared type of a dataclass instance, or of a list of instances of one
    dataclass (SPEC.md 23.1: a typed writer's type comes from the program's types)."""
    # Checked inline (not dataclasses.is_dataclass): this runs on every dumps call.
    cls = obj.__class__
    wrap = cls is list
    if wrap:
        if not obj:
            return None
        cls = obj[0].__class__
    if not hasattr(cls, "__dataclass_fields__") or isinstance(obj[0] if wrap else obj, type):
        return None
    if wrap and not all(x.__class__ is cls for x in obj):
        return None
    key = (cls, wrap)
    try:
        return _DECLARED_SCHEMAS[key]
    except KeyError:
        pass
    s = _typed.declared_schema(cls)
    schema = None if s is None else Schema({"vec": s} if wrap else s)
    if len(_DECLARED_SCHEMAS) >= 256:
        _DECLARED_SCHEMAS.clear()
    _DECLARED_SCHEMAS[key] = schema
    return schema


_DECLARED_SCHEMAS: "dict[Any, Optional[Schema]]" = {}


def loads(data: Any, *, type: Any = None, with_schema: bool = False, typed_any: bool = False,
          max_decoded_bytes: Optional[int] = None) -> Any:
    """Decodes one whole XBF message (v1 or XBF 2) from bytes-like ``data``.

    With ``with_schema=True`` returns ``(Schema, value)``. With
    ``typed_any=True`` the values of ``any`` come back as ``xbf.Typed``.
    ``max_decoded_bytes`` is the decoded-memory budget (SPEC.md 16.2;
    default 2**30): values that take no input, and in columns every value,
    cost 48 bytes each; past it decoding fails with kind ``"too-large"``
    before anything is allocated.
    Raises ``xbf.DecodeError`` on any damage, and never anything else for
    bad input: an internal failure of the decoder (a bug) is a
    ``DecodeError`` of kind ``"internal"``.

    With ``type=T`` the message is read into ``T`` (see ``Decoder``) and a
    value that does not fit raises ``xbf.ValidationError``.
    """
    if not isinstance(data, bytes):
        data = bytes(data)
    if type is not None:
        if with_schema or typed_any:
            raise TypeError("loads: type= cannot be combined with with_schema or typed_any")
        return _decoder_for(type).decode(data, max_decoded_bytes=max_decoded_bytes)
    return _native.loads(data, with_schema, typed_any, max_decoded_bytes)


class Decoder:
    """Reads messages into one Python type ``T``, as msgspec's ``Decoder(T)``;
    ``Decoder()`` (``T`` = ``Any``) reads them as ``loads`` does.

    ``T`` is built from dataclasses, ``typing.TypedDict``, ``typing.NamedTuple``,
    ``list``/``tuple``/``dict``/``set``/``frozenset``, ``Optional[X]``/``X | None``,
    ``Literal``, ``enum.Enum``, ``datetime.date``/``datetime.datetime``, ``bytes``,
    ``int``/``float``/``str``/``bool`` and ``Any``. Fields are matched by name
    (SPEC.md 23.2): fields missing from the data take their defaults, extra
    ones are skipped; ints read into floats; an ``enum.Enum`` reads from an
    XBF enum by variant name or from a value (string, int) by value.

    The writer's type (the message's metadata) is checked against ``T`` once
    per metadata and the plan kept, so a stream of messages of one type pays
    it once; values are then built straight from the bytes. A value that does
    not fit raises ``xbf.ValidationError`` naming its path; a damaged message
    raises ``xbf.DecodeError`` as ``loads`` does. Dataclasses are built
    without calling ``__init__`` (then ``__post_init__`` if defined), as msgspec does.
    """

    __slots__ = ("type", "_native")

    def __init__(self, type: Any = Any):
        # With no type (or ``Any``) it decodes as ``loads`` does, as msgspec's ``Decoder()``.
        self.type = type
        self._native = None if type is Any else _native.TypedDecoder(_typed.compile_type(type))

    def decode(self, data: Any, *, max_decoded_bytes: Optional[int] = None) -> Any:
        if not isinstance(data, bytes):
            data = bytes(data)
        if self._native is None:
            return _native.loads(data, False, False, max_decoded_bytes)
        return self._native.decode(data, max_decoded_bytes)

    def __repr__(self) -> str:
        return f"xbf.Decoder({_typed.type_name(self.type)})"


_DECODERS: "dict[Any, Decoder]" = {}


def _decoder_for(t: Any) -> Decoder:
    try:
        return _DECODERS[t]
    except KeyError:
        pass
    except TypeError:  # an unhashable type form: compiled every time
        return Decoder(t)
    d = Decoder(t)
    if len(_DECODERS) >= 256:
        _DECODERS.clear()
    _DECODERS[t] = d
    return d


def dump(obj: Any, file: BinaryIO, **kwargs: Any) -> None:
    """Writes ``dumps(obj, **kwargs)`` to a binary file."""
    file.write(dumps(obj, **kwargs))


def load(file: BinaryIO, **kwargs: Any) -> Any:
    """Reads a whole binary file as one message (see ``loads``)."""
    return loads(file.read(), **kwargs)


class StreamWriter:
    """Writes a record stream: the header and the record type once, then
    records in blocks (with a CRC-32C each if ``checksums``).

    ``schema`` is an ``xbf.Schema`` (or its vector form) or ``None`` to infer
    the type from the first record written (later records must fit it; use
    ``Schema.infer_records(sample)`` for rows whose keys or nulls vary).
    Use as a context manager, or call ``close()``; the file stays open.
    """

    def __init__(self, file: BinaryIO, schema: Any = None, *, checksums: bool = False,
                 block_bytes: Optional[int] = None):
        self._file = file
        self._checksums = checksums
        self._block_bytes = block_bytes
        self._w = None
        if schema is not None:
            self._start(schema if isinstance(schema, Schema) else Schema(schema))

    def _start(self, schema: Schema) -> None:
        self._w = _native.StreamWriter(self._file, schema, self._checksums, self._block_bytes)

    @property
    def schema(self) -> Optional[Schema]:
        return None if self._w is None else self._w.schema

    def write(self, record: Any) -> None:
        if self._w is None:
            self._start(Schema.infer(record))
        self._w.write(record)

    def write_all(self, records: Any) -> None:
        for r in records:
            self.write(r)

    def flush(self) -> None:
        if self._w is not None:
            self._w.flush()

    def close(self) -> None:
        if self._w is not None:
            self._w.close()

    def __enter__(self) -> "StreamWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


StreamReader = _native.StreamReader
StreamReader.__doc__ = (
    "StreamReader(file, typed_any=False, max_decoded_bytes=None): reads a record stream lazily from a "
    "binary file: iterate for the records; damage raises xbf.DecodeError after every record before it. "
    "`.schema` is the record type. `max_decoded_bytes` is the decoded-memory budget of each block "
    "(SPEC.md 16.2, default 2**30). A seekable file's length is known, so every count is checked "
    "against it and errors are exactly those of SPEC.md 17.2; from a pipe a cut stream may be "
    "reported with another error (SPEC.md 15.3)."
)


def iter_stream(file: Any, *, typed_any: bool = False, max_decoded_bytes: Optional[int] = None) -> Iterator[Any]:
    """Yields the records of a record stream one by one, holding one block in
    memory. ``file`` is a binary file object, a path, or bytes."""
    if isinstance(file, (bytes, bytearray, memoryview)):
        file = io.BytesIO(bytes(file))
    if isinstance(file, (str, os.PathLike)):
        with io.open(file, "rb") as f:
            yield from StreamReader(f, typed_any, max_decoded_bytes)
        return
    yield from StreamReader(file, typed_any, max_decoded_bytes)


# ------------------------------------------------------------------ files

class ColumnInfo(NamedTuple):
    """One column of one block of an XBF file, as the footer gives it (SPEC.md 24.3, 24.4).

    ``path`` is the column's name (``delay``, ``origin.(lengths)``; None for
    a type with ``any``, whose columns vary by block); ``size`` its bytes,
    length prefix included; ``min`` and ``max`` bound its values (None when
    the footer keeps no range), ``exact`` says they are values of the column;
    ``nulls`` and ``nans`` count absent and NaN values.
    """
    path: Optional[str]
    size: int
    crc: int
    min: Any
    max: Any
    exact: bool
    nulls: int
    nans: int


class BlockInfo(NamedTuple):
    """One block of an XBF file: its number (from 0), byte range, record count and columns."""
    number: int
    offset: int
    size: int
    records: int
    columns: "list[ColumnInfo]"


class File:
    """An XBF file opened from its footer (``xbf.open``).

    Iterate for the records (one block in memory at a time; each ``iter()``
    is a new pass); ``len()`` is the file's record count (before any
    ``where``); ``schema`` the file's record type and ``read_schema`` that of
    the records handed out (``fields``); ``blocks`` the footer's blocks with
    their statistics; ``read_block(i)`` block ``i``'s records as a list.
    With ``skip_damaged`` a damaged block is left out and listed in
    ``damaged`` as ``(index, start, end, DecodeError)``; without it, it
    raises ``xbf.DecodeError`` (after every record before it).
    """

    __slots__ = ("_r", "_blocks", "path")

    def __init__(self, native: Any, path: Any = None):
        self._r = native
        self._blocks: Optional[list] = None
        self.path = path

    @property
    def schema(self) -> Schema:
        return self._r.schema

    @property
    def read_schema(self) -> Schema:
        return self._r.read_schema

    @property
    def blocks(self) -> "list[BlockInfo]":
        if self._blocks is None:
            self._blocks = [
                BlockInfo(i, off, size, n, [ColumnInfo(*c) for c in cols])
                for i, (off, size, n, cols) in enumerate(self._r._blocks())
            ]
        return self._blocks

    @property
    def damaged(self) -> "list[tuple[int, int, int, DecodeError]]":
        return self._r.damaged

    def blocks_ruled_out(self) -> int:
        """How many blocks ``where`` rules out by their statistics (none of their bytes are read)."""
        return self._r.blocks_ruled_out()

    def read_block(self, i: int) -> "list[Any]":
        return self._r.read_block(i)

    def __len__(self) -> int:
        return len(self._r)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._r)

    def close(self) -> None:
        self._r = _Closed()

    def __enter__(self) -> "File":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<xbf.File {self.path!r}: {len(self)} records of {self.schema}>"


class _Closed:
    def __getattr__(self, name: str) -> Any:
        raise ValueError("the XBF file is closed")

    def __len__(self) -> int:
        raise ValueError("the XBF file is closed")

    def __iter__(self) -> Any:
        raise ValueError("the XBF file is closed")


def _where(where: Any) -> Optional[str]:
    if where is None or isinstance(where, str):
        return where
    field, op, value = where
    return f'{field} {op} "{value}"' if isinstance(value, str) else f"{field} {op} {value}"


def open(source: Any, *, fields: Optional["list[str]"] = None, where: Any = None, skip_damaged: bool = False,
         typed_any: bool = False, max_decoded_bytes: Optional[int] = None) -> File:
    """Opens an XBF file (SPEC.md section 24) from its footer.

    ``source`` is a path, bytes, or a seekable binary file object.
    ``fields`` (dotted paths) reads only those fields' columns; ``where``
    (``"delay > 300"``, or ``("delay", ">", 300)``; OP one of ``= != < <= > >=``)
    keeps the records that match and skips, unread, the blocks whose
    statistics rule it out. A file without a footer (its writer died) raises
    ``xbf.DecodeError`` of kind ``"truncated"``: ``iter_file`` reads its
    whole blocks. ``max_decoded_bytes`` is the decoded-memory budget of each
    block (SPEC.md 16.2).
    """
    if isinstance(source, (bytearray, memoryview)):
        source = bytes(source)
    native = _native.FileReader(source, None if fields is None else list(fields), _where(where), skip_damaged,
                                typed_any, max_decoded_bytes)
    return File(native, source if isinstance(source, (str, os.PathLike)) else None)


def iter_file(source: Any, *, fields: Optional["list[str]"] = None, where: Any = None, typed_any: bool = False,
              max_decoded_bytes: Optional[int] = None) -> Iterator[Any]:
    """Yields the records of an XBF file read forward, block by block (SPEC.md
    24.6): needs nothing but the bytes in order, so it reads a pipe or a file
    whose writer died (every whole block, then ``DecodeError`` ``"truncated"``).
    ``source`` is a path, bytes or a binary file object."""
    if isinstance(source, (bytearray, memoryview)):
        source = bytes(source)
    return _native.FileStream(source, None if fields is None else list(fields), _where(where), typed_any,
                              max_decoded_bytes)


def write(path: Any, records: Any, *, schema: Any = None, block_rows: Optional[int] = None,
          block_bytes: Optional[int] = None, zstd: Optional[int] = None, append: bool = False) -> int:
    """Writes ``records`` (any iterable) as an XBF file at ``path`` and returns how many were written.

    The file is written under a temporary name beside ``path`` and renamed
    into place once whole; memory holds one block. The record type is
    ``schema``, else the one ``dumps`` infers for the records (for a list or
    tuple all of them; for another iterable the first block of them, which
    later records must fit: give ``schema=Schema.infer_records(sample)``
    otherwise). Blocks close at ``block_rows`` records (default 131,072) or
    about ``block_bytes`` of values (default 32 MiB); ``zstd=level`` adds the
    zstd stage to each column where it pays.

    With ``append=True`` the records are added to the finished XBF file at
    ``path`` as new blocks and a new footer (SPEC.md 24.5), in place; they
    must fit the file's type, and a failed append cuts the file back to
    what it was.
    """
    if schema is not None and not isinstance(schema, Schema):
        schema = Schema(schema)
    return _native.write_file(os.fspath(path), records, schema, block_rows, block_bytes, zstd, append)
