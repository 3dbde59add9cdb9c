//! XBF files (SPEC.md §24) from Python, over the core's `FileReader`,
//! `FileStreamReader` and `FileWriter`: `xbf.open` reads a file from its
//! footer (any block directly, only the fields asked for, blocks skipped by
//! their statistics), `xbf.iter_file` reads one forward (pipes, unfinished
//! files), `xbf.write` writes records one block at a time. Python objects
//! and core values are converted by the binding's own functions (`to_value`
//! and the rows encoder one way, `ToPy` the other), as `dumps`, `loads` and
//! the record streams convert them.

use std::collections::VecDeque;
use std::fs;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use xbf::{DecodeOptions, EncodeOptions, FileOptions, Metadata, Predicate, ReadOptions, Value, Version};

use crate::columns::{to_value, vplan, VPlan};
use crate::decode::decode_options;
use crate::encode::Enc;
use crate::errors::{core_err, encode_err, guarded};
use crate::infer::{inferred, Infer, Shape};
use crate::plan::{make_plan, Plan};
use crate::schema::Schema;
use crate::streams::PyReader;
use crate::to_py::ToPy;

/// What a file is read from: a file on disk, bytes in memory or a seekable
/// Python file object.
trait Source: Read + Seek + Send {}
impl<T: Read + Seek + Send> Source for T {}

/// A seekable Python binary file (`io.BytesIO`, an open file).
struct PySeekable(PyReader);

impl Read for PySeekable {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Seek for PySeekable {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let (offset, whence) = match pos {
            SeekFrom::Start(n) => (n as i64, 0),
            SeekFrom::Current(n) => (n, 1),
            SeekFrom::End(n) => (n, 2),
        };
        Python::with_gil(|py| {
            self.0
                 .0
                .bind(py)
                .call_method1("seek", (offset, whence))
                .and_then(|p| p.extract())
                .map_err(io::Error::other)
        })
    }
}

/// The bytes of `source` if it is `bytes` (the Python side turns other
/// bytes-like objects into `bytes`).
fn bytes_of(source: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    source.downcast::<PyBytes>().ok().map(|b| b.as_bytes().to_vec())
}

/// A path given as `str` or `os.PathLike`, if `source` is one.
fn path_of(source: &Bound<'_, PyAny>) -> PyResult<Option<PathBuf>> {
    let os = source.py().import_bound("os")?;
    if source.is_instance(&os.getattr("PathLike")?)? || source.is_instance_of::<pyo3::types::PyString>() {
        return Ok(Some(source.extract()?));
    }
    Ok(None)
}

fn open_path(path: &Path) -> PyResult<fs::File> {
    fs::File::open(path).map_err(PyErr::from)
}

/// The read a caller asked for: fields (dotted paths) and a filter
/// (`"FIELD OP VALUE"`).
fn read_options(fields: Option<Vec<String>>, filter: Option<&str>, skip_damaged: bool) -> PyResult<ReadOptions> {
    let mut q = ReadOptions::default().skip_damaged(skip_damaged);
    if let Some(f) = fields {
        q = q.fields(&f);
    }
    if let Some(w) = filter {
        q = q.filter(Predicate::parse(w).map_err(|e| PyValueError::new_err(e.to_string()))?);
    }
    Ok(q)
}

/// Core values to Python objects, one `ToPy` for a block so that struct
/// keys are made once a block.
fn block_to_py(py: Python<'_>, values: &[Value], typed_any: bool) -> PyResult<VecDeque<PyObject>> {
    let mut to = ToPy { typed_any, structs: std::collections::HashMap::new(), last: None };
    values.iter().map(|v| to.value(py, v).map(Bound::unbind)).collect()
}

/// An XBF file opened from its footer (`xbf.open`).
#[pyclass(module = "xbf._native", unsendable)]
pub(crate) struct FileReader {
    inner: xbf::FileReader<Box<dyn Source>>,
    q: ReadOptions,
    typed_any: bool,
    /// `(index, start, end, DecodeError)` of each block skipped as damaged
    /// (once, however many passes met it).
    damaged: Vec<(usize, PyObject)>,
}

impl FileReader {
    /// Block `i`'s records as the read asks, as Python objects; a damaged
    /// block is `Ok(None)` (and listed) when damaged blocks are skipped.
    fn block(&mut self, py: Python<'_>, i: usize) -> PyResult<Option<VecDeque<PyObject>>> {
        let (r, q) = (&mut self.inner, &self.q);
        let read = guarded(py, || Ok(py.allow_threads(|| r.read_block(i, q))))?;
        match read {
            Ok(values) => block_to_py(py, &values, self.typed_any).map(Some),
            Err(e) if self.q.skips_damaged() => {
                let range = self.inner.blocks()[i].range();
                if !self.damaged.iter().any(|(j, _)| *j == i) {
                    let err = core_err(py, e).into_value(py);
                    self.damaged.push((i, (i, range.start, range.end, err).into_py(py)));
                }
                Ok(None)
            }
            Err(e) => Err(core_err(py, e)),
        }
    }
}

