//! XBF to Python objects: the fast path, which builds Python objects from the
//! bytes and leaves anything unusual to the core, and `loads`.

use std::cell::RefCell;
use std::collections::HashSet;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString, PyTuple};
use xbf::wire::{self, varint};
use xbf::{DecodeOptions, Metadata, PrimitiveType as P, Version};

use crate::column_reader::records_from_columns;
use crate::errors::{core_err, guarded};
use crate::plan::{make_plan, Plan};
use crate::pyobj::{is_some, refs};
use crate::raw::{dict_set, new_str};
use crate::schema::Schema;
use crate::to_py::value_to_py;

/// Days from 0001-01-01 (Python's ordinal 1) to 1970-01-01.
pub(crate) const EPOCH_ORDINAL: i64 = 719_163;

// ---------------------------------------------------------------- decoder

/// The fast path gave up: the core decides.
pub(crate) enum DErr {
    Bad,
    Py(PyErr),
}

impl From<PyErr> for DErr {
    fn from(e: PyErr) -> Self {
        DErr::Py(e)
    }
}

pub(crate) type DResult<T> = Result<T, DErr>;

/// The fast path's reader. Its bounds checks (`take`, `u8`, `arr`) are its
/// own rather than `xbf::wire::Cursor`'s because they do not make errors:
/// any fault sends the message to the core, whose cursor then makes the
/// error. Varints longer than a byte are read by `xbf::wire::varint`.
pub(crate) struct Dec<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) v2: bool,
    pub(crate) typed_any: bool,
    pub(crate) trusted: bool,
    /// Zero-size values charged so far, against the core's decoded-memory
    /// budget (SPEC.md 16.2: 48 bytes a value). A message past it goes to
    /// the core, which then gives its error.
    pub(crate) zs_used: u64,
    /// How many zero-size values the budget holds.
    pub(crate) zs_allowed: u64,
    /// Above 0 inside values whose zero-size weight is already charged.
    pub(crate) prepaid: u32,
    /// Metadata levels so far: the root type's, plus those of enclosing `any`s.
    pub(crate) depth: usize,
    /// Primitive types met in `any`, by their one-byte metadata.
    pub(crate) any_prims: [Option<P>; 256],
}

/// The fast path leaves deeper nesting (through `any`) to the core, whose
/// limit is 128 levels.
pub(crate) const FAST_DEPTH: usize = 96;

impl<'a> Dec<'a> {
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> DResult<&'a [u8]> {
        if self.b.len() - self.pos < n {
            return Err(DErr::Bad);
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub(crate) fn u8(&mut self) -> DResult<u8> {
        let b = *self.b.get(self.pos).ok_or(DErr::Bad)?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn arr<const N: usize>(&mut self) -> DResult<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// A canonical varint of at most `bits` bits: one byte (the usual case)
    /// here, anything longer by the core's rules (`xbf::wire::varint`).
    #[inline]
    pub(crate) fn uvarint(&mut self, bits: u32) -> DResult<u128> {
        let first = *self.b.get(self.pos).ok_or(DErr::Bad)?;
        if first < 0x80 {
            self.pos += 1;
            return Ok(u128::from(first));
        }
        let (x, n) = varint::decode(&self.b[self.pos..], bits).map_err(|_| DErr::Bad)?;
        self.pos += n;
        Ok(x)
    }

    pub(crate) fn svarint(&mut self, bits: u32) -> DResult<i128> {
        Ok(varint::unzigzag(self.uvarint(bits)?))
    }

    pub(crate) fn length(&mut self) -> DResult<u64> {
        if self.v2 {
            Ok(self.uvarint(64)? as u64)
        } else {
            Ok(u64::from_le_bytes(self.arr()?))
        }
    }

    pub(crate) fn count(&mut self, min_size: u64) -> DResult<usize> {
        let n = self.length()?;
        if !self.trusted && n.saturating_mul(min_size.max(1)) > (self.b.len() - self.pos) as u64 {
            return Err(DErr::Bad);
        }
        Ok(n as usize)
    }

    #[inline]
    pub(crate) fn charge(&mut self, weight: u64) -> DResult<()> {
        if self.prepaid == 0 {
            let used = self.zs_used.saturating_add(weight);
            if used > self.zs_allowed {
                return Err(DErr::Bad);
            }
            self.zs_used = used;
        }
        Ok(())
    }

    /// `n` elements of zero-size weight `w`, charged at once.
    pub(crate) fn zero_size_list<'py>(
        &mut self,
        py: Python<'py>,
        e: &Plan<'py>,
        n: u64,
        w: u64,
    ) -> DResult<Bound<'py, PyAny>> {
        self.charge(n.saturating_mul(w))?;
        self.prepaid += 1;
        let l = self.list(py, e, n as usize);
        self.prepaid -= 1;
        l
    }

