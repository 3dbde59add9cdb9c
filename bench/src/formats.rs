//! The formats, as encode/decode closures over one dataset type `T`, and the
//! interleaved timing loop.

use std::io::Write as _;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use xbf::{DecodeOptions, EncodeOptions, Layout, Value};

pub type R<T> = Result<T, String>;

/// A format's encoder of the dataset.
pub type EncodeFn<T> = Box<dyn Fn(&T) -> R<Vec<u8>>>;
/// A format's decoder of its bytes.
pub type DecodeFn<T> = Box<dyn Fn(&[u8]) -> R<Out<T>>>;
/// The round-trip check of a format that decodes into borrowed records.
pub type CheckFn<T> = Box<dyn Fn(&[u8], &T) -> bool>;

/// The reference row that clones the records instead of decoding them.
pub const CLONE: &str = "clone of the records (no decoding)";

/// What a decoder returns: the typed records, or an XBF dynamic value (checked
/// against the value it was encoded from), or a projection (checked by count),
/// or the count of records it decoded into borrowed types and dropped
/// (checked by the format's `check`).
pub enum Out<T> {
    Typed(T),
    Dynamic(Value),
    Projected(Value),
    Borrowed(usize),
}

pub struct Fmt<T> {
    pub name: String,
    pub enc: EncodeFn<T>,
    pub dec: DecodeFn<T>,
    /// The dynamic value this format encodes (XBF dynamic), for the check.
    pub value: Option<Value>,
    /// The projected field, for the check of a projection.
    pub proj: Option<String>,
    /// For [`Out::Borrowed`]: decodes the bytes again and compares them with
    /// the records (the round-trip check, outside the timing).
    pub check: Option<CheckFn<T>>,
}

pub fn e<E: std::fmt::Display>(x: E) -> String {
    x.to_string()
}

pub fn typed<T: 'static>(
    name: &str,
    enc: impl Fn(&T) -> R<Vec<u8>> + 'static,
    dec: impl Fn(&[u8]) -> R<T> + 'static,
) -> Fmt<T> {
    Fmt {
        name: name.into(),
        enc: Box::new(enc),
        dec: Box::new(move |b| dec(b).map(Out::Typed)),
        value: None,
        proj: None,
        check: None,
    }
}

#[derive(Serialize, Deserialize)]
struct XmlRoot<V> {
    v: V,
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(9));
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

pub fn gunzip(bytes: &[u8]) -> R<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).map_err(e)?;
    Ok(out)
}

pub fn zstd19(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, 19).unwrap()
}