#[pymethods]
impl FileReader {
    #[new]
    #[pyo3(signature = (source, fields=None, filter=None, skip_damaged=false, typed_any=false, max_decoded_bytes=None))]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        fields: Option<Vec<String>>,
        filter: Option<&str>,
        skip_damaged: bool,
        typed_any: bool,
        max_decoded_bytes: Option<u64>,
    ) -> PyResult<Self> {
        let src: Box<dyn Source> = if let Some(path) = path_of(source)? {
            Box::new(BufReader::with_capacity(1 << 16, open_path(&path)?))
        } else if let Some(bytes) = bytes_of(source) {
            Box::new(io::Cursor::new(bytes))
        } else {
            Box::new(BufReader::with_capacity(1 << 16, PySeekable(PyReader(source.clone().unbind()))))
        };
        let q = read_options(fields, filter, skip_damaged)?;
        let opts = decode_options(max_decoded_bytes);
        let inner = guarded(py, || xbf::FileReader::with_options(src, opts).map_err(|e| core_err(py, e)))?;
        // Fields and filter checked against the file's type now, not at the first read.
        inner.projected_type(&q).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(FileReader { inner, q, typed_any, damaged: Vec::new() })
    }

    /// The file's record type.
    #[getter]
    fn schema(&self) -> Schema {
        Schema { ty: self.inner.metadata().clone() }
    }

    /// The type of the records this read gives (the fields asked for).
    #[getter]
    fn read_schema(&self) -> PyResult<Schema> {
        let ty = self.inner.projected_type(&self.q).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Schema { ty })
    }

    /// Every block as the footer lists it: `(offset, size, records,
    /// columns)`, each column `(path, size, crc, min, max, exact, nulls,
    /// nans)` (path None for a type with `any`; min and max None when the
    /// footer keeps none).
    fn _blocks(&self, py: Python<'_>) -> PyResult<Vec<PyObject>> {
        let paths = self.inner.column_paths();
        let mut out = Vec::with_capacity(self.inner.blocks().len());
        for b in self.inner.blocks() {
            let mut cols: Vec<PyObject> = Vec::with_capacity(b.columns.len());
            for (j, c) in b.columns.iter().enumerate() {
                let path = paths.as_ref().and_then(|p| p.get(j).cloned());
                let (min, max) = match &c.stats.min_max {
                    Some((lo, hi)) => {
                        let mut to = ToPy { typed_any: self.typed_any, structs: Default::default(), last: None };
                        (to.value(py, lo)?.unbind(), to.value(py, hi)?.unbind())
                    }
                    None => (py.None(), py.None()),
                };
                let s = &c.stats;
                cols.push((path, c.size, c.crc, min, max, s.exact, s.nulls, s.nans).into_py(py));
            }
            out.push((b.offset, b.size, b.records, PyList::new_bound(py, cols)).into_py(py));
        }
        Ok(out)
    }

    /// How many blocks the filter's statistics rule out (nothing of them is read).
    fn blocks_ruled_out(&self) -> PyResult<usize> {
        self.inner.blocks_ruled_out(&self.q).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Block `i`'s records (those the fields and filter ask for), as a list.
    fn read_block(&mut self, py: Python<'_>, i: isize) -> PyResult<Vec<PyObject>> {
        let n = self.inner.blocks().len() as isize;
        let at = if i < 0 { i + n } else { i };
        if !(0..n).contains(&at) {
            return Err(PyIndexError::new_err(format!("block {i} of a file of {n} blocks")));
        }
        let (r, q) = (&mut self.inner, &self.q);
        let values = guarded(py, || py.allow_threads(|| r.read_block(at as usize, q)).map_err(|e| core_err(py, e)))?;
        Ok(block_to_py(py, &values, self.typed_any)?.into())
    }

    /// The blocks skipped as damaged so far: `(index, start, end, error)`.
    #[getter]
    fn damaged(&self, py: Python<'_>) -> Vec<PyObject> {
        self.damaged.iter().map(|(_, d)| d.clone_ref(py)).collect()
    }

    /// How many records the file holds (before any filter).
    fn __len__(&self) -> usize {
        self.inner.records_total() as usize
    }

    /// A fresh pass over the records, block by block.
    fn __iter__(slf: Bound<'_, Self>) -> FileRecords {
        FileRecords { reader: slf.unbind(), next: 0, ready: VecDeque::new() }
    }
}

/// One pass over a `FileReader`'s records: one block's records in memory.
#[pyclass(module = "xbf._native", unsendable)]
pub(crate) struct FileRecords {
    reader: Py<FileReader>,
    next: usize,
    ready: VecDeque<PyObject>,
}