    pub(crate) fn value<'py>(&mut self, py: Python<'py>, plan: &Plan<'py>) -> DResult<Bound<'py, PyAny>> {
        match plan {
            Plan::Prim(p) => {
                if *p == P::Unit {
                    self.charge(1)?;
                }
                self.prim(py, *p)
            }
            Plan::Vec(e, w) => {
                if *w > 0 {
                    let n = self.length()?;
                    return self.zero_size_list(py, e, n, *w);
                }
                let n = self.count(1)?;
                self.list(py, e, n)
            }
            Plan::Array(n, e, w) => {
                if *w > 0 {
                    return self.zero_size_list(py, e, *n, *w);
                }
                if !self.trusted && *n > (self.b.len() - self.pos) as u64 {
                    return Err(DErr::Bad);
                }
                self.list(py, e, *n as usize)
            }
            Plan::ZeroSize(w, inner) => {
                self.charge(*w)?;
                self.prepaid += 1;
                let v = self.value(py, inner);
                self.prepaid -= 1;
                v
            }
            Plan::Option(inner) => match self.u8()? {
                0 => Ok(py.None().into_bound(py)),
                1 => {
                    let v = self.value(py, inner)?;
                    // Wrapped when the payload itself reads as an option (None, or an xbf.Some of a
                    // deeper level): else Some(None) and Some(Some(None)) would be one value.
                    if v.is_none() || is_some(py, &v)? {
                        Ok(refs(py)?.some.bind(py).call1((v,))?)
                    } else {
                        Ok(v)
                    }
                }
                _ => Err(DErr::Bad),
            },
            Plan::Tuple(ts) => {
                let mut items = Vec::with_capacity(ts.len());
                for t in ts {
                    items.push(self.value(py, t)?);
                }
                Ok(PyTuple::new_bound(py, items).into_any())
            }
            Plan::Struct { keys, fields, optional, template, .. } => {
                let fresh = keys.len() <= FRESH_DICT_KEYS;
                let d = if fresh { PyDict::new_bound(py) } else { struct_dict(py, keys, template)? };
                for ((k, f), opt) in keys.iter().zip(fields).zip(optional) {
                    let v = if *opt {
                        match self.length()? {
                            0 => {
                                if !fresh {
                                    d.del_item(k)?;
                                }
                                continue;
                            }
                            1 => {
                                let Plan::Enum { payloads, .. } = f else { unreachable!() };
                                self.item(py, &payloads[1])?
                            }
                            _ => return Err(DErr::Bad),
                        }
                    } else {
                        self.item(py, f)?
                    };
                    dict_set(&d, k, &v)?;
                }
                Ok(d.into_any())
            }
            Plan::Map(k, v) => {
                let n = self.count(1)?;
                let d = PyDict::new_bound(py);
                let mut seen: HashSet<&[u8]> = HashSet::with_capacity(n.min(4096));
                let mut pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = Vec::with_capacity(n.min(4096));
                let mut dict_ok = true;
                for _ in 0..n {
                    let start = self.pos;
                    let key = self.value(py, k)?;
                    if !seen.insert(&self.b[start..self.pos]) {
                        return Err(DErr::Bad);
                    }
                    let val = self.value(py, v)?;
                    if dict_ok {
                        match d.set_item(&key, &val) {
                            Ok(()) => {}
                            Err(_) => dict_ok = false,
                        }
                    }
                    pairs.push((key, val));
                }
                if dict_ok && d.len() == n {
                    Ok(d.into_any())
                } else {
                    // Keys Python cannot tell apart or hash: a list of pairs.
                    let l = PyList::empty_bound(py);
                    for (key, val) in pairs {
                        l.append(PyTuple::new_bound(py, [key, val]))?;
                    }
                    Ok(l.into_any())
                }
            }
            Plan::Enum { names, payloads, .. } => {
                let i = self.length()?;
                let i = usize::try_from(i).ok().filter(|i| *i < names.len()).ok_or(DErr::Bad)?;
                let payload = self.value(py, &payloads[i])?;
                Ok(refs(py)?.variant.bind(py).call1((&names[i], payload))?)
            }
            Plan::Any(_) => {
                let code = *self.b.get(self.pos).ok_or(DErr::Bad)?;
                if let Some(p) = self.any_prims[code as usize] {
                    self.pos += 1;
                    let v = self.value(py, &Plan::Prim(p))?;
                    return if self.typed_any {
                        Ok(refs(py)?.typed.bind(py).call1((Schema { ty: p.into() }, v))?)
                    } else {
                        Ok(v)
                    };
                }
                let (ty, used) = DecodeOptions::default()
                    .decode_metadata(Version::V2, &self.b[self.pos..])
                    .map_err(|_| DErr::Bad)?;
                let levels = ty.depth() + 1;
                if self.depth + levels > FAST_DEPTH {
                    return Err(DErr::Bad);
                }
                if let (Metadata::Primitive(p), 1) = (&ty, used) {
                    self.any_prims[code as usize] = Some(*p);
                }
                self.pos += used;
                let p = make_plan(py, &ty, 0);
                if p.needs_core() {
                    return Err(DErr::Bad);
                }
                self.depth += levels;
                let v = self.value(py, &p);
                self.depth -= levels;
                let v = v?;
                if self.typed_any {
                    Ok(refs(py)?.typed.bind(py).call1((Schema { ty }, v))?)
                } else {
                    Ok(v)
                }
            }
        }
    }