/// The serde peers and XBF, for any serde type. `projection`: a field path
/// for the XBF 2 columnar projection; `xbf_v1`: whether to try XBF v1.
pub fn serde_formats<T>(sample: &T, projection: Option<&str>) -> Vec<Fmt<T>>
where
    T: Serialize + DeserializeOwned + Clone + PartialEq + 'static,
    T: xbf::fast::Encode + for<'de> xbf::fast::Decode<'de>,
{
    let mut f: Vec<Fmt<T>> = vec![
        typed("JSON (serde_json)", |t: &T| serde_json::to_vec(t).map_err(e), |b| serde_json::from_slice(b).map_err(e)),
        #[cfg(feature = "simd-json")]
        crate::peers::simd_json::<T>(),
        typed(
            "MessagePack names (rmp-serde)",
            |t: &T| rmp_serde::to_vec_named(t).map_err(e),
            |b| rmp_serde::from_slice(b).map_err(e),
        ),
        typed(
            "MessagePack arrays (rmp-serde)",
            |t: &T| rmp_serde::to_vec(t).map_err(e),
            |b| rmp_serde::from_slice(b).map_err(e),
        ),
        typed(
            "CBOR (ciborium)",
            |t: &T| {
                let mut out = Vec::new();
                ciborium::into_writer(t, &mut out).map_err(e)?;
                Ok(out)
            },
            |b| ciborium::from_reader(b).map_err(e),
        ),
        typed(
            "XML (quick-xml)",
            |t: &T| quick_xml::se::to_string(&XmlRoot { v: t }).map(String::into_bytes).map_err(e),
            |b| {
                let s = std::str::from_utf8(b).map_err(e)?;
                quick_xml::de::from_str::<XmlRoot<T>>(s).map(|r| r.v).map_err(e)
            },
        ),
        typed(
            "XML+gzip (quick-xml, flate2 -9)",
            |t: &T| quick_xml::se::to_string(&XmlRoot { v: t }).map(|s| gzip(s.as_bytes())).map_err(e),
            |b| {
                let raw = gunzip(b)?;
                let s = std::str::from_utf8(&raw).map_err(e)?;
                quick_xml::de::from_str::<XmlRoot<T>>(s).map(|r| r.v).map_err(e)
            },
        ),
        typed("bincode 1", |t: &T| bincode::serialize(t).map_err(e), |b| bincode::deserialize(b).map_err(e)),
        typed("postcard", |t: &T| postcard::to_allocvec(t).map_err(e), |b| postcard::from_bytes(b).map_err(e)),
        typed("bitcode (serde)", |t: &T| bitcode::serialize(t).map_err(e), |b| bitcode::deserialize(b).map_err(e)),
        typed("XBF v1 typed", |t: &T| EncodeOptions::v1().to_vec(t).map_err(e), |b| xbf::from_slice(b).map_err(e)),
        typed("XBF 2 rows typed", |t: &T| xbf::to_vec(t).map_err(e), |b| xbf::from_slice(b).map_err(e)),
        // #[derive(xbf::Xbf)]: the same bytes as the two above, without serde.
        typed(
            "XBF v1 derive",
            |t: &T| xbf::fast::to_vec_with(&EncodeOptions::v1(), t).map_err(e),
            |b| xbf::fast::from_slice(b).map_err(e),
        ),
        typed("XBF 2 rows derive", |t: &T| xbf::fast::to_vec(t).map_err(e), |b| xbf::fast::from_slice(b).map_err(e)),
    ];
    // A reference, not a format: a clone of the records (allocating,
    // copying and freeing every string and vec the decoders build), the
    // floor under any decoder into these owned types.
    let records = sample.clone();
    f.push(Fmt {
        name: CLONE.into(),
        enc: Box::new(|_| Ok(Vec::new())),
        dec: Box::new(move |_| Ok(Out::Typed(records.clone()))),
        value: None,
        proj: None,
        check: None,
    });
    // The dynamic forms: the value the typed API would write, as a Value.
    let dyn_value = xbf::to_vec(sample).and_then(|b| xbf::decode_message(&b));
    let v1_value = EncodeOptions::v1().to_vec(sample).and_then(|b| xbf::decode_message(&b));
    for (name, opts, value) in [
        ("XBF v1 dynamic", EncodeOptions::v1(), &v1_value),
        ("XBF 2 rows dynamic", EncodeOptions::v2().layout(Layout::Rows), &dyn_value),
        ("XBF 2 columnar", EncodeOptions::v2().layout(Layout::Columnar), &dyn_value),
        (
            "XBF 2 columnar+zstd",
            EncodeOptions::v2().layout(Layout::Columnar).compress_columns(Some(19)).unwrap(),
            &dyn_value,
        ),
    ] {
        f.push(dyn_fmt(name, opts, value.as_ref().ok().cloned(), value.as_ref().err().map(|x| x.to_string())));
    }
    // Columnar bytes read into the typed records: `from_slice` reads the
    // columns straight into the serde types, value by value; the derive
    // path (`fast::from_slice`) reads each column whole.
    let columnar = |zstd: Option<i32>| {
        let opts = EncodeOptions::v2().layout(Layout::Columnar).compress_columns(zstd).unwrap();
        let value = dyn_value.as_ref().ok().cloned();
        let why = dyn_value.as_ref().err().map(|x| x.to_string());
        move |_t: &T| match &value {
            Some(v) => opts.encode_message(v).map_err(e),
            None => Err(why.clone().unwrap_or_default()),
        }
    };
    f.push(typed("XBF 2 columnar → typed (from_slice)", columnar(None), |b| {
        DecodeOptions::default().from_slice::<T>(b).map_err(e)
    }));
    f.push(typed("XBF 2 columnar → typed (derive)", columnar(None), |b| xbf::fast::from_slice::<T>(b).map_err(e)));
    f.push(typed("XBF 2 columnar+zstd → typed (derive)", columnar(Some(19)), |b| {
        xbf::fast::from_slice::<T>(b).map_err(e)
    }));
    if let (Some(path), Ok(v)) = (projection, &dyn_value) {
        let p = path.to_string();
        let opts = EncodeOptions::v2().layout(Layout::Columnar);
        let v2 = v.clone();
        f.push(Fmt {
            name: format!("XBF 2 columnar, project `{path}`"),
            enc: Box::new(move |_| opts.encode_message(&v2).map_err(e)),
            dec: Box::new(move |b| {
                DecodeOptions::default().decode_projected(b, &[p.as_str()]).map(Out::Projected).map_err(e)
            }),
            value: Some(v.clone()),
            proj: Some(path.to_string()),
            check: None,
        });
    }
    f
}

