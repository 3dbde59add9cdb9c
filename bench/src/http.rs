//! The paper's evaluation over real HTTP on 127.0.0.1: a hyper server that
//! serializes the S&P rows per request (uncached), and a raw HTTP/1.1 client
//! on blocking sockets in another thread.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use xbf::{DecodeOptions, EncodeOptions, Layout, Value, Version};

use crate::data::{quotes_native, Quote};

pub struct State {
    rows: Vec<Quote>,
    v1_value: Value,
    v2_value: Value,
}

/// (path, name, paper's time ms, paper's bytes)
pub const FORMATS: &[(&str, &str, Option<f64>, Option<u64>)] = &[
    ("csv", "CSV", Some(18.93), Some(16_411)),
    ("json", "JSON", Some(21.91), Some(31_180)),
    ("xml", "XML", Some(21.87), Some(43_699)),
    ("msgpack-names", "MessagePack (names)", None, None),
    ("msgpack-arrays", "MessagePack (arrays)", Some(11.22), Some(15_565)),
    ("cbor", "CBOR", Some(16.95), Some(25_507)),
    ("xbf-v1", "XBF v1 (with metadata)", Some(11.32), Some(14_686)),
    ("xbf-v1-data", "XBF v1 data-only", None, None),
    ("xbf2-rows", "XBF 2 rows", None, None),
    ("xbf2-columnar", "XBF 2 columnar", None, None),
];

#[derive(Serialize)]
struct XmlRows<'a> {
    row: &'a [Quote],
}

#[derive(serde::Deserialize)]
struct XmlRowsOwned {
    row: Vec<Quote>,
}

pub fn encode(st: &State, path: &str) -> Result<Vec<u8>, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    match path {
        "csv" => {
            let mut w = csv::Writer::from_writer(Vec::new());
            for r in &st.rows {
                w.serialize(r).map_err(|x| e(&x))?;
            }
            w.into_inner().map_err(|x| e(&x))
        }
        "json" => serde_json::to_vec(&st.rows).map_err(|x| e(&x)),
        "xml" => quick_xml::se::to_string_with_root("rows", &XmlRows { row: &st.rows[..] })
            .map(String::into_bytes)
            .map_err(|x| e(&x)),
        "msgpack-names" => rmp_serde::to_vec_named(&st.rows).map_err(|x| e(&x)),
        "msgpack-arrays" => rmp_serde::to_vec(&st.rows).map_err(|x| e(&x)),
        "cbor" => {
            let mut out = Vec::new();
            ciborium::into_writer(&st.rows, &mut out).map_err(|x| e(&x))?;
            Ok(out)
        }
        "xbf-v1" => EncodeOptions::v1().to_vec(&st.rows).map_err(|x| e(&x)),
        "xbf-v1-data" => EncodeOptions::v1().encode_value(&st.v1_value).map_err(|x| e(&x)),
        "xbf2-rows" => xbf::to_vec(&st.rows).map_err(|x| e(&x)),
        "xbf2-columnar" => EncodeOptions::v2().layout(Layout::Columnar).encode_message(&st.v2_value).map_err(|x| e(&x)),
        _ => Err("no such format".into()),
    }
}

/// The client's decode, checked against the rows.
pub fn decode_check(st: &State, path: &str, b: &[u8]) -> Result<bool, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    Ok(match path {
        "csv" => {
            csv::Reader::from_reader(b).deserialize().collect::<Result<Vec<Quote>, _>>().map_err(|x| e(&x))? == st.rows
        }
        "json" => serde_json::from_slice::<Vec<Quote>>(b).map_err(|x| e(&x))? == st.rows,
        "xml" => {
            let s = std::str::from_utf8(b).map_err(|x| e(&x))?;
            quick_xml::de::from_str::<XmlRowsOwned>(s).map_err(|x| e(&x))?.row == st.rows
        }
        "msgpack-names" | "msgpack-arrays" => rmp_serde::from_slice::<Vec<Quote>>(b).map_err(|x| e(&x))? == st.rows,
        "cbor" => ciborium::from_reader::<Vec<Quote>, _>(b).map_err(|x| e(&x))? == st.rows,
        "xbf-v1" | "xbf2-rows" => xbf::from_slice::<Vec<Quote>>(b).map_err(|x| e(&x))? == st.rows,
        "xbf-v1-data" => {
            DecodeOptions::default().decode_value(Version::V1, &st.v1_value.metadata(), b).map_err(|x| e(&x))?
                == st.v1_value
        }
        "xbf2-columnar" => xbf::decode_message(b).map_err(|x| e(&x))? == st.v2_value,
        _ => false,
    })
}