#[pymethods]
impl FileRecords {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return Ok(Some(r));
            }
            let mut reader = self.reader.bind(py).try_borrow_mut()?;
            if self.next >= reader.inner.blocks().len() {
                return Ok(None);
            }
            let i = self.next;
            self.next += 1;
            match reader.block(py, i) {
                Ok(Some(records)) => self.ready = records,
                Ok(None) => {}
                Err(e) => {
                    // Nothing more after a damaged block (unless skipped).
                    self.next = usize::MAX;
                    return Err(e);
                }
            }
        }
    }
}

/// An XBF file read forward (`xbf.iter_file`): nothing but the bytes in
/// order, so a pipe or a file whose writer died before its footer.
#[pyclass(module = "xbf._native", unsendable)]
pub(crate) struct FileStream {
    inner: Option<xbf::FileStreamReader<BufReader<Box<dyn Read + Send>>>>,
    q: ReadOptions,
    typed_any: bool,
    ready: VecDeque<PyObject>,
}

#[pymethods]
impl FileStream {
    #[new]
    #[pyo3(signature = (source, fields=None, filter=None, typed_any=false, max_decoded_bytes=None))]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        fields: Option<Vec<String>>,
        filter: Option<&str>,
        typed_any: bool,
        max_decoded_bytes: Option<u64>,
    ) -> PyResult<Self> {
        let src: Box<dyn Read + Send> = if let Some(path) = path_of(source)? {
            Box::new(open_path(&path)?)
        } else if let Some(bytes) = bytes_of(source) {
            Box::new(io::Cursor::new(bytes))
        } else {
            Box::new(PyReader(source.clone().unbind()))
        };
        let q = read_options(fields, filter, false)?;
        let opts = decode_options(max_decoded_bytes);
        let input = BufReader::with_capacity(1 << 16, src);
        let inner = guarded(py, || xbf::FileStreamReader::with_options(input, opts).map_err(|e| core_err(py, e)))?;
        Ok(FileStream { inner: Some(inner), q, typed_any, ready: VecDeque::new() })
    }

    /// The file's record type (None once the stream failed).
    #[getter]
    fn schema(&self) -> Option<Schema> {
        self.inner.as_ref().map(|r| Schema { ty: r.metadata().clone() })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return Ok(Some(r));
            }
            let Some(r) = self.inner.as_mut() else { return Ok(None) };
            let q = &self.q;
            let next = guarded(py, || Ok(r.next_block(q)));
            match next {
                Ok(Ok(Some(values))) => self.ready = block_to_py(py, &values, self.typed_any)?,
                Ok(Ok(None)) => {
                    self.inner = None;
                    return Ok(None);
                }
                Ok(Err(e)) => {
                    self.inner = None;
                    return Err(core_err(py, e));
                }
                Err(e) => {
                    self.inner = None;
                    return Err(e);
                }
            }
        }
    }
}