    pub(crate) fn list<'py>(&mut self, py: Python<'py>, e: &Plan<'py>, n: usize) -> DResult<Bound<'py, PyAny>> {
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.item(py, e)?);
        }
        Ok(PyList::new_bound(py, items).into_any())
    }

    /// A struct field's or a list element's value: the common scalars of
    /// records (f64, one-byte varint ints, strings of a one-byte length)
    /// read here, anything else by [`Dec::value`]. Going through `value`'s
    /// dispatch and then `prim`'s cost about 100 instructions of their own a
    /// float on normal-2d.json, this about 30 (callgrind, python/bench/callgrind_loads.json);
    /// the bytes are read by the same rules (a longer varint or length, or
    /// any fault, takes the general path, which decides).
    #[inline]
    pub(crate) fn item<'py>(&mut self, py: Python<'py>, plan: &Plan<'py>) -> DResult<Bound<'py, PyAny>> {
        if let Plan::Prim(p) = plan {
            match p {
                P::F64 => return Ok(PyFloat::new_bound(py, f64::from_le_bytes(self.arr()?)).into_any()),
                P::I64 | P::I32 | P::I16 if self.v2 => {
                    if let Some(&b) = self.b.get(self.pos) {
                        if b < 0x80 {
                            self.pos += 1;
                            let x = i64::from(b >> 1) ^ -i64::from(b & 1);
                            return Ok(x.into_py(py).into_bound(py));
                        }
                    }
                }
                P::U64 | P::U32 | P::U16 if self.v2 => {
                    if let Some(&b) = self.b.get(self.pos) {
                        if b < 0x80 {
                            self.pos += 1;
                            return Ok(b.into_py(py).into_bound(py));
                        }
                    }
                }
                P::String if self.v2 => {
                    if let Some(&n) = self.b.get(self.pos) {
                        if n < 0x80 {
                            let start = self.pos + 1;
                            let s = self.b.get(start..start + usize::from(n)).ok_or(DErr::Bad)?;
                            let s = std::str::from_utf8(s).map_err(|_| DErr::Bad)?;
                            self.pos = start + usize::from(n);
                            return Ok(new_str(py, s).into_any());
                        }
                    }
                }
                _ => {}
            }
        }
        self.value(py, plan)
    }

    pub(crate) fn prim<'py>(&mut self, py: Python<'py>, p: P) -> DResult<Bound<'py, PyAny>> {
        if self.v2 {
            match p {
                P::U16 => return Ok(int_u128(py, self.uvarint(16)?)),
                P::U32 => return Ok(int_u128(py, self.uvarint(32)?)),
                P::U64 => {
                    // The common case inline.
                    if let Some(&b) = self.b.get(self.pos) {
                        if b < 0x80 {
                            self.pos += 1;
                            return Ok(b.into_py(py).into_bound(py));
                        }
                    }
                    return Ok(int_u128(py, self.uvarint(64)?));
                }
                P::U128 => return Ok(int_u128(py, self.uvarint(128)?)),
                P::I16 => return Ok(int_i128(py, self.svarint(16)?)),
                P::I32 => return Ok(int_i128(py, self.svarint(32)?)),
                P::I64 => return Ok(int_i128(py, self.svarint(64)?)),
                P::I128 => return Ok(int_i128(py, self.svarint(128)?)),
                P::Date => return Ok(date_py(py, self.svarint(32)? as i64)?),
                P::Timestamp => return Ok(timestamp_py(py, self.svarint(64)? as i64)?),
                _ => {}
            }
        }
        Ok(match p.integer_type() {
            P::Bool => match self.u8()? {
                0 => PyBool::new_bound(py, false).to_owned().into_any(),
                1 => PyBool::new_bound(py, true).to_owned().into_any(),
                _ => return Err(DErr::Bad),
            },
            P::U8 => int_u128(py, u128::from(self.u8()?)),
            P::U16 => int_u128(py, u128::from(u16::from_le_bytes(self.arr()?))),
            P::U32 => int_u128(py, u128::from(u32::from_le_bytes(self.arr()?))),
            P::U64 => int_u128(py, u128::from(u64::from_le_bytes(self.arr()?))),
            P::U128 => int_u128(py, u128::from_le_bytes(self.arr()?)),
            P::I8 => int_i128(py, i128::from(i8::from_le_bytes(self.arr()?))),
            P::I16 => int_i128(py, i128::from(i16::from_le_bytes(self.arr()?))),
            P::I32 => int_i128(py, i128::from(i32::from_le_bytes(self.arr()?))),
            P::I64 => int_i128(py, i128::from(i64::from_le_bytes(self.arr()?))),
            P::I128 => int_i128(py, i128::from_le_bytes(self.arr()?)),
            P::U256 | P::I256 => {
                let b = self.take(32)?;
                let kwargs = PyDict::new_bound(py);
                kwargs.set_item("signed", p.integer_type() == P::I256)?;
                py.get_type_bound::<pyo3::types::PyLong>().call_method(
                    "from_bytes",
                    (PyBytes::new_bound(py, b), "little"),
                    Some(&kwargs),
                )?
            }
            P::F32 => (f64::from(f32::from_le_bytes(self.arr()?))).into_py(py).into_bound(py),
            P::F64 => PyFloat::new_bound(py, f64::from_le_bytes(self.arr()?)).into_any(),
            P::String => {
                let n = self.length()?;
                let n = usize::try_from(n).map_err(|_| DErr::Bad)?;
                let s = self.take(n)?;
                let s = std::str::from_utf8(s).map_err(|_| DErr::Bad)?;
                new_str(py, s).into_any()
            }
            P::Bytes => {
                let n = self.length()?;
                let n = usize::try_from(n).map_err(|_| DErr::Bad)?;
                PyBytes::new_bound(py, self.take(n)?).into_any()
            }
            P::Unit => py.None().into_bound(py),
            P::Date => date_py(py, i64::from(i32::from_le_bytes(self.arr()?)))?,
            P::Timestamp => timestamp_py(py, i64::from_le_bytes(self.arr()?))?,
            _ => return Err(DErr::Bad),
        })
    }
}

