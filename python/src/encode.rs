//! Python objects to XBF: the rows encoder, and `dumps`, which chooses the
//! layout.

use std::cell::RefCell;

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyList, PyLong, PyMemoryView, PyString, PyTuple};
use xbf::wire::{self, varint};
use xbf::{EncodeOptions, Metadata, PrimitiveType as P};

use crate::columns::{columns_direct, rows_to_columns, worth_columns};
use crate::errors::{cannot, encode_err, too_deep};
use crate::infer::{inferred, int_bits, is_dataclass, Infer, Shape, MAX_DEPTH};
use crate::learned::Learned;
use crate::plan::{make_plan, Plan};
use crate::pyobj::{refs, short_repr};
use crate::raw::dict_next;
use crate::records::{gather, Gathered, Written};
use crate::schema::{pair_of, Schema};

// ---------------------------------------------------------------- encoder

pub(crate) struct Enc {
    pub(crate) out: Vec<u8>,
    pub(crate) v2: bool,
    /// XBF 2 metadata of the primitive types met in `any`, made once.
    pub(crate) any_codes: Vec<(P, Vec<u8>)>,
}

impl Enc {
    pub(crate) fn new(out: Vec<u8>, v2: bool) -> Self {
        Enc { out, v2, any_codes: Vec::new() }
    }

    pub(crate) fn any_code(&mut self, p: P) -> PyResult<()> {
        if let Some((_, code)) = self.any_codes.iter().find(|(q, _)| *q == p) {
            self.out.extend_from_slice(code);
            return Ok(());
        }
        let code = EncodeOptions::v2().encode_metadata(&Metadata::from(p)).map_err(encode_err)?;
        self.out.extend_from_slice(&code);
        self.any_codes.push((p, code));
        Ok(())
    }
}

pub(crate) fn is_fixed(p: P) -> bool {
    p.integer_type() != p
}

pub(crate) fn ordinal_days(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    let (y, m, d) = crate::dates::ymd(obj)?;
    xbf::time::days_from_civil(i64::from(y), u32::from(m), u32::from(d)).ok_or_else(|| cannot(obj, "date"))
}

pub(crate) fn timestamp_micros(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    let py = obj.py();
    if !crate::dates::is_datetime(obj) {
        return Err(cannot(obj, "timestamp"));
    }
    let owned;
    let dt = if obj.getattr("tzinfo")?.is_none() {
        obj
    } else {
        owned = obj.call_method1("astimezone", (refs(py)?.utc.bind(py),))?;
        &owned
    };
    let (y, m, d) = crate::dates::ymd(dt)?;
    let days =
        xbf::time::days_from_civil(i64::from(y), u32::from(m), u32::from(d)).ok_or_else(|| cannot(obj, "timestamp"))?;
    let (h, mi, sec, us) = crate::dates::hms_us(dt)?;
    let secs = days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(sec);
    Ok(secs * 1_000_000 + i64::from(us))
}

pub(crate) fn int_256(obj: &Bound<'_, PyAny>, signed: bool, what: &str) -> PyResult<[u8; 32]> {
    let kwargs = PyDict::new_bound(obj.py());
    kwargs.set_item("signed", signed)?;
    let bytes = obj
        .call_method("to_bytes", (32, "little"), Some(&kwargs))
        .map_err(|_| PyOverflowError::new_err(format!("{} does not fit {what}", short_repr(obj))))?;
    let bytes = bytes.downcast::<PyBytes>()?.as_bytes();
    let mut out = [0u8; 32];
    out.copy_from_slice(bytes);
    Ok(out)
}

impl Enc {
    pub(crate) fn len(&mut self, n: usize) {
        if self.v2 {
            varint::put_u64(&mut self.out, n as u64)
        } else {
            self.out.extend_from_slice(&(n as u64).to_le_bytes())
        }
    }