/// Columnar XBF of the S&P rows with the date as XBF's `date` type
/// (`quotes_dated`), encoded and decoded as a `Value`.
pub fn dated_columns<T: 'static>(value: xbf::Result<Value>) -> Fmt<T> {
    let why = value.as_ref().err().map(|x| x.to_string());
    dyn_fmt(DATED, EncodeOptions::v2().layout(Layout::Columnar), value.ok(), why)
}

/// The name of [`dated_columns`]' row.
pub const DATED: &str = "XBF 2 columnar, date typed as `date`";

fn dyn_fmt<T: 'static>(name: &str, opts: EncodeOptions, value: Option<Value>, why: Option<String>) -> Fmt<T> {
    let v = value.clone();
    Fmt {
        name: name.into(),
        enc: Box::new(move |_t: &T| match &v {
            Some(v) => opts.encode_message(v).map_err(e),
            None => Err(why.clone().unwrap_or_default()),
        }),
        dec: Box::new(|b| xbf::decode_message(b).map(Out::Dynamic).map_err(e)),
        value,
        proj: None,
        check: None,
    }
}

/// CSV through serde, for flat records.
pub fn csv_format<X: Serialize + DeserializeOwned + 'static>() -> Fmt<Vec<X>> {
    typed(
        "CSV (csv)",
        |t: &Vec<X>| {
            let mut w = csv::Writer::from_writer(Vec::new());
            for x in t {
                w.serialize(x).map_err(e)?;
            }
            w.into_inner().map_err(e)
        },
        |b| csv::Reader::from_reader(b).deserialize().collect::<Result<Vec<X>, _>>().map_err(e),
    )
}

/// Protocol Buffers (prost, hand-written derives): the list as a repeated
/// message field 1, without copying the records into a wrapper.
pub fn prost_format<X, L>(unwrap: fn(L) -> Vec<X>) -> Fmt<Vec<X>>
where
    X: prost::Message + Default + 'static,
    L: prost::Message + Default + 'static,
{
    typed(
        "Protocol Buffers (prost)",
        |t: &Vec<X>| {
            let mut buf = Vec::new();
            for x in t {
                prost::encoding::message::encode(1, x, &mut buf);
            }
            Ok(buf)
        },
        move |b| L::decode(b).map(unwrap).map_err(e),
    )
}

pub fn prost_single<X: prost::Message + Default + 'static>() -> Fmt<X> {
    typed("Protocol Buffers (prost)", |t: &X| Ok(t.encode_to_vec()), |b| X::decode(b).map_err(e))
}

/// One format's measurements on one dataset.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Measure {
    pub format: String,
    pub bytes: Option<u64>,
    pub gzip: Option<u64>,
    pub zstd: Option<u64>,
    pub roundtrip: Option<bool>,
    pub error: Option<String>,
    pub encode_ns: Vec<f64>,
    pub decode_ns: Vec<f64>,
    pub encode_median_ns: Option<f64>,
    pub decode_median_ns: Option<f64>,
    /// Peak live heap bytes during one decode (allocations made by the
    /// decoder, its output included), from a pass of its own after timing.
    #[serde(default)]
    pub decode_peak_bytes: Option<u64>,
}

pub fn median(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Some(s[s.len() / 2])
}