/// Records of up to this many keys are made as new dicts filled in place
/// (their first insert sizes them for 5 keys), those of more as copies of a
/// dict of their keys ([`struct_dict`]), whose values are then replaced.
/// Measured on the column reader: 12% fewer instructions a record for a
/// new dict on github.csv's two fields (python/bench/callgrind_loads_typed.json);
/// on the rows reader, normal-2d.json's two floats, the dict took about 580
/// instructions a record new against 720 copied (callgrind_annotate of the
/// runs in python/bench/callgrind_loads.json).
pub(crate) const FRESH_DICT_KEYS: usize = 5;

/// A dict of `keys` (each to None) for a record of their struct, whose
/// fields are then set in place. A copy of a dict of the same keys costs one
/// block copy (CPython clones the key table of a compact dict), where a new
/// dict grows and rehashes twice on the way to 16 keys; it also puts the
/// keys in the struct's order from the start.
pub(crate) fn struct_dict<'py>(
    py: Python<'py>,
    keys: &[Bound<'py, PyString>],
    template: &RefCell<Option<Bound<'py, PyDict>>>,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(t) = template.borrow().as_ref() {
        return t.copy();
    }
    let t = PyDict::new_bound(py);
    for k in keys {
        dict_set(&t, k, &py.None().into_bound(py))?;
    }
    let d = t.copy()?;
    *template.borrow_mut() = Some(t);
    Ok(d)
}