    pub(crate) fn int(&mut self, obj: &Bound<'_, PyAny>, p: P) -> PyResult<()> {
        let ip = p.integer_type();
        let varint = self.v2 && !is_fixed(p) && ip != P::U8 && ip != P::I8;
        if !obj.is_instance_of::<PyLong>() || obj.is_instance_of::<PyBool>() {
            return Err(cannot(obj, p.name()));
        }
        let range = || PyOverflowError::new_err(format!("{} does not fit {}", short_repr(obj), p.name()));
        macro_rules! fixed_int {
            ($t:ty, $signed:expr) => {{
                let v: $t = obj.extract().map_err(|_| range())?;
                if varint {
                    if $signed {
                        let x = v as i128;
                        varint::put(&mut self.out, varint::zigzag(x))
                    } else {
                        varint::put(&mut self.out, v as u128)
                    }
                } else {
                    self.out.extend_from_slice(&v.to_le_bytes())
                }
            }};
        }
        match ip {
            P::U8 => fixed_int!(u8, false),
            P::U16 => fixed_int!(u16, false),
            P::U32 => fixed_int!(u32, false),
            P::U64 => {
                let v: u64 = obj.extract().map_err(|_| range())?;
                if varint {
                    varint::put_u64(&mut self.out, v)
                } else {
                    self.out.extend_from_slice(&v.to_le_bytes())
                }
            }
            P::U128 => fixed_int!(u128, false),
            P::I8 => fixed_int!(i8, true),
            P::I16 => fixed_int!(i16, true),
            P::I32 => fixed_int!(i32, true),
            P::I64 => {
                let v: i64 = obj.extract().map_err(|_| range())?;
                if varint {
                    varint::put_u64(&mut self.out, varint::zigzag64(v))
                } else {
                    self.out.extend_from_slice(&v.to_le_bytes())
                }
            }
            P::I128 => fixed_int!(i128, true),
            P::U256 => {
                let b = int_256(obj, false, "u256")?;
                self.out.extend_from_slice(&b)
            }
            P::I256 => {
                let b = int_256(obj, true, "i256")?;
                self.out.extend_from_slice(&b)
            }
            _ => return Err(cannot(obj, p.name())),
        }
        Ok(())
    }