pub fn state(rows: Vec<Quote>) -> State {
    let v1_value = xbf::decode_message(&EncodeOptions::v1().to_vec(&rows).unwrap()).unwrap();
    let v2_value = xbf::decode_message(&xbf::to_vec(&rows).unwrap()).unwrap();
    State { rows, v1_value, v2_value }
}

async fn handle(
    st: Arc<State>,
    req: Request<hyper::body::Incoming>,
) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
    let path = req.uri().path().trim_start_matches('/').to_string();
    Ok(match encode(&st, &path) {
        Ok(b) => Response::builder()
            .header("content-type", "application/octet-stream")
            .header("content-length", b.len())
            .body(Full::new(Bytes::from(b)))
            .unwrap(),
        Err(x) => Response::builder().status(404).body(Full::new(Bytes::from(x))).unwrap(),
    })
}

/// Starts the server on a runtime of its own thread; returns its address.
pub fn serve(st: Arc<State>) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                stream.set_nodelay(true).ok();
                let st = st.clone();
                tokio::spawn(async move {
                    let svc = service_fn(move |req| handle(st.clone(), req));
                    let _ = http1::Builder::new().keep_alive(true).serve_connection(TokioIo::new(stream), svc).await;
                });
            }
        });
    });
    rx.recv().unwrap()
}

/// One GET on `s`; returns (body, bytes on the wire).
fn get(s: &mut TcpStream, path: &str, keep: bool) -> std::io::Result<(Vec<u8>, usize)> {
    let conn = if keep { "keep-alive" } else { "close" };
    write!(s, "GET /{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: {conn}\r\n\r\n")?;
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::Error::other("closed before the headers"));
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = std::str::from_utf8(&buf[..head_end]).map_err(std::io::Error::other)?.to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
        .ok_or_else(|| std::io::Error::other("no content-length"))?;
    while buf.len() < head_end + len {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::Error::other("closed early"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let wire = buf.len();
    Ok((buf[head_end..head_end + len].to_vec(), wire))
}

#[derive(Serialize, serde::Deserialize, Clone, Debug)]
pub struct HttpResult {
    pub path: String,
    pub name: String,
    pub paper_ms: Option<f64>,
    pub paper_bytes: Option<u64>,
    pub body_bytes: u64,
    pub wire_bytes: u64,
    pub native: u64,
    pub roundtrip: bool,
    pub new_conn_ms: Vec<f64>,
    pub keepalive_ms: Vec<f64>,
    pub decode_ms: Vec<f64>,
}

#[derive(Serialize, serde::Deserialize, Clone, Debug)]
pub struct HttpRun {
    pub requests: usize,
    pub results: Vec<HttpResult>,
}

/// `n` requests per format on new connections and `n` on one kept-alive
/// connection per format, formats interleaved round by round.
pub fn run(rows: Vec<Quote>, n: usize) -> Result<HttpRun, String> {
    let native = quotes_native(&rows);
    let st = Arc::new(state(rows));
    let addr = serve(st.clone());
    let mut res: Vec<HttpResult> = FORMATS
        .iter()
        .map(|&(p, name, pm, pb)| HttpResult {
            path: p.into(),
            name: name.into(),
            paper_ms: pm,
            paper_bytes: pb,
            body_bytes: 0,
            wire_bytes: 0,
            native,
            roundtrip: false,
            new_conn_ms: vec![],
            keepalive_ms: vec![],
            decode_ms: vec![],
        })
        .collect();
    let mut keep: Vec<TcpStream> = Vec::new();
    for _ in FORMATS {
        let s = TcpStream::connect(addr).map_err(|x| x.to_string())?;
        s.set_nodelay(true).ok();
        keep.push(s);
    }
    // Warm-up, one of each, and the round-trip check.
    for (i, r) in res.iter_mut().enumerate() {
        let (body, wire) = get(&mut keep[i], &r.path, true).map_err(|x| x.to_string())?;
        r.body_bytes = body.len() as u64;
        r.wire_bytes = wire as u64;
        r.roundtrip = decode_check(&st, &r.path, &body)?;
    }
    for _ in 0..n {
        for (i, r) in res.iter_mut().enumerate() {
            let t = Instant::now();
            let mut s = TcpStream::connect(addr).map_err(|x| x.to_string())?;
            s.set_nodelay(true).ok();
            let (body, _) = get(&mut s, &r.path, false).map_err(|x| x.to_string())?;
            r.new_conn_ms.push(t.elapsed().as_secs_f64() * 1e3);
            drop(s);
            let t = Instant::now();
            let (body2, _) = get(&mut keep[i], &r.path, true).map_err(|x| x.to_string())?;
            r.keepalive_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let ok = decode_check(&st, &r.path, &body)?;
            r.decode_ms.push(t.elapsed().as_secs_f64() * 1e3);
            if !ok || body2 != body {
                r.roundtrip = false;
            }
        }
    }
    Ok(HttpRun { requests: n, results: res })
}
