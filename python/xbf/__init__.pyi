import os
from typing import (
    Any,
    BinaryIO,
    Generic,
    Iterable,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
    overload,
)

class DecodeError(ValueError):
    kind: str
    offset: Optional[int]
    path: Optional[str]
    def __init__(self, message: str, kind: str, offset: Optional[int] = ..., path: Optional[str] = ...) -> None: ...

class ValidationError(DecodeError): ...

class EncodeError(ValueError):
    kind: str
    def __init__(self, message: str, kind: str) -> None: ...

class Variant(NamedTuple):
    name: str
    value: Any = ...

class Some(NamedTuple):
    value: Any

class Schema:
    def __init__(self, type: Any) -> None: ...
    @staticmethod
    def infer(obj: Any) -> "Schema": ...
    @staticmethod
    def infer_records(records: Any) -> "Schema": ...
    def to_python(self) -> Any: ...
    def metadata_bytes(self) -> bytes: ...
    def fingerprint(self) -> bytes: ...

class Typed:
    schema: Schema
    value: Any
    def __init__(self, schema: Union[Schema, Any], value: Any) -> None: ...

def dumps(
    obj: Any, *, version: int = ..., schema: Optional[Schema] = ..., columnar: Optional[bool] = ...,
    compress: Optional[int] = ...,
) -> bytes: ...
class Encoder:
    version: int
    schema: Optional[Schema]
    columnar: Optional[bool]
    compress: Optional[int]
    def __init__(
        self, *, version: int = ..., schema: Any = ..., columnar: Optional[bool] = ...,
        compress: Optional[int] = ...,
    ) -> None: ...
    def encode(self, obj: Any) -> bytes: ...

_T = TypeVar("_T")

@overload
def loads(data: Any, *, type: Type[_T], max_decoded_bytes: Optional[int] = ...) -> _T: ...
@overload
def loads(
    data: Any, *, type: None = ..., with_schema: bool = ..., typed_any: bool = ...,
    max_decoded_bytes: Optional[int] = ...,
) -> Any: ...

class Decoder(Generic[_T]):
    type: Type[_T]
    @overload
    def __init__(self: "Decoder[Any]") -> None: ...
    @overload
    def __init__(self, type: Type[_T]) -> None: ...
    def decode(self, data: Any, *, max_decoded_bytes: Optional[int] = ...) -> _T: ...
def dump(obj: Any, file: BinaryIO, **kwargs: Any) -> None: ...
def load(file: BinaryIO, **kwargs: Any) -> Any: ...

class StreamWriter:
    def __init__(
        self, file: BinaryIO, schema: Any = ..., *, checksums: bool = ..., block_bytes: Optional[int] = ...,
    ) -> None: ...
    @property
    def schema(self) -> Optional[Schema]: ...
    def write(self, record: Any) -> None: ...
    def write_all(self, records: Any) -> None: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> "StreamWriter": ...
    def __exit__(self, *exc: Any) -> None: ...

class StreamReader(Iterator[Any]):
    def __init__(
        self, file: BinaryIO, typed_any: bool = ..., max_decoded_bytes: Optional[int] = ...,
        length: Optional[int] = ...,
    ) -> None: ...
    @property
    def schema(self) -> Schema: ...
    def __next__(self) -> Any: ...

def iter_stream(
    file: Union[BinaryIO, str, os.PathLike, bytes], *, typed_any: bool = ..., max_decoded_bytes: Optional[int] = ...,
) -> Iterator[Any]: ...

class ColumnInfo(NamedTuple):
    path: Optional[str]
    size: int
    crc: int
    min: Any
    max: Any
    exact: bool
    nulls: int
    nans: int

class BlockInfo(NamedTuple):
    number: int
    offset: int
    size: int
    records: int
    columns: List[ColumnInfo]

class File:
    path: Any
    @property
    def schema(self) -> Schema: ...
    @property
    def read_schema(self) -> Schema: ...
    @property
    def blocks(self) -> List[BlockInfo]: ...
    @property
    def damaged(self) -> List[Tuple[int, int, int, DecodeError]]: ...
    def blocks_ruled_out(self) -> int: ...
    def read_block(self, i: int) -> List[Any]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "File": ...
    def __exit__(self, *exc: Any) -> None: ...

_Source = Union[str, os.PathLike, bytes, bytearray, memoryview, BinaryIO]
_Where = Union[None, str, Tuple[str, str, Any]]

def open(
    source: _Source,
    *,
    fields: Optional[Sequence[str]] = ...,
    where: _Where = ...,
    skip_damaged: bool = ...,
    typed_any: bool = ...,
    max_decoded_bytes: Optional[int] = ...,
) -> File: ...
def iter_file(
    source: _Source,
    *,
    fields: Optional[Sequence[str]] = ...,
    where: _Where = ...,
    typed_any: bool = ...,
    max_decoded_bytes: Optional[int] = ...,
) -> Iterator[Any]: ...
def write(
    path: Union[str, os.PathLike],
    records: Iterable[Any],
    *,
    schema: Any = ...,
    block_rows: Optional[int] = ...,
    block_bytes: Optional[int] = ...,
    zstd: Optional[int] = ...,
    append: bool = ...,
) -> int: ...
