//! Record streams: `StreamReader` and `StreamWriter` over Python file objects.

use std::io;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use xbf::{DecodeOptions, Metadata, Version};

use crate::decode::decode_options;
use crate::encode::Enc;
use crate::errors::{core_err, encode_err, guarded};
use crate::plan::make_plan;
use crate::schema::Schema;
use crate::to_py::value_to_py;

// ---------------------------------------------------------------- streams

pub(crate) struct PyReader(pub(crate) PyObject);

impl io::Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::with_gil(|py| {
            let chunk = self.0.bind(py).call_method1("read", (buf.len(),)).map_err(io::Error::other)?;
            if chunk.is_none() {
                return Ok(0);
            }
            let b: &[u8] = chunk.extract().map_err(io::Error::other)?;
            let n = b.len().min(buf.len());
            buf[..n].copy_from_slice(&b[..n]);
            Ok(n)
        })
    }
}

pub(crate) struct PyWriter(PyObject);

impl io::Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::with_gil(|py| {
            self.0.bind(py).call_method1("write", (PyBytes::new_bound(py, buf),)).map_err(io::Error::other)?;
            Ok(buf.len())
        })
    }
    fn flush(&mut self) -> io::Result<()> {
        Python::with_gil(|py| {
            let f = self.0.bind(py);
            if f.hasattr("flush").unwrap_or(false) {
                f.call_method0("flush").map_err(io::Error::other)?;
            }
            Ok(())
        })
    }
}

/// The bytes left in a seekable binary file (a file on disk, `io.BytesIO`),
/// or `None` where that cannot be known (a pipe, a socket).
pub(crate) fn remaining_length(file: &Bound<'_, PyAny>) -> Option<u64> {
    let seekable = file.call_method0("seekable").and_then(|s| s.is_truthy()).unwrap_or(false);
    if !seekable {
        return None;
    }
    let here: u64 = file.call_method0("tell").ok()?.extract().ok()?;
    let end: u64 = file.call_method1("seek", (0, 2)).ok()?.extract().ok()?;
    file.call_method1("seek", (here,)).ok()?;
    Some(end.saturating_sub(here))
}

/// Reads a record stream lazily: iterate to get the records one by one.
#[pyclass(module = "xbf._native", unsendable)]
pub(crate) struct StreamReader {
    pub(crate) inner: Option<xbf::StreamReader<io::BufReader<PyReader>>>,
    pub(crate) typed_any: bool,
}

#[pymethods]
impl StreamReader {
    #[new]
    #[pyo3(signature = (file, typed_any=false, max_decoded_bytes=None, length=None))]
    fn new(
        py: Python<'_>,
        file: PyObject,
        typed_any: bool,
        max_decoded_bytes: Option<u64>,
        length: Option<u64>,
    ) -> PyResult<Self> {
        // With the length known (a seekable file, bytes), counts are checked
        // against it, as over bytes in memory (SPEC.md 15.3).
        let length = length.or_else(|| remaining_length(file.bind(py)));
        let opts = decode_options(max_decoded_bytes);
        let input = io::BufReader::with_capacity(1 << 16, PyReader(file));
        let r = guarded(py, || {
            match length {
                Some(len) => opts.stream_reader_with_length(input, len),
                None => opts.stream_reader(input),
            }
            .map_err(|e| core_err(py, e))
        })?;
        Ok(StreamReader { inner: Some(r), typed_any })
    }

    /// The record type.
    #[getter]
    fn schema(&self) -> PyResult<Schema> {
        let r = self.inner.as_ref().ok_or_else(|| PyValueError::new_err("the stream is closed"))?;
        Ok(Schema { ty: r.metadata().clone() })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let Some(r) = self.inner.as_mut() else { return Ok(None) };
        let typed_any = self.typed_any;
        let mut returned = false;
        let next = guarded(py, || {
            let item = r.next();
            returned = true;
            match item {
                None => Ok(None),
                Some(Ok(v)) => Ok(Some(value_to_py(py, &v, typed_any)?.unbind())),
                Some(Err(e)) => Err(core_err(py, e)),
            }
        });
        if !returned {
            // The reader panicked and may be in any state: nothing more is read from it.
            self.inner = None;
        }
        next
    }
}

/// Writes a record stream of one record type.
#[pyclass(module = "xbf._native", unsendable)]
pub(crate) struct StreamWriter {
    pub(crate) inner: Option<xbf::StreamWriter<PyWriter>>,
    pub(crate) ty: Metadata,
}

#[pymethods]
impl StreamWriter {
    #[new]
    #[pyo3(signature = (file, schema, checksums=false, block_bytes=None))]
    fn new(file: PyObject, schema: &Bound<'_, Schema>, checksums: bool, block_bytes: Option<usize>) -> PyResult<Self> {
        let ty = schema.get().ty.clone();
        let mut opts = xbf::StreamOptions::default().checksums(checksums);
        if let Some(b) = block_bytes {
            opts = opts.block_bytes(b);
        }
        let w = xbf::StreamWriter::new(PyWriter(file), ty.clone(), opts).map_err(encode_err)?;
        Ok(StreamWriter { inner: Some(w), ty })
    }

    /// Adds one record (of the stream's type).
    fn write(&mut self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| PyValueError::new_err("the stream writer is closed"))?;
        let p = make_plan(py, &self.ty, 0);
        let mut enc = Enc::new(Vec::new(), true);
        enc.value(record, &p, 0)?;
        let value = DecodeOptions::default()
            .decode_value(Version::V2, &self.ty, &enc.out)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        w.write(&value).map_err(encode_err)
    }

    /// Writes the buffered records as a block and flushes the file.
    fn flush(&mut self) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| PyValueError::new_err("the stream writer is closed"))?;
        w.flush().map_err(encode_err)
    }

    /// Flushes; the file stays open (it is the caller's).
    fn close(&mut self) -> PyResult<()> {
        if let Some(w) = self.inner.take() {
            w.finish().map_err(encode_err)?;
        }
        Ok(())
    }

    #[getter]
    fn schema(&self) -> Schema {
        Schema { ty: self.ty.clone() }
    }
}