/// A file being written under a temporary name beside its target: renamed
/// onto the target by [`TempFile::commit`], removed if dropped before.
struct TempFile {
    tmp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl TempFile {
    fn create(target: &Path) -> PyResult<(TempFile, fs::File)> {
        let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .ok_or_else(|| PyValueError::new_err(format!("{}: not a file name", target.display())))?;
        let tmp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
        let file = fs::File::create(&tmp)?;
        Ok((TempFile { tmp, target: target.to_owned(), done: false }, file))
    }

    fn commit(mut self) -> PyResult<()> {
        fs::rename(&self.tmp, &self.target)?;
        self.done = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Python records to core values of the file's type: straight to values
/// where the data allows (`to_value`), else through the rows encoder, which
/// also gives the error for a record that does not fit the type.
struct Records<'py> {
    ty: Metadata,
    direct: Option<VPlan<'py>>,
    rows: Plan<'py>,
}

impl<'py> Records<'py> {
    fn new(py: Python<'py>, ty: Metadata) -> Self {
        Records { direct: vplan(py, &ty, 0), rows: make_plan(py, &ty, 0), ty }
    }

    fn value(&self, record: &Bound<'py, PyAny>) -> PyResult<Value> {
        if let Some(plan) = &self.direct {
            let mut out = Vec::with_capacity(1);
            let mut size = 0;
            if to_value(record, plan, &mut size, 0, &mut out)? {
                return Ok(out.pop().expect("to_value pushed a value"));
            }
        }
        let mut enc = Enc::new(Vec::new(), true);
        enc.value(record, &self.rows, 0)?;
        DecodeOptions::default().decode_value(Version::V2, &self.ty, &enc.out).map_err(encode_err)
    }
}

/// Writes `records` (an iterable) as an XBF file at `path`, under a
/// temporary name renamed into place once the file is whole; or, with
/// `append`, adds them to the finished file at `path` (SPEC.md 24.5), in
/// place, cutting the file back to its old length if writing fails. The
/// type is `schema`, or (appending) the file's, or the one `dumps` infers
/// for the records of a list or tuple, or for the first block of records of
/// another iterable (later records must fit it). Returns the number of
/// records written.
#[pyfunction]
#[pyo3(signature = (path, records, schema=None, block_rows=None, block_bytes=None, zstd=None, append=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_file(
    py: Python<'_>,
    path: PathBuf,
    records: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, Schema>>,
    block_rows: Option<usize>,
    block_bytes: Option<usize>,
    zstd: Option<i32>,
    append: bool,
) -> PyResult<u64> {
    if zstd.is_some() && !cfg!(feature = "zstd") {
        return Err(PyValueError::new_err("this build of xbf has no zstd (build with the `zstd` feature)"));
    }
    let mut opts =
        FileOptions::default().encode_options(EncodeOptions::v2().compress_columns(zstd).map_err(encode_err)?);
    if let Some(n) = block_rows {
        if n == 0 {
            return Err(PyValueError::new_err("block_rows must be at least 1"));
        }
        opts = opts.block_rows(n);
    }
    if let Some(n) = block_bytes {
        opts = opts.block_bytes(n);
    }
    if append {
        let file = fs::OpenOptions::new().read(true).write(true).open(&path)?;
        let old_len = file.metadata()?.len();
        let w = guarded(py, || xbf::FileWriter::append(file, opts).map_err(|e| core_err(py, e)))?;
        if let Some(s) = schema {
            if s.get().ty != *w.metadata() {
                return Err(PyValueError::new_err(format!(
                    "xbf.write: appending {} to a file of {}",
                    s.get().ty,
                    w.metadata()
                )));
            }
        }
        let conv = Records::new(py, w.metadata().clone());
        let written = write_all(py, w, &conv, records.iter()?.map(|r| r.map(Some)), Vec::new());
        if written.is_err() {
            // The old footer back at the end: the file as it was.
            fs::OpenOptions::new().write(true).open(&path)?.set_len(old_len)?;
        }
        return written.map(|(n, _)| n);
    }
    let first_block = block_rows.unwrap_or(131_072);
    let mut iter = records.iter()?;
    // Records read to infer the type, written first.
    let mut head: Vec<Bound<'_, PyAny>> = Vec::new();
    let ty = match schema {
        Some(s) => s.get().ty.clone(),
        None => {
            let mut shape = Shape::Never;
            if records.is_instance_of::<PyList>() || records.is_instance_of::<PyTuple>() {
                for r in records.iter()? {
                    shape.absorb(&r?, 1)?;
                }
            } else {
                while head.len() < first_block {
                    let Some(r) = iter.next() else { break };
                    let r = r?;
                    shape.absorb(&r, 1)?;
                    head.push(r);
                }
            }
            if matches!(shape, Shape::Never) {
                return Err(PyValueError::new_err("xbf.write: no records to infer a type from: pass schema="));
            }
            inferred(py, shape)?
        }
    };
    let conv = Records::new(py, ty.clone());
    let (tmp, file) = TempFile::create(&path)?;
    let w = xbf::FileWriter::new(BufWriter::with_capacity(1 << 16, file), ty, opts).map_err(encode_err)?;
    let (n, out) = write_all(py, w, &conv, iter.map(|r| r.map(Some)), head)?;
    // Closed before the rename.
    drop(out.into_inner().map_err(|e| PyErr::from(e.into_error()))?);
    tmp.commit()?;
    Ok(n)
}

/// Writes `head`, then the records of `rest`, then the footer.
fn write_all<'py, W: io::Write + Send>(
    py: Python<'py>,
    mut w: xbf::FileWriter<W>,
    conv: &Records<'py>,
    rest: impl Iterator<Item = PyResult<Option<Bound<'py, PyAny>>>>,
    head: Vec<Bound<'py, PyAny>>,
) -> PyResult<(u64, W)> {
    let mut n = 0u64;
    for r in head.into_iter().map(|r| Ok(Some(r))).chain(rest) {
        let Some(r) = r? else { continue };
        let v = conv.value(&r)?;
        // A full block is encoded here: without the GIL.
        py.allow_threads(|| w.write(v)).map_err(encode_err)?;
        n += 1;
    }
    let out = py.allow_threads(|| w.finish()).map_err(encode_err)?;
    Ok((n, out))
}

/// Registers the file classes and functions on the `_native` module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FileReader>()?;
    m.add_class::<FileRecords>()?;
    m.add_class::<FileStream>()?;
    m.add_function(wrap_pyfunction!(write_file, m)?)?;
    Ok(())
}
