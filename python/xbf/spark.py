"""XBF files in Apache Spark (PySpark 4's Python Data Source API).

``xbf.spark.register(spark)`` registers the data source ``xbf``; then

    df = spark.read.format("xbf").load("flights.xbf")      # a file or a folder of them
    df.write.format("xbf").mode("overwrite").save("out/")   # or "append"

Reading: the schema comes from the first file's metadata; each file is split
into partitions of ``blocksPerPartition`` blocks (option, default 1), so one
large file is read by several tasks; each task yields ``pyarrow.RecordBatch``es,
one block at a time. Comparison filters on top-level columns are pushed down
where the running Spark offers Python filter pushdown (Spark 4.1 and later,
with ``spark.sql.python.filterPushdown.enabled``): blocks whose statistics rule
a filter out are not read, and Spark tests the rows again.

Writing: each task writes its rows as one XBF file under a hidden temporary
folder of the target; when every task has succeeded the driver moves them
into place (after removing the target's ``*.xbf`` files with ``overwrite``),
so readers see the new files only once the job has committed, and a failed
job leaves the target as it was. Options: ``blockRows``, ``zstd`` (level).

On a cluster the same code runs unchanged as long as every executor has the
``xbf`` package installed (``pip install xbf`` in the executors' image, or
``spark.submit.pyFiles`` / ``--archives`` with a packed environment) and the
paths are on a file system every node sees (NFS, or a mount of the object
store): the driver lists the files and their footers, the executors read
their blocks.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from typing import Any, Iterator, List, Optional, Tuple

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    InputPartition,
    WriterCommitMessage,
)

from . import _native, arrow as _xa

__all__ = ["register", "XbfDataSource"]


def register(spark: Any) -> None:
    """Registers the ``xbf`` data source with a SparkSession."""
    spark.dataSource.register(XbfDataSource)


def _files(path: str) -> List[str]:
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if n.endswith(".xbf") and not n.startswith((".", "_")))
        return [os.path.join(path, n) for n in names]
    return [path]


def _spark_arrow_type(t: Any) -> Any:
    """The Arrow type Spark can take for ``t``: unsigned integers widened
    (u64 to decimal(20, 0)), dictionaries as their values, nested alike."""
    import pyarrow as pa

    if pa.types.is_uint8(t):
        return pa.int16()
    if pa.types.is_uint16(t):
        return pa.int32()
    if pa.types.is_uint32(t):
        return pa.int64()
    if pa.types.is_uint64(t):
        return pa.decimal128(20, 0)
    if pa.types.is_dictionary(t):
        return _spark_arrow_type(t.value_type)
    if pa.types.is_list(t):
        return pa.list_(pa.field(t.value_field.name, _spark_arrow_type(t.value_type), t.value_field.nullable))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field(t.value_field.name, _spark_arrow_type(t.value_type), t.value_field.nullable))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _spark_arrow_type(f.type), f.nullable) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_spark_arrow_type(t.key_type), _spark_arrow_type(t.item_type))
    if pa.types.is_fixed_size_binary(t):
        return pa.binary()
    if pa.types.is_null(t):
        return pa.string()
    return t


def _spark_schema(arrow_schema: Any) -> Any:
    import pyarrow as pa

    return pa.schema([pa.field(f.name, _spark_arrow_type(f.type), f.nullable) for f in arrow_schema])


@dataclass
class _Split(InputPartition):
    path: str
    first: int
    end: int


_OPS = {"EqualTo": "=", "GreaterThan": ">", "GreaterThanOrEqual": ">=", "LessThan": "<", "LessThanOrEqual": "<="}


class XbfDataSource(DataSource):
    """The ``xbf`` data source: XBF files read and written by Spark."""

    @classmethod
    def name(cls) -> str:
        return "xbf"

    def _path(self) -> str:
        path = self.options.get("path")
        if not path:
            raise ValueError("the xbf data source needs a path: .load(path) or .save(path)")
        return path

    def schema(self) -> Any:
        from pyspark.sql.pandas.types import from_arrow_schema

        files = _files(self._path())
        if not files:
            raise FileNotFoundError(f"no .xbf files in {self._path()}")
        return from_arrow_schema(_spark_schema(_xa.open(files[0]).schema))

    def reader(self, schema: Any) -> "DataSourceReader":
        return _Reader(self._path(), schema, int(self.options.get("blocksPerPartition", 1)))

    def writer(self, schema: Any, overwrite: bool) -> "DataSourceArrowWriter":
        return _Writer(self._path(), overwrite, self.options)


class _Reader(DataSourceReader):
    def __init__(self, path: str, schema: Any, per: int):
        import pyarrow as pa

        self.path = path
        self.schema = schema
        self.per = max(1, per)
        self.filters: List[Tuple[str, str, str]] = []
        # Columns the file reader can test: integers, floats, strings.
        files = _files(path)
        arrow_schema = _xa.open(files[0]).schema if files else pa.schema([])
        self.pushable = {}
        for f in arrow_schema:
            if pa.types.is_integer(f.type):
                self.pushable[f.name] = (int,)
            elif pa.types.is_floating(f.type):
                self.pushable[f.name] = (int, float)
            elif pa.types.is_string(f.type):
                self.pushable[f.name] = (str,)

    def pushFilters(self, filters: List[Any]) -> List[Any]:  # noqa: N802 (Spark's name)
        """Takes the comparisons of a top-level integer, float or string column
        with a literal of that kind; Spark still tests every filter on the rows
        (all are returned), so pushing is only for skipping blocks."""
        kept = []
        for f in filters:
            op = _OPS.get(type(f).__name__)
            attr = getattr(f, "attribute", ())
            value = getattr(f, "value", None)
            kinds = self.pushable.get(attr[0] if len(attr) == 1 else None, ())
            if op and not isinstance(value, bool) and isinstance(value, kinds):
                self.filters.append((attr[0], op, _xa._literal(value)))
            kept.append(f)
        return kept

    def partitions(self) -> List[InputPartition]:
        parts: List[InputPartition] = []
        for f in _files(self.path):
            n = len(_native.arrow_blocks(f))
            for a in range(0, n, self.per):
                parts.append(_Split(f, a, min(n, a + self.per)))
        return parts

    def read(self, partition: Any) -> Iterator[Any]:
        import pyarrow as pa

        split: _Split = partition
        r = _xa.XbfArrowReader(
            _native.arrow_open(split.path, None, self.filters or None, None, (split.first, split.end), 1)
        )
        stream = pa.RecordBatchReader.from_stream(r)
        target = _spark_schema(stream.schema)
        for batch in stream:
            yield batch.cast(target) if batch.schema != target else batch


@dataclass
class _Written(WriterCommitMessage):
    tmp: Optional[str]


class _Writer(DataSourceArrowWriter):
    def __init__(self, path: str, overwrite: bool, options: Any):
        self.path = path
        self.overwrite = overwrite
        self.block_rows = int(options["blockRows"]) if "blockRows" in options else None
        self.zstd = int(options["zstd"]) if "zstd" in options else None
        # One staging folder a job (the writer is made on the driver and sent
        # to the tasks), so that concurrent jobs do not clean up each other.
        self.staging = os.path.join(path, "_xbf_temporary", uuid.uuid4().hex)

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        import pyarrow as pa

        first = next(iterator, None)
        if first is None:
            return _Written(None)

        def batches() -> Iterator[Any]:
            yield first
            yield from iterator

        os.makedirs(self.staging, exist_ok=True)
        tmp = os.path.join(self.staging, f"part-{uuid.uuid4().hex}.xbf")
        reader = pa.RecordBatchReader.from_batches(first.schema, batches())
        # One thread a task: Spark runs a task on each core it was given.
        _xa.write_table(reader, tmp, block_rows=self.block_rows, zstd=self.zstd, threads=1)
        return _Written(tmp)

    def commit(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        if self.overwrite and os.path.isdir(self.path):
            for name in os.listdir(self.path):
                if name.endswith(".xbf") and not name.startswith((".", "_")):
                    os.unlink(os.path.join(self.path, name))
        for m in messages:
            if isinstance(m, _Written) and m.tmp:
                os.replace(m.tmp, os.path.join(self.path, os.path.basename(m.tmp)))
        self._clean()

    def _clean(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
        try:
            os.rmdir(os.path.dirname(self.staging))
        except OSError:
            pass  # another job's folder is still there

    def abort(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        for m in messages:
            if isinstance(m, _Written) and m.tmp:
                try:
                    os.unlink(m.tmp)
                except OSError:
                    pass
        self._clean()
