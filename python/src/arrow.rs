//! `xbf.arrow`'s native half: XBF files read as Arrow C streams and Arrow C
//! streams written as XBF files, through crates/xbf-arrow and arrow-rs's C
//! data interface (the Arrow PyCapsule protocol), so that pyarrow, Polars and
//! DuckDB read an open file with no conversion code of ours and pyarrow is
//! needed only by the Python functions that return pyarrow objects.

use std::ffi::CString;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::sync::Mutex;

use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::RecordBatchReader;
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::{PyIOError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use xbf::{FileOptions, FileReader, Op};
use xbf_arrow::{FileBatchReader, FileBatchWriter, Filter, ScanOptions};

/// Adds the module's functions and classes to `xbf._native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrowReader>()?;
    m.add_function(wrap_pyfunction!(arrow_open, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_write, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_blocks, m)?)?;
    Ok(())
}

fn arrow_err(py: Python<'_>, e: ArrowError) -> PyErr {
    match e {
        ArrowError::ExternalError(inner) => match inner.downcast::<xbf::Error>() {
            Ok(x) => crate::errors::core_err(py, *x),
            Err(other) => PyValueError::new_err(other.to_string()),
        },
        ArrowError::IoError(m, _) => PyIOError::new_err(m),
        ArrowError::NotYetImplemented(m) => PyTypeError::new_err(m),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn op(text: &str) -> PyResult<Op> {
    Ok(match text {
        "=" | "==" => Op::Eq,
        "!=" => Op::Ne,
        "<" => Op::Lt,
        "<=" => Op::Le,
        ">" => Op::Gt,
        ">=" => Op::Ge,
        other => return Err(PyValueError::new_err(format!("filter operator {other:?} is not one of = != < <= > >="))),
    })
}

type Source = BufReader<File>;

/// An open XBF file read as Arrow record batches, one block at a time: an
/// Arrow PyCapsule stream (`__arrow_c_stream__`, `__arrow_c_schema__`). The
/// stream can be taken once.
#[pyclass(module = "xbf._native")]
pub(crate) struct ArrowReader {
    schema: SchemaRef,
    reader: Mutex<Option<FileBatchReader<Source>>>,
}

#[pymethods]
impl ArrowReader {
    /// The schema, as an `arrow_schema` PyCapsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let ffi = FFI_ArrowSchema::try_from(self.schema.as_ref()).map_err(|e| arrow_err(py, e))?;
        PyCapsule::new_bound(py, ffi, Some(CString::new("arrow_schema").expect("no NUL")))
    }

    /// The batches, as an `arrow_array_stream` PyCapsule (once; the schema
    /// asked for, if any, is not applied: the file's schema is what it is).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<PyObject>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = self
            .reader
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the reader's lock is poisoned"))?
            .take()
            .ok_or_else(|| {
            PyRuntimeError::new_err("this reader's stream was already taken; open the file again")
        })?;
        let boxed: Box<dyn RecordBatchReader + Send> = Box::new(reader);
        let stream = FFI_ArrowArrayStream::new(boxed);
        PyCapsule::new_bound(py, stream, Some(CString::new("arrow_array_stream").expect("no NUL")))
    }

    /// The names of the columns read.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| f.name().clone()).collect()
    }
}

/// Opens `path` for reading as batches: `columns` (names or dotted paths),
/// `filters` ((field, op, value as text) triples, all of which a row
/// matches), `batch_size` (rows a batch at most), `blocks` (a range of
/// block numbers, for one task of several) and `threads` (threads decoding
/// blocks, the calling one included; default the cores, at most 4, as
/// pyarrow's readers use its pool; `xbf_arrow::FileBatchReader::with_threads`
/// keeps them up for the read and bounds the blocks decoded ahead).
#[pyfunction]
#[pyo3(signature = (path, columns=None, filters=None, batch_size=None, blocks=None, threads=None))]
fn arrow_open(
    py: Python<'_>,
    path: std::path::PathBuf,
    columns: Option<Vec<String>>,
    filters: Option<Vec<(String, String, String)>>,
    batch_size: Option<usize>,
    blocks: Option<(usize, usize)>,
    threads: Option<usize>,
) -> PyResult<ArrowReader> {
    let filters = filters
        .unwrap_or_default()
        .into_iter()
        .map(|(f, o, v)| Ok(Filter::new(f, op(&o)?, v)))
        .collect::<PyResult<Vec<Filter>>>()?;
    let file = File::open(&path).map_err(|e| PyIOError::new_err(format!("{}: {e}", path.display())))?;
    let reader = FileReader::open(BufReader::new(file)).map_err(|e| crate::errors::core_err(py, e))?;
    let range = match blocks {
        Some((a, b)) => a..b,
        None => 0..reader.blocks().len(),
    };
    let opts = ScanOptions { columns, filters, batch_size };
    let threads = threads.unwrap_or_else(default_threads);
    let mut extra = Vec::new();
    for _ in 1..threads.min(range.len()).max(1) {
        let f = File::open(&path).map_err(|e| PyIOError::new_err(format!("{}: {e}", path.display())))?;
        extra.push(FileReader::open(BufReader::new(f)).map_err(|e| crate::errors::core_err(py, e))?);
    }
    let r = FileBatchReader::with_reader(reader, opts, range).map_err(|e| arrow_err(py, e))?.with_threads(extra);
    Ok(ArrowReader { schema: r.schema(), reader: Mutex::new(Some(r)) })
}