pub(crate) fn int_u128(py: Python<'_>, x: u128) -> Bound<'_, PyAny> {
    if let Ok(x) = u64::try_from(x) {
        x.into_py(py).into_bound(py)
    } else {
        x.into_py(py).into_bound(py)
    }
}

pub(crate) fn int_i128(py: Python<'_>, x: i128) -> Bound<'_, PyAny> {
    if let Ok(x) = i64::try_from(x) {
        x.into_py(py).into_bound(py)
    } else {
        x.into_py(py).into_bound(py)
    }
}

/// A date, or the day count as an int when Python's date cannot hold it.
pub(crate) fn date_py(py: Python<'_>, days: i64) -> PyResult<Bound<'_, PyAny>> {
    let ord = days + EPOCH_ORDINAL;
    if (1..=3_652_059).contains(&ord) {
        let (y, m, d) = xbf::time::civil_from_days(days);
        crate::dates::new_date(py, y as i32, m as u8, d as u8)
    } else {
        Ok(days.into_py(py).into_bound(py))
    }
}

/// A UTC datetime, or the microsecond count as an int when Python's
/// datetime cannot hold it.
pub(crate) fn timestamp_py(py: Python<'_>, micros: i64) -> PyResult<Bound<'_, PyAny>> {
    let days = micros.div_euclid(86_400_000_000);
    let rem = micros.rem_euclid(86_400_000_000);
    let ord = days + EPOCH_ORDINAL;
    if !(1..=3_652_059).contains(&ord) {
        return Ok(micros.into_py(py).into_bound(py));
    }
    let (y, m, d) = xbf::time::civil_from_days(days);
    let secs = rem / 1_000_000;
    crate::dates::new_utc_datetime(
        py,
        y as i32,
        m as u8,
        d as u8,
        (secs / 3600) as u8,
        ((secs / 60) % 60) as u8,
        (secs % 60) as u8,
        (rem % 1_000_000) as u32,
    )
}

pub(crate) fn meta_has_any(ty: &Metadata) -> bool {
    matches!(ty, Metadata::Any) || ty.children().into_iter().any(meta_has_any)
}

/// The header the fast path reads: whether the message is XBF 2, and where
/// its metadata starts. Header flags (schema by reference, columns, streams)
/// and other versions are the core's.
pub(crate) fn header(data: &[u8]) -> DResult<(bool, usize)> {
    let first = *data.first().ok_or(DErr::Bad)?;
    if first == wire::V2_MARKER {
        if data.get(1) != Some(&0) {
            return Err(DErr::Bad);
        }
        Ok((true, 2))
    } else if first & 0xf0 == wire::V2_MARKER & 0xf0 {
        // A version marker of another version.
        Err(DErr::Bad)
    } else {
        Ok((false, 0))
    }
}

/// Decodes a whole message on the fast path; `Bad` means "ask the core".
pub(crate) fn fast_decode<'py>(
    py: Python<'py>,
    data: &[u8],
    typed_any: bool,
    trusted: bool,
    opts: &DecodeOptions,
) -> DResult<(Metadata, Bound<'py, PyAny>)> {
    let (v2, start) = header(data)?;
    let version = if v2 { Version::V2 } else { Version::V1 };
    let (ty, used) = DecodeOptions::default().decode_metadata(version, &data[start..]).map_err(|_| DErr::Bad)?;
    if ty.depth() > FAST_DEPTH || (!v2 && meta_has_any(&ty)) {
        return Err(DErr::Bad);
    }
    let p = make_plan(py, &ty, 0);
    if !trusted && p.needs_core() {
        return Err(DErr::Bad);
    }
    let mut d = Dec {
        b: data,
        pos: start + used,
        v2,
        typed_any,
        trusted,
        zs_used: 0,
        zs_allowed: opts.get_max_decoded_bytes() / xbf::options::DECODED_VALUE_BYTES,
        prepaid: 0,
        depth: ty.depth(),
        any_prims: [None; 256],
    };
    let v = d.value(py, &p)?;
    if d.pos != data.len() {
        return Err(DErr::Bad);
    }
    Ok((ty, v))
}

pub(crate) fn decode<'py>(
    py: Python<'py>,
    data: &[u8],
    typed_any: bool,
    opts: &DecodeOptions,
) -> PyResult<(Metadata, Bound<'py, PyAny>)> {
    guarded(py, || {
        match fast_decode(py, data, typed_any, false, opts) {
            Ok(r) => return Ok(r),
            Err(DErr::Py(e)) => return Err(e),
            Err(DErr::Bad) => {}
        }
        // Columns: read whole, straight to Python objects.
        if let Some(r) = records_from_columns(py, data, opts, typed_any) {
            return r;
        }
        let (ty, value) = opts.decode_typed_message(data).map_err(|e| core_err(py, e))?;
        Ok((ty, value_to_py(py, &value, typed_any)?))
    })
}

/// The decoding options for a budget given from Python (`None`: the default).
pub(crate) fn decode_options(max_decoded_bytes: Option<u64>) -> DecodeOptions {
    match max_decoded_bytes {
        Some(b) => DecodeOptions::default().max_decoded_bytes(b),
        None => DecodeOptions::default(),
    }
}

#[pyfunction]
#[pyo3(signature = (data, with_schema=false, typed_any=false, max_decoded_bytes=None))]
pub(crate) fn loads<'py>(
    py: Python<'py>,
    data: &[u8],
    with_schema: bool,
    typed_any: bool,
    max_decoded_bytes: Option<u64>,
) -> PyResult<PyObject> {
    let (ty, v) = decode(py, data, typed_any, &decode_options(max_decoded_bytes))?;
    if with_schema {
        Ok((Schema { ty }, v).into_py(py))
    } else {
        Ok(v.unbind())
    }
}