fn check<T: PartialEq>(f: &Fmt<T>, data: &T, bytes: &[u8], out: &Out<T>) -> bool {
    match out {
        Out::Borrowed(n) => f.check.as_ref().is_some_and(|c| *n > 0 && c(bytes, data)),
        Out::Typed(t) => t == data,
        Out::Dynamic(v) => f.value.as_ref() == Some(v),
        Out::Projected(v) => {
            // Each element's field equals the full value's.
            let (Some(full), Some(field)) = (&f.value, &f.proj) else { return false };
            match (full.as_vec(), v.as_vec()) {
                (Some(a), Some(b)) => {
                    a.len() == b.len()
                        && a.items()
                            .iter()
                            .zip(b.items())
                            .all(|(x, y)| x.get(field).is_some() && x.get(field) == y.get(field))
                }
                _ => false,
            }
        }
    }
}

/// Sizes, the round-trip check, then `rounds` interleaved rounds of timing
/// (each sample: enough iterations to last `min_sample`), medians kept.
pub fn measure<T: PartialEq>(data: &T, fmts: &[Fmt<T>], rounds: usize, min_sample: Duration) -> Vec<Measure> {
    let mut ms: Vec<Measure> = Vec::new();
    let mut enc_bytes: Vec<Option<Vec<u8>>> = Vec::new();
    for f in fmts {
        let mut m = Measure { format: f.name.clone(), ..Default::default() };
        match (f.enc)(data) {
            Ok(b) => {
                // Only a reference row (the clone) encodes to nothing: no sizes.
                if !b.is_empty() {
                    m.bytes = Some(b.len() as u64);
                    m.gzip = Some(gzip(&b).len() as u64);
                    m.zstd = Some(zstd19(&b).len() as u64);
                }
                match (f.dec)(&b) {
                    Ok(out) => m.roundtrip = Some(check(f, data, &b, &out)),
                    Err(x) => {
                        m.roundtrip = Some(false);
                        m.error = Some(format!("decode: {x}"));
                    }
                }
                enc_bytes.push(if m.roundtrip == Some(true) { Some(b) } else { None });
            }
            Err(x) => {
                m.error = Some(format!("encode: {x}"));
                enc_bytes.push(None);
            }
        }
        ms.push(m);
    }
    // Peak memory of one decode each, in a pass of its own (the counting
    // allocator counts only while this pass runs).
    for (i, f) in fmts.iter().enumerate() {
        let Some(b) = &enc_bytes[i] else { continue };
        let (out, peak) = crate::mem::peak_during(|| (f.dec)(b));
        drop(out);
        ms[i].decode_peak_bytes = Some(peak);
    }
    if rounds == 0 {
        return ms;
    }
    // Iterations per sample, from one timed call each.
    let iters: Vec<(u32, u32)> = fmts
        .iter()
        .zip(&enc_bytes)
        .map(|(f, b)| match b {
            Some(b) => {
                let t = Instant::now();
                let _ = (f.enc)(data);
                let te = t.elapsed().max(Duration::from_nanos(50));
                let t = Instant::now();
                let _ = (f.dec)(b);
                let td = t.elapsed().max(Duration::from_nanos(50));
                let n = |d: Duration| ((min_sample.as_secs_f64() / d.as_secs_f64()).ceil() as u32).clamp(1, 100_000);
                (n(te), n(td))
            }
            None => (0, 0),
        })
        .collect();
    for _ in 0..rounds {
        for (i, f) in fmts.iter().enumerate() {
            let Some(b) = &enc_bytes[i] else { continue };
            let (ne, nd) = iters[i];
            let t = Instant::now();
            for _ in 0..ne {
                std::hint::black_box((f.enc)(std::hint::black_box(data)).ok());
            }
            ms[i].encode_ns.push(t.elapsed().as_nanos() as f64 / ne as f64);
            let t = Instant::now();
            for _ in 0..nd {
                std::hint::black_box((f.dec)(std::hint::black_box(b)).ok());
            }
            ms[i].decode_ns.push(t.elapsed().as_nanos() as f64 / nd as f64);
        }
    }
    for m in &mut ms {
        m.encode_median_ns = median(&m.encode_ns);
        m.decode_median_ns = median(&m.decode_ns);
    }
    ms
}