/// Threads a read uses unless told: the cores, at most 4.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(4)
}

/// The record count of each block of the file at `path` (from its footer).
#[pyfunction]
fn arrow_blocks(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Vec<u64>> {
    let file = File::open(&path).map_err(|e| PyIOError::new_err(format!("{}: {e}", path.display())))?;
    let reader = FileReader::open(BufReader::new(file)).map_err(|e| crate::errors::core_err(py, e))?;
    Ok(reader.blocks().iter().map(|b| b.records).collect())
}

/// Writes what `data.__arrow_c_stream__()` gives as an XBF file at `path`
/// (written to `path` directly; the Python side handles temporary names),
/// the arrays going into the blocks' typed columns whole and `threads`
/// blocks encoded at once (default 1: on the shared 2-core machine two
/// threads measured no faster, BENCHMARKS.md). Returns the number of rows
/// written.
#[pyfunction]
#[pyo3(signature = (data, path, block_rows=None, zstd=None, threads=None))]
fn arrow_write(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: std::path::PathBuf,
    block_rows: Option<usize>,
    zstd: Option<i32>,
    threads: Option<usize>,
) -> PyResult<u64> {
    let capsule = data.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .downcast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_stream__ did not return a PyCapsule"))?;
    if capsule.name()?.map(|n| n.to_bytes()) != Some(b"arrow_array_stream".as_slice()) {
        return Err(PyTypeError::new_err("__arrow_c_stream__ returned a capsule not named arrow_array_stream"));
    }
    // SAFETY: the capsule is named "arrow_array_stream", so by the Arrow
    // PyCapsule protocol its pointer is a valid `struct ArrowArrayStream`
    // that the consumer may move out; `from_raw` moves it out and leaves a
    // released stream behind, which the capsule's destructor then ignores.
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(capsule.pointer() as *mut FFI_ArrowArrayStream) };
    let reader = RecordBatchStreamReader::try_new(stream).map_err(|e| arrow_err(py, e))?;
    let mut opts = FileOptions::default();
    if let Some(n) = block_rows {
        if n == 0 {
            return Err(PyValueError::new_err("block_rows must be at least 1"));
        }
        opts = opts.block_rows(n);
    }
    if let Some(level) = zstd {
        #[cfg(feature = "zstd")]
        {
            opts = opts.encode_options(
                xbf::EncodeOptions::default().compress_columns(Some(level)).map_err(crate::errors::encode_err)?,
            );
        }
        #[cfg(not(feature = "zstd"))]
        return Err(PyValueError::new_err(format!("zstd={level}: this build of xbf has no zstd")));
    }
    let file = File::create(&path).map_err(|e| PyIOError::new_err(format!("{}: {e}", path.display())))?;
    let schema = reader.schema();
    let threads = threads.unwrap_or(1);
    let mut w =
        FileBatchWriter::new(BufWriter::new(file), &schema, opts).map_err(|e| arrow_err(py, e))?.with_threads(threads);
    let mut rows = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| arrow_err(py, e))?;
        rows += batch.num_rows() as u64;
        w.write(&batch).map_err(|e| arrow_err(py, e))?;
    }
    let out = w.finish().map_err(|e| arrow_err(py, e))?;
    out.into_inner().map_err(|e| PyIOError::new_err(e.to_string()))?.sync_all()?;
    Ok(rows)
}