    pub(crate) fn value<'py>(&mut self, obj: &Bound<'py, PyAny>, plan: &Plan<'py>, depth: usize) -> PyResult<()> {
        let py = obj.py();
        if depth > MAX_DEPTH + 2 {
            return Err(too_deep(py));
        }
        match plan {
            Plan::Prim(p) => {
                let is_int = || obj.is_instance_of::<PyLong>() && !obj.is_instance_of::<PyBool>();
                match p {
                    P::Bool => match obj.downcast::<PyBool>() {
                        Ok(b) => self.out.push(u8::from(b.is_true())),
                        Err(_) => return Err(cannot(obj, "bool")),
                    },
                    P::F64 | P::F32 => {
                        let x = if let Ok(f) = obj.downcast_exact::<PyFloat>() {
                            f.value()
                        } else if obj.is_instance_of::<PyFloat>() || is_int() {
                            obj.extract::<f64>()?
                        } else {
                            return Err(cannot(obj, p.name()));
                        };
                        if *p == P::F64 {
                            self.out.extend_from_slice(&x.to_le_bytes())
                        } else {
                            let y = x as f32;
                            let y = if y.is_nan() { f32::NAN } else { y };
                            self.out.extend_from_slice(&y.to_le_bytes())
                        }
                    }
                    P::String => {
                        let s = obj.downcast::<PyString>().map_err(|_| cannot(obj, "string"))?.to_str()?;
                        self.len(s.len());
                        self.out.extend_from_slice(s.as_bytes());
                    }
                    P::Bytes => {
                        if let Ok(b) = obj.downcast::<PyBytes>() {
                            let b = b.as_bytes();
                            self.len(b.len());
                            self.out.extend_from_slice(b);
                        } else if obj.is_instance_of::<PyByteArray>() || obj.is_instance_of::<PyMemoryView>() {
                            let b = py.get_type_bound::<PyBytes>().call1((obj,))?;
                            let b = b.downcast::<PyBytes>()?.as_bytes();
                            self.len(b.len());
                            self.out.extend_from_slice(b);
                        } else {
                            return Err(cannot(obj, "bytes"));
                        }
                    }
                    P::Unit => {
                        if !obj.is_none() {
                            return Err(cannot(obj, "unit (None)"));
                        }
                    }
                    P::Date => {
                        let d = if crate::dates::is_plain_date(obj) {
                            ordinal_days(obj)?
                        } else if is_int() {
                            i64::from(obj.extract::<i32>().map_err(|_| cannot(obj, "date"))?)
                        } else {
                            return Err(cannot(obj, "date"));
                        };
                        let d = i32::try_from(d).map_err(|_| cannot(obj, "date"))?;
                        let x = i64::from(d);
                        varint::put_u64(&mut self.out, varint::zigzag64(x));
                    }
                    P::Timestamp => {
                        let t = if crate::dates::is_datetime(obj) {
                            timestamp_micros(obj)?
                        } else if is_int() {
                            obj.extract::<i64>().map_err(|_| cannot(obj, "timestamp"))?
                        } else {
                            return Err(cannot(obj, "timestamp"));
                        };
                        varint::put_u64(&mut self.out, varint::zigzag64(t));
                    }
                    _ => self.int(obj, *p)?,
                }
            }
            Plan::Vec(e, _) => {
                if let Ok(l) = obj.downcast::<PyList>() {
                    self.len(l.len());
                    for item in l.iter() {
                        self.value(&item, e, depth + 1)?;
                    }
                } else if let Ok(t) = obj.downcast::<PyTuple>() {
                    self.len(t.len());
                    for item in t.iter() {
                        self.value(&item, e, depth + 1)?;
                    }
                } else {
                    return Err(cannot(obj, "vec (a list)"));
                }
            }
            Plan::Array(n, e, _) => {
                let items = seq_items(obj).ok_or_else(|| cannot(obj, &plan.describe()))?;
                if items.len() as u64 != *n {
                    return Err(cannot(obj, &plan.describe()));
                }
                for item in items {
                    self.value(&item, e, depth + 1)?;
                }
            }
            Plan::Tuple(ts) => {
                let items = seq_items(obj).ok_or_else(|| cannot(obj, &plan.describe()))?;
                if items.len() != ts.len() {
                    return Err(cannot(obj, &plan.describe()));
                }
                for (item, t) in items.iter().zip(ts) {
                    self.value(item, t, depth + 1)?;
                }
            }
            Plan::Option(inner) => {
                if obj.is_none() {
                    self.out.push(0);
                } else {
                    self.out.push(1);
                    // xbf.Some is a tuple: skip the isinstance call for the rest.
                    if obj.is_instance_of::<PyTuple>() && obj.is_instance(refs(py)?.some.bind(py))? {
                        self.value(&obj.getattr("value")?, inner, depth + 1)?;
                    } else {
                        self.value(obj, inner, depth + 1)?;
                    }
                }
            }
            Plan::Struct { keys, fields, optional, seen, .. } => {
                if let Ok(d) = obj.downcast_exact::<PyDict>() {
                    if d.len() == keys.len() && self.dict_in_order(d, keys, fields, optional, seen, depth)? {
                        return Ok(());
                    }
                }
                if let Ok(d) = obj.downcast::<PyDict>() {
                    let mut present = 0usize;
                    for ((k, f), opt) in keys.iter().zip(fields).zip(optional) {
                        let Some(item) = d.get_item(k)? else {
                            if *opt {
                                self.out.push(0);
                                continue;
                            }
                            return Err(PyTypeError::new_err(format!(
                                "cannot encode {} as {}: it has no key {:?}",
                                short_repr(obj),
                                plan.describe(),
                                k.to_string()
                            )));
                        };
                        present += 1;
                        if *opt {
                            self.out.push(1);
                            let Plan::Enum { payloads, .. } = f else { unreachable!() };
                            self.value(&item, &payloads[1], depth + 1)
                        } else {
                            self.value(&item, f, depth + 1)
                        }?;
                    }
                    if present != d.len() {
                        return Err(PyTypeError::new_err(format!(
                            "cannot encode {} as {}: it has keys the struct lacks",
                            short_repr(obj),
                            plan.describe()
                        )));
                    }
                } else if is_dataclass(obj) {
                    for ((k, f), opt) in keys.iter().zip(fields).zip(optional) {
                        let item = obj.getattr(k)?;
                        if *opt {
                            self.out.push(1);
                            let Plan::Enum { payloads, .. } = f else { unreachable!() };
                            self.value(&item, &payloads[1], depth + 1)?
                        } else {
                            self.value(&item, f, depth + 1)?
                        }
                    }
                } else {
                    return Err(cannot(obj, &plan.describe()));
                }
            }
            Plan::Map(k, v) => {
                if let Ok(d) = obj.downcast::<PyDict>() {
                    self.len(d.len());
                    for (key, val) in d.iter() {
                        self.value(&key, k, depth + 1)?;
                        self.value(&val, v, depth + 1)?;
                    }
                } else if let Some(items) = seq_items(obj) {
                    self.len(items.len());
                    for pair in items {
                        let (key, val) = pair_of(&pair).map_err(|_| cannot(&pair, "a map entry (key, value)"))?;
                        self.value(&key, k, depth + 1)?;
                        self.value(&val, v, depth + 1)?;
                    }
                } else {
                    return Err(cannot(obj, "map (a dict)"));
                }
            }
            Plan::Enum { names, payloads, .. } => {
                let r = refs(py)?;
                let (name, payload) = if obj.is_instance(r.variant.bind(py))? {
                    (obj.getattr("name")?, obj.getattr("value")?)
                } else if obj.is_instance_of::<PyString>() {
                    (obj.clone(), py.None().into_bound(py))
                } else {
                    return Err(cannot(obj, &format!("{} (an xbf.Variant)", plan.describe())));
                };
                let i = names
                    .iter()
                    .position(|n| n.as_any().eq(&name).unwrap_or(false))
                    .ok_or_else(|| cannot(obj, &format!("{}: no such variant", plan.describe())))?;
                self.len(i);
                self.value(&payload, &payloads[i], depth + 1)?;
            }
            Plan::ZeroSize(_, inner) => self.value(obj, inner, depth)?,
            Plan::Any(open) => {
                // Scalars, the usual content of `any` columns: the type's
                // code, then the value, with no type tree built.
                let scalar = {
                    if obj.is_exact_instance_of::<PyString>() {
                        Some(P::String)
                    } else if obj.is_exact_instance_of::<PyFloat>() {
                        Some(P::F64)
                    } else if obj.is_none() {
                        Some(P::Unit)
                    } else if obj.is_instance_of::<PyBool>() {
                        Some(P::Bool)
                    } else if obj.is_exact_instance_of::<PyLong>() {
                        Some(int_bits(obj)?.primitive().ok_or_else(|| cannot(obj, "an integer of at most 256 bits"))?)
                    } else if obj.is_exact_instance_of::<PyBytes>() {
                        Some(P::Bytes)
                    } else {
                        None
                    }
                };
                if let Some(p) = scalar {
                    self.any_code(p)?;
                    return self.value(obj, &Plan::Prim(p), depth + 1);
                }
                let r = refs(py)?;
                let (ty, inner) = if obj.is_instance(r.typed.bind(py))? {
                    let s = obj.getattr("schema")?;
                    let s = s.downcast::<Schema>().map_err(|_| cannot(obj, "any"))?;
                    (s.get().ty.clone(), obj.getattr("value")?)
                } else {
                    (Shape::of(obj, depth)?.metadata().map_err(encode_err)?, obj.clone())
                };
                // Readers count the any value as a level, then its type's.
                if open + 1 + ty.depth() > MAX_DEPTH {
                    return Err(too_deep(py));
                }
                let meta = EncodeOptions::v2().encode_metadata(&ty).map_err(encode_err)?;
                self.out.extend_from_slice(&meta);
                let p = make_plan(py, &ty, open + 1);
                self.value(&inner, &p, depth + 1)?;
            }
        }
        Ok(())
    }
}

/// Whether `k`, a key of the data, is the struct key `key`: by identity
/// (with the data's own key object remembered in `seen`), else by content.
#[inline]
pub(crate) fn key_matches<'py>(
    k: &Bound<'py, PyAny>,
    key: &Bound<'py, PyString>,
    seen: &RefCell<Option<Bound<'py, PyAny>>>,
) -> bool {
    if k.is(key) || seen.borrow().as_ref().is_some_and(|s| s.is(k)) {
        return true;
    }
    let same = k.downcast_exact::<PyString>().is_ok_and(|ks| match (ks.to_str(), key.to_str()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    });
    if same {
        *seen.borrow_mut() = Some(k.clone());
    }
    same
}

impl Enc {
    /// A record whose keys are the struct's, in its order: written walking
    /// the dict in place, with no key lookups. `false` (and nothing written)
    /// when a key differs; the caller then looks each key up.
    pub(crate) fn dict_in_order<'py>(
        &mut self,
        d: &Bound<'py, PyDict>,
        keys: &[Bound<'py, PyString>],
        fields: &[Plan<'py>],
        optional: &[bool],
        seen: &[RefCell<Option<Bound<'py, PyAny>>>],
        depth: usize,
    ) -> PyResult<bool> {
        let mark = self.out.len();
        let mut pos = 0;
        for (i, (f, opt)) in fields.iter().zip(optional).enumerate() {
            // Writing a value can run Python code (a dataclass's properties)
            // that changes this dict: each key is checked as it comes.
            match dict_next(d, &mut pos) {
                Some((k, v)) if key_matches(&k, &keys[i], &seen[i]) => {
                    if *opt {
                        self.out.push(1);
                        let Plan::Enum { payloads, .. } = f else { unreachable!() };
                        self.value(&v, &payloads[1], depth + 1)?
                    } else {
                        self.value(&v, f, depth + 1)?
                    }
                }
                _ => {
                    self.out.truncate(mark);
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

pub(crate) fn seq_items<'py>(obj: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(l) = obj.downcast::<PyList>() {
        Some(l.iter().collect())
    } else if let Ok(t) = obj.downcast::<PyTuple>() {
        Some(t.iter().collect())
    } else {
        None
    }
}

/// Header + metadata + value of `obj` as type `ty` (rows), and where the value starts.
pub(crate) fn encode_rows(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    ty: &Metadata,
    version: u8,
) -> PyResult<(Vec<u8>, usize)> {
    let v2 = match version {
        1 => false,
        2 => true,
        _ => return Err(PyValueError::new_err(format!("XBF has versions 1 and 2, not {version}"))),
    };
    let opts = if v2 { EncodeOptions::v2() } else { EncodeOptions::v1() };
    let meta = opts.encode_metadata(ty).map_err(encode_err)?;
    let mut enc = Enc::new(Vec::with_capacity(meta.len() + 64), v2);
    if v2 {
        enc.out.extend_from_slice(&[wire::V2_MARKER, 0]);
    }
    enc.out.extend_from_slice(&meta);
    let head = enc.out.len();
    let p = make_plan(py, ty, 0);
    enc.value(obj, &p, 0)?;
    Ok((enc.out, head))
}

/// The columnar message of `obj` the long way (rows written by the native
/// encoder, read back by the core, laid out by its columnar writer), for
/// the tests: `dumps` must give the same bytes on its direct path.
#[pyfunction]
#[pyo3(signature = (obj, schema=None, compress=None))]
pub(crate) fn _columns_via_rows<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    schema: Option<&Bound<'py, Schema>>,
    compress: Option<i32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let ty = match schema {
        Some(s) => s.get().ty.clone(),
        None => inferred(py, Shape::of(obj, 0)?)?,
    };
    let (rows, head) = encode_rows(py, obj, &ty, 2)?;
    Ok(PyBytes::new_bound(py, &rows_to_columns(&ty, &rows[head..], compress)?))
}

/// `columnar`: None = columns when there are enough repeated items and
/// they come out smaller (the core's `Layout::Auto`), True = columns,
/// False = rows. `compress`: a zstd level for the columns. `learned`: an
/// `xbf.Encoder`'s state, used and updated for lists of flat records (the
/// bytes are the same without it).
#[pyfunction]
#[pyo3(signature = (obj, version=2, schema=None, columnar=None, compress=None, learned=None))]
pub(crate) fn dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    version: u8,
    schema: Option<&Bound<'py, Schema>>,
    columnar: Option<bool>,
    compress: Option<i32>,
    learned: Option<&Bound<'py, Learned>>,
) -> PyResult<Bound<'py, PyBytes>> {
    if version == 1 && (columnar == Some(true) || compress.is_some()) {
        return Err(PyValueError::new_err("XBF v1 has no columnar layout (use version=2)"));
    }
    if compress.is_some() && columnar == Some(false) {
        return Err(PyValueError::new_err("compress applies to columns: it needs columnar=True or None"));
    }
    if compress.is_some() && !cfg!(feature = "zstd") {
        return Err(PyValueError::new_err("this build of xbf has no zstd (build with the `zstd` feature)"));
    }
    if schema.is_none() && version == 2 {
        // Lists of flat records: type and columns gathered in one pass, then
        // the layout written from them (the rows too, with no second walk
        // of the Python objects).
        // (An encoder in use further up the stack, which Python code run
        // by the general path could reach, is left alone.)
        let mut learned = learned.and_then(|l| l.try_borrow_mut().ok());
        if let Some(mut g) = gather(obj, learned.as_deref_mut())? {
            let out = records_message(py, &mut g, columnar, compress, learned.is_some())?;
            if let Some(l) = learned.as_deref_mut() {
                l.recycle(g.cols);
            }
            if let Some(out) = out {
                return Ok(out);
            }
        }
    }
    let ty = match schema {
        Some(s) => s.get().ty.clone(),
        None => inferred(py, Shape::of(obj, 0)?)?,
    };
    let try_columns = version == 2 && (columnar == Some(true) || (columnar.is_none() && worth_columns(obj)));
    if try_columns {
        // Straight to core values when the data allows; the rows are then
        // encoded only if they may be the smaller.
        if let Some((cols, rows_len)) = columns_direct(py, obj, &ty, compress)? {
            if columnar == Some(true) || cols.len() < rows_len {
                return Ok(PyBytes::new_bound(py, &cols));
            }
            let (rows, _) = encode_rows(py, obj, &ty, version)?;
            debug_assert_eq!(rows.len(), rows_len);
            return Ok(PyBytes::new_bound(py, &rows));
        }
    }
    let (rows, head) = encode_rows(py, obj, &ty, version)?;
    let out = match columnar {
        _ if version == 1 => rows,
        Some(false) => rows,
        Some(true) => rows_to_columns(&ty, &rows[head..], compress)?,
        None if worth_columns(obj) => {
            let cols = rows_to_columns(&ty, &rows[head..], compress)?;
            if cols.len() < rows.len() {
                cols
            } else {
                rows
            }
        }
        None => rows,
    };
    Ok(PyBytes::new_bound(py, &out))
}

/// The message of gathered records in the layout `columnar` asks for (for
/// `auto`, the columns when there are enough records and they come out
/// smaller); `None` for a type the gathered path does not take.
/// `keep`: the gathered buffers are wanted after (an encoder reuses them).
fn records_message<'py>(
    py: Python<'py>,
    g: &mut Gathered,
    columnar: Option<bool>,
    compress: Option<i32>,
    keep: bool,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    // `worth_columns(obj)` without walking the objects again.
    if !columnar.unwrap_or_else(|| g.worth_columns()) {
        return Ok(g.rows(0)?.map(|rows| PyBytes::new_bound(py, &rows)));
    }
    // The columns when smaller than the rows: at once (written into the
    // `bytes` returned) when smaller than the least the rows can take,
    // else against the rows written.
    let Some((cols, rows_min)) = g.columns(py, compress, columnar == Some(true), keep)? else { return Ok(None) };
    let cols = match cols {
        Written::Bytes(b) => return Ok(Some(b)),
        Written::Buffer(cols) => cols,
    };
    Ok(g.rows(rows_min)?.map(|rows| PyBytes::new_bound(py, if cols.len() < rows.len() { &cols } else { &rows })))
}
